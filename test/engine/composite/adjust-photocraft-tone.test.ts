import { describe, expect, it } from 'vitest';
import { adjustmentIn16Bits, adjustmentIn32Bits, adjustmentInGrey, applyAdjustment, brightnessContrastLut, cmykChannelLuts, posterizeLut } from '../../../src/engine/composite/adjust';
import { againstMergedImage } from './kit';

/**
 * Tone adjustments as storytold/photocraft measured them on Photoshop's output (its
 * crates/compose/src/adjust.rs, read as reference data; docs/colour.md, "photocraft's tone
 * calibrations"): Levels' bounded gamma toe and whole-level input stretch, Posterize's levels
 * rounded down, legacy Brightness/Contrast's pivot at 128.
 */

const grey = (adj: Parameters<typeof applyAdjustment>[0], values: number[]) => {
  const d = new Uint8ClampedArray(values.length * 4);
  values.forEach((v, i) => d.set([v, v, v, 255], i * 4));
  expect(applyAdjustment(adj, d)).toBe(true);
  return values.map((_, i) => d[i * 4]);
};
const record = (shadowInput: number, highlightInput: number, midtoneInput: number, shadowOutput = 0, highlightOutput = 255) => ({
  shadowInput, highlightInput, shadowOutput, highlightOutput, midtoneInput,
});

describe('Levels: the midtone gamma rises out of black with a bounded slope', () => {
  // photocraft `levels_q`: u^(1/g) meets a line of slope 0.93·2^g in a p-norm soft minimum
  // (p = 10); within a level of Photoshop on a 0..255 ramp at gamma 2. The pure power gave
  // 16, 23, 28, 32 … for inputs 1, 2, 3, 4.
  it('gamma 2 on a ramp: the toe, and the power above it', () => {
    const adj = { type: 'levels', rgb: record(0, 255, 2) } as const;
    expect(grey(adj, [0, 1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24])).toEqual([0, 4, 7, 11, 15, 19, 22, 30, 37, 44, 57, 68, 76]);
    // From about 32 up the curve is the plain power (255·√(v/255)).
    expect(grey(adj, [32, 40, 64, 128, 200, 255])).toEqual([90, 101, 128, 181, 226, 255]);
  });

  it('a gamma at or below 1 is the plain power', () => {
    const adj = { type: 'levels', rgb: record(0, 255, 0.5) } as const;
    expect(grey(adj, [1, 16, 64, 128, 200])).toEqual([0, 1, 16, 64, 157]);
  });
});

describe('Levels: the input stretch is rounded to a whole level before the gamma', () => {
  // photocraft `levels_q`, seen on psd-tools' levels_grayscale (44..214, gamma 1.78): inputs
  // 45, 46, 47, 48 stretch to 1.5, 3, 4.5, 6 levels, rounded half up to 2, 3, 5, 6, which the
  // toe magnifies; a 16-bit document's stretch is not rounded to 8-bit levels.
  it('8 bits: 45, 46, 47, 48 → 6, 10, 16, 19 (5, 10, 14, 19 unrounded)', () => {
    const adj = { type: 'levels', rgb: record(44, 214, 1.78) } as const;
    expect(grey(adj, [44, 45, 46, 47, 48])).toEqual([0, 6, 10, 16, 19]);
    expect(grey(adjustmentIn16Bits(adj), [44, 45, 46, 47, 48])).toEqual([0, 5, 10, 14, 19]);
  });

  it('16-bit marks survive a Grayscale document and reach the CMYK inks', () => {
    const wide = adjustmentIn16Bits({ type: 'levels', rgb: record(44, 214, 1.78) });
    expect(wide).toMatchObject({ in16Bits: true });
    expect(adjustmentInGrey(wide)).toMatchObject({ in16Bits: true });
    expect(cmykChannelLuts(wide)![0]![47]).toBe(14);
    expect(cmykChannelLuts({ type: 'levels', rgb: record(44, 214, 1.78) })![0]![47]).toBe(16);
  });
});

describe('Posterize: the levels are rounded down', () => {
  // photocraft `posterize`: floor(k·255/(n − 1)), exact on Photoshop's composites of its corpus
  // at 3, 7, 13 and 21 levels. We rounded to the nearest (128 for the middle of 3 levels).
  it.each([
    [3, [0, 127, 255]],
    [7, [0, 42, 85, 127, 170, 212, 255]],
    [13, [0, 21, 42, 63, 85, 106, 127, 148, 170, 191, 212, 233, 255]],
    [21, [0, 12, 25, 38, 51, 63, 76, 89, 102, 114, 127, 140, 153, 165, 178, 191, 204, 216, 229, 242, 255]],
  ])('%i levels: %j', (n, levels) => {
    expect([...new Set(posterizeLut(n))]).toEqual(levels);
  });

  it('whole levels stay whole (4, 18 and 52 levels divide 255)', () => {
    expect([...new Set(posterizeLut(4))]).toEqual([0, 85, 170, 255]);
    expect([...new Set(posterizeLut(18))]).toEqual(Array.from({ length: 18 }, (_, k) => 15 * k));
    expect([...new Set(posterizeLut(52))]).toEqual(Array.from({ length: 52 }, (_, k) => 5 * k));
  });
});

