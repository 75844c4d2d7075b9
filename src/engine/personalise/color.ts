/**
 * Colours in `data` (rendering contract): `#rrggbb`, `#rgb`, `rgb(r, g, b)` (0–255),
 * `rgba(r, g, b, a)` (alpha 0–1) and `cmyk(c, m, y, k)` (0–100). CMYK is converted to sRGB
 * through the default CMYK profile by LittleCMS (src/engine/colour), relative colorimetric with
 * black-point compensation; print output keeps the ink values themselves.
 */
import { cmykPercentToSrgb } from '../colour';

/** r, g, b on 0–255; a on 0–1. */
export interface RGBA {
  r: number;
  g: number;
  b: number;
  a: number;
}

const NUMBER = String.raw`\s*([+-]?(?:\d+\.?\d*|\.\d+))\s*`;
const FUNCTION = new RegExp(String.raw`^(rgba?|cmyk)\((${NUMBER}(?:,${NUMBER})*)\)$`, 'i');

/** Parses a colour; returns a sentence saying what is wrong when it is not one. */
export function parseColor(input: string): RGBA | { error: string } {
  const s = input.trim();
  const hex = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(s);
  if (hex) {
    const h = hex[1].length === 3 ? [...hex[1]].map((c) => c + c).join('') : hex[1];
    return { r: parseInt(h.slice(0, 2), 16), g: parseInt(h.slice(2, 4), 16), b: parseInt(h.slice(4, 6), 16), a: 1 };
  }
  const fn = FUNCTION.exec(s);
  if (!fn) return { error: `"${input}" is not a colour; use #rrggbb, #rgb, rgb(), rgba() or cmyk()` };
  const kind = fn[1].toLowerCase();
  const args = fn[2].split(',').map((v) => Number(v.trim()));
  const arity = kind === 'rgb' ? 3 : 4;
  if (args.length !== arity) return { error: `${kind}() takes ${arity} numbers, got ${args.length}` };
  if (kind === 'cmyk') {
    if (args.some((v) => v < 0 || v > 100)) return { error: 'cmyk() components must be between 0 and 100' };
    const [r, g, b] = cmykPercentToSrgb(args);
    return { r, g, b, a: 1 };
  }
  if (args.slice(0, 3).some((v) => v < 0 || v > 255)) return { error: `${kind}() colour components must be between 0 and 255` };
  const a = kind === 'rgba' ? args[3] : 1;
  if (a < 0 || a > 1) return { error: 'rgba() alpha must be between 0 and 1' };
  return { r: Math.round(args[0]), g: Math.round(args[1]), b: Math.round(args[2]), a };
}

export const isColorError = (c: RGBA | { error: string }): c is { error: string } => 'error' in c;

/** '#rrggbb' (alpha dropped). */
export function toHex({ r, g, b }: RGBA): string {
  return '#' + [r, g, b].map((v) => Math.round(v).toString(16).padStart(2, '0')).join('');
}
