import { writePsdUint8Array, type Layer } from 'ag-psd';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, renderTemplate } from '../../../src/engine';
import { type RGB, rectPath, solid } from './kit';

/**
 * A shape layer is a fill clipped by its vector mask, and Photoshop stores in its pixels only the
 * fill inside the path. Facts from the psd-tools corpus (its files' merged images, as a port of
 * ours records them: photocraft tests/psd_tools_regressions.rs, on layer_mask_data.psd,
 * mask-parameters-no-real-channel.psd, vector-mask2.psd, transparentbg.psd, 300dpi.psd,
 * adjustment-fillers.psd):
 * - with a vector-mask density (or feather) the fill shows beyond the path at 1 − density, which
 *   the stored pixels do not hold;
 * - a shape whose record stores no pixels (an empty rectangle) is still drawn, from its path and
 *   fill.
 */
const W = 8;
const WHITE: RGB = [255, 255, 255];
const RED: RGB = [255, 0, 0];

async function row(shape: Partial<Layer>): Promise<number[][]> {
  const layers: Layer[] = [
    { name: 'Background', left: 0, top: 0, imageData: solid(WHITE, W) },
    { name: 'Shape 1', vectorFill: { type: 'color', color: { r: 255, g: 0, b: 0 } }, vectorMask: { paths: [rectPath(2, 0, 6, 1)] }, ...shape } as Layer,
  ];
  const compiled = await compileTemplate(env.FILES, writePsdUint8Array({ width: W, height: 1, children: layers }));
  const img = await renderTemplate(env.FILES, compiled, { scale: 1 });
  return Array.from({ length: W }, (_, x) => [...img.data.subarray(x * 4, x * 4 + 3)]);
}
const mix = (a: RGB, b: RGB, t: number) => a.map((v, i) => Math.round(v + (b[i] - v) * t));

describe('shape layers: the fill beyond what the stored pixels hold', () => {
  it('a vector-mask density of 80 % shows the fill at 20 % outside the path', async () => {
    const got = await row({ left: 2, top: 0, imageData: solid(RED, 4), mask: { vectorMaskDensity: 204 / 255 } });
    const outside = mix(WHITE, RED, 51 / 255);
    expect(got).toEqual(Array.from({ length: W }, (_, x) => (x >= 2 && x < 6 ? RED : outside)));
  });

  it('a shape with no stored pixels is drawn from its path and fill', async () => {
    const got = await row({});
    expect(got).toEqual(Array.from({ length: W }, (_, x) => (x >= 2 && x < 6 ? RED : WHITE)));
  });

  it('a shape with stored pixels and a plain vector mask draws its pixels, as before', async () => {
    const got = await row({ left: 2, top: 0, imageData: solid(RED, 4) });
    expect(got).toEqual(Array.from({ length: W }, (_, x) => (x >= 2 && x < 6 ? RED : WHITE)));
  });
});
