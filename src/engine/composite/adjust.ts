import type { AdjustmentLayer } from 'ag-psd';
import { applyColorLookup, type CompiledColorLookup } from './color-lookup';
import { selectiveColor } from './selective-color';
import { gradientRamp, rgbOf, type InterpolationMethod } from './gradient';
import { applyColorBalance } from './color-balance';
import { applyVibranceLinear, vibranceSaturation } from './vibrance-linear';
import { applyPhotoFilter } from './photo-filter';
import { channelLutPixels, hueSaturationPixels } from '../raster/kernels';

/**
 * A CMYK document's adjustment with the table cmyk-adjust.ts works out on its inks at compile
 * time, and the inks (0 C … 3 K) its channel restrictions leave out of it: set (possibly empty)
 * wherever the table is, so the ink compositor (pdf/ink-composite.ts), which applies the
 * per-ink tables to the layers' own inks, knows them though the node's restriction is dropped.
 */
export type AdjustmentInCmyk = AdjustmentLayer & { inCmyk?: CompiledColorLookup; excludedInks?: number[] };

/**
 * Adjustment layers as per-pixel functions over RGBA (alpha untouched). Returns false for kinds
 * we do not render (the layer is then skipped, which is what the composite looks like without it).
 */
export function applyAdjustment(adj: AdjustmentLayer, d: Uint8ClampedArray): boolean {
  // A CMYK document's adjustment, worked out on its inks at compile time (cmyk-adjust.ts).
  const inCmyk = (adj as AdjustmentInCmyk).inCmyk;
  if (inCmyk) return applyColorLookup(inCmyk, d);
  switch (adj.type) {
    case 'invert':
      return applyLuts(d, lut((v) => 255 - v));
    case 'levels': {
      const [r, g, b] = tablesOf(adj, () => {
        const depth = levelsDepth(adj);
        const master = levelsLut(adj.rgb, depth);
        return [chain(levelsLut(adj.red, depth), master), chain(levelsLut(adj.green, depth), master), chain(levelsLut(adj.blue, depth), master)];
      });
      return applyLuts(d, r, g, b);
    }
    case 'curves': {
      const [r, g, b] = tablesOf(adj, () => {
        const master = curveLut(adj.rgb);
        return [chain(curveLut(adj.red), master), chain(curveLut(adj.green), master), chain(curveLut(adj.blue), master)];
      });
      return applyLuts(d, r, g, b);
    }
    case 'brightness/contrast':
      return applyLuts(d, brightnessContrastLut(adj.brightness ?? 0, adj.contrast ?? 0, !!adj.useLegacy));
    case 'hue/saturation':
      return hueSaturation(adj, d);
    case 'color balance':
      return applyColorBalance(adj, d);
    case 'vibrance': // the vibrance slider, then its own Saturation slider (vibrance-linear.ts: photocraft's measurements)
      return applyVibranceLinear(adj.vibrance ?? 0, d) && vibranceSaturation(adj.saturation ?? 0, d);
    case 'posterize':
      return applyLuts(d, posterizeLut(adj.levels ?? 4, !!(adj as In16Bits<AdjustmentLayer>).in16Bits));
    case 'exposure': {
      const { exposure = 0, offset = 0, gamma = 1 } = adj;
      const gain = 2 ** exposure;
      // In linear light through the document profile's gamma (sRGB ≈ 2.2, a Grayscale
      // document's Dot Gain 20 % ≈ 1.75: `profileGamma`, set at compile), as Photoshop does.
      const g = (adj as ExposureInProfile).profileGamma ?? 2.2;
      return applyLuts(d, lut((v) => 255 * Math.pow(Math.max(0, Math.pow(v / 255, g) * gain + offset), 1 / (g * (gamma || 1)))));
    }
    case 'channel mixer':
      return channelMixer(adj, d);
    case 'gradient map':
      return gradientMap(adj, d);
    case 'black & white':
      return blackAndWhite(adj, d);
    case 'photo filter': // photocraft's fit to Photoshop (photo-filter.ts)
      return applyPhotoFilter(adj, d);
    case 'selective color':
      return selectiveColor(adj, d);
    case 'color lookup':
      return applyColorLookup(adj, d);
    case 'threshold':
      return threshold(d, adj.level ?? 128, !!(adj as In16Bits<AdjustmentLayer>).in16Bits);
    default:
      return false;
  }
}

type Lut = Uint8Array;

/**
 * Levels' and Curves' channel tables per adjustment record: a template's tree is kept per isolate
 * (treeCache), so a preview redrawn under its adjustments each request (issue 25 §3) builds them
 * once. The tables are only read.
 */
const channelTables = new WeakMap<object, [Lut | null, Lut | null, Lut | null]>();
function tablesOf(adj: object, make: () => [Lut | null, Lut | null, Lut | null]): [Lut | null, Lut | null, Lut | null] {
  let tables = channelTables.get(adj);
  if (!tables) channelTables.set(adj, (tables = make()));
  return tables;
}

/**
 * Levels and Curves with the record of a CMYK document's fifth channel, K, which ag-psd does not
 * read (it stops after the composite's and three channels'): psd/records.ts reads it from the
 * 'levl' record after blue's and the 'curv' curve of channel bit 4, and psd/tree.ts keeps it here.
 */
