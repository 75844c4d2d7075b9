import { blendSurfaceWasm, fadeIntoWasm, textSpace } from '../raster/blend';
import type { Bounds } from '../types';
import { intersectRect, rectOf, type Surface } from './surface';

/**
 * Photoshop's blend modes and the one compositing kernel (W3C Compositing and Blending Level 1,
 * which documents Photoshop's model): with source alpha as' = as·opacity·mask,
 *   ao = as' + ab·(1 − as')
 *   co = [as'·((1 − ab)·cs + ab·B(cb, cs)) + (1 − as')·ab·cb] / ao
 * Channels are 0..1 inside the blend functions. This file is the single place the per-pixel
 * work happens, so it can be swapped for a WASM SIMD kernel.
 */

type Separable = (cb: number, cs: number) => number;
type NonSeparable = (b: Float64Array, s: Float64Array, out: Float64Array) => void;

const clamp01 = (v: number) => (v < 0 ? 0 : v > 1 ? 1 : v);

const multiply: Separable = (b, s) => b * s;
const screen: Separable = (b, s) => b + s - b * s;
const colorDodge: Separable = (b, s) => (b <= 0 ? 0 : s >= 1 ? 1 : Math.min(1, b / (1 - s)));
const colorBurn: Separable = (b, s) => (b >= 1 ? 1 : s <= 0 ? 0 : 1 - Math.min(1, (1 - b) / s));
const hardLight: Separable = (b, s) => (s <= 0.5 ? b * 2 * s : screen(b, 2 * s - 1));
/**
 * Linear light in Photoshop's 8-bit arithmetic: b + 2s − 256 levels, one below b + 2s − 255 (white
 * over black is 254). photocraft's measurements of Photoshop 27.11 (RGB, Fill ½, ¼, ¾: 9 of 9
 * channels a level below b + q(2s − 1)) and Photoshop 2026's sampled values in psd-tools'
 * test_blend.py (a CMYK document at 100 %: 20 of 20, 9 a level below) both hold to it
 * (docs/fidelity.md, "Blend arithmetic from photocraft's Photoshop measurements").
 */
const PS_ONE = 256 / 255;
const linearLight: Separable = (b, s) => clamp01(b + 2 * s - PS_ONE);
/**
 * Hard mix: 1 where b + s passes 1, 0 below; on the line itself (8-bit values summing to 255) 1
 * only where the backdrop is above ½ (psd-tools PR #784, 145 boundary samples of Photoshop 2026).
 * The sum is compared in whole levels so that 8-bit operands land on the line exactly.
 */
const hardMix: Separable = (b, s) => {
  const sum = Math.round((b + s) * 255);
  return sum > 255 || (sum === 255 && b > 0.5) ? 1 : 0;
};

export const SEPARABLE: Record<string, Separable> = {
  normal: (_b, s) => s,
  dissolve: (_b, s) => s,
  darken: (b, s) => Math.min(b, s),
  multiply,
  'color burn': colorBurn,
  'linear burn': (b, s) => Math.max(0, b + s - 1),
  lighten: (b, s) => Math.max(b, s),
  screen,
  'color dodge': colorDodge,
  'linear dodge': (b, s) => Math.min(1, b + s),
  overlay: (b, s) => hardLight(s, b),
  // Soft light as the PDF/W3C spec has it (Adobe's): b − (1 − 2s)·b(1 − b) below ½, above it
  // b + (2s − 1)(D(b) − b) with D(b) = √b, or ((16b − 12)b + 4)b for b ≤ ¼ (the darkest quarter
  // lightens less than √b would). psd-tools measured the ¼ branch on Photoshop 2026's own render
  // (psd-tools PR #784: 12.6 → 0.95 levels worst).
  // Its result in whole 8-bit steps before the source's alpha mixes it with the backdrop, as
  // Photoshop's composite of psdtools-blend-soft-light.psd shows (docs/fidelity.md).
  'soft light': (b, s) =>
    Math.round((s <= 0.5 ? 2 * b * s + b * b * (1 - 2 * s) : b + (2 * s - 1) * ((b <= 0.25 ? ((16 * b - 12) * b + 4) * b : Math.sqrt(b)) - b)) * 255) / 255,
  'hard light': hardLight,
  // The source's extremes win whatever the backdrop (black burns to 0, white dodges to 1), unlike
  // plain colour burn/dodge, whose white/black backdrop stays (measured on Photoshop by psd-tools,
  // PR #784); in between the burn and dodge by twice the blend colour.
  'vivid light': (b, s) => (s <= 0 ? 0 : s >= 1 ? 1 : s <= 0.5 ? colorBurn(b, 2 * s) : colorDodge(b, 2 * s - 1)),
  'linear light': linearLight,
  'pin light': (b, s) => (s <= 0.5 ? Math.min(b, 2 * s) : Math.max(b, 2 * s - 1)),
  'hard mix': hardMix,
  difference: (b, s) => Math.abs(b - s),
  exclusion: (b, s) => b + s - 2 * b * s,
  subtract: (b, s) => Math.max(0, b - s),
  divide: (b, s) => (s <= 0 ? (b <= 0 ? 0 : 1) : Math.min(1, b / s)),
};

