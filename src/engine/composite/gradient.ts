/**
 * Photoshop gradients as a colour ramp: solid gradients (colour and opacity stops, midpoints,
 * "smoothness") and noise gradients (approximated), shared by gradient overlays, gradient
 * strokes and gradient maps.
 *
 * **Smoothness** (the descriptor's `Intr`, 0..4096 = 0..100 %; ag-psd's `smoothness` 0..1). At
 * 0 % a stop-to-stop ramp is linear. At 100 % it is a cubic through the stops whose slope at each
 * stop is the chord between its two neighbours, (c[i+1] − c[i−1]) / (t[i+1] − t[i−1]), and at the
 * two end stops half the chord to their neighbour (a Catmull-Rom spline with the ends doubled).
 * So a peak stop (black → white → black) is rounded, as Photoshop shows it, and a two-stop ramp
 * eases in and out with slope ½ at its ends and 1½ in its middle: measured on Photoshop's own
 * 100 % ramp in `psdtools-layer-effects-all.psd` (violet → orange), a least-squares fit of the
 * end slope over 0..1 lands on 0.50, with every channel on the same curve (sRGB values, not
 * linear light). Between 0 and 100 % the two ramps are mixed by the smoothness.
 *
 * **Method** (Photoshop 2022+, the descriptor's `gradientsInterpolationMethod` / `gs99`, a gradient
 * map's 'grdm' block; ag-psd's `interpolationMethod`): the colour space the ramp above is built in.
 * Classic (the only method before 2022, and what a file without the key means) works on the 8-bit
 * sRGB values themselves; Linear on linear light (sRGB decoded by its transfer curve, IEC
 * 61966-2-1); Perceptual in Oklab (Ottosson's matrices, from linear light). The stops' colours
 * are taken into that space, midpoints and smoothness shape the ramp there exactly as they do in
 * Classic, and each sample is brought back to sRGB (clipped to the gamut in linear light).
 * Smooth (Photoshop 2026, undocumented) is drawn as Perceptual, the nearest method described.
 * Opacity stops are not colours: they ramp the same way under every method. See
 * docs/fidelity.md ("Gradient interpolation methods") for the sources.
 *
 * ag-psd divides stop locations (of effects and of gradient maps) by `Intr` instead of 4096 (a
 * gradient at 50 % smoothness reads its end stop at 2): `normalise` undoes that. At 0 % it
 * divides by 0: a gradient map's stops then read NaN (location 0) or Infinity, taken as 0 and 1
 * (inner stops' places are lost).
 */
import { labToLinear } from '../psd/lab';

export type RGB = [number, number, number];
export interface ColorStop {
  color: unknown;
  location: number;
  midpoint?: number;
}
export interface OpacityStop {
  opacity: number;
  location: number;
  midpoint?: number;
}
export interface SolidGradient {
  type: 'solid';
  smoothness?: number;
  colorStops?: ColorStop[];
  opacityStops?: OpacityStop[];
}
export interface NoiseGradient {
  type: 'noise';
  roughness?: number;
  colorModel?: string;
  randomSeed?: number;
  restrictColors?: boolean;
  addTransparency?: boolean;
  min?: number[];
  max?: number[];
}
export type Gradient = SolidGradient | NoiseGradient;
/** Photoshop's gradient interpolation methods (ag-psd's `InterpolationMethod`). */
export type InterpolationMethod = 'classic' | 'perceptual' | 'linear' | 'smooth';

/**
 * An ag-psd colour as 0..255 sRGB channels (unrounded); black when absent. 8-bit `r g b`, float
 * `fr fg fb`, and the two descriptor classes a document's own colour mode does not explain
 * (psd/color-modes.ts turns grey and CMYK ones into RGB at parse time):
 * - HSB (`h` a fraction of a turn, `s` and `b` percent; 'HSBC'): the hexcone, in the document's
 *   RGB. psd-tools' hsb-color-swatches.psd (Photoshop 2026) holds Photoshop's own RGB for 16 hues
 *   to 0.02 of a level by this arithmetic (30°, 60 %, 80 % → 204, 142.8, 81.6).
 * - Lab (`l` 0..100, `a` and `b` −128..127; 'LbCl'): D50 Lab to sRGB (Bradford to D65), which
 *   gives the five colours psd-tools took from Photoshop's colour engine within 0.1 of a level
 *   (Lab 50, 0.5, 0.5 → 120.1, 118.6, 118.1).
 * Read as black before: a stroke, overlay or gradient stop picked in HSB or Lab drew black.
 */
