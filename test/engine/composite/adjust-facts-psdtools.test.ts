import { describe, expect, it } from 'vitest';
import { adjustmentIn16Bits, applyAdjustment, cmykChannelLuts, posterizeLut, saturationAlpha } from '../../../src/engine/composite/adjust';
import { gradientRamp, rgbOf } from '../../../src/engine/composite/gradient';

/**
 * Facts about Photoshop's adjustments measured on Photoshop's own output (psd-tools' tests and
 * fitted tables, an Adobe community thread), held against our formulas (docs/fidelity.md,
 * "Adjustment facts from psd-tools' tests").
 */

const run = (adj: Record<string, unknown>, ...rgb: number[]): number[] => {
  const d = new Uint8ClampedArray([...rgb, 255]);
  expect(applyAdjustment(adj as never, d)).toBe(true);
  return [...d.subarray(0, 3)];
};

describe('gradient map', () => {
  // Adobe community, "What is the mathematical formula of Gradient map" (2019): a black → white
  // gradient map (Photoshop's default smoothness, 100 %) turns pure red, green and blue into these
  // greys. Photoshop's RGB grey 0.3/0.59/0.11 through the ramp's smoothness curve gives all three
  // to the level; Rec. 601's 0.299/0.587/0.114 gives (66, 155, 19).
  const blackToWhite = {
    type: 'gradient map',
    gradientType: 'solid',
    smoothness: 1,
    colorStops: [
      { color: { r: 0, g: 0, b: 0 }, location: 0, midpoint: 0.5 },
      { color: { r: 255, g: 255, b: 255 }, location: 1, midpoint: 0.5 },
    ],
    opacityStops: [],
  };

  it("maps Photoshop's grey, 0.3R + 0.59G + 0.11B (unrounded), as Photoshop's render shows", () => {
    expect(run(blackToWhite, 255, 0, 0)).toEqual([66, 66, 66]);
    expect(run(blackToWhite, 0, 255, 0)).toEqual([156, 156, 156]);
    expect(run(blackToWhite, 0, 0, 255)).toEqual([18, 18, 18]);
  });

  it('leaves a grey on its own level through a linear black → white map', () => {
    const linear = { ...blackToWhite, smoothness: 0 };
    for (const v of [0, 1, 77, 128, 254, 255]) expect(run(linear, v, v, v)).toEqual([v, v, v]);
  });
});

describe('hue/saturation range saturations', () => {
  // psd-tools measured how Photoshop combines two colour ranges' saturations over the same hue on
  // the grid −100, −90 … +100 (its _SATURATION_RANGE_INTERPOLATION_GRID, "empirical values tested
  // using the regular grid"). Our rule, the ranges' α added (α = s for s ≤ 0, s/(1 − s) above),
  // reproduces all 441 of its entries within 1.7 percentage points (mean 0.5: the table's whole
  // percentages read slightly low). A few of them:
  const combined = (x: number, y: number) => {
    const a = saturationAlpha(x / 100) + saturationAlpha(y / 100);
    return 100 * (a <= 0 ? Math.max(-1, a) : a / (1 + a));
  };
  const measured: Array<[number, number, number]> = [
    [50, 50, 66],
    [50, -50, 33],
    [-50, -50, -99],
    [20, 20, 33],
    [90, -90, 88],
    [30, -50, -8],
    [70, -80, 59],
    [40, -100, -35],
    [10, 10, 17],
    [100, -100, 100],
  ];

  it.each(measured)('%i %% and %i %% act as %i %% (Photoshop, as psd-tools measured)', (x, y, ps) => {
    expect(Math.abs(combined(x, y) - ps)).toBeLessThanOrEqual(1.7);
  });

  it('two ranges over one hue act as the combined saturation on a pixel', () => {
    // (200, 100, 50): hue 20°, inside two ranges (weight 1) at +50 % and −50 %: as one range at +33 %.
    const range = (s: number) => ({ a: 315, b: 345, c: 45, d: 75, hue: 0, saturation: s, lightness: 0 });
    const two = run({ type: 'hue/saturation', reds: range(50), yellows: range(-50) }, 200, 100, 50);
    const one = run({ type: 'hue/saturation', reds: range(100 / 3) }, 200, 100, 50);
    two.forEach((v, i) => expect(Math.abs(v - one[i])).toBeLessThanOrEqual(1));
  });
});

