import { writePsdUint8Array, type Layer } from 'ag-psd';
import { describe, expect, it } from 'vitest';
import { effectKernel, MAX_EFFECT_READ } from '../../../src/engine/memory/effect-reach';
import type { LayerNode } from '../../../src/engine/types';
import { postJson, upload } from '../../dynamic-image/helpers';

/**
 * Session 19 fuzz (seed 35): a 250 px inside stroke on a 3 × 2 template previewed 111× read
 * 27,750 px and held over 3 GB before the render was killed. An upscaled preview whose effects
 * read past the effect tiles (src/engine/memory/effect-reach.ts) is refused with a 422 naming
 * the layer; the same template at 3.5× (an 875 px reach) renders.
 */
const px = (value: number) => ({ units: 'Pixels' as const, value });
const W = 4;
const H = 4;
const solid = (w: number, h: number) => ({ width: w, height: h, data: new Uint8ClampedArray(w * h * 4).fill(200) });

function template(): Uint8Array {
  const stroked: Layer = {
    name: 'Stroked',
    left: 1,
    top: 1,
    imageData: solid(2, 2),
    effects: { stroke: [{ enabled: true, present: true, size: px(250), position: 'inside', fillType: 'color', color: { r: 255, g: 0, b: 0 }, opacity: 1, blendMode: 'normal' }] },
  };
  return writePsdUint8Array({ width: W, height: H, imageData: solid(W, H), children: [{ name: 'Background', left: 0, top: 0, imageData: solid(W, H) }, stroked] }, { generateThumbnail: false });
}

describe('Effect reach at the preview scale', () => {
  it('measures the farthest kernel: a bevel with its soften, not a shadow\'s or a satin\'s distance', () => {
    const node = (effects: object) => ({ effects }) as unknown as LayerNode;
    expect(effectKernel(node({ dropShadow: [{ enabled: true, size: px(20), distance: px(30000) }] }))).toEqual({ effect: 'drop shadow', px: 20 });
    expect(effectKernel(node({ bevel: { enabled: true, size: px(250), soften: px(16) }, satin: { enabled: true, size: px(100), distance: px(3000) } }))).toEqual({ effect: 'bevel', px: 266 });
    expect(effectKernel(node({ stroke: [{ enabled: false, size: px(250) }] }))).toBeNull();
    expect(MAX_EFFECT_READ).toBe(896);
  });

  it('refuses with a 422 naming the layer a preview whose effects would read past it, and renders one within it', async () => {
    const res = await upload('templates', [['reach.psd', template()]], '?destination=effect-reach&overwrite=true');
    expect(res.status).toBe(201);
    const far = await postJson('/api/rendering/preview', { template: 'effect-reach/reach', format: 'png', size: { width: 444, height: 444 } });
    expect(far.status).toBe(422);
    const body = (await far.json()) as { details: Array<{ path: string; reason: string }> };
    expect(body.details).toEqual([{ path: 'layers.Stroked', reason: 'stroke of 250 px reads 27750 px at this size' }]);
    // 3.5×: the stroke reads 875 px, within the tiles.
    const near = await postJson('/api/rendering/preview', { template: 'effect-reach/reach', format: 'png', size: { width: 14, height: 14 } });
    expect(near.status).toBe(200);
  });
});