export function rgbOf(c: unknown): RGB {
  const o = (c ?? {}) as Record<string, number>;
  if (o.r !== undefined) return [o.r, o.g, o.b];
  if (o.fr !== undefined) return [o.fr * 255, o.fg * 255, o.fb * 255];
  if (typeof o.h === 'number' && typeof o.s === 'number' && typeof o.b === 'number') {
    const turn = o.h - Math.floor(o.h);
    const sat = Math.max(0, Math.min(1, o.s / 100));
    const v = Math.max(0, Math.min(1, o.b / 100));
    const rgb = modelToRgb('hsb', [turn, sat, v]);
    return [clamp255(rgb[0]), clamp255(rgb[1]), clamp255(rgb[2])];
  }
  if (typeof o.l === 'number' && typeof o.a === 'number' && typeof o.b === 'number') {
    const rgb = labToRgb(Math.max(0, Math.min(1, o.l / 100)), (o.a + 128) / 255, (o.b + 128) / 255);
    return [clamp255(rgb[0]), clamp255(rgb[1]), clamp255(rgb[2])];
  }
  return [0, 0, 0];
}

/**
 * A stop's location 0..1. `scale`: what ag-psd divided the stored 0..4096 location by, over 4096
 * (the smoothness, as it divides locations by `Intr`).
 */
function normalise(location: number, scale: number): number {
  if (Number.isNaN(location)) return 0;
  return Math.max(0, Math.min(1, location * scale));
}

/** The midpoint as a 0..1 fraction (ag-psd gives 0..1, some writers 0..100). */
function midpointOf(m: number | undefined): number {
  const v = m ?? 0.5;
  return v > 1 ? v / 100 : v;
}

/** The warp of a segment's parameter that puts its halfway value at `mid` (Photoshop's midpoint). */
function warp(u: number, mid: number): number {
  if (mid <= 0 || mid >= 1 || Math.abs(mid - 0.5) < 1e-3) return u;
  return Math.pow(u, Math.log(0.5) / Math.log(mid));
}

interface Knot {
  t: number;
  v: number[];
  mid: number;
}

/** Values along t (0..1) through the knots: linear, a Catmull-Rom cubic, or mixed by `smooth`. */
function sampleKnots(knots: Knot[], smooth: number, t: number, out: number[]): void {
  const n = knots.length;
  const dims = knots[0].v.length;
  if (n === 1 || t <= knots[0].t) {
    for (let c = 0; c < dims; c++) out[c] = knots[0].v[c];
    return;
  }
  if (t >= knots[n - 1].t) {
    for (let c = 0; c < dims; c++) out[c] = knots[n - 1].v[c];
    return;
  }
  let k = 0;
  while (k + 2 < n && knots[k + 1].t <= t) k++;
  const a = knots[k];
  const b = knots[k + 1];
  const span = b.t - a.t;
  if (span <= 0) {
    for (let c = 0; c < dims; c++) out[c] = b.v[c];
    return;
  }
  const u = warp((t - a.t) / span, b.mid);
  const u2 = u * u;
  const u3 = u2 * u;
  const h00 = 2 * u3 - 3 * u2 + 1;
  const h10 = u3 - 2 * u2 + u;
  const h01 = -2 * u3 + 3 * u2;
  const h11 = u3 - u2;
  for (let c = 0; c < dims; c++) {
    const lin = a.v[c] + (b.v[c] - a.v[c]) * u;
    if (smooth <= 0) {
      out[c] = lin;
      continue;
    }
    const ma = slope(knots, k, c) * span;
    const mb = slope(knots, k + 1, c) * span;
    const cubic = h00 * a.v[c] + h10 * ma + h01 * b.v[c] + h11 * mb;
    out[c] = lin + (cubic - lin) * smooth;
  }
}

