import { writePsdUint8Array, type Layer } from 'ag-psd';
import { describe, expect, it } from 'vitest';
import { checkEffectReach, MAX_EFFECT_READ } from '../../../src/engine/memory/effect-reach';
import { effectKernel } from '../../../src/engine/memory/kernel-reach';
import type { LayerNode } from '../../../src/engine/types';
import { postJson, upload } from '../../dynamic-image/helpers';

/**
 * Session 19 fuzz (seed 35): a 250 px inside stroke on a 3 × 2 template previewed 111× read
 * 27,750 px and held over 3 GB before the render was killed. An upscaled preview is now drawn at
 * the scale where its kernels reach UPSCALED_REACH (memory/budget.ts) and enlarged, so it renders;
 * a render whose effects would still read past the effect tiles (a template compiled before the
 * upload's limits) is refused with a 422 naming the layer (src/engine/memory/effect-reach.ts).
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

  it('refuses with a 422 naming the layer a render whose effects would read past the tiles', () => {
    const stroked = { name: 'Stroked', effects: { stroke: [{ enabled: true, size: px(250) }] } } as unknown as LayerNode;
    const group = { name: 'Group', children: [stroked] } as unknown as LayerNode;
    expect(() => checkEffectReach([group], 3.5)).not.toThrow();
    expect(() => checkEffectReach([group], 111)).toThrow(expect.objectContaining({
      code: 'ERR_UNPROCESSABLE',
      details: [{ path: 'layers.Group/Stroked', reason: 'stroke of 250 px reads 27750 px at this size' }],
    }));
  });

  it('renders the 111× preview that held 3 GB, and the 3.5× one', async () => {
    const res = await upload('templates', [['reach.psd', template()]], '?destination=effect-reach&overwrite=true');
    expect(res.status).toBe(201);
    for (const side of [444, 14]) {
      const made = await postJson('/api/rendering/preview', { template: 'effect-reach/reach', format: 'png', size: { width: side, height: side } });
      expect(made.status).toBe(200);
    }
  });
});