export type WithBlackRecord<T> = T & { black?: LevelsChannel | Array<{ input: number; output: number }> };

/**
 * The tables an adjustment applies to each of a CMYK document's channels (C, M, Y, K stored
 * values, 255 = no ink; null leaves one alone), or undefined when it does not act channel by
 * channel (cmyk-adjust.ts keeps the RGB arithmetic for those). Levels and Curves: the
 * composite record on every ink, after the ink's own record (ag-psd's red, green and blue hold
 * C, M and Y; K's own is `black`, when the tree has it), as psd-tools applies them (each channel's
 * own table, then the composite's) and holds its levels_/curves_cmyk documents to Photoshop's.
 */
export function cmykChannelLuts(adj: AdjustmentLayer): Array<Lut | null> | undefined {
  const black = (adj as WithBlackRecord<AdjustmentLayer>).black;
  switch (adj.type) {
    case 'invert':
      return Array(4).fill(lut((v) => 255 - v));
    case 'levels': {
      const depth = levelsDepth(adj);
      const master = levelsLut(adj.rgb, depth);
      const k = black && !Array.isArray(black) ? levelsLut(black, depth) : null;
      return [chain(levelsLut(adj.red, depth), master), chain(levelsLut(adj.green, depth), master), chain(levelsLut(adj.blue, depth), master), chain(k, master)];
    }
    case 'curves': {
      const master = curveLut(adj.rgb);
      const k = Array.isArray(black) ? curveLut(black) : null;
      return [chain(curveLut(adj.red), master), chain(curveLut(adj.green), master), chain(curveLut(adj.blue), master), chain(k, master)];
    }
    case 'posterize':
      return Array(4).fill(posterizeLut(adj.levels ?? 4, !!(adj as In16Bits<AdjustmentLayer>).in16Bits));
    case 'brightness/contrast':
      return Array(4).fill(brightnessContrastLut(adj.brightness ?? 0, adj.contrast ?? 0, !!adj.useLegacy));
    default:
      return undefined;
  }
}

/**
 * An Exposure adjustment with the gamma of the profile its document's values are in: Photoshop
 * works in linear light through that profile, and the compiled form is RGB whatever the mode.
 */
export type ExposureInProfile = Extract<AdjustmentLayer, { type: 'exposure' }> & { profileGamma?: number };

/**
 * An adjustment of a Grayscale document fitted to the compiled form, where grey is R = G = B:
 * - Exposure works through Dot Gain 20 %, Photoshop's default grey profile, ≈ gamma 1.75
 *   (psd-tools holds its exposure_grayscale document to that), where RGB's sRGB is ≈ 2.2.
 * - Levels and Curves keep the Gray channel's settings in the record after the composite's (the
 *   one ag-psd names `red`), as psd-tools reads them for its levels_/curves_grayscale documents;
 *   applied to red alone they would tint the grey. That record goes to all three channels (the
 *   composite's when it is the identity and the composite's is not).
 */
export function adjustmentInGrey(adj: AdjustmentLayer): AdjustmentLayer {
  if (adj.type === 'exposure') {
    // A 32-bit document's exposure keeps its linear values (adjustmentIn32Bits: gamma 1).
    const fitted: ExposureInProfile = { ...adj, profileGamma: (adj as ExposureInProfile).profileGamma ?? 1.75 };
    return fitted;
  }
  if (adj.type === 'levels') {
    const grey = levelsLut(adj.red) ? adj.red : adj.rgb;
    const { in16Bits, in32Bits } = adj as AtDepth<AdjustmentLayer>;
    const fitted: AtDepth<AdjustmentLayer> = { type: 'levels', rgb: grey, ...(in16Bits && { in16Bits }), ...(in32Bits && { in32Bits }) };
    return fitted;
  }
  if (adj.type === 'curves') {
    const grey = curveLut(adj.red) ? adj.red : adj.rgb;
    return { type: 'curves', rgb: grey };
  }
  return adj;
}

/** Channel mixer: each output channel a weighted sum (percent) of the inputs plus a constant (percent of white). */
function channelMixer(adj: Extract<AdjustmentLayer, { type: 'channel mixer' }>, d: Uint8ClampedArray): boolean {
  const id = (r: number, g: number, b: number) => ({ red: r, green: g, blue: b, constant: 0 });
  const rows = adj.monochrome
    ? [adj.gray, adj.gray, adj.gray].map((c) => c ?? id(40, 40, 20))
    : [adj.red ?? id(100, 0, 0), adj.green ?? id(0, 100, 0), adj.blue ?? id(0, 0, 100)];
  for (let i = 0; i < d.length; i += 4) {
    const r = d[i], g = d[i + 1], b = d[i + 2];
    for (let k = 0; k < 3; k++) {
      const m = rows[k];
      d[i + k] = (m.red * r + m.green * g + m.blue * b + m.constant * 255) / 100;
    }
  }
  return true;
}

/**
 * A gradient map as the tree keeps it: `interpolationMethod` is the method read from its 'grdm'
 * block (psd/records.ts; ag-psd's own `method` reads every method as 'perceptual').
 */
export type GradientMapAdjustment = Extract<AdjustmentLayer, { type: 'gradient map' }> & { interpolationMethod?: InterpolationMethod };

