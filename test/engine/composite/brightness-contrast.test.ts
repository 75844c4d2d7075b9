import { describe, expect, it } from 'vitest';
import { applyAdjustment, brightnessContrastLut } from '../../../src/engine/composite/adjust';

/**
 * Brightness/Contrast as docs/fidelity.md derives it. Legacy: a shift by the brightness and a
 * contrast around 127.5 (×100/(100 − c) rising, ×(100 + c)/100 falling; the shift before a rise and
 * after a fall). Current: one Curves spline with its ends pinned.
 */

const lut = (b: number, c: number, legacy: boolean) => brightnessContrastLut(b, c, legacy)!;

describe('legacy brightness/contrast', () => {
  it('brightness alone shifts every value and clips', () => {
    const l = lut(40, 0, true);
    expect([l[0], l[100], l[230], l[255]]).toEqual([40, 140, 255, 255]);
    expect(lut(-40, 0, true)[20]).toBe(0);
  });

  it('contrast scales distances from 127.5: +20 by 1.25 after the shift, −50 by 0.5 before it', () => {
    const up = lut(20, 20, true);
    expect([up[200], up[100], up[50]]).toEqual([243, 118, 56]);
    const down = lut(20, -50, true);
    expect([down[200], down[100], down[50]]).toEqual([184, 134, 109]);
  });

  it('+100 contrast thresholds at 127.5 and −100 greys', () => {
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
      // Black and white are reached only near the ends (a flat approach, no clipped run).
      expect(l[24], `b ${b}, c ${c}`).toBeGreaterThan(0);
      expect(l[231], `b ${b}, c ${c}`).toBeLessThan(255);
      for (let v = 1; v < 256; v++) expect(l[v]).toBeGreaterThanOrEqual(l[v - 1]);
    }
  });

  it('brightness bends the curve through (128 − δ, 128 + δ), δ = 55·b/150, a monotone cubic', () => {
    const l = lut(60, 0, false);
    expect(l[106]).toBe(150);
    expect(l[200]).toBe(229); // the worked example in make-h.mjs
    expect(lut(-60, 0, false)[150]).toBe(106);
  });

  it('contrast moves the quarter points apart: (64, 64 − q), (192, 192 + q), q = 25·c/100', () => {
    const l = lut(0, 100, false);
    expect([l[64], l[192]]).toEqual([39, 217]);
    expect(l[128]).toBe(128);
  });

  it('is applied to the colour channels through applyAdjustment', () => {
    const d = new Uint8ClampedArray([200, 100, 50, 99]);
    expect(applyAdjustment({ type: 'brightness/contrast', brightness: 20, contrast: 20, useLegacy: true }, d)).toBe(true);
    expect([...d]).toEqual([243, 118, 56, 99]);
  });
});
