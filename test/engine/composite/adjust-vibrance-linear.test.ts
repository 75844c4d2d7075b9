import { describe, expect, it } from 'vitest';
import { applyAdjustment } from '../../../src/engine/composite/adjust';

/**
 * The Vibrance slider as photocraft measured it on Photoshop 25.4 (storytold/photocraft
 * crates/compose/src/adjust.rs `vibrance_lin`; composite/vibrance-linear.ts has the statement):
 * in linear light (sRGB curve), with V = max, t = 1 − min/max and s = t(1 − t)(2 − t + t²)V(1 − V),
 * lowering by a gives t' = t(1 − a/4)(1 − a + at(1 + t)/2) and V' = V − a·s, raising by v gives
 * V' = V + v/4·s and a fitted saturation boost; the hue is kept. The lowering side (measured
 * exact) is worked out here from that rule; raising is checked for what was measured exactly.
 */
const toLin = (v: number) => (v / 255 <= 0.04045 ? v / 255 / 12.92 : ((v / 255 + 0.055) / 1.055) ** 2.4);
const toSrgb = (l: number) => 255 * (l <= 0.0031308 ? 12.92 * l : 1.055 * l ** (1 / 2.4) - 0.055);
function lowered(p: number[], a: number): number[] {
  const l = p.map(toLin);
  const mx = Math.max(...l), mn = Math.min(...l);
  const t = 1 - mn / mx;
  const s = t * (1 - t) * (2 - t + t * t) * mx * (1 - mx);
  const t2 = t * (1 - a / 4) * (1 - a + (a * t * (1 + t)) / 2);
  const v2 = mx - a * s;
  const m2 = v2 * (1 - t2);
  return l.map((x) => Math.round(toSrgb(Math.min(1, Math.max(0, m2 + ((x - mn) * (v2 - m2)) / (mx - mn))))));
}
function run(vibrance: number, pixels: number[][]): number[][] {
  const d = new Uint8ClampedArray(pixels.flatMap((p) => [...p, 255]));
  expect(applyAdjustment({ type: 'vibrance', vibrance }, d)).toBe(true);
  return pixels.map((_, i) => [...d.subarray(i * 4, i * 4 + 3)]);
}
const linMax = (p: number[]) => Math.max(...p.map(toLin));

const colours: number[][] = [];
for (let r = 0; r <= 255; r += 51) for (let g = 0; g <= 255; g += 51) for (let b = 0; b <= 255; b += 51) {
  if (!(r === g && g === b)) colours.push([r, g, b]);
}

describe("the Vibrance slider (photocraft's measurement of Photoshop)", () => {
  it('lowers saturation by the measured rule in linear light', () => {
    for (const v of [-100, -50, -20]) {
      const got = run(v, colours);
      colours.forEach((p, i) => expect(got[i], `${p} at ${v}`).toEqual(lowered(p, -v / 100)));
    }
  });

  it('muted blue at −100: the measured rule, not the HSL model (123, 128, 137)', () => {
    const got = run(-100, [[100, 120, 160]])[0];
    expect(got).toEqual(lowered([100, 120, 160], 1));
    expect(got).not.toEqual([123, 128, 137]);
  });

  it('leaves greys, and fully saturated colours at full or no brightness, alone', () => {
    const fixed = [[0, 0, 0], [128, 128, 128], [255, 255, 255], [255, 0, 0], [0, 0, 255], [255, 0, 255]];
    expect(run(100, fixed)).toEqual(fixed);
    expect(run(-100, fixed.slice(0, 3))).toEqual(fixed.slice(0, 3));
  });

  it('raising keeps the hue, moves V by v/4·s and never lowers saturation', () => {
    for (const p of colours) {
      const [q] = run(60, [p]);
      const l = p.map(toLin), mx = Math.max(...l), mn = Math.min(...l), t = 1 - mn / mx;
      const s = t * (1 - t) * (2 - t + t * t) * mx * (1 - mx);
      expect(Math.abs(toSrgb(Math.min(1, mx + 0.15 * s)) - toSrgb(linMax(q))), `${p}`).toBeLessThanOrEqual(1);
      const lq = q.map(toLin);
      const t2 = Math.max(...lq) > 0 ? 1 - Math.min(...lq) / Math.max(...lq) : 0;
      expect(t2, `${p}`).toBeGreaterThanOrEqual(t - 0.02);
      // the channel order (hence the hue sector) is kept
      const order = (x: number[]) => [0, 1, 2].sort((i, j) => x[i] - x[j] || i - j).join();
      if (new Set(p).size === 3 && new Set(q).size === 3) expect(order(q), `${p}`).toBe(order(p));
    }
  });

  it('damps the boost on skin hues', () => {
    // Two colours of equal HSV saturation and brightness in linear light: orange (skin, 20°) and
    // a blue-violet (240°+): the skin one gains less saturation at +100.
    const gain = (p: number[]) => {
      const [q] = run(100, [p]);
      const sat = (x: number[]) => { const l = x.map(toLin); return 1 - Math.min(...l) / Math.max(...l); };
      return sat(q) - sat(p);
    };
    expect(gain([200, 120, 100])).toBeLessThan(gain([100, 120, 200]));
  });
});
