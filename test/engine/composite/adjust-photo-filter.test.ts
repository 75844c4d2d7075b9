import { describe, expect, it } from 'vitest';
import { applyAdjustment } from '../../../src/engine/composite/adjust';
import { againstMergedImage } from './kit';

/**
 * Photo Filter as photocraft fitted it to Photoshop's composite of its rgb16 photo-filter.psd
 * (within 0.6/255; storytold/photocraft crates/compose/src/adjust.rs `photo_filter_matrix`): in
 * linear light the pixel's D50 XYZ is scaled per component by 1 − d + d·F/W (F the filter
 * colour's XYZ, W the D50 white), then encoded; Preserve Luminosity sets the encoded result's
 * luminosity (0.3, 0.59, 0.11) back to the pixel's with the Luminosity mode's SetLum and clip.
 * Worked out here from that rule (ICC sRGB's D50 matrices).
 */
const M = [[0.4360747, 0.3850649, 0.1430804], [0.2225045, 0.7168786, 0.0606169], [0.0139322, 0.0971045, 0.7141733]];
const MI = [[3.1338561, -1.6168667, -0.4906146], [-0.9787684, 1.9161415, 0.033454], [0.0719453, -0.2289914, 1.4052427]];
const dec = (v: number) => (v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
const enc = (l: number) => (l <= 0.0031308 ? 12.92 * Math.max(0, l) : 1.055 * l ** (1 / 2.4) - 0.055);
const mul = (m: number[][], v: number[]) => m.map((row) => row[0] * v[0] + row[1] * v[1] + row[2] * v[2]);
const lum = (c: number[]) => 0.3 * c[0] + 0.59 * c[1] + 0.11 * c[2];
function setLum(c: number[], l: number): number[] {
  const d = l - lum(c);
  const o = c.map((v) => v + d);
  const L = lum(o), n = Math.min(...o), x = Math.max(...o);
  return o.map((v) => {
    let w = v;
    if (n < 0) w = L + ((w - L) * L) / (L - n);
    if (x > 1) w = L + ((w - L) * (1 - L)) / (x - L);
    return w;
  });
}
function rule(p: number[], filter: number[], density: number, preserve: boolean): number[] {
  const F = mul(M, filter.map((v) => dec(v / 255)));
  const scale = M.map((row, i) => 1 - density + (density * F[i]) / (row[0] + row[1] + row[2]));
  const xyz = mul(M, p.map((v) => dec(v / 255))).map((v, i) => v * scale[i]);
  let f = mul(MI, xyz).map(enc);
  if (preserve) f = setLum(f, lum(p.map((v) => v / 255)));
  return f.map((v) => Math.round(255 * Math.min(1, Math.max(0, v))));
}
function run(colour: number[], density: number, preserveLuminosity: boolean, pixels: number[][]): number[][] {
  const d = new Uint8ClampedArray(pixels.flatMap((p) => [...p, 255]));
  const adj = { type: 'photo filter' as const, color: { r: colour[0], g: colour[1], b: colour[2] }, density, preserveLuminosity };
  expect(applyAdjustment(adj, d)).toBe(true);
  return pixels.map((_, i) => [...d.subarray(i * 4, i * 4 + 3)]);
}

const grid: number[][] = [];
for (let r = 0; r <= 255; r += 51) for (let g = 0; g <= 255; g += 51) for (let b = 0; b <= 255; b += 51) grid.push([r, g, b]);
const WARMING_85 = [236, 138, 0];
const COOLING_80 = [0, 109, 255];

describe("Photo Filter (photocraft's fit to Photoshop)", () => {
  it('scales D50 XYZ in linear light by the filter, with and without Preserve Luminosity', () => {
    for (const [f, dens] of [[WARMING_85, 0.25], [COOLING_80, 0.6], [[255, 0, 0], 1]] as [number[], number][]) {
      for (const preserve of [true, false]) {
        const got = run(f, dens, preserve, grid);
        grid.forEach((p, i) => {
          const want = rule(p, f, dens, preserve);
          for (let c = 0; c < 3; c++) expect(Math.abs(got[i][c] - want[c]), `${p} ${f} ${dens} ${preserve}`).toBeLessThanOrEqual(0);
        });
      }
    }
  });

  it('warms a mid grey as the measured rule does, not as a gamma-space multiply', () => {
    // The old model: 128 + (128·c/255 − 128)·0.25 per channel, then the luma difference added back.
    const [got] = run(WARMING_85, 0.25, false, [[128, 128, 128]]);
    expect(got).toEqual(rule([128, 128, 128], WARMING_85, 0.25, false));
    expect(got).not.toEqual([128 + ((128 * 236) / 255 - 128) * 0.25, 128 + ((128 * 138) / 255 - 128) * 0.25, 96].map(Math.round));
  });

  it('is the identity at density 0 and for a white filter', () => {
    expect(run(WARMING_85, 0, true, grid)).toEqual(grid);
    expect(run([255, 255, 255], 1, false, grid).every((q, i) => q.every((v, c) => Math.abs(v - grid[i][c]) <= 1))).toBe(true);
  });

  it('renders made-af-photo-filter.psd (make-af.mjs: merged image from the rule) exactly', async () => {
    const { psnr, worst } = await againstMergedImage('made-af-photo-filter.psd');
    console.log(`made-af-photo-filter.psd PSNR ${psnr.toFixed(2)} worst ${worst}`);
    expect(worst).toBe(0);
  });
});