/** Samples of a gradient map's ramp: four per level (255 · 4 + 1), to read a grey between levels. */
const MAP_STEPS = 1021;

/**
 * Gradient map: the pixel's grey picks a colour along the gradient (its transparency is not
 * applied). The grey is Photoshop's RGB grey, 0.3R + 0.59G + 0.11B, Threshold's weights, not
 * Rec. 601's: a black → white map (smoothness 100 %) turns pure red, green and blue into 66, 156
 * and 18 in Photoshop (Adobe community, "What is the mathematical formula of Gradient map", 2019),
 * which these weights through the ramp's curve give to the level and 0.299/0.587/0.114 do not
 * (66, 155, 19). The grey is not rounded to a level first (green's 150.45 rounded to 150 gives
 * 155): the ramp is sampled finely enough (MAP_STEPS) to read it between levels.
 */
function gradientMap(adj: GradientMapAdjustment, d: Uint8ClampedArray): boolean {
  // Smoothness, stop locations (ag-psd divides them by the smoothness here too), the method and
  // noise as in gradient.ts.
  const built = gradientRamp(
    adj.gradientType === 'noise'
      ? { ...adj, type: 'noise' }
      : { type: 'solid', smoothness: adj.smoothness, colorStops: adj.colorStops, opacityStops: [] },
    { reverse: adj.reverse, steps: MAP_STEPS, method: adj.interpolationMethod },
  );
  if (!built) return false;
  const ramp = built.rgba;
  for (let i = 0; i < d.length; i += 4) {
    const l = Math.round((0.3 * d[i] + 0.59 * d[i + 1] + 0.11 * d[i + 2]) * ((MAP_STEPS - 1) / 255)) * 4;
    d[i] = ramp[l];
    d[i + 1] = ramp[l + 1];
    d[i + 2] = ramp[l + 2];
  }
  return true;
}

/**
 * Black & White: grey = min + (mid − min)·w(secondary colour) + (max − mid)·w(primary colour),
 * the primary being the largest channel's colour and the secondary the two largest mixed.
 */
function blackAndWhite(adj: Extract<AdjustmentLayer, { type: 'black & white' }>, d: Uint8ClampedArray): boolean {
  const w = {
    r: (adj.reds ?? 40) / 100, y: (adj.yellows ?? 60) / 100, g: (adj.greens ?? 40) / 100,
    c: (adj.cyans ?? 60) / 100, b: (adj.blues ?? 20) / 100, m: (adj.magentas ?? 80) / 100,
  };
  const tint = adj.useTint ? rgbOf(adj.tintColor) : null;
  for (let i = 0; i < d.length; i += 4) {
    const r = d[i], g = d[i + 1], b = d[i + 2];
    const mx = Math.max(r, g, b), mn = Math.min(r, g, b);
    const mid = r + g + b - mx - mn;
    let primary: number, secondary: number;
    if (mx === r) {
      primary = w.r;
      secondary = g >= b ? w.y : w.m;
    } else if (mx === g) {
      primary = w.g;
      secondary = r >= b ? w.y : w.c;
    } else {
      primary = w.b;
      secondary = r >= g ? w.m : w.c;
    }
    const grey = Math.max(0, Math.min(255, mn + (mid - mn) * secondary + (mx - mid) * primary));
    if (tint) {
      const t = grey / 255;
      // Tint like a colour blend: keep the grey's luminosity, take the tint's hue.
      for (let c = 0; c < 3; c++) d[i + c] = t <= 0.5 ? 2 * t * tint[c] : 255 - 2 * (1 - t) * (255 - tint[c]);
    } else {
      d[i] = d[i + 1] = d[i + 2] = grey;
    }
  }
  return true;
}

function lut(f: (v: number) => number): Lut {
  const out = new Uint8Array(256);
  for (let v = 0; v < 256; v++) out[v] = Math.max(0, Math.min(255, Math.round(f(v))));
  return out;
}

function chain(a: Lut | null, b: Lut | null): Lut | null {
  if (!a) return b;
  if (!b) return a;
  return lut((v) => b[a[v]]);
}

function applyLuts(d: Uint8ClampedArray, r: Lut | null, g: Lut | null = r, b: Lut | null = r): boolean {
  // In WASM once the kernels are instantiated (raster/kernels.ts channelLutPixels): the same bytes.
  if (channelLutPixels(d, r, g, b)) return true;
  for (let i = 0; i < d.length; i += 4) {
    if (r) d[i] = r[d[i]];
    if (g) d[i + 1] = g[d[i + 1]];
    if (b) d[i + 2] = b[d[i + 2]];
  }
  return true;
}

/**
 * Posterize to n levels (2..255) as Photoshop does: the 256 input values fall into n bins of equal
 * width, floor(v·n/256), and bin k gives level floor(k·255/(n − 1)). Not the closest level (which
 * would put the first step at 255/(2(n − 1))): with 4 levels the steps are at 64, 128 and 192.
 * psd-tools pins the bins against Photoshop's own renders of its posterize_* documents; the
 * levels are rounded down (3 levels: 0, 127, 255, not 128), which photocraft found exact on
 * Photoshop 2026's composites of its corpus at 3, 7, 13 and 21 levels (adjust.rs `posterize`).
 * `in16Bits` (a 16-bit document, see adjustmentIn16Bits): Photoshop bins the 16-bit values,
 * floor(w·n/65536) (psd-tools' posterize_16bits_* documents), so the steps lie at k·65536/n, in
 * 8-bit terms k·255.004/n; the 8-bit value v (rounded from w) stands for w ≈ 257·v.
 */