export const lum = (c: Float64Array) => 0.3 * c[0] + 0.59 * c[1] + 0.11 * c[2];
function clipColor(c: Float64Array): void {
  const l = lum(c);
  const n = Math.min(c[0], c[1], c[2]);
  const x = Math.max(c[0], c[1], c[2]);
  for (let i = 0; i < 3; i++) {
    if (n < 0) c[i] = l + ((c[i] - l) * l) / (l - n);
    if (x > 1) c[i] = l + ((c[i] - l) * (1 - l)) / (x - l);
  }
}
export function setLum(c: Float64Array, l: number, out: Float64Array): void {
  const d = l - lum(c);
  out[0] = c[0] + d;
  out[1] = c[1] + d;
  out[2] = c[2] + d;
  clipColor(out);
}
const sat = (c: Float64Array) => Math.max(c[0], c[1], c[2]) - Math.min(c[0], c[1], c[2]);
function setSat(c: Float64Array, s: number, out: Float64Array): void {
  const idx = [0, 1, 2].sort((a, b) => c[a] - c[b]);
  const [mn, md, mx] = idx;
  out[0] = out[1] = out[2] = 0;
  if (c[mx] > c[mn]) {
    out[md] = ((c[md] - c[mn]) * s) / (c[mx] - c[mn]);
    out[mx] = s;
  }
}
const tmp = new Float64Array(3);

export const NON_SEPARABLE: Record<string, NonSeparable> = {
  hue: (b, s, out) => {
    setSat(s, sat(b), tmp);
    setLum(tmp, lum(b), out);
  },
  saturation: (b, s, out) => {
    setSat(b, sat(s), tmp);
    setLum(tmp, lum(b), out);
  },
  color: (b, s, out) => setLum(s, lum(b), out),
  luminosity: (b, s, out) => setLum(b, lum(s), out),
  'darker color': (b, s, out) => out.set(lum(s) < lum(b) ? s : b),
  'lighter color': (b, s, out) => out.set(lum(s) > lum(b) ? s : b),
};

export const BLEND_MODES = [...Object.keys(SEPARABLE), ...Object.keys(NON_SEPARABLE)];

/**
 * Photoshop's "special eight": the modes on which Fill opacity q does not fade the layer (as
 * Opacity does, and as Fill does in every other mode) but goes into the blend itself. The
 * source colour is pulled toward the mode's neutral colour, the one that leaves the backdrop as
 * it is: black for the dodges and difference (s·q), white for the burns (1 − q(1 − s)), 50 %
 * grey for vivid and linear light (½ + q(s − ½)). At q = 0 each leaves the backdrop unchanged,
 * at q = 1 it is the mode itself. Hard mix has no neutral colour (a step at b + s = 1); lowered
 * fill widens the step into the ramp (b − q(1 − s)) / (1 − q) that passes through b + s = 1 at
 * every q: the backdrop itself at q = 0, Photoshop's soft hard mix 3b − 2(1 − s) at q = ⅔, the
 * step at q = 1. That is why a Hard Mix layer at low Fill softens instead of fading.
 */
