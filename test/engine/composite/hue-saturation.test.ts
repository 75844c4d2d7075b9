import { describe, expect, it } from 'vitest';
import { applyAdjustment, rangeWeight, saturationAlpha } from '../../../src/engine/composite/adjust';

/**
 * Photoshop's Hue/Saturation as docs/fidelity.md derives it: hue turns and range weights summed,
 * master lightness toward white/black first (rounded, by whole 255ths, truncated), range lightness toward the pixel's own max/min, saturation
 * as a push from the HSL lightness by 1 + α (α = s/(1 − s) for s > 0, at most 127), the master's
 * first and the ranges' α weighted and added.
 */

type Ch = { a: number; b: number; c: number; d: number; hue: number; saturation: number; lightness: number };
const ch = (hue: number, saturation: number, lightness: number, a = 0, b = 0, c = 0, d = 0): Ch => ({ a, b, c, d, hue, saturation, lightness });
/** Photoshop's default ranges (degrees: falloff a..b, full b..c, falloff c..d). */
const reds = (h: number, s: number, l: number) => ch(h, s, l, 315, 345, 15, 45);
const magentas = (h: number, s: number, l: number) => ch(h, s, l, 255, 285, 315, 345);

function run(adj: Record<string, unknown>, ...rgb: number[]): number[] {
  const d = new Uint8ClampedArray([...rgb, 255]);
  expect(applyAdjustment({ type: 'hue/saturation', ...adj } as never, d)).toBe(true);
  return [...d.subarray(0, 4)];
}
function near(actual: number[], expected: number[], tolerance = 1) {
  expected.forEach((v, i) => expect(Math.abs(actual[i] - v), `${actual} vs ${expected}`).toBeLessThanOrEqual(tolerance));
}

describe('hue/saturation colour ranges', () => {
  it('weigh a hue 1 inside [b, c], ramping to 0 over the falloffs, across 0°', () => {
    const r = { a: 315, b: 345, c: 375, d: 405 };
    expect(rangeWeight(0, r)).toBe(1);
    expect(rangeWeight(20, r)).toBeCloseTo(5 / 6);
    expect(rangeWeight(330, r)).toBeCloseTo(0.5);
    expect(rangeWeight(90, r)).toBe(0);
  });

  it('range lightness moves channels toward the pixel’s own maximum or minimum, not white or black', () => {
    // (200, 100, 50): hue 20°, reds weight 5/6, so ±60 acts as ±50 %.
    expect(run({ reds: reds(0, 0, 60) }, 200, 100, 50)).toEqual([200, 150, 125, 255]);
    expect(run({ reds: reds(0, 0, -60) }, 200, 100, 50)).toEqual([125, 75, 50, 255]);
    // The master's lightness does go toward white: +50 % from 200, 100, 50.
    near(run({ master: ch(0, 0, 50) }, 200, 100, 50), [228, 178, 153]);
  });

  it('range +100 lightness greys a colour at its brightest channel', () => {
    expect(run({ reds: reds(0, 0, 100) }, 200, 40, 40)).toEqual([200, 200, 200, 255]);
  });

  it('range hue turns are weighted', () => {
    // Hue 20° with weight 5/6 of +36° → 50°: max 200, min 50, the middle channel at 50/60 of the way.
    near(run({ reds: reds(36, 0, 0) }, 200, 100, 50), [200, 175, 50]);
  });
});

