import fogra39 from '../../../assets/icc/CoatedFOGRA39-Argyll.icc';
import { sgrayProfile, srgbProfile } from '../raster/icc';
import type { ColourSpace } from './types';

/**
 * The shipped default profiles (assets/icc/README.md states sources and licences):
 * - Rgb: sRGB (the compact profile our previews embed, src/engine/raster/icc.ts).
 * - Cmyk: "Coated FOGRA39 (Argyll from FOGRA39L data)", made with ArgyllCMS colprof from
 *   FOGRA39L characterization data (zlib licence): ISO 12647-2 coated paper, 330 % total ink.
 * - Grayscale: sGray, sRGB's tone curve (grey v ↔ sRGB (v, v, v) unchanged).
 * The same bytes every call: callers must not write into them.
 */
export function defaultProfile(space: ColourSpace): Uint8Array {
  if (space === 'Rgb') return srgbProfile();
  if (space === 'Grayscale') return sgrayProfile();
  return (cmyk ??= new Uint8Array(fogra39));
}

let cmyk: Uint8Array | undefined;
