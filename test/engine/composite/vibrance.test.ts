import { describe, expect, it } from 'vitest';
import { applyAdjustment } from '../../../src/engine/composite/adjust';
import { SKIN_HUE, vibranceFactor } from '../../../src/engine/composite/vibrance';

/**
 * Vibrance as docs/fidelity.md models it: channels pushed from the HSL lightness by
 * k = 1 + v·(1 − S)·p(h), capped at full saturation, with half the push on skin hues when raising;
 * the Saturation slider is Hue/Saturation's master saturation, after it.
 */
function run(vibrance: number | undefined, saturation: number | undefined, pixels: number[][]): number[][] {
  const d = new Uint8ClampedArray(pixels.flatMap((p) => [...p, 255]));
  expect(applyAdjustment({ type: 'vibrance', vibrance, saturation }, d)).toBe(true);
  return pixels.map((_, i) => [...d.subarray(i * 4, i * 4 + 3)]);
}
const hsl = ([r, g, b]: number[]) => {
  const mx = Math.max(r, g, b), mn = Math.min(r, g, b), sum = mx + mn;
  return { L: sum / 2, S: mx === mn ? 0 : (mx - mn) / (sum <= 255 ? sum : 510 - sum) };
};

const grid: number[][] = [];
for (let r = 0; r <= 255; r += 51) for (let g = 0; g <= 255; g += 51) for (let b = 0; b <= 255; b += 51) grid.push([r, g, b]);

describe('vibrance', () => {
  it('is the identity at 0 / 0 and when both are absent', () => {
    expect(run(0, 0, grid)).toEqual(grid);
    expect(run(undefined, undefined, grid)).toEqual(grid);
  });

  it('leaves greys and fully saturated colours alone, at both extremes', () => {
    const fixed = [[0, 0, 0], [128, 128, 128], [255, 255, 255], [0, 200, 0], [255, 0, 128], [40, 0, 0]];
    expect(run(100, 0, fixed)).toEqual(fixed);
    expect(run(-100, 0, fixed)).toEqual(fixed);
  });

  it('raises less saturated colours more, never past full saturation, keeping lightness', () => {
    const muted = [100, 120, 160]; // S 0.24, hue 220°
    const strong = [40, 80, 220]; // S about 0.69, hue 227°
    const [m, s] = run(100, 0, [muted, strong]);
    expect(m).toEqual([77, 112, 183]); // k = 1.76 (the fixture's column 1)
    const gain = (a: number[], b: number[]) => hsl(b).S - hsl(a).S;
    expect(gain(muted, m)).toBeGreaterThan(0);
    expect(gain(strong, s) / hsl(strong).S).toBeLessThan(gain(muted, m) / hsl(muted).S);
    for (const [i, out] of run(100, 0, grid).entries()) {
      expect(hsl(out).S).toBeLessThanOrEqual(1);
      expect(Math.abs(hsl(out).L - hsl(grid[i]).L)).toBeLessThanOrEqual(1);
    }
    expect(vibranceFactor(1, 0.9, 220)).toBeCloseTo(1.1, 9);
    // 1 + (1 − S) never passes the full-saturation factor 1/S (S(2 − S) ≤ 1): nothing clips.
    for (let s = 0.01; s <= 1; s += 0.01) expect(vibranceFactor(1, s, 220)).toBeLessThanOrEqual(1 / s + 1e-12);
  });

  it('protects skin hues: half the push at 25°, none of the protection past 0°..50°', () => {
    const k = (h: number) => vibranceFactor(1, 0.5, h) - 1;
    expect(k(SKIN_HUE)).toBeCloseTo(0.25, 9);
    expect(k(12.5)).toBeCloseTo(0.375, 9);
    expect(k(0)).toBeCloseTo(0.5, 9);
    expect(k(60)).toBeCloseTo(0.5, 9);
    expect(k(355)).toBeCloseTo(0.5, 9);
    expect(run(100, 0, [[200, 100, 50]])[0]).toEqual([218, 94, 32]); // hue 20°: k = 1.24
    expect(vibranceFactor(-1, 0.5, SKIN_HUE)).toBeCloseTo(vibranceFactor(-1, 0.5, 220), 9); // lowering: no skin term
  });

  it('lowering greys muted colours and keeps most of strong ones: at −100, S becomes S²', () => {
    const [m, s] = run(-100, 0, [[100, 120, 160], [40, 80, 220]]);
    expect(m).toEqual([123, 128, 137]);
    expect(hsl(s).S).toBeCloseTo(hsl([40, 80, 220]).S ** 2, 1);
    for (const out of run(-100, 0, grid)) expect(hsl(out).S).toBeLessThanOrEqual(1);
  });

  it('applies Saturation as Hue/Saturation\'s master saturation, after vibrance', () => {
    const px = [[100, 120, 160], [200, 100, 50], [30, 30, 31]];
    const hs = (s: number) => {
      const d = new Uint8ClampedArray(px.flatMap((p) => [...p, 255]));
      applyAdjustment({ type: 'hue/saturation', master: { a: 0, b: 0, c: 0, d: 0, hue: 0, saturation: s, lightness: 0 } }, d);
      return px.map((_, i) => [...d.subarray(i * 4, i * 4 + 3)]);
    };
    for (const s of [-100, -30, 50, 100]) expect(run(0, s, px)).toEqual(hs(s));
    expect(run(undefined, -100, px).every(([r, g, b]) => r === g && g === b)).toBe(true);
    expect(run(40, -30, [[100, 120, 160]])[0]).toEqual([103, 121, 157]); // the fixture's column 5
  });
});
