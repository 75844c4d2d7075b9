import { writePsdUint8Array, type Layer } from 'ag-psd';
import { describe, expect, it } from 'vitest';
import { previewRenderScale, UPSCALED_REACH } from '../../../src/engine/memory/budget';
import { templateReach } from '../../../src/engine/memory/kernel-reach';
import { encodePng } from '../../../src/engine/raster/codecs';
import type { LayerNode } from '../../../src/engine/types';
import { call, postJson, upload } from '../../dynamic-image/helpers';

/**
 * An upscaled preview draws its layer effects and mask feathers at the scale where they reach
 * UPSCALED_REACH output px, never below 1, and its frame's resize enlarges that to the output
 * (session 19 fuzz: a 250 px drop shadow at 4× took 53 s, a 1,000 px feather at 50× 9 s).
 */
const px = (value: number) => ({ units: 'Pixels' as const, value });
const node = (fields: object) => fields as unknown as LayerNode;

describe('Kernel reach of a template', () => {
  it('is the farthest effect or mask feather of any layer, nested groups included', () => {
    expect(templateReach([node({ name: 'a' })])).toBe(0);
    const layers = [
      node({ name: 'shadow', effects: { dropShadow: [{ enabled: true, size: px(40), distance: px(9000) }] } }),
      node({ name: 'group', children: [node({ name: 'feathered', mask: { feather: 120 } }), node({ name: 'vector', vectorMask: { feather: 60 } })] }),
      node({ name: 'off', effects: { outerGlow: { enabled: false, size: px(250) } } }),
    ];
    expect(templateReach(layers)).toBe(120);
  });

  it('caps an upscaled render scale where the kernels would reach past UPSCALED_REACH, never below 1', () => {
    const shadow = { width: 100, height: 60, layers: [node({ name: 's', effects: { dropShadow: [{ enabled: true, size: px(100) }] } })] };
    expect(previewRenderScale(shadow, 2)).toBe(2); // 200 px: drawn at the output's scale
    expect(previewRenderScale(shadow, 8)).toBeCloseTo(UPSCALED_REACH / 100, 12);
    const wide = { width: 100, height: 60, layers: [node({ name: 'f', mask: { feather: 1000 } })] };
    expect(previewRenderScale(wide, 50)).toBe(1);
    // Shrinking and s = 1 are as before: the pyramid level, or s.
    expect(previewRenderScale(shadow, 1)).toBe(1);
    expect(previewRenderScale(shadow, 0.3)).toBe(0.5);
    expect(previewRenderScale({ width: 100, height: 60 }, 8)).toBe(8);
  });

  it('renders an 8× preview of a template with a 100 px shadow and a 1,000 px feather, as drawn and personalised', async () => {
    const solid = (w: number, h: number, v: number) => ({ width: w, height: h, data: new Uint8ClampedArray(w * h * 4).fill(v) });
    const shadowed: Layer = {
      name: 'Photo',
      left: 20,
      top: 10,
      imageData: solid(40, 30, 220),
      effects: { dropShadow: [{ enabled: true, present: true, size: px(100), distance: px(5), angle: 120, opacity: 0.8, color: { r: 0, g: 0, b: 0 }, blendMode: 'multiply' }] },
    };
    const feathered: Layer = { name: 'Soft', left: 60, top: 20, imageData: solid(30, 30, 90), mask: { left: 60, top: 20, right: 90, bottom: 50, defaultColor: 0, imageData: solid(30, 30, 255), userMaskFeather: 1000 } };
    const psd = writePsdUint8Array(
      { width: 100, height: 60, imageData: solid(100, 60, 255), children: [{ name: 'Background', left: 0, top: 0, imageData: solid(100, 60, 255) }, shadowed, feathered] },
      { generateThumbnail: false },
    );
    expect((await upload('templates', [['reach8.psd', psd]], '?destination=kernel-reach&overwrite=true')).status).toBe(201);
    const picture = await encodePng({ width: 16, height: 12, data: new Uint8ClampedArray(16 * 12 * 4).fill(160) });
    expect((await upload('images', [['p.png', picture]], '?destination=kernel-reach&overwrite=true')).status).toBe(201);
    for (const data of [undefined, { Photo: { type: 'image', image: 'kernel-reach/p.png' } }]) {
      const made = await postJson('/api/rendering/preview', { template: 'kernel-reach/reach8', format: 'png', size: { width: 800, height: 800 }, data });
      expect(made.status).toBe(200);
      const url = new URL((await made.json()) as string);
      const file = await call(url.pathname + url.search);
      expect(file.status).toBe(200);
      const png = new Uint8Array(await file.arrayBuffer());
      const view = new DataView(png.buffer);
      expect([view.getUint32(16), view.getUint32(20)]).toEqual([800, 480]);
    }
  });
});