/** Slope (value per unit t) at knot i: its neighbours' chord; at an end, half the chord to the one neighbour. */
function slope(knots: Knot[], i: number, c: number): number {
  const n = knots.length;
  if (i === 0) return chord(knots, 0, 1, c) / 2;
  if (i === n - 1) return chord(knots, n - 2, n - 1, c) / 2;
  return chord(knots, i - 1, i + 1, c);
}

/**
 * The chord of value c from knot p to knot q, per unit t (0 when they coincide). A function of
 * its own, not a closure per call: the Worker's bundle names every closure it makes
 * (keep_names), which cost ~40 % of a personalised text's request under a gradient overlay
 * (24,576 closures per 4,096-step ramp).
 */
function chord(knots: Knot[], p: number, q: number, c: number): number {
  const dt = knots[q].t - knots[p].t;
  return dt > 0 ? (knots[q].v[c] - knots[p].v[c]) / dt : 0;
}

export interface Ramp {
  /** `steps` RGBA samples, 0..255 (alpha 0..1 scaled to 0..255), t = i / (steps − 1). */
  rgba: Float32Array;
  steps: number;
}

/**
 * The gradient as `steps` samples over 0..1 (reversed when asked). `locationScale`: see
 * `normalise`; by default the gradient's smoothness, since ag-psd divides the stop locations of
 * effects and gradient maps alike by it. Null when there is
 * nothing to draw (no stops).
 */
export function gradientRamp(
  g: Gradient,
  options: { reverse?: boolean; steps?: number; locationScale?: number; method?: InterpolationMethod | string } = {},
): Ramp | null {
  // Kept per gradient object (a compiled template's own, which lives as long as its tree is
  // cached): an overlay or a glow asks for the same ramp for every tile of every request.
  const key = `${options.reverse ? 1 : 0}/${options.steps ?? 4096}/${options.locationScale ?? ''}/${options.method ?? ''}`;
  let byOptions = keptRamps.get(g);
  if (!byOptions) keptRamps.set(g, (byOptions = new Map()));
  if (byOptions.has(key)) return byOptions.get(key)!;
  const built = buildRamp(g, options);
  byOptions.set(key, built);
  return built;
}

/** Ramps already built, by gradient object and options: callers only read them. */
const keptRamps = new WeakMap<Gradient, Map<string, Ramp | null>>();

function buildRamp(
  g: Gradient,
  options: { reverse?: boolean; steps?: number; locationScale?: number; method?: InterpolationMethod | string },
): Ramp | null {
  const steps = options.steps ?? 4096;
  if (g.type === 'noise') return noiseRamp(g, steps, !!options.reverse);
  const colorStops = g.colorStops ?? [];
  if (!colorStops.length) return null;
  // A gradient that does not say (a hand-built one; files always do) is linear.
  const smooth = Number.isFinite(g.smoothness) ? Math.max(0, Math.min(1, g.smoothness!)) : 0;
  const scale = options.locationScale ?? (smooth > 0 ? smooth : 1);
  const space = spaceOf(options.method);
  const colors: Knot[] = colorStops
    .map((s) => ({ t: normalise(s.location, scale), v: space.from(rgbOf(s.color)), mid: midpointOf(s.midpoint) }))
    .sort((a, b) => a.t - b.t);
  const opac = (g.opacityStops ?? []).map((s) => ({ t: normalise(s.location, scale), v: [s.opacity], mid: midpointOf(s.midpoint) }));
  opac.sort((a, b) => a.t - b.t);
  const rgba = new Float32Array(steps * 4);
  const c = [0, 0, 0];
  const o = [1];
  for (let i = 0; i < steps; i++) {
    let t = steps > 1 ? i / (steps - 1) : 0;
    if (options.reverse) t = 1 - t;
    sampleKnots(colors, smooth, t, c);
    if (opac.length) sampleKnots(opac, smooth, t, o);
    space.to(c);
    rgba[i * 4] = clamp255(c[0]);
    rgba[i * 4 + 1] = clamp255(c[1]);
    rgba[i * 4 + 2] = clamp255(c[2]);
    rgba[i * 4 + 3] = clamp255((opac.length ? o[0] : 1) * 255);
  }
  return { rgba, steps };
}

