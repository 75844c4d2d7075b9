import { describe, expect, it } from 'vitest';
import { applyAdjustment } from '../../../src/engine/composite/adjust';
import { againstMergedImage } from './kit';

/**
 * Photo Filter as photocraft fitted it to Photoshop's composite of its rgb16 photo-filter.psd
 * (within 0.6/255; storytold/photocraft crates/compose/src/adjust.rs `photo_filter_matrix`): in
 * linear light the pixel's D50 XYZ is scaled per component by 1 − d + d·F/W (F the filter
 * colour's XYZ, W the D50 white), then encoded; Preserve Luminosity sets the encoded result's
 * luminosity (0.3, 0.59, 0.11) back to the pixel's with the Luminosity mode's SetLum and clip.
 * The expected values are those test/fixtures/psd-made/make-af.mjs works out from that rule.
 */
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
/** make-af.mjs's columns: three colours under each filter, and what the rule gives them. */
const WARM = [[128, 128, 128], [40, 160, 220], [230, 60, 40]];
const COOL = [[128, 128, 128], [250, 200, 40], [30, 40, 60]];
const RULE_WARM = [[135, 126, 121], [72, 148, 196], [230, 59, 45]];
const RULE_COOL = [[83, 92, 128], [189, 143, 71], [3, 27, 59]];

describe("Photo Filter (photocraft's fit to Photoshop)", () => {
  it('scales D50 XYZ in linear light by the filter, with and without Preserve Luminosity', () => {
    expect(run(WARMING_85, 0.25, true, WARM)).toEqual(RULE_WARM);
    expect(run(COOLING_80, 0.6, false, COOL)).toEqual(RULE_COOL);
  });

  it('warms a mid grey as the measured rule does, not as a gamma-space multiply', () => {
    // The old model: 128 + (128·c/255 − 128)·0.25 per channel, then the luma difference added back: (139, 127, 96) before that.
    const [got] = run(WARMING_85, 0.25, true, [[128, 128, 128]]);
    expect(got).toEqual(RULE_WARM[0]);
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