export const FILL_INSIDE: Record<string, (b: number, s: number, q: number) => number> = {
  'color dodge': (b, s, q) => colorDodge(b, s * q),
  'linear dodge': (b, s, q) => Math.min(1, b + s * q),
  difference: (b, s, q) => Math.abs(b - s * q),
  'color burn': (b, s, q) => colorBurn(b, 1 - q * (1 - s)),
  'linear burn': (b, s, q) => Math.max(0, b - q * (1 - s)),
  'vivid light': (b, s, q) => SEPARABLE['vivid light'](b, 0.5 + q * (s - 0.5)),
  // A level below b + q(2s − 1) at any Fill above 0, as at 100 % (linearLight): photocraft's
  // Photoshop 27.11 measurements at Fill 128/255, 64/255 and 191/255, 9 of 9 channels.
  'linear light': (b, s, q) => (q > 0 ? clamp01(b + q * (2 * s - 1) - 1 / 255) : b),
  'hard mix': (b, s, q) => (q >= 1 ? SEPARABLE['hard mix'](b, s) : clamp01((b - q * (1 - s)) / (1 - q))),
};

/** Deterministic per-pixel noise in [0, 1) for dissolve. */
function noise(x: number, y: number): number {
  let h = (x * 374761393 + y * 668265263) | 0;
  h = Math.imul(h ^ (h >>> 13), 1274126177);
  return ((h ^ (h >>> 16)) >>> 0) / 4294967296;
}

export interface BlendOptions {
  /** Keep the destination's alpha (source-atop): clipped layers inside a clipping group. */
  atop?: boolean;
  /**
   * Photoshop's "Blend Text Colors Using Gamma 1.45": blend in the values taken through the sRGB
   * curve to linear light, then encoded with 1/textGamma (raster/blend.ts textSpace; the WASM
   * kernel does it in normal mode from textSpace's tables).
   */
  textGamma?: number;
  /** Channels (0 R, 1 G, 2 B) that keep the backdrop ("Advanced Blending: Channels"). */
  excludedChannels?: number[];
  /** Blend-if ranges (grey, R, G, B) of the layer and the layers beneath. */
  blendIf?: Array<{ source: number[]; dest: number[] }>;
  /**
   * Photoshop's Fill opacity (0..1), apart from `opacity`: in the special eight modes it goes into
   * the blend (FILL_INSIDE); in every other mode it fades the layer as opacity does.
   */
  fill?: number;
}

/** Blend-if weight of value v in range [black low, black high, white low, white high]. */
function rangeWeight(v: number, r: number[]): number {
  if (v < r[0] || v > r[3]) return 0;
  if (v < r[1]) return (v - r[0]) / Math.max(1, r[1] - r[0]);
  if (v > r[2]) return (r[3] - v) / Math.max(1, r[3] - r[2]);
  return 1;
}

/**
 * Blend If's "Gray" is Photoshop's RGB luminosity, 0.3R + 0.59G + 0.11B (the composite channel of
 * the RGB master curve; the same weights as the luminosity blend modes, `lum` above).
 */
const grey = (p: Uint8ClampedArray, i: number) => 0.3 * p[i] + 0.59 * p[i + 1] + 0.11 * p[i + 2];

function blendIfWeight(ranges: NonNullable<BlendOptions['blendIf']>, s: Uint8ClampedArray, si: number, d: Uint8ClampedArray, di: number): number {
  let w = 1;
  for (let k = 0; k < ranges.length && w > 0; k++) {
    const sv = k === 0 ? grey(s, si) : s[si + k - 1];
    const dv = k === 0 ? grey(d, di) : d[di + k - 1];
    w *= rangeWeight(sv, ranges[k].source) * rangeWeight(dv, ranges[k].dest);
  }
  return w;
}

/**
 * Blends `src` onto `dst` in place. `mask` (optional) is one byte per pixel of src's rectangle;
 * `opacity` is 0..1. `within` (optional, dst's coordinates): a rectangle outside which src's alpha
 * is 0, which every mode passes over: the blend goes over it only, the same bytes.
 */
