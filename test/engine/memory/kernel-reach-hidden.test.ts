import { writePsdUint8Array, type Layer } from 'ag-psd';
import { beforeAll, describe, expect, it } from 'vitest';
import { previewRenderScale, UPSCALED_REACH } from '../../../src/engine/memory/budget';
import { mayShowHidden, templateReach } from '../../../src/engine/memory/kernel-reach';
import type { LayerNode } from '../../../src/engine/types';
import { call, postJson, upload } from '../../dynamic-image/helpers';

/**
 * An upscaled preview is drawn at the scale where its template's kernels reach UPSCALED_REACH
 * (memory/budget.ts previewRenderScale), but a layer the template hides is never drawn unless the
 * request shows it: a hidden alternative with a 250 px outer glow leaves a 3× preview of the rest
 * drawn at 3×, to the bytes of the same template without it (it was drawn at 2.048× and enlarged).
 */
const px = (value: number) => ({ units: 'Pixels' as const, value });
const checker = (w: number, h: number) => {
  const data = new Uint8ClampedArray(w * h * 4);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) data.set(((x >> 2) + (y >> 2)) & 1 ? [20, 20, 20, 255] : [240, 240, 240, 255], (y * w + x) * 4);
  return { width: w, height: h, data };
};
const glow = (hidden: boolean): Layer => ({
  name: 'Glow',
  left: 90,
  top: 90,
  hidden,
  imageData: checker(20, 20),
  effects: { outerGlow: { enabled: true, present: true, size: px(250), color: { r: 255, g: 0, b: 0 }, opacity: 1, blendMode: 'screen' } },
});
const psd = (children: Layer[]) => writePsdUint8Array({ width: 200, height: 200, imageData: checker(200, 200), children: [{ name: 'Background', left: 0, top: 0, imageData: checker(200, 200) }, ...children] }, { generateThumbnail: false });

async function previewBytes(template: string, data?: unknown): Promise<Uint8Array> {
  const res = await postJson('/api/rendering/preview?disableCache=true', { template, format: 'png', size: { width: 600, height: 600 }, ...(data ? { data } : {}) });
  expect(res.status).toBe(200);
  const name = (await res.text()).match(/\d{10}-[0-9a-f]{32}\.png/)![0];
  return new Uint8Array(await (await call(`/api/results/download/${name}`)).arrayBuffer());
}

beforeAll(async () => {
  const res = await upload('templates', [['hidden.psd', psd([glow(true)])], ['shown.psd', psd([glow(false)])], ['without.psd', psd([])]], '?destination=reach-hidden&overwrite=true');
  if (res.status !== 201) throw new Error(`upload: ${res.status} ${await res.text()}`);
});

describe("a hidden layer's kernels and an upscaled preview's scale", () => {
  it('count only where the request could show the layer', () => {
    const layers = [{ id: 1, name: 'Glow', visible: false, effects: { outerGlow: { enabled: true, size: px(250) } } }] as unknown as LayerNode[];
    const template = { width: 200, height: 200, layers };
    expect(templateReach(layers)).toBe(250);
    expect(templateReach(layers, false)).toBe(0);
    expect(previewRenderScale(template, 3)).toBeCloseTo(UPSCALED_REACH / 250, 12);
    expect(previewRenderScale(template, 3, false, false)).toBe(3);
  });

  it('a 3× preview with the glowing layer hidden has the bytes of the template without it; shown by the request, it is drawn as the shown one', async () => {
    const without = await previewBytes('reach-hidden/without');
    expect(await previewBytes('reach-hidden/hidden')).toEqual(without);
    expect(await previewBytes('reach-hidden/hidden', { Glow: { visible: true } })).toEqual(await previewBytes('reach-hidden/shown'));
  });

  it('data that could show a hidden layer: a switch, visible other than false, anything unreadable', () => {
    expect(mayShowHidden(undefined)).toBe(false);
    expect(mayShowHidden({ A: { type: 'text', text: 'x' }, B: { visible: false } })).toBe(false);
    expect(mayShowHidden({ A: { visible: true } })).toBe(true);
    expect(mayShowHidden({ A: { type: 'switch', select: 'x' } })).toBe(true);
    expect(mayShowHidden({ A: { visible: 'yes' } })).toBe(true);
    expect(mayShowHidden({ A: 'text' })).toBe(true);
    expect(mayShowHidden('data')).toBe(true);
  });
});