export function posterizeLut(levels: number, in16Bits = false): Lut {
  const n = Math.max(2, Math.min(255, Math.round(levels)));
  const bin = in16Bits ? (v: number) => Math.floor((v * 257 * n) / 65536) : (v: number) => Math.floor((v * n) / 256);
  // The small epsilon keeps whole levels whole (k·255/(n − 1) may come out a hair below one). A
  // 16-bit document's level is kept as psd-tools computes it, k/(n − 1) shown to the nearest 8-bit
  // level: Photoshop's 16-bit levels (32768 steps) are finer than 8 bits, so the 8-bit rounding
  // down measured on 8-bit documents says nothing about them (5 levels: 63.75 shows as 64).
  const level = in16Bits ? (k: number) => (k * 255) / (n - 1) : (k: number) => Math.floor((k * 255) / (n - 1) + 1e-9);
  return lut((v) => level(bin(v)));
}

/**
 * Threshold as Photoshop does: white where the pixel's luminosity rounded to a level,
 * round(0.3R + 0.59G + 0.11B) (Photoshop's RGB grey, the weights of Blend If and the luminosity
 * modes, not Rec. 601's), is at or above the level, black below (psd-tools pins it against
 * Photoshop's threshold_* documents).
 * `in16Bits`: Photoshop compares the 16-bit grey, white where round(65535·grey) passes
 * (level − 1/255)·(65535/65536)·257 (psd-tools holds threshold_16bits_* to Photoshop's renders at
 * MSE 5e-6 with that), which in 8-bit terms is the unrounded grey at or above level − 0.006:
 * half a level above the 8-bit rule's edge (a grey of 127.7 is black at 128, not white).
 */
function threshold(d: Uint8ClampedArray, level: number, in16Bits = false): boolean {
  const edge = ((level - 1 / 255) * 65535) / 65536;
  for (let i = 0; i < d.length; i += 4) {
    const grey = 0.3 * d[i] + 0.59 * d[i + 1] + 0.11 * d[i + 2];
    d[i] = d[i + 1] = d[i + 2] = (in16Bits ? grey > edge : Math.round(grey) >= level) ? 255 : 0;
  }
  return true;
}

/** Posterize, Threshold and Levels of a 16-bit document (adjustmentIn16Bits). */
export type In16Bits<T> = T & { in16Bits?: boolean };
/** Levels of a 16-bit or 32-bit document (adjustmentIn16Bits, adjustmentIn32Bits). */
export type AtDepth<T> = In16Bits<T> & { in32Bits?: boolean };

/**
 * An adjustment of a 16-bit document, fitted to the compiled form's 8 bits: Posterize and
 * Threshold, which Photoshop works out on the 16-bit values, are marked so that they place their
 * steps where the 16-bit ones fall (see posterizeLut, threshold), and Levels so that its input
 * stretch is not rounded to whole 8-bit levels (see levelsLut). Others are unchanged.
 */
export function adjustmentIn16Bits(adj: AdjustmentLayer): AdjustmentLayer {
  if (adj.type !== 'posterize' && adj.type !== 'threshold' && adj.type !== 'levels') return adj;
  const fitted: In16Bits<AdjustmentLayer> = { ...adj, in16Bits: true };
  return fitted;
}

/**
 * An adjustment of a 32-bit document, fitted to the compiled form (whose 8-bit values are the
 * floats × 255, linear: docs/fidelity.md, "16-bit, 32-bit …"). Photoshop works on the floats as
 * stored (storytold/photocraft adjust.rs, on Photoshop's composites of its corpus rgb32 and gray32
 * files): Exposure without a tone curve (within 0.5/255 there, 69/255 off through gamma 2.2), so
 * its profile gamma is 1; Levels as a plain power of the unrounded stretch, no toe (within
 * 0.5/255 of levels.psd, 10/255 off with the 8-bit curve). Others are unchanged.
 */
export function adjustmentIn32Bits(adj: AdjustmentLayer): AdjustmentLayer {
  if (adj.type === 'exposure') {
    const fitted: ExposureInProfile = { ...adj, profileGamma: 1 };
    return fitted;
  }
  if (adj.type === 'levels') {
    const fitted: AtDepth<AdjustmentLayer> = { ...adj, in32Bits: true };
    return fitted;
  }
  return adj;
}

/** The depth a Levels adjustment's marks give (8 unless adjustmentIn16Bits/In32Bits marked it). */
function levelsDepth(adj: AdjustmentLayer): 8 | 16 | 32 {
  const { in16Bits, in32Bits } = adj as AtDepth<AdjustmentLayer>;
  return in32Bits ? 32 : in16Bits ? 16 : 8;
}

export interface LevelsChannel {
  shadowInput: number;
  highlightInput: number;
  shadowOutput: number;
  highlightOutput: number;
  midtoneInput: number;
}