export function blendSurface(
  dst: Surface,
  src: Surface,
  mask: Uint8ClampedArray | null,
  opacity: number,
  mode: string,
  options: BlendOptions = {},
  within?: Bounds,
): void {
  // Same result from the WASM kernel (bit-identical, test/engine/raster/blend.test.ts) when it
  // covers the mode and options; otherwise the loop below.
  let q = options.fill ?? 1;
  const inside: ((b: number, s: number, q: number) => number) | undefined =
    q < 1 && Object.hasOwn(FILL_INSIDE, mode) ? FILL_INSIDE[mode] : undefined;
  if (!inside && options.fill !== undefined) {
    opacity *= q; // an ordinary mode: fill fades the layer like opacity
    q = 1;
    options = { ...options, fill: undefined };
  }
  if (blendSurfaceWasm(dst, src, mask, opacity, mode, options, within)) return;
  const both = intersectRect(rectOf(dst), rectOf(src));
  const r = both && within ? intersectRect(both, within) : both;
  if (!r || opacity <= 0) return;
  const non: NonSeparable | undefined = Object.hasOwn(NON_SEPARABLE, mode) ? NON_SEPARABLE[mode] : undefined;
  const sep: Separable | null = non ? null : (SEPARABLE[mode] ?? SEPARABLE.normal);
  const isNormal = sep === SEPARABLE.normal || mode === 'dissolve';
  const dissolve = mode === 'dissolve';
  const atop = !!options.atop;
  const textGamma = options.textGamma ?? 1;
  // Every 8-bit value in the blend space from a table, per gamma: three Math.pow a channel become one.
  const space = textGamma !== 1 ? textSpace(textGamma) : null;
  const powers = space?.ofByte;
  const blendIf = options.blendIf;
  const keep = [0, 1, 2].map((c) => !!options.excludedChannels?.includes(c));
  const restricted = keep.some(Boolean);
  const saved = new Float64Array(3);
  const d = dst.data;
  const s = src.data;
  const cb = new Float64Array(3);
  const cs = new Float64Array(3);
  const bl = new Float64Array(3);
  for (let y = r.top; y < r.bottom; y++) {
    let di = ((y - dst.y) * dst.w + (r.left - dst.x)) * 4;
    let si = ((y - src.y) * src.w + (r.left - src.x)) * 4;
    let mi = (y - src.y) * src.w + (r.left - src.x);
    for (let x = r.left; x < r.right; x++, di += 4, si += 4, mi++) {
      let as = (s[si + 3] / 255) * opacity;
      if (mask) as *= mask[mi] / 255;
      if (blendIf && as > 0) as *= blendIfWeight(blendIf, s, si, d, di);
      if (dissolve) as = as > 0 && noise(x, y) < as ? 1 : 0;
      if (as <= 0) continue;
      const ab = d[di + 3] / 255;
      if (atop && ab <= 0) continue;
      if (isNormal || ab <= 0) {
        bl[0] = s[si] / 255;
        bl[1] = s[si + 1] / 255;
        bl[2] = s[si + 2] / 255;
      } else {
        for (let c = 0; c < 3; c++) {
          cb[c] = d[di + c] / 255;
          cs[c] = s[si + c] / 255;
        }
        if (atop) {
          // Clipped: the source lies only where the base is, so it blends with the base's colour
          // whole, as over an opaque base, and the base keeps its alpha (photocraft's clipping,
          // "fitted to Photoshop"; docs/fidelity.md, "Blend arithmetic from photocraft's Photoshop
          // measurements"). The W3C source-atop weighed in the source's own colour by 1 − ab,
          // tinting the soft edges of a base with it.
          if (inside) for (let c = 0; c < 3; c++) bl[c] = inside(cb[c], cs[c], q);
          else if (sep) for (let c = 0; c < 3; c++) bl[c] = sep(cb[c], cs[c]);
          else if (non) non(cb, cs, bl);
        } else if (inside) {
          // Where the backdrop is (ab) the blend at fill q; where it is not, the source itself at
          // q, as fill weighs it in any other mode.
          const u = q * (1 - ab);
          for (let c = 0; c < 3; c++) bl[c] = (u * cs[c] + ab * inside(cb[c], cs[c], q)) / (u + ab);
        } else if (sep) for (let c = 0; c < 3; c++) bl[c] = (1 - ab) * cs[c] + ab * sep(cb[c], cs[c]);
        else if (non) {
          non(cb, cs, bl);
          for (let c = 0; c < 3; c++) bl[c] = (1 - ab) * cs[c] + ab * bl[c];
        }
      }
      if (restricted) for (let c = 0; c < 3; c++) saved[c] = d[di + c];
      if (atop) {
        for (let c = 0; c < 3; c++) d[di + c] = (as * bl[c] + (1 - as) * (d[di + c] / 255)) * 255;
        if (restricted) for (let c = 0; c < 3; c++) if (keep[c]) d[di + c] = saved[c];
        continue;
      }
      // The source's share: as, or in a fill-inside mode as where the backdrop is and as·q where not.
      const sw = inside ? as * (q * (1 - ab) + ab) : as;
      const ao = sw + ab * (1 - as);
      if (ao <= 0) continue;
      const kb = (ab * (1 - as)) / ao;
      const ks = sw / ao;
      if (space && powers) {
        // The 8-bit operands from the table (the same numbers as space.of of v/255).
        const plain = isNormal || ab <= 0;
        for (let c = 0; c < 3; c++) {
          const src = plain ? powers[s[si + c]] : space.of(bl[c]);
          d[di + c] = space.back(ks * src + kb * powers[d[di + c]]) * 255;
        }
      } else for (let c = 0; c < 3; c++) d[di + c] = (ks * bl[c] + kb * (d[di + c] / 255)) * 255;
      if (restricted) for (let c = 0; c < 3; c++) if (keep[c]) d[di + c] = saved[c];
      d[di + 3] = ao * 255;
    }
  }
}

