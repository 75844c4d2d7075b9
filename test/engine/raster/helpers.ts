import type { RGBAImage } from '../../../src/engine/types';

/** Deterministic pseudo-random image (xorshift), optionally with varied alpha. */
export function noiseImage(width: number, height: number, seed = 1, alpha: 'opaque' | 'varied' = 'varied'): RGBAImage {
  const data = new Uint8ClampedArray(width * height * 4);
  let s = seed >>> 0 || 1;
  for (let i = 0; i < data.length; i++) {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    data[i] = s & 255;
    if (i % 4 === 3 && alpha === 'opaque') data[i] = 255;
  }
  return { width, height, data };
}

export function solidImage(width: number, height: number, rgba: [number, number, number, number]): RGBAImage {
  const data = new Uint8ClampedArray(width * height * 4);
  for (let i = 0; i < data.length; i += 4) data.set(rgba, i);
  return { width, height, data };
}

export function maxDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]! - b[i]!));
  return m;
}