describe('hue/saturation master lightness', () => {
  // psdtools-adjust-hue-saturation.psd's first column (master +122°, +100 %, −37): Photoshop's pixels.
  const master = ch(122, 100, -37);

  it('goes first, rounded to 8 bits by whole 255ths, so a nearly grey pixel may turn grey', () => {
    expect(run({ master }, 58, 58, 59)).toEqual([37, 37, 37, 255]);
    expect(run({ master }, 255, 255, 255)).toEqual([161, 161, 161, 255]);
    // ×0.63 rounded would grey (22, 23, 23) too; ×161/255 keeps it, as Photoshop does (29, 0, 28).
    near(run({ master }, 22, 23, 23), [29, 0, 28]);
    near(run({ master }, 57, 58, 58), [73, 0, 70]);
  });

  it('steps by whole 255ths truncated toward 0: +10 % is 25/255, +28 % 71/255 (Photoshop\'s greys)', () => {
    // psdtools-adjust-hue-saturation.psd, last column (master +10 under ranges; greys have no hue,
    // so only the master acts): Photoshop gives 6 → 30, 8 → 32, 64 → 83; 26/255 (rounded) gave 31,
    // 33, 83. Third column (+28): 66 → 119. The file: 47.25 → 50.39 dB (last column 41.74 → 45.51).
    expect(run({ master: ch(0, 0, 10) }, 6, 6, 6).slice(0, 3)).toEqual([30, 30, 30]);
    expect(run({ master: ch(0, 0, 10) }, 8, 8, 8).slice(0, 3)).toEqual([32, 32, 32]);
    expect(run({ master: ch(0, 0, 10) }, 64, 64, 64).slice(0, 3)).toEqual([83, 83, 83]);
    expect(run({ master: ch(0, 0, 28) }, 66, 66, 66).slice(0, 3)).toEqual([119, 119, 119]);
  });

  it('gives the hue of the rounded channels', () => {
    // (123, 122, 124) is hue 270°; rounded at 161/255 it is (78, 77, 78), hue 300°: +122° is 62°.
    near(run({ master }, 123, 122, 124), [136, 141, 13], 2);
  });
});

describe('hue/saturation saturation', () => {
  it('α is s for a decrease and s/(1 − s) for an increase, at most 127', () => {
    expect(saturationAlpha(-0.4)).toBeCloseTo(-0.4);
    expect(saturationAlpha(0.5)).toBeCloseTo(1);
    expect(saturationAlpha(0.75)).toBeCloseTo(3);
    expect(saturationAlpha(1)).toBe(127);
  });

  it('pushes channels from the HSL lightness, never past full saturation', () => {
    expect(run({ master: ch(0, -40, 0) }, 200, 100, 50)).toEqual([170, 110, 80, 255]);
    near(run({ master: ch(0, 50, 0) }, 200, 100, 50), [250, 83, 0]);
  });

  it('+100 multiplies a nearly grey pixel’s chroma by 128, not to full saturation', () => {
    // (100, 101, 100): chroma 1 around L = 100.5 becomes 128.
    near(run({ master: ch(0, 100, 0) }, 100, 101, 100), [36.5, 164.5, 36.5]);
  });

  it('adds the ranges’ α: two overlapping +50 ranges triple the chroma rather than saturate fully', () => {
    // (150, 100, 100): hue 0°, in the reds and in a magentas range stretched over 0°; α = 1 + 1.
    near(run({ reds: reds(0, 50, 0), magentas: ch(0, 50, 0, 255, 285, 375, 405) }, 150, 100, 100), [200, 50, 50]);
  });

  it('a range at +100 wins back what the master took, even at a quarter weight', () => {
    // Master −97 then a range +100 on its falloff (weight 0.265): the range’s α (0.265 · 127)
    // restores the full saturation this green had.
    near(run({ master: ch(0, -97, 0), magentas: ch(0, 100, 0, 82, 133, 151, 171) }, 8, 255, 196), [8, 255, 196]);
  });
});

describe('hue/saturation colorize', () => {
  it('takes the colorize hue and saturation with the pixel’s HSL lightness, then its lightness', () => {
    expect(run({ master: ch(0, 0, 0, 0x100, 240, 40, 0) }, 200, 100, 50)).toEqual([75, 75, 175, 255]);
    // +100 lightness is white; −100 black.
    expect(run({ master: ch(0, 0, 0, 0x100, 240, 40, 100) }, 200, 100, 50)).toEqual([255, 255, 255, 255]);
    expect(run({ master: ch(0, 0, 0, 0x100, 240, 40, -100) }, 200, 100, 50)).toEqual([0, 0, 0, 255]);
  });

  it('leaves alpha alone', () => {
    const d = new Uint8ClampedArray([200, 100, 50, 77]);
    applyAdjustment({ type: 'hue/saturation', master: ch(120, 0, 0) } as never, d);
    expect(d[3]).toBe(77);
  });
});
