import { expect } from 'vitest';

/** Coverage-like values: runs of exact 0 and 1, an anti-aliased edge, noise. */
export function field(w: number, h: number, seed: number): Float32Array {
  const a = new Float32Array(w * h);
  let s = seed;
  for (let i = 0; i < a.length; i++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    const u = s / 2 ** 32;
    const x = i % w;
    const y = Math.floor(i / w);
    const d = Math.hypot((x - w / 2) / (w / 3), (y - h / 2) / (h / 3));
    a[i] = u < 0.2 ? 0 : u < 0.3 ? 1 : Math.max(0, Math.min(1, (1 - d) * 7)) * (0.6 + 0.4 * u);
  }
  return a;
}

/** How many of two equally long float arrays' values differ in their bits. */
export function differing(a: Float32Array, b: Float32Array): number {
  expect(a.length).toBe(b.length);
  const x = new Uint32Array(a.buffer, a.byteOffset, a.length);
  const y = new Uint32Array(b.buffer, b.byteOffset, b.length);
  let n = 0;
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) n++;
  return n;
}
