import { describe, expect, it } from 'vitest';
import { applyAdjustment } from '../../../src/engine/composite/adjust';
import { COLOR_BALANCE_ENDPOINT, colorBalanceCurve, lightnessOf } from '../../../src/engine/composite/color-balance';

/**
 * Colour Balance as docs/fidelity.md models it: a transfer curve per channel (midtones a gamma
 * 1.4^(m/100), shadows and highlights moving the channel's end points by up to 12 %), and Preserve
 * Luminosity giving back the pixel's HSL lightness at the result's hue and saturation.
 */
type Tones = { cyanRed: number; magentaGreen: number; yellowBlue: number };
const t = (cyanRed = 0, magentaGreen = 0, yellowBlue = 0): Tones => ({ cyanRed, magentaGreen, yellowBlue });

function run(adj: { shadows?: Tones; midtones?: Tones; highlights?: Tones; preserveLuminosity?: boolean }, pixels: number[][]): number[][] {
  const d = new Uint8ClampedArray(pixels.flatMap((p) => [...p, 255]));
  expect(applyAdjustment({ type: 'color balance', ...adj }, d)).toBe(true);
  return pixels.map((_, i) => [...d.subarray(i * 4, i * 4 + 3)]);
}

/** Every (r, g, b) on a coarse grid, plus the extremes. */
const grid: number[][] = [];
for (let r = 0; r <= 255; r += 51) for (let g = 0; g <= 255; g += 51) for (let b = 0; b <= 255; b += 51) grid.push([r, g, b]);

