import { describe, expect, it } from 'vitest';
import { applyAdjustment } from '../../../src/engine/composite/adjust';

/**
 * Vibrance's Saturation slider as photocraft measured it on Photoshop 25.4 (7,400-colour charts,
 * within 0.07/255 at every setting; storytold/photocraft crates/compose/src/adjust.rs
 * `vibrance_px`): in linear light through the sRGB curve, each channel moves from the grey
 * 0.288·R + 0.712·G (blue has no weight) by 1 + s/100, clipped to 0..1. Not Hue/Saturation's
 * master saturation, which keeps HSL lightness and weighs blue. Worked out here from that rule.
 */
const toLin = (v: number) => (v / 255 <= 0.04045 ? v / 255 / 12.92 : ((v / 255 + 0.055) / 1.055) ** 2.4);
const toSrgb = (l: number) => 255 * (l <= 0.0031308 ? 12.92 * l : 1.055 * l ** (1 / 2.4) - 0.055);
function rule(p: number[], s: number): number[] {
  const l = p.map(toLin);
  const g = 0.288 * l[0] + 0.712 * l[1];
  return l.map((x) => Math.round(toSrgb(Math.min(1, Math.max(0, g + (1 + s / 100) * (x - g))))));
}
function run(saturation: number, pixels: number[][]): number[][] {
  const d = new Uint8ClampedArray(pixels.flatMap((p) => [...p, 255]));
  expect(applyAdjustment({ type: 'vibrance', saturation }, d)).toBe(true);
  return pixels.map((_, i) => [...d.subarray(i * 4, i * 4 + 3)]);
}

const grid: number[][] = [];
for (let r = 0; r <= 255; r += 51) for (let g = 0; g <= 255; g += 51) for (let b = 0; b <= 255; b += 51) grid.push([r, g, b]);

describe("Vibrance's Saturation slider (photocraft's measurement of Photoshop)", () => {
  it('moves each channel from the linear-light grey 0.288 R + 0.712 G, clipped', () => {
    for (const s of [-100, -30, 25, 50, 100]) {
      const got = run(s, grid);
      grid.forEach((p, i) => {
        const want = rule(p, s);
        for (let c = 0; c < 3; c++) expect(Math.abs(got[i][c] - want[c]), `${p} at ${s}`).toBeLessThanOrEqual(0);
      });
    }
  });

  it('at −100 gives the grey of R and G alone: pure blue goes black, not mid-grey', () => {
    // Hue/Saturation's −100 would give blue its HSL lightness (128, 128, 128).
    expect(run(-100, [[0, 0, 255]])[0]).toEqual([0, 0, 0]);
    expect(run(-100, [[255, 0, 0]])[0]).toEqual(rule([255, 0, 0], -100));
    const [r, g, b] = run(-100, [[100, 120, 160]])[0];
    expect(r).toBe(g);
    expect(g).toBe(b);
  });

  it('muted blue at +50: the measured rule, not the HSL one (70, 110, 190)', () => {
    expect(run(50, [[100, 120, 160]])[0]).toEqual(rule([100, 120, 160], 50));
    expect(run(50, [[100, 120, 160]])[0]).not.toEqual([70, 110, 190]);
  });
});