/**
 * A Levels record's table, as Photoshop 2026 renders it (storytold/photocraft, adjust.rs
 * `levels_q`, fitted on Photoshop's output; docs/colour.md, "photocraft's tone calibrations"):
 * - the input range is stretched to 0..1 and, in an 8-bit document, rounded half up to a whole
 *   level before the midtone gamma (44..214 maps 45, 46, 47, 48 to 1.5, 3, 4.5, 6 → 2, 3, 5, 6,
 *   seen in psd-tools' levels_grayscale); a 16- or 32-bit document's (`depth`) is not rounded;
 * - a midtone gamma g > 1 does not rise with infinite slope out of black: Photoshop bounds it,
 *   the power u^(1/g) meeting a line of slope 0.93·2^g in a soft minimum (p-norm, p = 10), within
 *   a level of Photoshop on a 0..255 ramp at gamma 2 and on levels_grayscale's 1.78 (the pure
 *   power gives 16 for input 1 at gamma 2, Photoshop 4); the body of the curve is the power;
 * - a 32-bit document's (adjustmentIn32Bits) works on the floats: a plain power of the stretch,
 *   neither clipped to its range (mirrored below the black point), no toe.
 */
function levelsLut(c: LevelsChannel | undefined, depth: 8 | 16 | 32 = 8): Lut | null {
  if (!c) return null;
  const { shadowInput: i0, highlightInput: i1, shadowOutput: o0, highlightOutput: o1 } = c;
  const gamma = c.midtoneInput || 1;
  if (i0 === 0 && i1 === 255 && o0 === 0 && o1 === 255 && gamma === 1) return null;
  const slope = 0.93 * 2 ** gamma;
  if (depth === 32) {
    // Floats: neither the stretch nor the result is clipped to its range, the power mirrored
    // below the black point (what lies outside 0..255 is clipped by the table).
    return lut((v) => {
      const s = (v - i0) / Math.max(1, i1 - i0);
      return o0 + Math.sign(s) * Math.pow(Math.abs(s), 1 / gamma) * (o1 - o0);
    });
  }
  return lut((v) => {
    const s = Math.max(0, Math.min(1, (v - i0) / Math.max(1, i1 - i0)));
    const u = depth === 8 ? Math.floor(s * 255 + 0.5 + 1e-6) / 255 : s;
    return o0 + levelsGamma(u, gamma, slope) * (o1 - o0);
  });
}

/** Levels' midtone gamma on a stretched input u (0..1): the power, with its toe bounded for g > 1. */
function levelsGamma(u: number, gamma: number, slope: number): number {
  const power = Math.pow(u, 1 / gamma);
  if (gamma <= 1) return power;
  const line = slope * u;
  if (power <= 1e-6 || line <= 1e-6) return Math.min(power, line);
  return (power ** -10 + line ** -10) ** -0.1;
}

/** Photoshop curves: a natural cubic spline through the points, clamped, flat beyond the ends. */
export function curveLut(points: Array<{ input: number; output: number }> | undefined): Lut | null {
  if (!points || points.length < 2) return null;
  const p = [...points].sort((a, b) => a.input - b.input);
  if (p.length === 2 && p[0].input === 0 && p[0].output === 0 && p[1].input === 255 && p[1].output === 255) return null;
  return lut(naturalSpline(p.map((q) => q.input), p.map((q) => q.output)));
}

/** The natural cubic spline through (x[i], y[i]), x increasing, flat beyond the ends (unrounded). */
function naturalSpline(x: number[], y: number[]): (v: number) => number {
  const n = x.length;
  // Second derivatives of the natural spline (tridiagonal solve).
  const m = new Float64Array(n);
  if (n > 2) {
    const a = new Float64Array(n), b = new Float64Array(n), c = new Float64Array(n), r = new Float64Array(n);
    for (let i = 1; i < n - 1; i++) {
      a[i] = x[i] - x[i - 1];
      b[i] = 2 * (x[i + 1] - x[i - 1]);
      c[i] = x[i + 1] - x[i];
      r[i] = 6 * ((y[i + 1] - y[i]) / (x[i + 1] - x[i]) - (y[i] - y[i - 1]) / (x[i] - x[i - 1]));
    }
    for (let i = 2; i < n - 1; i++) {
      const w = a[i] / b[i - 1];
      b[i] -= w * c[i - 1];
      r[i] -= w * r[i - 1];
    }
    for (let i = n - 2; i >= 1; i--) m[i] = (r[i] - c[i] * m[i + 1]) / b[i];
  }
  return (v) => {
    if (v <= x[0]) return y[0];
    if (v >= x[n - 1]) return y[n - 1];
    let i = 0;
    while (v > x[i + 1]) i++;
    const h = x[i + 1] - x[i];
    const t = (v - x[i]) / h;
    const s = 1 - t;
    return s * y[i] + t * y[i + 1] + ((s * s * s - s) * m[i] + (t * t * t - t) * m[i + 1]) * (h * h) / 6;
  };
}

/**
 * Legacy Brightness/Contrast's contrast pivot: 128, not 127.5. Photoshop 27.11 keeps 128 at 128
 * under contrast +80 (127.5 would give 130) and maps the measured grey ramps of photocraft's
 * adjust.rs test `legacy_brightness_contrast_matches_photoshop` within a level with it (two
 * levels off with 127.5).
 */