/** A colour space a ramp is built in: `from` takes sRGB 0..255 into it, `to` brings a sample back in place. */
interface RampSpace {
  from(c: RGB): number[];
  to(c: number[]): void;
}

/** Classic: the sRGB values as they are (the ramp is byte for byte what it was before methods). */
const CLASSIC: RampSpace = { from: (c) => [c[0], c[1], c[2]], to: () => {} };

/** sRGB's transfer curve (IEC 61966-2-1): an 8-bit value as linear light 0..1, and back to 0..255. */
export function srgbToLinear(v: number): number {
  const x = v / 255;
  return x <= 0.04045 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4);
}
export function linearToSrgb(v: number): number {
  const x = v <= 0 ? 0 : v >= 1 ? 1 : v;
  return 255 * (x <= 0.0031308 ? 12.92 * x : 1.055 * Math.pow(x, 1 / 2.4) - 0.055);
}

const LINEAR: RampSpace = {
  from: (c) => [srgbToLinear(c[0]), srgbToLinear(c[1]), srgbToLinear(c[2])],
  to: (c) => {
    for (let k = 0; k < 3; k++) c[k] = linearToSrgb(c[k]);
  },
};

/** sRGB 0..255 → Oklab (L 0..1), through linear light (Björn Ottosson, "A perceptual color space for image processing", 2020). */
export function srgbToOklab(c: RGB): number[] {
  const r = srgbToLinear(c[0]);
  const g = srgbToLinear(c[1]);
  const b = srgbToLinear(c[2]);
  const l = Math.cbrt(0.4122214708 * r + 0.5363325363 * g + 0.0514459929 * b);
  const m = Math.cbrt(0.2119034982 * r + 0.6806995451 * g + 0.1073969566 * b);
  const s = Math.cbrt(0.0883024619 * r + 0.2817188376 * g + 0.6299787005 * b);
  return [
    0.2104542553 * l + 0.793617785 * m - 0.0040720468 * s,
    1.9779984951 * l - 2.428592205 * m + 0.4505937099 * s,
    0.0259040371 * l + 0.7827717662 * m - 0.808675766 * s,
  ];
}

/** Oklab → sRGB 0..255 in place (each channel clipped to 0..1 in linear light first). */
export function oklabToSrgb(c: number[]): void {
  const [L, a, b] = c;
  const l = (L + 0.3963377774 * a + 0.2158037573 * b) ** 3;
  const m = (L - 0.1055613458 * a - 0.0638541728 * b) ** 3;
  const s = (L - 0.0894841775 * a - 1.291485548 * b) ** 3;
  c[0] = linearToSrgb(4.0767416621 * l - 3.3077115913 * m + 0.2309699292 * s);
  c[1] = linearToSrgb(-1.2684380046 * l + 2.6097574011 * m - 0.3413193965 * s);
  c[2] = linearToSrgb(-0.0041960863 * l - 0.7034186147 * m + 1.707614701 * s);
}

const PERCEPTUAL: RampSpace = { from: srgbToOklab, to: oklabToSrgb };

/** The space of a method; absent or unknown (a file without the key, Photoshop before 2022) is Classic. */
function spaceOf(method: string | undefined): RampSpace {
  if (method === 'linear') return LINEAR;
  if (method === 'perceptual' || method === 'smooth') return PERCEPTUAL;
  return CLASSIC;
}

const clamp255 = (v: number) => (v < 0 ? 0 : v > 255 ? 255 : v);

/** A small seeded generator (mulberry32): the same seed gives the same noise gradient everywhere. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Noise gradient, approximated: Photoshop draws random colour bands from its own generator and
 * the seed, which no public description pins down, so its pixels cannot be reproduced. Drawn
 * instead: bands with the same ingredients: from the seed, each channel of the colour model
 * (RGB, HSB or Lab) takes random values within its [min, max] range at evenly spaced knots
 * (more knots, and sharper steps between them, as roughness rises), converted to RGB, clipped
 * to the gamut ("restrict colours" keeps them there anyway); alpha random within its range when
 * transparency is on, else opaque. The look (banded colours in the chosen ranges) is Photoshop's;
 * the band positions and colours are not.
 */