describe('legacy Brightness/Contrast against Photoshop 27.11', () => {
  // photocraft's test `legacy_brightness_contrast_matches_photoshop`: a grey ramp through
  // Photoshop 27.11 with Use Legacy on, one row per (brightness, contrast); it holds its formula
  // within a level. With the pivot at 127.5 contrast +80 maps 112, 128, 144 to 50, 130, 210.
  const X = [0, 16, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240, 255];
  const measured: Array<[number, number, number[]]> = [
    [40, 0, [40, 56, 72, 88, 104, 120, 136, 152, 168, 184, 200, 216, 232, 248, 255, 255, 255]],
    [-40, 0, [0, 0, 0, 8, 24, 40, 56, 72, 88, 104, 120, 136, 152, 168, 184, 200, 215]],
    [0, 30, [0, 0, 0, 14, 37, 60, 82, 105, 128, 151, 174, 196, 219, 242, 255, 255, 255]],
    [0, -30, [38, 49, 61, 72, 83, 94, 106, 117, 128, 139, 150, 162, 173, 184, 195, 207, 217]],
    [40, 30, [3, 25, 48, 71, 94, 117, 139, 162, 185, 208, 231, 253, 255, 255, 255, 255, 255]],
    [100, 0, [100, 116, 132, 148, 164, 180, 196, 212, 228, 244, 255, 255, 255, 255, 255, 255, 255]],
    [0, 80, [0, 0, 0, 0, 0, 0, 0, 48, 128, 208, 255, 255, 255, 255, 255, 255, 255]],
  ];
  it.each(measured)('brightness %i, contrast %i: within a level of Photoshop', (b, c, want) => {
    const lut = brightnessContrastLut(b, c, true)!;
    for (let i = 0; i < X.length; i++) expect(Math.abs(lut[X[i]] - want[i]), `input ${X[i]}`).toBeLessThanOrEqual(1);
  });

  it('contrast +80 keeps 128 at 128', () => {
    expect(brightnessContrastLut(0, 80, true)![128]).toBe(128);
  });
});

describe('current Brightness/Contrast: the contrast curve photocraft measured', () => {
  // photocraft `modern_contrast`, from a 0..255 ramp through Photoshop (within 0.5/255): two cubic
  // Hermite halves about the middle, slope 1 − c/128 at the ends and 1 + c/128 in the middle.
  // psd-tools' spline through the quarter points (ours before) gave 15, 79, 177, 241 at c = 100
  // and 36, 100, 156, 220 at c = −25 (the Hermite: 37, 101, 155, 219).
  const hermite = (v: number, c: number) => {
    const k = c / 128;
    const half = (t: number) => 0.5 * ((1 - k) * (t ** 3 - 2 * t * t + t) + (3 * t * t - 2 * t ** 3) + (1 + k) * (t ** 3 - t * t));
    const x = v / 255;
    return Math.round(255 * (x <= 0.5 ? half(2 * x) : 1 - half(2 * (1 - x))));
  };
  it.each([100, 50, -25, -50])('contrast %i, every input', (c) => {
    const lut = brightnessContrastLut(0, c, false)!;
    for (let v = 0; v < 256; v++) expect(lut[v], `input ${v}`).toBe(hermite(v, c));
  });
  it('c = 100 at 32, 96, 160, 224: 13, 77, 179, 242', () => {
    const lut = brightnessContrastLut(0, 100, false)!;
    expect([lut[32], lut[96], lut[160], lut[224]]).toEqual([13, 77, 179, 242]);
  });
});

describe('32-bit documents: Exposure and Levels on the floats as stored', () => {
  // photocraft, on Photoshop's composites of its corpus rgb32 and gray32 exposure.psd and
  // levels.psd: Exposure works on the linear floats with no tone curve (within 0.5/255; 69/255 off
  // through gamma 2.2), Levels is a plain power of the unclipped stretch (within 0.5/255; 10/255
  // off with the clipped curve). The compiled form holds the floats × 255.
  it('exposure +1 doubles a linear value (gamma 2.2 gave 88 for 64)', () => {
    const adj = adjustmentIn32Bits({ type: 'exposure', exposure: 1, offset: 0, gamma: 1 });
    expect(grey(adj, [0, 64, 100, 128, 200])).toEqual([0, 128, 200, 255, 255]);
    expect(grey(adjustmentInGrey(adj), [64])).toEqual([128]);
    expect(grey({ type: 'exposure', exposure: 1, offset: 0, gamma: 1 }, [64])).toEqual([88]);
  });

  it('levels: no toe, no whole-level stretch, the power mirrored below the black point', () => {
    const adj = adjustmentIn32Bits({ type: 'levels', rgb: record(20, 220, 2, 40, 255) });
    expect(adj).toMatchObject({ in32Bits: true });
    // Below black: 15 gives 40 − √(5/200)·215 = 6 (the 8-bit curve holds it at 40), 0 gives −28 → 0.
    expect(grey(adj, [0, 15, 20, 21, 120, 220, 240])).toEqual([0, 6, 40, 55, 192, 255, 255]);
    expect(grey(adjustmentInGrey(adj), [15, 21])).toEqual([6, 55]);
  });
});

describe('made fixtures (make-ag.mjs)', () => {
  const measure = async (name: string) => (await againstMergedImage(name)).psnr;

  it("legacy Brightness/Contrast against Photoshop 27.11's own values (55.46 dB with the 127.5 pivot)", async () => {
    expect(await measure('made-ag-legacy-brightness-contrast.psd')).toBeGreaterThanOrEqual(61.0);
  });

  it('Levels and Posterize by the measured rules (43.51 dB with the plain power and rounded levels)', async () => {
    expect(await measure('made-ag-tone.psd')).toBeGreaterThanOrEqual(98.9);
  });
});