const LEGACY_PIVOT = 128;

/**
 * Brightness/Contrast (docs/fidelity.md, "Brightness/Contrast").
 * Legacy: brightness adds b to every channel value; contrast c scales distances from 128 by
 * k = 100 / (100 − c) (c > 0, so +100 thresholds) or (100 + c) / 100 (c ≤ 0, so −100 greys). The
 * shift goes first when contrast rises and last when it falls, so a shift is never stretched or
 * squeezed by the contrast.
 * Current mode (Adobe: proportionate, nonlinear, like Levels and Curves; nothing clips): contrast
 * is photocraft's measured S-curve (contrastCurve; psd-tools' spline before);
 * brightness pushes each point of that curve along the anti-diagonal by β(t) = k·t(1 − t)·h(t)
 * (t = input/255, k = b/150), to (t − β, C(t) + β), with
 *   h(t) = ½(|k|(1.65·t^0.35 − t^10) + (1 − |k|)(1.96·t^0.4 + t^4) + t^1.25),
 * the curve psd-tools fitted to Photoshop's output (its desmos 4fg6glxzqj); our earlier monotone
 * cubic through a moved midpoint was 5–27 levels RMS from it.
 */
export function brightnessContrastLut(brightness: number, contrast: number, legacy: boolean): Lut | null {
  if (!brightness && !contrast) return null;
  if (legacy) {
    const c = Math.max(-100, Math.min(100, contrast));
    const k = c > 0 ? 100 / (100 - c) : (100 + c) / 100;
    const p = LEGACY_PIVOT;
    if (c >= 100) return lut((v) => (v + brightness >= p ? 255 : 0)); // a threshold at the pivot
    return c > 0 ? lut((v) => (v + brightness - p) * k + p) : lut((v) => (v - p) * k + p + brightness);
  }
  const c = Math.max(-50, Math.min(100, contrast));
  const curve = c ? contrastCurve(c) : (v: number) => v;
  const k = Math.max(-150, Math.min(150, brightness)) / 150;
  if (!k) return lut(curve);
  const xs = new Float64Array(256);
  const ys = new Float64Array(256);
  const a = Math.abs(k);
  for (let i = 0; i < 256; i++) {
    const t = i / 255;
    const h = 0.5 * (a * (1.65 * t ** 0.35 - t ** 10) + (1 - a) * (1.96 * t ** 0.4 + t ** 4) + t ** 1.25);
    const shift = 255 * k * t * (1 - t) * h;
    xs[i] = i - shift;
    ys[i] = curve(i) + shift;
  }
  return lut((v) => {
    if (v <= xs[0]) return ys[0];
    if (v >= xs[255]) return ys[255];
    let i = 0;
    while (i < 254 && xs[i + 1] < v) i++;
    return ys[i] + ((v - xs[i]) / (xs[i + 1] - xs[i])) * (ys[i + 1] - ys[i]);
  });
}

/**
 * The current mode's contrast curve (0..255 both ways), as photocraft measured it on a 0..255 ramp
 * through Photoshop (adjust.rs `modern_contrast`: within 0.5/255): symmetric about the middle, two
 * cubic Hermite halves through (0, 0), (½, ½), (1, 1) with slope 1 − c/128 at the ends and 1 + c/128
 * in the middle. psd-tools' natural spline through (64, 64 − q), (192, 192 + q), q = c/4, which we
 * used (held to Photoshop only at MSE 5e-4), is up to 2 levels from it at c = 100.
 */
function contrastCurve(contrast: number): (v: number) => number {
  const k = contrast / 128;
  const end = 1 - k;
  const mid = 1 + k;
  // One half on t = 0..1 (0..½ of the range): Hermite basis with values 0, ½ and slopes end, mid (×½).
  const half = (t: number) => 0.5 * (end * (t * t * t - 2 * t * t + t) + (3 * t * t - 2 * t * t * t) + mid * (t * t * t - t * t));
  return (v) => {
    const x = Math.max(0, Math.min(1, v / 255));
    return 255 * (x <= 0.5 ? half(2 * x) : 1 - half(2 * (1 - x)));
  };
}

/**
 * Photoshop's Hue/Saturation (docs/fidelity.md, "Hue/Saturation"). Every step keeps a pixel's
 * hexcone hue except the hue step, so the order only matters for saturation:
 * - hue: the master's turn plus each colour range's, weighted by how far the pixel's hue lies in
 *   that range (1 inside [b, c], ramping to 0 over [a, b] and [c, d], degrees, wrapping);
 * - master lightness, first: channels toward white (+) or black (−) by a step of whole 255ths
 *   (truncated: +10 % is 25/255),
 *   rounded to 8 bits before the other steps read the pixel (so a nearly grey pixel may turn grey
 *   and its hue is that of the rounded channels, as Photoshop's output shows);
 * - range lightness (the weighted sum, ±100 at most): channels toward the pixel's own maximum (+)
 *   or minimum (−), so +100 greys a colour at its brightest channel rather than whitening it;
 * - saturation: channels pushed from the HSL lightness by a factor 1 + α, never past full
 *   saturation; α = s for s ≤ 0 and s / (1 − s) for s > 0 (at most 127: +100 % multiplies the
 *   chroma by 128). The master's saturation goes first; the ranges' then add their α weighted.
 * Colorize: the pixel's HSL lightness (after the colorize lightness) with the colorize hue and
 * saturation.
 */
