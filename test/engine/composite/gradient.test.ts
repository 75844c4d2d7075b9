import { describe, expect, it } from 'vitest';
import { applyAdjustment } from '../../../src/engine/composite/adjust';
import { gradientRamp, type Gradient, type SolidGradient } from '../../../src/engine/composite/gradient';

const STEPS = 4097; // t = i / 4096: quarter points fall on samples
const at = (g: Gradient, t: number, reverse = false) => {
  const r = gradientRamp(g, { steps: STEPS, reverse })!;
  const i = Math.round(t * (STEPS - 1)) * 4;
  return [...r.rgba.subarray(i, i + 4)];
};
const c = (v: number) => ({ r: v, g: v, b: v });
const bw = (smoothness?: number, location = 1): SolidGradient => ({
  type: 'solid',
  smoothness,
  colorStops: [
    { color: c(0), location: 0, midpoint: 0.5 },
    { color: c(255), location, midpoint: 0.5 },
  ],
  opacityStops: [],
});

describe('gradient ramps', () => {
  it('smoothness 0 is the linear ramp', () => {
    for (const t of [0, 0.25, 0.5, 0.75, 1]) expect(at(bw(0), t)[0]).toBeCloseTo(255 * t, 3);
  });

  it('smoothness 100 % eases a two-stop ramp with slope ½ at the ends: t/2 + 3t²/2 − t³', () => {
    for (const t of [0.125, 0.25, 0.5, 0.75, 0.875]) {
      expect(at(bw(1), t)[0]).toBeCloseTo(255 * (t / 2 + (3 * t * t) / 2 - t ** 3), 3);
    }
    // What Photoshop's own 100 % ramp measures (psdtools-layer-effects-all.psd): 0.203 at a quarter.
    expect(at(bw(1), 0.25)[0] / 255).toBeCloseTo(0.203, 3);
  });

  it('smoothness between mixes the linear and the eased ramps', () => {
    const t = 0.25;
    const eased = t / 2 + (3 * t * t) / 2 - t ** 3;
    // ag-psd reads effect stop locations divided by Intr (here 2048): the end stop reads as 2.
    expect(at(bw(0.5, 2), t)[0]).toBeCloseTo(255 * (t + (eased - t) / 2), 3);
  });

  it('a peak stop is rounded off: the curve is level at the stop and symmetric about it', () => {
    const peak: Gradient = {
      type: 'solid',
      smoothness: 1,
      colorStops: [
        { color: c(0), location: 0 },
        { color: c(255), location: 0.5 },
        { color: c(0), location: 1 },
      ],
      opacityStops: [],
    };
    expect(at(peak, 0.5)[0]).toBeCloseTo(255, 3);
    // Level at the stop: the neighbours' chord is flat, so a step away barely drops.
    expect(255 - at(peak, 0.5 + 1 / 4096)[0]).toBeLessThan(0.01);
    expect(at(peak, 0.3)[0]).toBeCloseTo(at(peak, 0.7)[0], 3);
    // Linear at 0 % instead: a corner.
    expect(255 - at({ ...peak, smoothness: 0 }, 0.5 + 1 / 4096)[0]).toBeGreaterThan(0.1);
  });

  it('opacity stops give the ramp its alpha, eased alike; reverse turns the ramp', () => {
    const fade: SolidGradient = { ...bw(0), opacityStops: [{ opacity: 1, location: 0 }, { opacity: 0, location: 1 }] };
    expect(at(fade, 0.25)[3]).toBeCloseTo(255 * 0.75, 3);
    expect(at(fade, 0.25, true)[0]).toBeCloseTo(255 * 0.75, 3);
    expect(at(fade, 0.25, true)[3]).toBeCloseTo(255 * 0.25, 3);
    // Without opacity stops the ramp is opaque.
    expect(at(bw(1), 0.3)[3]).toBe(255);
  });

  it('a gradient without stops draws nothing', () => {
    expect(gradientRamp({ type: 'solid', colorStops: [], opacityStops: [] })).toBeNull();
  });

  it('noise gradients: the same seed gives the same bands, within the colour ranges', () => {
    const noise = (randomSeed: number): Gradient => ({
      type: 'noise',
      roughness: 0.5,
      colorModel: 'rgb',
      randomSeed,
      min: [0.2, 0, 0.5, 0],
      max: [0.4, 1, 0.5, 1],
    });
    const a = gradientRamp(noise(43))!.rgba;
    expect(gradientRamp(noise(43))!.rgba).toEqual(a);
    expect(gradientRamp(noise(44))!.rgba).not.toEqual(a);
    for (let i = 0; i < a.length; i += 4) {
      expect(a[i]).toBeGreaterThanOrEqual(0.2 * 255 - 1e-3);
      expect(a[i]).toBeLessThanOrEqual(0.4 * 255 + 1e-3);
      expect(a[i + 2]).toBeCloseTo(0.5 * 255, 3);
      expect(a[i + 3]).toBe(255); // no transparency unless asked
    }
    // Lab with "restrict colours" stays in gamut by losing chroma, not by clipping channels.
    const lab = gradientRamp({ type: 'noise', roughness: 0.5, colorModel: 'lab', randomSeed: 7, restrictColors: true, min: [0, 0, 0, 0], max: [1, 1, 1, 1] })!.rgba;
    for (const v of lab) expect(Number.isFinite(v)).toBe(true);
  });

  it('gradient maps: smoothness, and ag-psd\'s stop locations divided by it', () => {
    const run = (adj: Parameters<typeof applyAdjustment>[0], v: number) => {
      const d = new Uint8ClampedArray([v, v, v, 255]);
      expect(applyAdjustment(adj, d)).toBe(true);
      return d[0];
    };
    const map = (smoothness: number, end: number) => ({
      type: 'gradient map' as const,
      gradientType: 'solid' as const,
      smoothness,
      colorStops: [
        { color: c(0), location: 0, midpoint: 0.5 },
        { color: c(255), location: end, midpoint: 0.5 },
      ],
    });
    const t = 64 / 255;
    const eased = t / 2 + (3 * t * t) / 2 - t ** 3;
    expect(run(map(1, 1), 64)).toBe(Math.round(255 * eased));
    // 50 %: Photoshop's end stop at 4096 reads as 4096 / 2048 = 2.
    expect(run(map(0.5, 2), 64)).toBe(Math.round(255 * (t + eased) / 2));
    // 0 %: ag-psd divides by 0 (NaN, Infinity): the ends still land at 0 and 1.
    expect(run(map(0, Infinity), 64)).toBe(64);
  });
});
