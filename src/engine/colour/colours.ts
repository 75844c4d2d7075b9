import { defaultProfile } from './defaults';
import { colourTransformSync } from './transform';
import type { RenderingIntent } from './types';

/**
 * One colour given as CMYK ink percentages (0–100, e.g. a personalised `cmyk()` value) in sRGB
 * 0–255, through `profile` (default: the shipped CMYK profile), at 16 bits so fractional
 * percentages count. Relative colorimetric with BPC unless `intent` says otherwise.
 *
 * @example cmykPercentToSrgb([0, 0, 0, 100]) // a dark grey: 100 % K on paper, not (0, 0, 0)
 */
export function cmykPercentToSrgb(cmyk: readonly number[], profile: Uint8Array = defaultProfile('Cmyk'), intent?: RenderingIntent): [number, number, number] {
  const t = colourTransformSync({ from: profile, to: defaultProfile('Rgb'), fromLayout: 'CMYK16', toLayout: 'RGB16', intent });
  const src = new Uint16Array(cmyk.map((v) => Math.round(Math.max(0, Math.min(100, v)) * 655.35)));
  const dst = new Uint16Array(3);
  t.apply(new Uint8Array(src.buffer), new Uint8Array(dst.buffer), 1);
  return [Math.round(dst[0] / 257), Math.round(dst[1] / 257), Math.round(dst[2] / 257)];
}