describe('hue/saturation steps psd-tools holds to Photoshop (huesaturation_colorize/lightness/saturation_rgb)', () => {
  const ch = (hue: number, saturation: number, lightness: number, a = 0, b = 0, c = 0, d = 0) => ({ a, b, c, d, hue, saturation, lightness });

  it('colorize: the HSL lightness (moved by the colorize lightness) with the colorize hue and saturation', () => {
    // Colorize flag in the master record's first byte; hue 120°, 50 %, lightness 0: (200, 100, 50)
    // has HSL lightness 125/255, so green at S 0.5: (62.5, 187.5, 62.5).
    const colorize = { a: 0x0100, b: 120, c: 50, d: 0, hue: 0, saturation: 0, lightness: 0 };
    const out = run({ type: 'hue/saturation', master: colorize }, 200, 100, 50);
    [63, 188, 63].forEach((v, i) => expect(Math.abs(out[i] - v)).toBeLessThanOrEqual(1));
    // Lightness +50 moves the HSL lightness half way to white first: L = 0.745, S 0.5: (157.5, 222.5, 157.5).
    const lighter = run({ type: 'hue/saturation', master: { ...colorize, d: 50 } }, 200, 100, 50);
    [158, 222, 158].forEach((v, i) => expect(Math.abs(lighter[i] - v)).toBeLessThanOrEqual(1));
  });

  it('a range darkening moves V by 1 + l·S (HSV) and keeps the minimum channel', () => {
    // psd-tools: V' = V(1 + l·S_hsv), S' = S(1 + l)/(1 + l·S): the channels scaled about the minimum.
    const reds = ch(0, 0, -50, 315, 345, 15, 45);
    // (200, 40, 40): hue 0°, S_hsv 0.8: V' = 200 · 0.6 = 120, minimum 40 kept.
    expect(run({ type: 'hue/saturation', reds }, 200, 40, 40)).toEqual([120, 40, 40]);
  });
});

describe('descriptor colours in HSB and Lab', () => {
  const near = (got: number[], want: number[], tolerance: number) => want.forEach((v, i) => expect(Math.abs(got[i] - v), `${got} vs ${want}`).toBeLessThanOrEqual(tolerance));

  it("HSB: the hexcone in the document's RGB (psd-tools' hsb-color-swatches.psd, Photoshop 2026)", () => {
    // ag-psd: h a fraction of a turn, s and b percent. Photoshop's stored RGBC for HSB 30°, 60 %, 80 %.
    near(rgbOf({ h: 30 / 360, s: 60, b: 80 }), [204, 142.8, 81.6], 0.02);
    // Hue 360° is red, not white (psd-tools #754).
    near(rgbOf({ h: 1, s: 100, b: 100 }), [255, 0, 0], 0.02);
    near(rgbOf({ h: 200 / 360, s: 0, b: 60 }), [153, 153, 153], 0.02);
  });

  it("Lab: D50 Lab to sRGB, as Photoshop's colour engine converts it (psd-tools, over the scripting bridge)", () => {
    // Descriptor a and b in the file's own units: psd-tools' (reported + 0.5) · 256/255.
    const native = (reported: number) => ((reported + 0.5) * 256) / 255;
    const photoshop: Array<[number, number, number, number[]]> = [
      [65.49, 13, 69, [202.69, 148.651, 0]],
      [75, 25, -30, [211.468, 168.986, 239.887]],
      [25, -40, 15, [0, 72.513, 33.509]],
      [90, 5, -5, [234.175, 223.039, 235.179]],
      [50, 0, 0, [120.084, 118.613, 118.084]],
    ];
    for (const [l, a, b, rgb] of photoshop) near(rgbOf({ l, a: native(a), b: native(b) }), rgb, 0.15);
  });

  it('a gradient stop picked in HSB is drawn in its colour, not black', () => {
    const ramp = gradientRamp({ type: 'solid', smoothness: 0, colorStops: [{ color: { h: 0.5, s: 100, b: 100 }, location: 0 }, { color: { h: 0.5, s: 100, b: 100 }, location: 1 }] }, { steps: 2 })!;
    near([...ramp.rgba.subarray(0, 3)], [0, 255, 255], 0.01);
  });
});