function hueSaturation(adj: Extract<AdjustmentLayer, { type: 'hue/saturation' }>, d: Uint8ClampedArray): boolean {
  const master = adj.master ?? { a: 0, b: 0, c: 0, d: 0, hue: 0, saturation: 0, lightness: 0 };
  // ag-psd's "master" record holds the colorize flag (first byte of a) and the colorize settings in b..d.
  const colorize = (master.a & 0xff00) !== 0 || master.a === 1;
  if (colorize) return colorizeHsl(d, master.b, master.c, master.d);
  const ranges = [adj.reds, adj.yellows, adj.greens, adj.cyans, adj.blues, adj.magentas]
    .filter((rg): rg is NonNullable<typeof rg> => !!rg && !!(rg.hue || rg.saturation || rg.lightness))
    .map((rg) => ({ ...unwrapRange(rg.a, rg.b, rg.c, rg.d), hue: rg.hue, light: rg.lightness / 100, alpha: saturationAlpha(rg.saturation / 100) }));
  const masterLight = masterLightStep(master.lightness);
  const masterAlpha = saturationAlpha(master.saturation / 100);
  if (!ranges.length && !master.hue && !masterLight && !masterAlpha) return true;
  // In WASM once the kernels are instantiated (raster/kernels.ts hueSaturationPixels): the same
  // bytes (issue 25 §3).
  if (hueSaturationPixels(d, master.hue, masterLight, masterAlpha, ranges)) return true;
  // Per pixel with scalars only: every step but the hue turn keeps the channels' order, so the
  // maximum and minimum are carried along instead of recomputed.
  const nr = ranges.length;
  for (let i = 0; i < d.length; i += 4) {
    let r = d[i], g = d[i + 1], b = d[i + 2];
    if (masterLight > 0) {
      r = Math.round(r + (255 - r) * masterLight); g = Math.round(g + (255 - g) * masterLight); b = Math.round(b + (255 - b) * masterLight);
    } else if (masterLight < 0) {
      const k = 1 + masterLight;
      r = Math.round(r * k); g = Math.round(g * k); b = Math.round(b * k);
    }
    let mx = r > g ? (r > b ? r : b) : g > b ? g : b;
    let mn = r < g ? (r < b ? r : b) : g < b ? g : b;
    if (mx === mn) { // a grey, or one now: only the lightness changed it
      d[i] = r; d[i + 1] = g; d[i + 2] = b;
      continue;
    }
    let turn = master.hue, light = 0, alpha = 0;
    const h = hexHue(r, g, b, mx, mn);
    for (let k = 0; k < nr; k++) {
      const rg = ranges[k];
      const w = rangeWeight(h, rg);
      if (w === 0) continue;
      turn += rg.hue * w;
      light += rg.light * w;
      alpha += rg.alpha * w;
    }
    if (turn !== 0) {
      let t = (h + turn) % 360;
      if (t < 0) t += 360;
      const sector = Math.floor(t / 60) % 6;
      const f = (mx - mn) * (t / 60 - Math.floor(t / 60));
      switch (sector) {
        case 0: r = mx; g = mn + f; b = mn; break;
        case 1: r = mx - f; g = mx; b = mn; break;
        case 2: r = mn; g = mx; b = mn + f; break;
        case 3: r = mn; g = mx - f; b = mx; break;
        case 4: r = mn + f; g = mn; b = mx; break;
        default: r = mx; g = mn; b = mx - f;
      }
    }
    if (light !== 0) {
      if (light > 0) {
        if (light > 1) light = 1;
        r += (mx - r) * light; g += (mx - g) * light; b += (mx - b) * light; mn += (mx - mn) * light;
      } else {
        if (light < -1) light = -1;
        r += (r - mn) * light; g += (g - mn) * light; b += (b - mn) * light; mx += (mx - mn) * light;
      }
    }
    for (let pass = 0; pass < 2; pass++) {
      const a0 = pass === 0 ? masterAlpha : alpha;
      if (a0 === 0 || mx <= mn) continue;
      const sum = mx + mn;
      const S = sum <= 255 ? (mx - mn) / sum : (mx - mn) / (510 - sum);
      const full = 1 / S - 1;
      const k = 1 + (a0 < -1 ? -1 : a0 > full ? full : a0);
      const L = sum / 2;
      r = L + (r - L) * k; g = L + (g - L) * k; b = L + (b - L) * k;
      mx = L + (mx - L) * k; mn = L + (mn - L) * k;
    }
    d[i] = r;
    d[i + 1] = g;
    d[i + 2] = b;
  }
  return true;
}

/**
 * Hue/Saturation's master lightness (percent) as the step Photoshop moves channels by, toward
 * white (+) or black (−): whole 255ths, truncated toward 0. −37 % scales by 161/255 (not 0.63),
 * +28 % moves 71/255 of the way to white and +10 % 25/255, not 26/255 (what sorts the nearly grey
 * pixels of psdtools-adjust-hue-saturation.psd: under +10, 6 and 8 come out 30 and 32).
 */
