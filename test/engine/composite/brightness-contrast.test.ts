import { describe, expect, it } from 'vitest';
import { applyAdjustment, brightnessContrastLut } from '../../../src/engine/composite/adjust';

/**
 * Brightness/Contrast as docs/fidelity.md derives it. Legacy: a shift by the brightness and a
 * contrast around 128 (×100/(100 − c) rising, ×(100 + c)/100 falling; the shift before a rise and
 * after a fall). Current: the Curves spline of the contrast, its points pushed along the
 * anti-diagonal by the brightness (the curve psd-tools fitted to Photoshop's output).
 */

const lut = (b: number, c: number, legacy: boolean) => brightnessContrastLut(b, c, legacy)!;

describe('legacy brightness/contrast', () => {
  it('brightness alone shifts every value and clips', () => {
    const l = lut(40, 0, true);
    expect([l[0], l[100], l[230], l[255]]).toEqual([40, 140, 255, 255]);
    expect(lut(-40, 0, true)[20]).toBe(0);
  });

  it('contrast scales distances from 128: +20 by 1.25 after the shift, −50 by 0.5 before it', () => {
    const up = lut(20, 20, true);
    expect([up[200], up[100], up[50]]).toEqual([243, 118, 56]);
    const down = lut(20, -50, true);
    expect([down[200], down[100], down[50]]).toEqual([184, 134, 109]);
  });

  it('+100 contrast thresholds at 128 and −100 greys', () => {
    const t = lut(0, 100, true);
    expect([t[127], t[128]]).toEqual([0, 255]);
    expect(new Set(lut(0, -100, true))).toEqual(new Set([128]));
  });
});

describe('current brightness/contrast', () => {
  it('keeps black and white (nothing clips) and stays monotonic', () => {
    for (const [b, c] of [[150, 0], [-150, 0], [0, 100], [0, -50], [80, 60]]) {
      const l = lut(b, c, false);
      expect([l[0], l[255]]).toEqual([0, 255]);
      for (let v = 1; v < 256; v++) expect(l[v]).toBeGreaterThanOrEqual(l[v - 1]);
    }
    // Brightness alone reaches black and white only near the ends (a flat approach, no clipped run).
    for (const b of [150, -150]) {
      const l = lut(b, 0, false);
      expect(l[24], `b ${b}`).toBeGreaterThan(0);
      expect(l[231], `b ${b}`).toBeLessThan(255);
    }
  });

  it('brightness pushes each point along the anti-diagonal by β(t) = k·t(1 − t)·h(t) (the curve fitted to Photoshop)', () => {
    // b = +60: k = 0.4; at t = ½, h = ½(0.4(1.65·½^0.35 − ½^10) + 0.6(1.96·½^0.4 + ½^4) + ½^1.25).
    const k = 0.4;
    const h = 0.5 * (k * (1.65 * 0.5 ** 0.35 - 0.5 ** 10) + (1 - k) * (1.96 * 0.5 ** 0.4 + 0.5 ** 4) + 0.5 ** 1.25);
    const shift = 255 * k * 0.25 * h; // 35.1 levels
    const l = lut(60, 0, false);
    expect(Math.abs(l[Math.round(127.5 - shift)] - (127.5 + shift))).toBeLessThanOrEqual(1);
    // Whole curves, from our own evaluation of the same formula (values at 64 and 128).
    expect([l[64], l[128]]).toEqual([95, 180]);
    const dark = lut(-60, 0, false);
    expect([dark[64], dark[128]]).toEqual([44, 86]);
    const full = lut(150, 0, false);
    expect([full[64], full[128]]).toEqual([166, 237]);
  });

  it('contrast is an S-curve about the middle (photocraft: slopes 1 − c/128 at the ends, 1 + c/128 in the middle)', () => {
    const l = lut(0, 100, false);
    expect([l[32], l[64], l[192], l[224]]).toEqual([13, 39, 217, 242]);
    expect(l[128]).toBe(128);
  });

  it('is applied to the colour channels through applyAdjustment', () => {
    const d = new Uint8ClampedArray([200, 100, 50, 99]);
    expect(applyAdjustment({ type: 'brightness/contrast', brightness: 20, contrast: 20, useLegacy: true }, d)).toBe(true);
    expect([...d]).toEqual([243, 118, 56, 99]);
  });
});
