import type { AdjustmentLayer } from 'ag-psd';

type ColorBalance = Extract<AdjustmentLayer, { type: 'color balance' }>;
type Tones = { cyanRed: number; magentaGreen: number; yellowBlue: number };

/**
 * Photoshop's Color Balance (docs/fidelity.md, "Colour Balance"). The model, and why:
 *
 * - Without Preserve Luminosity it is a transfer curve per channel: a pixel's red depends on its
 *   red alone (Cyan–Red moves only red, Magenta–Green only green, Yellow–Blue only blue). That is
 *   what Photoshop is observed to do: midtones Cyan–Red from +100 to −100 matches a Levels gamma
 *   on the red channel from 1.4 to 0.7 with the end points kept, and only red changes (measured
 *   and reported on retouchpro.com, "How does the Photoshop Color Balance command work").
 *   GIMP ≤ 2.8, written to mimic Photoshop, is per channel too (transfer tables on the channel's
 *   own value); GIMP 2.10 instead weights the ranges by the pixel's HSL lightness and shifts by up
 *   to 0.7 of full scale, which moves mid grey 128 to 255 at +100 where Photoshop gives about 156,
 *   so we do not follow it there.
 * - Midtones m (−100..100): the channel's gamma γ = 1.4^(m/100): out = x^(1/γ) on 0..1, so +100 is
 *   gamma 1.4 and −100 gamma 1/1.4 ≈ 0.71 (the 0.7 measured); black and white stay.
 * - Shadows s and highlights h, read the same way as Levels' end points, each the mirror of the
 *   other: shadows toward the colour (+) raise the channel's output black (black takes the
 *   colour, white stays), toward the complement (−) raise its input black (darks lose the
 *   channel, clipping); highlights toward the colour lower the input white (lights gain the
 *   channel, clipping), toward the complement lower the output white (white takes the
 *   complement). At ±100 the end point moves by A = 12 % of full scale (30.6 levels), the largest
 *   shift the midtone curve makes (gamma 1.4 lifts x ≈ 0.31 by 0.123), so the three ranges are
 *   equally strong. That strength is our choice, not a measurement.
 * - Order: shadows, midtones, highlights (as GIMP), on unrounded values.
 * - Preserve Luminosity: the result keeps its HSL hue and saturation and takes back the original
 *   pixel's HSL lightness (max + min) / 2, as GIMP does.
 */
export const COLOR_BALANCE_ENDPOINT = 0.12;

/** The transfer curve (0..255 → 0..255, unrounded) of one channel under the three tone values. */
export function colorBalanceCurve(shadows: number, midtones: number, highlights: number): Float64Array {
  const out = new Float64Array(256);
  const s = clamp(shadows, -100, 100) / 100;
  const m = clamp(midtones, -100, 100) / 100;
  const h = clamp(highlights, -100, 100) / 100;
  const inv = 1 / Math.pow(1.4, m);
  const a = COLOR_BALANCE_ENDPOINT;
  for (let v = 0; v < 256; v++) {
    let x = v / 255;
    if (s > 0) x = a * s + x * (1 - a * s);
    else if (s < 0) x = Math.max(0, (x + a * s) / (1 + a * s));
    if (m !== 0) x = Math.pow(x, inv);
    if (h > 0) x = Math.min(1, x / (1 - a * h));
    else if (h < 0) x *= 1 + a * h;
    out[v] = x * 255;
  }
  return out;
}

/** Applies a Color Balance adjustment to RGBA pixels in place (alpha untouched). */
export function applyColorBalance(adj: ColorBalance, d: Uint8ClampedArray): boolean {
  const zero: Tones = { cyanRed: 0, magentaGreen: 0, yellowBlue: 0 };
  const sh = adj.shadows ?? zero, mid = adj.midtones ?? zero, hi = adj.highlights ?? zero;
  const curve = (k: keyof Tones) => ((sh[k] ?? 0) || (mid[k] ?? 0) || (hi[k] ?? 0) ? colorBalanceCurve(sh[k] ?? 0, mid[k] ?? 0, hi[k] ?? 0) : null);
  const cr = curve('cyanRed'), cg = curve('magentaGreen'), cb = curve('yellowBlue');
  if (!cr && !cg && !cb) return true;
  if (!adj.preserveLuminosity) {
    // A curve per channel: rounded once into 8-bit tables.
    const r8 = rounded(cr), g8 = rounded(cg), b8 = rounded(cb);
    for (let i = 0; i < d.length; i += 4) {
      d[i] = r8[d[i]];
      d[i + 1] = g8[d[i + 1]];
      d[i + 2] = b8[d[i + 2]];
    }
    return true;
  }
  const id = identity();
  const fr = cr ?? id, fg = cg ?? id, fb = cb ?? id;
  // The colour with the result's HSL hue and saturation and the original's lightness L: HSL keeps
  // the channels' spread around the lightness in proportion to the chroma the lightness allows,
  // 2L below mid grey and 2(255 − L) above, so only that ratio changes. Scalars only per pixel.
  for (let i = 0; i < d.length; i += 4) {
    const r0 = d[i], g0 = d[i + 1], b0 = d[i + 2];
    const L = ((r0 > g0 ? (r0 > b0 ? r0 : b0) : g0 > b0 ? g0 : b0) + (r0 < g0 ? (r0 < b0 ? r0 : b0) : g0 < b0 ? g0 : b0)) / 2;
    const r = fr[r0], g = fg[g0], b = fb[b0];
    const mx = r > g ? (r > b ? r : b) : g > b ? g : b;
    const mn = r < g ? (r < b ? r : b) : g < b ? g : b;
    const L1 = (mx + mn) / 2;
    const room1 = L1 <= 127.5 ? 2 * L1 : 2 * (255 - L1);
    if (mx === mn || room1 <= 0) {
      d[i] = d[i + 1] = d[i + 2] = L;
      continue;
    }
    const k = (L <= 127.5 ? 2 * L : 2 * (255 - L)) / room1;
    d[i] = L + (r - L1) * k;
    d[i + 1] = L + (g - L1) * k;
    d[i + 2] = L + (b - L1) * k;
  }
  return true;
}

function identity(): Float64Array {
  const out = new Float64Array(256);
  for (let v = 0; v < 256; v++) out[v] = v;
  return out;
}

function rounded(curve: Float64Array | null): Uint8ClampedArray {
  const out = new Uint8ClampedArray(256);
  for (let v = 0; v < 256; v++) out[v] = curve ? curve[v] : v;
  return out;
}

/** HSL lightness on 0..255: (max + min) / 2. */
export function lightnessOf(r: number, g: number, b: number): number {
  return (Math.max(r, g, b) + Math.min(r, g, b)) / 2;
}

const clamp = (v: number, lo: number, hi: number) => (v < lo ? lo : v > hi ? hi : v);