/**
 * What blendSurface(clear, s, null, opacity, 'normal') leaves in `clear`, a transparent surface of
 * s's rectangle, made in s's own `data`: a pixel with alpha keeps its colour and takes the alpha the
 * blend stores (alpha ÷ 255 × opacity × 255, the same doubles); one without is all zero (the blend
 * passes over it, leaving `clear`'s zeros). test/engine/composite/fade-onto-clear.test.ts holds it
 * to blendSurface for every alpha and colour byte.
 */
export function fadeOntoClear(data: Uint8ClampedArray, opacity: number): void {
  if (!(opacity > 0)) {
    data.fill(0);
    return;
  }
  for (let i = 0; i < data.length; i += 4) {
    const a = data[i + 3];
    if (a === 0) data[i] = data[i + 1] = data[i + 2] = 0;
    else data[i + 3] = (a / 255) * opacity * 255;
  }
}

/**
 * dst = lerp(dst, src, amount·mask) over the whole of dst (same rectangle): a pass-through group
 * with opacity or a mask, and adjustment layers, fade between before and after this way.
 */
export function fadeInto(dst: Surface, after: Surface, mask: Uint8ClampedArray | null, opacity: number): void {
  if (fadeIntoWasm(dst, after, mask, opacity)) return;
  const d = dst.data;
  const a = after.data;
  for (let i = 0, p = 0; i < d.length; i += 4, p++) {
    const t = opacity * (mask ? mask[p] / 255 : 1);
    if (t >= 1) {
      d[i] = a[i];
      d[i + 1] = a[i + 1];
      d[i + 2] = a[i + 2];
      d[i + 3] = a[i + 3];
      continue;
    }
    if (t <= 0) continue;
    // Interpolate premultiplied, so colour where one side is transparent is not dragged in.
    const ab = d[i + 3];
    const aa = a[i + 3];
    const ao = ab + (aa - ab) * t;
    if (ao <= 0) {
      d[i + 3] = 0;
      continue;
    }
    for (let c = 0; c < 3; c++) d[i + c] = (d[i + c] * ab + (a[i + c] * aa - d[i + c] * ab) * t) / ao;
    d[i + 3] = ao;
  }
}
