/**
 * Per-colour maps of RGBA pixels that work in linear light (Vibrance, Photo Filter): the sRGB
 * curve as a table of the 256 levels and its inverse by search, and a cache of results by colour.
 */
import { srgbToLinear } from '../raster/icc';

/** sRGB's decoding of each 8-bit level to linear light (IEC 61966-2-1). */
export const SRGB_TO_LINEAR = Float64Array.from({ length: 256 }, (_, v) => srgbToLinear(v / 255));

/** The linear value of each half level k + ½ (k = 0..254): where rounding to a level steps up. */
const HALF_LEVELS = Float64Array.from({ length: 255 }, (_, k) => srgbToLinear((k + 0.5) / 255));

/** Linear light back to the nearest sRGB level (0..255): a search of the half levels, no pow. */
export function linearToLevel(l: number): number {
  let lo = 0, hi = 255; // the answer: how many half levels lie at or below l
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (HALF_LEVELS[mid] <= l) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * A direct-mapped cache of results by colour (2¹⁶ slots, 512 KB): templates repeat colours, and
 * a colour's result costs several pow calls. Key −1 marks an empty slot.
 */
class ColourCache {
  readonly keys = new Int32Array(1 << 16).fill(-1);
  readonly values = new Int32Array(1 << 16);
  static slot(key: number): number {
    return (Math.imul(key, 0x9e3779b1) >>> 16) & 0xffff;
  }
}

/**
 * Maps every RGBA pixel's colour through `f` (the result as 0xRRGGBB), cached by colour; greys
 * are kept as they are unless `greys` (for maps that move them).
 */
export function mapColours(d: Uint8ClampedArray, f: (r: number, g: number, b: number) => number, greys = false): void {
  const cache = new ColourCache();
  const { keys, values } = cache;
  for (let i = 0; i < d.length; i += 4) {
    const r = d[i], g = d[i + 1], b = d[i + 2];
    if (!greys && r === g && g === b) continue;
    const key = (r << 16) | (g << 8) | b;
    const slot = ColourCache.slot(key);
    let out: number;
    if (keys[slot] === key) out = values[slot];
    else {
      out = f(r, g, b);
      keys[slot] = key;
      values[slot] = out;
    }
    d[i] = out >>> 16;
    d[i + 1] = (out >>> 8) & 255;
    d[i + 2] = out & 255;
  }
}