export function masterLightStep(lightness: number): number {
  return Math.trunc((255 * Math.max(-100, Math.min(100, lightness))) / 100) / 255;
}

/** α of a saturation change s (−1..1): the factor on a channel's distance from the lightness is 1 + α. */
export function saturationAlpha(s: number): number {
  if (s <= 0) return Math.max(-1, s);
  return Math.min(127, s / (1 - s));
}

/** Hexcone hue in degrees [0, 360) of a colour that is not grey (mx > mn). */
function hexHue(r: number, g: number, b: number, mx: number, mn: number): number {
  const dd = mx - mn;
  const h = mx === r ? (g - b) / dd : mx === g ? (b - r) / dd + 2 : (r - g) / dd + 4;
  return h < 0 ? h * 60 + 360 : h * 60;
}

function colorizeHsl(d: Uint8ClampedArray, hue: number, saturation: number, lightness: number): boolean {
  const h = (((hue % 360) + 360) % 360) / 360;
  const s = Math.max(0, Math.min(1, saturation / 100));
  const l = Math.max(-1, Math.min(1, lightness / 100));
  const hsl = new Float64Array(3);
  // The result is a function of the HSL lightness alone, and that of the channels' largest and
  // smallest bytes ((mx / 255 + mn / 255) / 2): each (mx, mn) pair is worked out once, its three
  // stored bytes kept (24 bits; −1 not yet), the same bytes as working out every pixel.
  const seen = new Int32Array(65536).fill(-1);
  const rgb = new Uint8ClampedArray(3);
  for (let i = 0; i < d.length; i += 4) {
    const r0 = d[i], g0 = d[i + 1], b0 = d[i + 2];
    const mx = r0 > g0 ? (r0 > b0 ? r0 : b0) : g0 > b0 ? g0 : b0;
    const mn = r0 < g0 ? (r0 < b0 ? r0 : b0) : g0 < b0 ? g0 : b0;
    const key = (mx << 8) | mn;
    let v = seen[key];
    if (v < 0) {
      rgbToHsl(r0, g0, b0, hsl);
      const L = l > 0 ? hsl[2] + (1 - hsl[2]) * l : hsl[2] * (1 + l);
      hslToRgb(h, s, L, rgb);
      v = seen[key] = (rgb[0] << 16) | (rgb[1] << 8) | rgb[2];
    }
    d[i] = v >>> 16;
    d[i + 1] = (v >>> 8) & 255;
    d[i + 2] = v & 255;
  }
  return true;
}

interface HueRange {
  a: number;
  b: number;
  c: number;
  d: number;
}

/** A colour range's four hues unwrapped so that a ≤ b ≤ c ≤ d (each may pass 360). */
function unwrapRange(a: number, b: number, c: number, d: number): HueRange {
  while (b < a) b += 360;
  while (c < b) c += 360;
  while (d < c) d += 360;
  return { a, b, c, d };
}

/** How much of a colour range's change a hue takes (0..1). */
export function rangeWeight(h: number, { a, b, c, d }: HueRange): number {
  // The unwrapped range may start below 0 or end past 360: try the hue one turn down and up too.
  for (let x = h - 360; x <= h + 720; x += 360) {
    if (x < a || x > d) continue;
    if (x < b) return b > a ? (x - a) / (b - a) : 1;
    if (x <= c) return 1;
    return d > c ? (d - x) / (d - c) : 1;
  }
  return 0;
}

function rgbToHsl(r: number, g: number, b: number, out: Float64Array): void {
  r /= 255; g /= 255; b /= 255;
  const mx = Math.max(r, g, b), mn = Math.min(r, g, b);
  const l = (mx + mn) / 2;
  let h = 0, s = 0;
  if (mx !== mn) {
    const dd = mx - mn;
    s = l > 0.5 ? dd / (2 - mx - mn) : dd / (mx + mn);
    h = mx === r ? (g - b) / dd + (g < b ? 6 : 0) : mx === g ? (b - r) / dd + 2 : (r - g) / dd + 4;
    h /= 6;
  }
  out[0] = h; out[1] = s; out[2] = l;
}

/** HSL (each 0..1) to the bytes a Uint8ClampedArray stores, into `out`. */
function hslToRgb(h: number, s: number, l: number, out: Uint8ClampedArray): void {
  if (s === 0) {
    out[0] = out[1] = out[2] = l * 255;
    return;
  }
  const q = l < 0.5 ? l * (1 + s) : l + s - l * s;
  const p = 2 * l - q;
  out[0] = hslChannel(h + 1 / 3, p, q) * 255;
  out[1] = hslChannel(h, p, q) * 255;
  out[2] = hslChannel(h - 1 / 3, p, q) * 255;
}

/** One channel of hslToRgb (0..1) at hue offset `t` (turns), between the HSL extremes p ≤ q. */
function hslChannel(t: number, p: number, q: number): number {
  t = ((t % 1) + 1) % 1;
  if (t < 1 / 6) return p + (q - p) * 6 * t;
  if (t < 1 / 2) return q;
  if (t < 2 / 3) return p + (q - p) * (2 / 3 - t) * 6;
  return p;
}