function noiseRamp(g: NoiseGradient, steps: number, reverse: boolean): Ramp {
  const rough = Math.max(0, Math.min(1, g.roughness ?? 0.5));
  const random = seeded(g.randomSeed ?? 0);
  const min = g.min ?? [0, 0, 0, 0];
  const max = g.max ?? [1, 1, 1, 1];
  const knots = 3 + Math.round(rough * 40);
  const values: number[][] = [];
  for (let k = 0; k < knots; k++) {
    const v: number[] = [];
    for (let c = 0; c < 4; c++) {
      const lo = min[c] ?? 0;
      const hi = max[c] ?? 1;
      v.push(lo + (hi - lo) * random());
    }
    values.push(v);
  }
  const rgba = new Float32Array(steps * 4);
  for (let i = 0; i < steps; i++) {
    let t = steps > 1 ? i / (steps - 1) : 0;
    if (reverse) t = 1 - t;
    const x = t * (knots - 1);
    const k = Math.min(knots - 2, Math.floor(x));
    let u = x - k;
    // Rougher gradients change colour more abruptly between their knots.
    const sharp = 1 + rough * 6;
    u = u < 0.5 ? 0.5 * Math.pow(2 * u, sharp) : 1 - 0.5 * Math.pow(2 * (1 - u), sharp);
    const v = values[k].map((a, c) => a + (values[k + 1][c] - a) * u);
    const rgb = modelToRgb(g.colorModel ?? 'rgb', v, !!g.restrictColors);
    rgba[i * 4] = clamp255(rgb[0]);
    rgba[i * 4 + 1] = clamp255(rgb[1]);
    rgba[i * 4 + 2] = clamp255(rgb[2]);
    rgba[i * 4 + 3] = g.addTransparency ? clamp255(v[3] * 255) : 255;
  }
  return { rgba, steps };
}

/**
 * A colour in the noise gradient's model (each component 0..1 of its range) as sRGB 0..255.
 * `restrict`: a Lab colour outside sRGB loses chroma (a and b toward 0) until it fits, instead
 * of being clipped channel by channel into an oversaturated one.
 */
function modelToRgb(model: string, v: number[], restrict = false): RGB {
  if (model === 'lab' && restrict) {
    let lo = 0;
    let hi = 1;
    const at = (k: number) => labToRgb(v[0], 0.5 + (v[1] - 0.5) * k, 0.5 + (v[2] - 0.5) * k);
    if (inGamut(at(1))) return at(1);
    for (let i = 0; i < 12; i++) {
      const mid = (lo + hi) / 2;
      if (inGamut(at(mid))) lo = mid;
      else hi = mid;
    }
    return at(lo);
  }
  if (model === 'lab') return labToRgb(v[0], v[1], v[2]);
  if (model === 'hsb' || model === 'hsl') {
    const [h, s, b] = v;
    const f = (n: number) => {
      const k = (n + h * 6) % 6;
      return b - b * s * Math.max(0, Math.min(k, 4 - k, 1));
    };
    return [f(5) * 255, f(3) * 255, f(1) * 255];
  }
  return [v[0] * 255, v[1] * 255, v[2] * 255];
}

const inGamut = (c: RGB) => c.every((x) => x >= -0.5 && x <= 255.5);

/** Lab (each 0..1 of its range: L 0..100, a and b −128..127; D50) as sRGB 0..255, unrounded (psd/lab.ts). */
function labToRgb(l: number, a: number, b: number): RGB {
  const c: RGB = [0, 0, 0];
  labToLinear(l * 100, a * 255 - 128, b * 255 - 128, c);
  const enc = (v: number) => 255 * (v <= 0.0031308 ? 12.92 * v : 1.055 * Math.pow(Math.max(0, v), 1 / 2.4) - 0.055);
  return [enc(c[0]), enc(c[1]), enc(c[2])];
}