describe('colour balance', () => {
  it('is the identity at neutral settings, with or without Preserve Luminosity', () => {
    for (const preserveLuminosity of [false, true]) {
      expect(run({ shadows: t(), midtones: t(), highlights: t(), preserveLuminosity }, grid)).toEqual(grid);
      expect(run({ preserveLuminosity }, grid)).toEqual(grid);
    }
  });

  it('moves only the slider\'s own channel, as a curve of that channel alone', () => {
    const out = run({ midtones: t(100) }, [[200, 100, 50], [200, 0, 255], [64, 64, 64]]);
    expect(out[0]).toEqual([214, 100, 50]); // 255·(200/255)^(1/1.4) = 214.38
    expect(out[1]).toEqual([214, 0, 255]); // same red in, same red out, whatever the others are
    expect(out[2][1]).toBe(64);
    expect(run({ midtones: t(0, -100) }, [[50, 200, 50]])[0]).toEqual([50, Math.round(255 * Math.pow(200 / 255, 1.4)), 50]);
    expect(run({ midtones: t(0, 0, 40) }, [[10, 20, 128]])[0].slice(0, 2)).toEqual([10, 20]);
  });

  it('keeps black and white in the midtones, at both extremes', () => {
    for (const m of [-100, 100]) {
      const c = colorBalanceCurve(0, m, 0);
      expect(c[0]).toBe(0);
      expect(c[255]).toBeCloseTo(255, 9);
      for (let v = 1; v < 255; v++) expect(Math.sign(c[v] - v)).toBe(Math.sign(m)); // all lifted (+) or all lowered (−)
    }
  });

  it('moves the end points by 12 % at ±100: shadows + tint black, highlights − tint white', () => {
    const a = COLOR_BALANCE_ENDPOINT * 255;
    expect(colorBalanceCurve(100, 0, 0)[0]).toBeCloseTo(a, 9); // output black raised
    expect(colorBalanceCurve(100, 0, 0)[255]).toBeCloseTo(255, 9);
    expect(colorBalanceCurve(-100, 0, 0)[30]).toBe(0); // input black raised past 30: clipped to 0
    expect(colorBalanceCurve(-100, 0, 0)[255]).toBeCloseTo(255, 9);
    expect(colorBalanceCurve(0, 0, 100)[225]).toBe(255); // input white lowered to 224.4
    expect(colorBalanceCurve(0, 0, 100)[0]).toBe(0);
    expect(colorBalanceCurve(0, 0, -100)[255]).toBeCloseTo(255 - a, 9); // output white lowered
    expect(run({ shadows: t(100) }, [[0, 0, 0]])[0]).toEqual([31, 0, 0]);
    expect(run({ highlights: t(-100, -100, -100) }, [[255, 255, 255]])[0]).toEqual([224, 224, 224]);
    expect(run({ shadows: t(0, 0, -100) }, [[200, 100, 50]])[0]).toEqual([200, 100, 22]);
    expect(run({ highlights: t(0, -100) }, [[200, 100, 50]])[0]).toEqual([200, 88, 50]);
  });

  it('stays monotone and in range at every extreme combination', () => {
    for (const s of [-100, 0, 100]) for (const m of [-100, 0, 100]) for (const h of [-100, 0, 100]) {
      const c = colorBalanceCurve(s, m, h);
      for (let v = 0; v < 256; v++) {
        expect(c[v]).toBeGreaterThanOrEqual(0);
        expect(c[v]).toBeLessThanOrEqual(255 + 1e-9);
        if (v) expect(c[v]).toBeGreaterThanOrEqual(c[v - 1] - 1e-9);
      }
    }
  });

  it('with Preserve Luminosity keeps each pixel\'s HSL lightness (to rounding) and the result\'s hue', () => {
    for (const adj of [{ midtones: t(100, -60, 30) }, { shadows: t(100, 100, -100), highlights: t(-100, 50, 100) }, { midtones: t(-100, -100, -100) }]) {
      const out = run({ ...adj, preserveLuminosity: true }, grid);
      const free = run(adj, grid);
      grid.forEach(([r, g, b], i) => {
        const L = lightnessOf(r, g, b);
        expect(Math.abs(lightnessOf(out[i][0], out[i][1], out[i][2]) - L), `${grid[i]} → ${out[i]}`).toBeLessThanOrEqual(1);
        // The channels keep the order the free result has (same hue).
        const [fr, fg, fb] = free[i];
        if (fr > fg + 2) expect(out[i][0]).toBeGreaterThanOrEqual(out[i][1]);
        if (fb > fg + 2) expect(out[i][2]).toBeGreaterThanOrEqual(out[i][1]);
      });
    }
    // The worked example of made-adjust-color-balance.psd's column 4.
    expect(run({ midtones: t(100), preserveLuminosity: true }, [[200, 100, 50]])[0]).toEqual([209, 92, 41]);
  });

  it('with Preserve Luminosity keeps the free result\'s HSL saturation, also across mid grey', () => {
    const sat = ([r, g, b]: number[]) => {
      const mx = Math.max(r, g, b), mn = Math.min(r, g, b), L = (mx + mn) / 2;
      return mx === mn ? 0 : (mx - mn) / (L <= 127.5 ? 2 * L : 2 * (255 - L));
    };
    const adj = { shadows: t(60, -40, 20), midtones: t(-80, 50, 100), highlights: t(30, 0, -70) };
    const out = run({ ...adj, preserveLuminosity: true }, grid);
    const free = run(adj, grid);
    grid.forEach((px, i) => {
      const L = lightnessOf(px[0], px[1], px[2]);
      if (L < 40 || L > 215) return; // too little room for 8-bit rounding to keep the ratio
      expect(Math.abs(sat(out[i]) - sat(free[i])), `${px} → ${free[i]} → ${out[i]}`).toBeLessThanOrEqual(0.05);
    });
    // Greys stay the original grey; white and black stay.
    expect(run({ highlights: t(-100, 40, 0), preserveLuminosity: true }, [[255, 255, 255], [0, 0, 0], [90, 90, 90]])[0]).toEqual([255, 255, 255]);
    expect(run({ midtones: t(100, 100, 100), preserveLuminosity: true }, [[90, 90, 90]])[0]).toEqual([90, 90, 90]);
  });
});
