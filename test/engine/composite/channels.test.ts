import { writePsdUint8Array, type Layer, type Psd } from 'ag-psd';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, renderTemplate } from '../../../src/engine';
import { blendSurface } from '../../../src/engine/composite/blend';
import type { Surface } from '../../../src/engine/composite/surface';
import { readLayerRecords } from '../../../src/engine/psd/records';

/**
 * Channel restrictions (Blending Options > Advanced Blending > Channels: R, G, B). Adobe: "you
 * can choose to exclude the red channel from blending; in the composite image, only the
 * information in the green and blue channels is affected." A left-out channel keeps the
 * backdrop's value, whatever the mode, opacity or fill.
 */

type RGB = [number, number, number];
const px = (c: RGB, a = 255): Surface => ({ x: 0, y: 0, w: 1, h: 1, data: new Uint8ClampedArray([...c, a]) });
const fillImage = (c: RGB, w = 4, h = 2) => {
  const data = new Uint8ClampedArray(w * h * 4);
  for (let i = 0; i < w * h; i++) data.set([...c, 255], i * 4);
  return { width: w, height: h, data };
};
async function render(children: Layer[]) {
  const psd: Psd = { width: 4, height: 2, children };
  const bytes = writePsdUint8Array(psd);
  const compiled = await compileTemplate(env.FILES, bytes);
  const img = await renderTemplate(env.FILES, compiled, { scale: 1 });
  return { bytes, at: (x: number, y: number) => [...img.data.subarray((y * 4 + x) * 4, (y * 4 + x) * 4 + 3)] };
}
const BG: RGB = [200, 100, 50];

describe('channel restrictions', () => {
  it('keeps the backdrop in a left-out channel, in any mode and at any fill', () => {
    const d = px(BG);
    blendSurface(d, px([10, 20, 30]), null, 1, 'normal', { excludedChannels: [0] });
    expect([...d.data]).toEqual([200, 20, 30, 255]);
    const dodge = px(BG);
    blendSurface(dodge, px([100, 200, 60]), null, 1, 'linear dodge', { excludedChannels: [1, 2], fill: 0.5 });
    expect([...dodge.data]).toEqual([250, 100, 50, 255]);
  });

  it('reads one restricted channel from brst (which ag-psd drops) and draws layers, groups and adjustments so', async () => {
    const layer = await render([{ name: 'bg', top: 0, left: 0, imageData: fillImage(BG) }, { name: 'm', top: 0, left: 0, imageData: fillImage([255, 0, 255]), channelBlendingRestrictions: [1] }]);
    expect(readLayerRecords(layer.bytes)[1]).toEqual({ restricted: [1] });
    expect(layer.at(0, 0)).toEqual([255, 100, 255]);
    const group = await render([
      { name: 'bg', top: 0, left: 0, imageData: fillImage(BG) },
      { name: 'g', blendMode: 'normal', channelBlendingRestrictions: [0, 2], children: [{ name: 'm', top: 0, left: 0, imageData: fillImage([0, 0, 0]) }] },
    ]);
    expect(group.at(1, 1)).toEqual([200, 0, 50]);
    const adj = await render([{ name: 'bg', top: 0, left: 0, imageData: fillImage(BG) }, { name: 'inv', adjustment: { type: 'invert' }, channelBlendingRestrictions: [2] }]);
    expect(adj.at(2, 0)).toEqual([55, 155, 50]);
  });
});
