import type { Bounds } from '../types';

/**
 * The pixel pyramid. Level k holds a layer at scale 1/2^k on the document's own grid: level pixel
 * (x, y) covers template pixels [x·2^k, (x+1)·2^k) × [y·2^k, (y+1)·2^k), so every level of every
 * layer lines up with every other without resampling offsets.
 */

export function levelBounds(b: Bounds, level: number): Bounds {
  const f = 2 ** level;
  return {
    left: Math.floor(b.left / f),
    top: Math.floor(b.top / f),
    right: Math.ceil(b.right / f),
    bottom: Math.ceil(b.bottom / f),
  };
}

/** Number of levels: halve until the long side is at most ~256 px. */
export function levelCount(width: number, height: number): number {
  let n = 1;
  let long = Math.max(width, height);
  while (long > 256) {
    long /= 2;
    n++;
  }
  return n;
}

/** The level to read for an output scale: the smallest stored one still at or above the scale. */
export function levelFor(scale: number, levels: number): number {
  let k = 0;
  while (k + 1 < levels && 2 ** -(k + 1) >= scale - 1e-9) k++;
  return k;
}

/**
 * Halves RGBA pixels on the document grid. `src` covers `sb` (level k-1 coordinates); the result
 * covers levelBounds(sb) at level k. Colour is averaged weighted by alpha (premultiplied), so
 * transparent pixels lend no colour.
 */
export function halveRGBA(src: Uint8Array, sb: Bounds): { data: Uint8Array; bounds: Bounds } {
  const db = levelBounds(sb, 1);
  const sw = sb.right - sb.left;
  const dw = db.right - db.left;
  const dh = db.bottom - db.top;
  const out = new Uint8Array(dw * dh * 4);
  for (let y = 0; y < dh; y++) {
    const sy0 = (db.top + y) * 2 - sb.top;
    for (let x = 0; x < dw; x++) {
      const sx0 = (db.left + x) * 2 - sb.left;
      let r = 0, g = 0, b = 0, a = 0;
      for (let dy = 0; dy < 2; dy++) {
        const sy = sy0 + dy;
        if (sy < 0 || sy >= sb.bottom - sb.top) continue;
        for (let dx = 0; dx < 2; dx++) {
          const sx = sx0 + dx;
          if (sx < 0 || sx >= sw) continue;
          const i = (sy * sw + sx) * 4;
          const al = src[i + 3];
          r += src[i] * al;
          g += src[i + 1] * al;
          b += src[i + 2] * al;
          a += al;
        }
      }
      const o = (y * dw + x) * 4;
      if (a > 0) {
        out[o] = Math.round(r / a);
        out[o + 1] = Math.round(g / a);
        out[o + 2] = Math.round(b / a);
        out[o + 3] = Math.round(a / 4);
      }
    }
  }
  return { data: out, bounds: db };
}

/** Halves a one-channel mask on the document grid; outside the source it is `fill`. */
export function halveGray(src: Uint8Array, sb: Bounds, fill: number): { data: Uint8Array; bounds: Bounds } {
  const db = levelBounds(sb, 1);
  const sw = sb.right - sb.left;
  const sh = sb.bottom - sb.top;
  const dw = db.right - db.left;
  const dh = db.bottom - db.top;
  const out = new Uint8Array(dw * dh);
  for (let y = 0; y < dh; y++) {
    const sy0 = (db.top + y) * 2 - sb.top;
    for (let x = 0; x < dw; x++) {
      const sx0 = (db.left + x) * 2 - sb.left;
      let v = 0;
      for (let dy = 0; dy < 2; dy++) {
        const sy = sy0 + dy;
        for (let dx = 0; dx < 2; dx++) {
          const sx = sx0 + dx;
          v += sy < 0 || sy >= sh || sx < 0 || sx >= sw ? fill : src[sy * sw + sx];
        }
      }
      out[y * dw + x] = (v + 2) >> 2;
    }
  }
  return { data: out, bounds: db };
}
