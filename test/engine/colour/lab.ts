import { lcms } from '../../../src/engine/colour/lcms';

/**
 * Test helpers: colours to CIELAB (D50) by LittleCMS itself (float formats, relative
 * colorimetric, no BPC), and CIEDE2000 (Sharma, Wu, Dalal 2005) to compare them.
 */

const FLOAT = 1 << 22;
const format = (pt: number, channels: number) => FLOAT | (pt << 16) | (channels << 3); // bytes 0 = double
const PT = { Rgb: 4, Cmyk: 6, Grayscale: 3, Lab: 10 } as const;

/** Lab of `colours` (RGB/grey 0–255, CMYK 0–100) in `profile`. */
export async function toLab(profile: Uint8Array, space: 'Rgb' | 'Cmyk' | 'Grayscale', colours: number[][]): Promise<number[][]> {
  const m = await lcms();
  const at = m._malloc(profile.length);
  m.HEAPU8.set(profile, at);
  const input = m._cmsOpenProfileFromMem(at, profile.length);
  m._free(at);
  const lab = m._cmsCreateLab4Profile(0);
  const channels = space === 'Cmyk' ? 4 : space === 'Rgb' ? 3 : 1;
  const transform = m._cmsCreateTransform(input, format(PT[space], channels), lab, format(PT.Lab, 3), 1, 0);
  if (!transform) throw new Error('no Lab transform');
  const src = m._malloc(colours.length * channels * 8);
  const dst = m._malloc(colours.length * 3 * 8);
  const scale = space === 'Cmyk' ? 1 : 1 / 255;
  new Float64Array(m.HEAPU8.buffer, src, colours.length * channels).set(colours.flat().map((v) => v * scale));
  m._cmsDoTransform(transform, src, dst, colours.length);
  const out = new Float64Array(m.HEAPU8.buffer, dst, colours.length * 3).slice();
  m._free(src);
  m._free(dst);
  m._cmsDeleteTransform(transform);
  m._cmsCloseProfile(input);
  m._cmsCloseProfile(lab);
  return colours.map((_, i) => Array.from(out.subarray(i * 3, i * 3 + 3)));
}

const rad = Math.PI / 180;

export function deltaE2000([L1, a1, b1]: number[], [L2, a2, b2]: number[]): number {
  const C1 = Math.hypot(a1, b1);
  const C2 = Math.hypot(a2, b2);
  const Cm = (C1 + C2) / 2;
  const G = 0.5 * (1 - Math.sqrt(Cm ** 7 / (Cm ** 7 + 25 ** 7)));
  const a1p = (1 + G) * a1;
  const a2p = (1 + G) * a2;
  const C1p = Math.hypot(a1p, b1);
  const C2p = Math.hypot(a2p, b2);
  const hue = (b: number, a: number) => (b === 0 && a === 0 ? 0 : (Math.atan2(b, a) / rad + 360) % 360);
  const h1p = hue(b1, a1p);
  const h2p = hue(b2, a2p);
  const dLp = L2 - L1;
  const dCp = C2p - C1p;
  let dhp = 0;
  if (C1p * C2p !== 0) dhp = h2p - h1p > 180 ? h2p - h1p - 360 : h2p - h1p < -180 ? h2p - h1p + 360 : h2p - h1p;
  const dHp = 2 * Math.sqrt(C1p * C2p) * Math.sin((dhp / 2) * rad);
  const Lmp = (L1 + L2) / 2;
  const Cmp = (C1p + C2p) / 2;
  let hmp = h1p + h2p;
  if (C1p * C2p !== 0) hmp = Math.abs(h1p - h2p) > 180 ? (h1p + h2p < 360 ? (h1p + h2p + 360) / 2 : (h1p + h2p - 360) / 2) : (h1p + h2p) / 2;
  const T = 1 - 0.17 * Math.cos((hmp - 30) * rad) + 0.24 * Math.cos(2 * hmp * rad) + 0.32 * Math.cos((3 * hmp + 6) * rad) - 0.2 * Math.cos((4 * hmp - 63) * rad);
  const dTheta = 30 * Math.exp(-(((hmp - 275) / 25) ** 2));
  const Rc = 2 * Math.sqrt(Cmp ** 7 / (Cmp ** 7 + 25 ** 7));
  const Sl = 1 + (0.015 * (Lmp - 50) ** 2) / Math.sqrt(20 + (Lmp - 50) ** 2);
  const Sc = 1 + 0.045 * Cmp;
  const Sh = 1 + 0.015 * Cmp * T;
  const Rt = -Math.sin(2 * dTheta * rad) * Rc;
  return Math.sqrt((dLp / Sl) ** 2 + (dCp / Sc) ** 2 + (dHp / Sh) ** 2 + Rt * (dCp / Sc) * (dHp / Sh));
}
