/**
 * CIE L*a*b* (D50) to sRGB codes: how a Lab document (and a Lab ink or colour in any document)
 * reaches the 8-bit sRGB the compiled form holds.
 *
 * - Lab → XYZ (D50) by the CIE formulas, XYZ → linear sRGB through Lindbloom's Bradford-adapted
 *   matrix (D50 → D65), clipped to [0, 1]: what LittleCMS computes from a Lab profile to sRGB
 *   relative colorimetric (within a level: test/engine/psd/modes-lab.test.ts), without its grid,
 *   and within 0.1 of a level of psd-tools' five conversions from Photoshop's colour engine.
 * - Linear light → the sRGB curve, rounded: `srgbByte`, a table lookup and at most a few
 *   comparisons, exactly `round(255 × encode(v))`.
 */

/** The linear light at which the sRGB code rounds up from k to k + 1 (k = 0..254). */
const UP = Float64Array.from({ length: 255 }, (_, k) => decode((k + 0.5) / 255));
const STEPS = 4096;
/** The code at each of STEPS + 1 evenly spaced linear values: where to start looking. */
const START = Uint8Array.from({ length: STEPS + 1 }, (_, i) => Math.round(255 * encode(i / STEPS)));

function encode(v: number): number {
  return v <= 0.0031308 ? 12.92 * v : 1.055 * v ** (1 / 2.4) - 0.055;
}

function decode(c: number): number {
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
}

/** Linear light (clipped to [0, 1]; NaN is 0) as an 8-bit sRGB code: round(255 × encode(v)). */
export function srgbByte(v: number): number {
  if (!(v > 0)) return 0;
  if (v >= 1) return 255;
  let k = START[(v * STEPS) | 0];
  while (k < 255 && v >= UP[k]) k++;
  return k;
}

/** CIE L*a*b* (D50; L 0..100) to linear sRGB (unclipped), into `out`. */
export function labToLinear(l: number, a: number, b: number, out: Float64Array | number[]): void {
  const fy = (l + 16) / 116;
  const fx = fy + a / 500;
  const fz = fy - b / 200;
  const X = 0.9642 * inv(fx);
  const Y = l > 8 ? fy * fy * fy : l / KAPPA;
  const Z = 0.8249 * inv(fz);
  out[0] = 3.1338561 * X - 1.6168667 * Y - 0.4906146 * Z;
  out[1] = -0.9787684 * X + 1.9161415 * Y + 0.033454 * Z;
  out[2] = 0.0719453 * X - 0.2289914 * Y + 1.4052427 * Z;
}

const KAPPA = 24389 / 27;
const EPSILON = 216 / 24389;
const inv = (t: number) => (t * t * t > EPSILON ? t * t * t : (116 * t - 16) / KAPPA);

const scratch = new Float64Array(3);

/** CIE L*a*b* (D50) to sRGB 0..255, clipped. */
export function labToSrgb([l, a, b]: readonly number[]): [number, number, number] {
  labToLinear(l, a, b, scratch);
  return [srgbByte(scratch[0]), srgbByte(scratch[1]), srgbByte(scratch[2])];
}

/**
 * One row of a Lab document (Photoshop's 8-bit encoding: L 0..255 for 0..100, a and b 0..255
 * for −128..127) from `from` on, as RGBA into `out` (alpha from `alpha`, or opaque).
 */
export function labRowToRgba(planes: Uint8Array[], alpha: Uint8Array | null, out: Uint8Array, from: number, width: number): void {
  const [L, A, B] = planes;
  for (let x = 0, o = 0; x < width; x++, o += 4) {
    labToLinear((L[from + x] * 100) / 255, A[from + x] - 128, B[from + x] - 128, scratch);
    out[o] = srgbByte(scratch[0]);
    out[o + 1] = srgbByte(scratch[1]);
    out[o + 2] = srgbByte(scratch[2]);
    out[o + 3] = alpha ? alpha[from + x] : 255;
  }
}
