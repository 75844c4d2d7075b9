import { describe, expect, it } from 'vitest';
import { adjustmentInGrey, applyAdjustment } from '../../../src/engine/composite/adjust';

const px = (...rgb: number[]) => new Uint8ClampedArray([...rgb, 255]);
const run = (adj: Parameters<typeof applyAdjustment>[0], ...rgb: number[]) => {
  const d = px(...rgb);
  expect(applyAdjustment(adj, d)).toBe(true);
  return [...d.subarray(0, 3)];
};
const levels = (shadowInput: number, highlightInput: number, midtoneInput = 1) => ({
  shadowInput, highlightInput, shadowOutput: 0, highlightOutput: 255, midtoneInput,
});

describe('adjustment layers', () => {
  it('invert turns each channel to 255 − v', () => {
    expect(run({ type: 'invert' }, 10, 128, 250)).toEqual([245, 127, 5]);
  });

  it('levels stretch the input range and apply the midtone gamma', () => {
    expect(run({ type: 'levels', rgb: levels(50, 200) }, 50, 125, 200)).toEqual([0, 128, 255]);
    expect(run({ type: 'levels', rgb: levels(0, 255, 2) }, 64, 64, 64)[0]).toBe(128);
  });

  it('curves pass through their points (natural spline), channel curve before the master', () => {
    const curve = [{ input: 0, output: 0 }, { input: 128, output: 192 }, { input: 255, output: 255 }];
    expect(run({ type: 'curves', rgb: curve }, 0, 128, 255)).toEqual([0, 192, 255]);
    const invert = [{ input: 0, output: 255 }, { input: 255, output: 0 }];
    expect(run({ type: 'curves', red: invert }, 0, 0, 0)).toEqual([255, 0, 0]);
  });

  it('hue/saturation: −100 saturation greys, +180 hue turns red to cyan, lightness ±100 goes white/black', () => {
    const ch = (hue: number, saturation: number, lightness: number) => ({ a: 0, b: 0, c: 0, d: 0, hue, saturation, lightness });
    const [r, g, b] = run({ type: 'hue/saturation', master: ch(0, -100, 0) }, 200, 100, 50);
    expect(Math.max(r, g, b) - Math.min(r, g, b)).toBeLessThanOrEqual(1);
    expect(run({ type: 'hue/saturation', master: ch(180, 0, 0) }, 255, 0, 0)).toEqual([0, 255, 255]);
    expect(run({ type: 'hue/saturation', master: ch(0, 0, 100) }, 10, 20, 30)).toEqual([255, 255, 255]);
    expect(run({ type: 'hue/saturation', master: ch(0, 0, -100) }, 10, 20, 30)).toEqual([0, 0, 0]);
  });

  it('channel mixer mixes channels by percent', () => {
    const swap = { type: 'channel mixer' as const, red: { red: 0, green: 0, blue: 100, constant: 0 }, green: { red: 0, green: 100, blue: 0, constant: 0 }, blue: { red: 100, green: 0, blue: 0, constant: 0 } };
    expect(run(swap, 10, 20, 30)).toEqual([30, 20, 10]);
  });

  it('gradient map from black to white gives the luminosity', () => {
    const map = {
      type: 'gradient map' as const, gradientType: 'solid' as const,
      colorStops: [{ color: { r: 0, g: 0, b: 0 }, location: 0, midpoint: 0.5 }, { color: { r: 255, g: 255, b: 255 }, location: 1, midpoint: 0.5 }],
    };
    const [v] = run(map, 255, 0, 0);
    expect(Math.abs(v - 76)).toBeLessThanOrEqual(1);
  });

  it('black & white weights pure red by the reds slider', () => {
    expect(run({ type: 'black & white', reds: 40 }, 255, 0, 0)).toEqual([102, 102, 102]);
  });

  it('reports adjustments it does not render', () => {
    // A colour lookup with no table chosen: nothing to apply, the layer is skipped.
    expect(applyAdjustment({ type: 'color lookup' }, px(1, 2, 3))).toBe(false);
  });
});

describe('posterize and threshold as Photoshop renders them (issue 25)', () => {
  it('posterize: equal bins of the input, floor(v·n/256), not the closest level', () => {
    // 4 levels: steps at 64, 128, 192 (the closest level would step at 43 and 213).
    expect(run({ type: 'posterize', levels: 4 }, 63, 64, 200)).toEqual([0, 85, 255]);
    expect(run({ type: 'posterize', levels: 4 }, 127, 128, 191)).toEqual([85, 170, 170]);
    expect(run({ type: 'posterize', levels: 2 }, 127, 128, 255)).toEqual([0, 255, 255]);
  });

  it("threshold: round(0.3R + 0.59G + 0.11B) against the level (Photoshop's grey, not Rec. 601's)", () => {
    // 0.3·0 + 0.59·200 + 0.11·91 = 128.01 → 128: white at 128 (Rec. 601 gives 127.77: black).
    expect(run({ type: 'threshold', level: 128 }, 0, 200, 91)).toEqual([255, 255, 255]);
    // 0.3·255 + 0.59·86 + 0.11·0 = 127.24 → 127: black (Rec. 601 gives 126.73, the same side).
    expect(run({ type: 'threshold', level: 128 }, 255, 86, 0)).toEqual([0, 0, 0]);
    // Rounded: 0.3·100 + 0.59·165 + 0.11·0 = 127.35 → 127, black; 127.5 and up is white.
    expect(run({ type: 'threshold', level: 128 }, 100, 165, 0)).toEqual([0, 0, 0]);
    expect(run({ type: 'threshold', level: 128 }, 0, 216, 1)).toEqual([255, 255, 255]);
  });
});

describe('exposure in a Grayscale document (issue 25)', () => {
  it("works in linear light through Dot Gain 20 % (gamma 1.75) instead of sRGB's 2.2", () => {
    const grey = adjustmentInGrey({ type: 'exposure', exposure: 1, offset: 0, gamma: 1 });
    expect(grey).toMatchObject({ profileGamma: 1.75 });
    // 100 → (100/255)^1.75 · 2 → back through 1/1.75: 100 · 2^(1/1.75) = 148.6.
    expect(run(grey, 100, 100, 100)).toEqual([149, 149, 149]);
    // The RGB document's exposure: 100 · 2^(1/2.2) = 137.0.
    expect(run({ type: 'exposure', exposure: 1, offset: 0, gamma: 1 }, 100, 100, 100)).toEqual([137, 137, 137]);
  });
});

describe('levels and curves in a Grayscale document (issue 25)', () => {
  it("apply the Gray channel's record (ag-psd's red) to all three channels, not to red alone", () => {
    const gray = levels(50, 200);
    const fitted = adjustmentInGrey({ type: 'levels', rgb: levels(0, 255), red: gray });
    expect(fitted).toEqual({ type: 'levels', rgb: gray });
    // (100 − 50)/150 · 255 = 85, on every channel.
    expect(run(fitted, 100, 100, 100)).toEqual([85, 85, 85]);
    // A file that keeps the grey in the composite's record keeps it there.
    expect(adjustmentInGrey({ type: 'levels', rgb: gray })).toEqual({ type: 'levels', rgb: gray });
    const curve = [{ input: 0, output: 0 }, { input: 128, output: 200 }, { input: 255, output: 255 }];
    expect(adjustmentInGrey({ type: 'curves', red: curve })).toEqual({ type: 'curves', rgb: curve });
    expect(adjustmentInGrey({ type: 'invert' })).toEqual({ type: 'invert' });
  });
});
