import { describe, expect, it } from 'vitest';
import { applyAdjustment } from '../../../src/engine/composite/adjust';
import {
  gradientRamp,
  linearToSrgb,
  oklabToSrgb,
  srgbToLinear,
  srgbToOklab,
  type Gradient,
  type InterpolationMethod,
  type SolidGradient,
} from '../../../src/engine/composite/gradient';

const STEPS = 4097; // t = i / 4096: quarter points fall on samples
const at = (g: Gradient, t: number, reverse = false, method?: InterpolationMethod) => {
  const r = gradientRamp(g, { steps: STEPS, reverse, method })!;
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

  it('gradient maps: the method read from the file (interpolationMethod), not ag-psd\'s `method`', () => {
    const map = (extra: object) => ({
      type: 'gradient map' as const,
      gradientType: 'solid' as const,
      smoothness: 0,
      colorStops: [
        { color: c(0), location: 0, midpoint: 0.5 },
        { color: c(255), location: 1, midpoint: 0.5 },
      ],
      ...extra,
    });
    const run = (adj: object) => {
      const d = new Uint8ClampedArray([128, 128, 128, 255]);
      applyAdjustment(adj as Parameters<typeof applyAdjustment>[0], d);
      return d[0];
    };
    const t = 128 / 255;
    expect(run(map({}))).toBe(128);
    // ag-psd reads every method as 'perceptual': that field alone leaves the map Classic.
    expect(run(map({ method: 'perceptual' }))).toBe(128);
    expect(run(map({ interpolationMethod: 'linear' }))).toBe(Math.round(linearToSrgb(t)));
    expect(run(map({ interpolationMethod: 'perceptual' }))).toBe(Math.round(linearToSrgb(t ** 3)));
  });
});

describe('gradient interpolation methods', () => {
  const grey = (smoothness: number) => bw(smoothness);
  const three: SolidGradient = {
    type: 'solid',
    smoothness: 1,
    colorStops: [
      { color: { r: 20, g: 30, b: 200 }, location: 0, midpoint: 0.5 },
      { color: { r: 255, g: 255, b: 255 }, location: 0.4, midpoint: 0.5 },
      { color: { r: 230, g: 80, b: 20 }, location: 1, midpoint: 0.5 },
    ],
    opacityStops: [],
  };

  it('Classic is the ramp as before: no method, "classic" and an unknown one alike', () => {
    const before = gradientRamp(three)!.rgba;
    expect(gradientRamp(three, { method: 'classic' })!.rgba).toEqual(before);
    expect(gradientRamp(three, { method: 'stripes' })!.rgba).toEqual(before);
    expect(gradientRamp(three, { method: 'linear' })!.rgba).not.toEqual(before);
  });

  it('Oklab conversions: the published coordinates of sRGB red, blue and white, and back', () => {
    const near = (a: number[], b: number[], digits: number) => a.forEach((v, i) => expect(v).toBeCloseTo(b[i], digits));
    near(srgbToOklab([255, 0, 0]), [0.62796, 0.22486, 0.12585], 4);
    near(srgbToOklab([0, 0, 255]), [0.45201, -0.03246, -0.31153], 4);
    near(srgbToOklab([255, 255, 255]), [1, 0, 0], 4);
    for (const rgb of [[20, 30, 200], [230, 80, 20], [128, 128, 128]] as Array<[number, number, number]>) {
      const lab = srgbToOklab(rgb);
      oklabToSrgb(lab);
      near(lab, rgb, 3); // the published matrices are rounded to 10 digits
    }
    expect(linearToSrgb(srgbToLinear(77))).toBeCloseTo(77, 9);
  });

  it('Linear ramps in linear light: black → white is half as bright at the middle, sRGB 187.5', () => {
    expect(at(grey(0), 0.5, false, 'linear')[0]).toBeCloseTo(linearToSrgb(0.5), 3);
    expect(linearToSrgb(0.5)).toBeCloseTo(187.5, 0);
    expect(at(grey(0), 0.25, false, 'linear')[0]).toBeCloseTo(linearToSrgb(0.25), 3);
  });

  it('Perceptual ramps in Oklab: black → white runs evenly in lightness (L = cube root of linear light), darker than Classic', () => {
    // Oklab's L of a grey is the cube root of its linear light, so L = t gives linear light t³:
    // 99 at the middle (Classic 127.5), the "pull-in of the blacks" photoshopgurus describes.
    for (const t of [0.25, 0.5, 0.75]) expect(at(grey(0), t, false, 'perceptual')[0]).toBeCloseTo(linearToSrgb(t ** 3), 2);
    expect(Math.round(at(grey(0), 0.5, false, 'perceptual')[0])).toBe(99);
    // Smooth (Photoshop 2026, undocumented) is drawn as Perceptual.
    expect(gradientRamp(three, { method: 'smooth' })!.rgba).toEqual(gradientRamp(three, { method: 'perceptual' })!.rgba);
  });

  it('smoothness shapes the ramp in the method\'s space: at 100 % lightness follows t/2 + 3t²/2 − t³', () => {
    for (const t of [0.25, 0.5, 0.75]) {
      const eased = t / 2 + (3 * t * t) / 2 - t ** 3;
      expect(at(grey(1), t, false, 'perceptual')[0]).toBeCloseTo(linearToSrgb(eased ** 3), 2);
      expect(at(grey(1), t, false, 'linear')[0]).toBeCloseTo(linearToSrgb(eased), 2);
    }
  });

  it('every method passes through the stops\' own colours; opacity stops ramp alike under every method', () => {
    for (const method of ['classic', 'perceptual', 'linear'] as const) {
      // (0.4 falls between two of the 4097 samples: within a tenth of a level.)
      for (const [t, rgb] of [[0, [20, 30, 200]], [0.4, [255, 255, 255]], [1, [230, 80, 20]]] as const) {
        at(three, t, false, method).slice(0, 3).forEach((v, i) => expect(Math.abs(v - rgb[i])).toBeLessThan(0.1));
      }
    }
    const fade: SolidGradient = { ...grey(1), opacityStops: [{ opacity: 1, location: 0 }, { opacity: 0, location: 1 }] };
    for (const t of [0.2, 0.5, 0.9]) {
      expect(at(fade, t, false, 'perceptual')[3]).toBeCloseTo(at(fade, t)[3], 6);
      expect(at(fade, t, false, 'linear')[3]).toBeCloseTo(at(fade, t)[3], 6);
    }
  });
});