describe('Levels and Curves on a CMYK document: K takes its own record', () => {
  // psd-tools applies each channel's own table (C, M, Y and K: records 1 to 4), then the
  // composite's, to the stored values (255 = no ink), and holds levels_cmyk / curves_cmyk to
  // Photoshop's renders. ag-psd reads records 0 to 3 only; psd/records.ts reads K's (`black`).
  const id = { shadowInput: 0, highlightInput: 255, shadowOutput: 0, highlightOutput: 255, midtoneInput: 1 };

  it("levels: K's record, then the composite's", () => {
    const adj = { type: 'levels', rgb: { ...id, highlightInput: 200 }, red: id, green: id, blue: id, black: { ...id, shadowInput: 100 } };
    const luts = cmykChannelLuts(adj as never)!;
    // C: the composite alone (100 → 128); K: 100 → 0 by its own, then 0.
    expect(luts[0]![100]).toBe(128);
    expect(luts[3]![100]).toBe(0);
    // 178 → 128 by K's own (78/155 of the range), then 128 · 255/200 → 163 by the composite's.
    expect(luts[3]![178]).toBe(163);
  });

  it("curves: K's curve, the composite's after it", () => {
    const flip = [{ input: 0, output: 255 }, { input: 255, output: 0 }];
    const luts = cmykChannelLuts({ type: 'curves', black: flip } as never)!;
    expect(luts[0]).toBeNull();
    expect(luts[3]![0]).toBe(255);
    expect(luts[3]![200]).toBe(55);
  });

  it('without a K record K takes the composite only, as before', () => {
    const luts = cmykChannelLuts({ type: 'levels', rgb: { ...id, shadowInput: 50 } } as never)!;
    expect(luts[3]![50]).toBe(0);
  });
});

describe('Posterize and Threshold in a 16-bit document step where the 16-bit values do', () => {
  // psd-tools: threshold_16bits_* held to Photoshop at MSE 5e-6 with white where
  // round(65535·grey) > (level − 1/255)·(65535/65536)·257; posterize_16bits_* at 5e-5 with
  // floor(w·n/65536). The compiled form's 8-bit value v stands for w ≈ 257·v.
  const wide = (adj: Record<string, unknown>) => adjustmentIn16Bits(adj as never) as unknown as Record<string, unknown>;

  it('threshold: the unrounded grey at or above the level (8 bits: rounded), half a level apart', () => {
    // (128, 128, 127): grey 127.89, rounded 128.
    expect(run({ type: 'threshold', level: 128 }, 128, 128, 127)).toEqual([255, 255, 255]);
    expect(run(wide({ type: 'threshold', level: 128 }), 128, 128, 127)).toEqual([0, 0, 0]);
    expect(run(wide({ type: 'threshold', level: 128 }), 128, 128, 128)).toEqual([255, 255, 255]);
    expect(run(wide({ type: 'threshold', level: 128 }), 127, 127, 127)).toEqual([0, 0, 0]);
  });

  it('posterize: bins of 65536/n sixteen-bit values', () => {
    // 6 levels: the last step at 5·65536/6 = 54613 (212.5 in 8 bits): 213 is in the top bin.
    expect(posterizeLut(6)[213]).toBe(204);
    expect(posterizeLut(6, true)[213]).toBe(255);
    // 4 levels step at 64, 128 and 192 either way.
    for (const v of [63, 64, 127, 128, 191, 192, 255]) expect(posterizeLut(4, true)[v]).toBe(posterizeLut(4)[v]);
  });

  it('marks Posterize, Threshold and Levels only (Levels: adjust-photocraft-tone.test.ts)', () => {
    expect(adjustmentIn16Bits({ type: 'invert' })).toEqual({ type: 'invert' });
    expect(wide({ type: 'posterize', levels: 4 })).toEqual({ type: 'posterize', levels: 4, in16Bits: true });
  });
});
