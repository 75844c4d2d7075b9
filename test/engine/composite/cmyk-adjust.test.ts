import type { AdjustmentLayer } from 'ag-psd';
import { describe, expect, it } from 'vitest';
import { colourTransformSync, defaultProfile } from '../../../src/engine/colour';
import { applyAdjustment, cmykChannelLuts } from '../../../src/engine/composite/adjust';
import { adjustmentInCmyk } from '../../../src/engine/composite/cmyk-adjust';
import type { AdjustmentInCmyk } from '../../../src/engine/composite/adjust';

/**
 * Issue 20: a CMYK document's adjustment acts on its inks. The compile-time table (RGB → CMYK →
 * per-ink tables → RGB on a 17³ grid) is held against the same steps done per pixel through
 * LittleCMS, and against the adjustment on the layers' own inks (what Photoshop shows).
 */
const cmykProfile = defaultProfile('Cmyk');
const toRgb = colourTransformSync({ from: cmykProfile, to: defaultProfile('Rgb'), fromLayout: 'CMYK_INVERTED', toLayout: 'RGBA' });
const toCmyk = colourTransformSync({ from: defaultProfile('Rgb'), to: cmykProfile, fromLayout: 'RGBA', toLayout: 'CMYK_INVERTED' });

/**
 * n colours drawn from CMYK (stored values), so inside the profile's gamut like a CMYK document's
 * pixels: K at most 47 %, total ink at most 280 % (what a press accepts; random inks reach 400 %).
 */
function inks(n: number): Uint8Array {
  const out = new Uint8Array(n * 4);
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) >>> 0) >>> 16;
  for (let i = 0; i < out.length; i += 4) {
    const ink = [next() % 256, next() % 256, next() % 256, next() % 120];
    const total = ink[0] + ink[1] + ink[2] + ink[3];
    const k = total > 2.8 * 255 ? (2.8 * 255) / total : 1;
    for (let c = 0; c < 4; c++) out[i + c] = 255 - Math.round(ink[c] * k);
  }
  return out;
}

const psnr = (a: Uint8ClampedArray | Uint8Array, b: Uint8ClampedArray | Uint8Array) => {
  let se = 0, n = 0;
  for (let i = 0; i < a.length; i++) {
    if (i % 4 === 3) continue;
    se += (a[i] - b[i]) ** 2;
    n++;
  }
  return 10 * Math.log10((255 * 255) / (se / n || 1e-9));
};

const curves: AdjustmentLayer = { type: 'curves', rgb: [{ input: 0, output: 0 }, { input: 100, output: 150 }, { input: 255, output: 255 }], green: [{ input: 0, output: 30 }, { input: 255, output: 255 }] };
const levels: AdjustmentLayer = { type: 'levels', rgb: { shadowInput: 20, highlightInput: 235, shadowOutput: 0, highlightOutput: 255, midtoneInput: 1.3 } };

describe('CMYK adjustments (composite/cmyk-adjust.ts)', () => {
  it('keeps kinds it does not model on the RGB arithmetic', () => {
    const hue: AdjustmentLayer = { type: 'hue/saturation', master: { a: 0, b: 0, c: 0, d: 0, hue: 30, saturation: 0, lightness: 0 } };
    const fitted = adjustmentInCmyk(hue, cmykProfile, [1]);
    expect(fitted.adjustment).toBe(hue);
    expect(fitted.excludedChannels).toEqual([1]);
  });

  const cases: Array<[string, AdjustmentLayer, number]> = [
    ['curves (composite and M)', curves, 38],
    ['levels', levels, 38],
    ['invert', { type: 'invert' }, 38],
    ['brightness/contrast', { type: 'brightness/contrast', brightness: 30, contrast: 20 }, 38],
    // Steps: the grid's interpolation softens them, so the floor is lower.
    ['posterize 4', { type: 'posterize', levels: 4 }, 20],
  ];
  for (const [name, adj, floor] of cases) {
    it(`${name}: the table matches the per-pixel steps (PSNR ≥ ${floor} dB)`, () => {
      const n = 4096;
      const ink = inks(n);
      const rgb = new Uint8Array(n * 4);
      toRgb.apply(ink, rgb, n);
      // Per pixel: the RGB backdrop separated, the tables on each ink, back to RGB.
      const luts = cmykChannelLuts(adj as AdjustmentLayer)!;
      const sep = new Uint8Array(n * 4);
      toCmyk.apply(rgb, sep, n);
      const onInk = (src: Uint8Array) => {
        const out = src.slice();
        for (let i = 0; i < out.length; i++) if (luts[i % 4]) out[i] = luts[i % 4]![out[i]];
        const back = new Uint8Array(n * 4);
        toRgb.apply(out, back, n);
        return back;
      };
      const perPixel = onInk(sep);
      const fitted = adjustmentInCmyk(adj as AdjustmentLayer, cmykProfile).adjustment as AdjustmentInCmyk;
      expect(fitted.inCmyk?.lut?.size).toBe(17);
      const d = new Uint8ClampedArray(rgb);
      expect(applyAdjustment(fitted, d)).toBe(true);
      const table = psnr(d, perPixel);
      // Against the adjustment on the colours' own inks (Photoshop's), and what the RGB arithmetic
      // gives: (a) inks picked freely, whose black the profile's separation redistributes; (b)
      // artwork converted to CMYK by the profile, whose inks the separation finds again.
      const rgbWay = new Uint8ClampedArray(rgb);
      applyAdjustment(adj as AdjustmentLayer, rgbWay);
      const picked = onInk(ink);
      const sepRgb = new Uint8Array(n * 4);
      toRgb.apply(sep, sepRgb, n);
      const tableSep = new Uint8ClampedArray(sepRgb);
      applyAdjustment(fitted, tableSep);
      const rgbWaySep = new Uint8ClampedArray(sepRgb);
      applyAdjustment(adj as AdjustmentLayer, rgbWaySep);
      const converted = onInk(sep);
      const [a, b, c, e] = [psnr(d, picked), psnr(rgbWay, picked), psnr(tableSep, converted), psnr(rgbWaySep, converted)];
      console.log(`${name}: table vs per-pixel ${table.toFixed(1)} dB; picked inks: table ${a.toFixed(1)} dB, RGB arithmetic ${b.toFixed(1)} dB; converted artwork: table ${c.toFixed(1)} dB, RGB arithmetic ${e.toFixed(1)} dB`);
      expect(table).toBeGreaterThanOrEqual(floor);
      expect(c).toBeGreaterThan(e + 5);
    });
  }

  it('leaves excluded inks alone: Curves with M excluded changes C, Y and K only', () => {
    const all = cmykChannelLuts(curves)!;
    expect(all[1]).not.toBeNull();
    const fitted = adjustmentInCmyk(curves, cmykProfile, [1]);
    expect(fitted.excludedChannels).toBeUndefined();
    const withM = adjustmentInCmyk(curves, cmykProfile).adjustment as AdjustmentInCmyk;
    expect((fitted.adjustment as AdjustmentInCmyk).inCmyk!.lut!.nodes).not.toBe(withM.inCmyk!.lut!.nodes);
  });
});
