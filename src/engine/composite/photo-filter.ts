/**
 * Photoshop's Photo Filter as storytold/photocraft fitted it on Photoshop's own composite of its
 * corpus file adjustments/rgb16/photo-filter.psd (within 0.6/255 everywhere; its
 * crates/compose/src/adjust.rs `photo_filter_matrix`, read as reference data): in linear light
 * (the sRGB curve), the pixel's D50 XYZ is scaled, relative to the white point, by the filter
 * colour's, mixed in by the density: XYZ_i·(1 − d + d·F_i / W_i), F the filter colour's XYZ and W
 * the D50 white. A fixed linear map, folded into one matrix. Preserve Luminosity (8 and 16 bits)
 * then restores the pixel's encoded luminosity as the Luminosity blend mode does (SetLum with
 * 0.3, 0.59, 0.11 and its clip). Replaces our unmeasured gamma-space multiply.
 */
import type { AdjustmentLayer } from 'ag-psd';
import { srgbToLinear } from '../raster/icc';
import { lum, setLum } from './blend';
import { rgbOf } from './gradient';
import { mapColours, SRGB_TO_LINEAR } from './colour-map';

/** Linear sRGB to D50 XYZ, Bradford-adapted as in the ICC sRGB profile; its rows sum to the D50 white. */
const SRGB_TO_XYZ_D50 = [
  [0.4360747, 0.3850649, 0.1430804],
  [0.2225045, 0.7168786, 0.0606169],
  [0.0139322, 0.0971045, 0.7141733],
];
/** The inverse of SRGB_TO_XYZ_D50. */
const XYZ_D50_TO_SRGB = [
  [3.1338561, -1.6168667, -0.4906146],
  [-0.9787684, 1.9161415, 0.033454],
  [0.0719453, -0.2289914, 1.4052427],
];

/** The photo filter's matrix on linear sRGB: XYZ_D50_TO_SRGB · diag(scale) · SRGB_TO_XYZ_D50. */
export function photoFilterMatrix(colour: readonly number[], density: number): number[][] {
  const d = Number.isFinite(density) ? Math.max(0, Math.min(1, density)) : 0;
  const lin = colour.map((v) => srgbToLinear(Math.max(0, Math.min(255, v)) / 255));
  const scale = SRGB_TO_XYZ_D50.map((row) => {
    const white = row[0] + row[1] + row[2];
    return 1 - d + (d * (row[0] * lin[0] + row[1] * lin[1] + row[2] * lin[2])) / white;
  });
  return [0, 1, 2].map((r) => [0, 1, 2].map((c) => [0, 1, 2].reduce((s, k) => s + XYZ_D50_TO_SRGB[r][k] * scale[k] * SRGB_TO_XYZ_D50[k][c], 0)));
}

/** Linear light to an encoded sRGB value on 0..1 (unclamped above; 0 below). */
const encode = (l: number) => (l <= 0.0031308 ? 12.92 * Math.max(0, l) : 1.055 * Math.pow(l, 1 / 2.4) - 0.055);
const to8 = (v: number) => Math.round(255 * (v <= 0 ? 0 : v >= 1 ? 1 : v));

/** Applies a Photo Filter adjustment to RGBA pixels in place (alpha untouched). */
export function applyPhotoFilter(adj: Extract<AdjustmentLayer, { type: 'photo filter' }>, d: Uint8ClampedArray): boolean {
  const m = photoFilterMatrix(rgbOf(adj.color), adj.density ?? 0.25);
  const preserve = adj.preserveLuminosity !== false;
  const f = new Float64Array(3), c = new Float64Array(3), out = new Float64Array(3);
  const run = (r8: number, g8: number, b8: number) => {
    const r = SRGB_TO_LINEAR[r8], g = SRGB_TO_LINEAR[g8], b = SRGB_TO_LINEAR[b8];
    for (let k = 0; k < 3; k++) f[k] = encode(m[k][0] * r + m[k][1] * g + m[k][2] * b);
    if (preserve) {
      c[0] = r8 / 255; c[1] = g8 / 255; c[2] = b8 / 255;
      setLum(f, lum(c), out);
    } else out.set(f);
    return (to8(out[0]) << 16) | (to8(out[1]) << 8) | to8(out[2]);
  };
  mapColours(d, run, true);
  return true;
}
