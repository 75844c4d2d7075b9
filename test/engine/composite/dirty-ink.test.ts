import { describe, expect, it } from 'vitest';
import { inkOf } from '../../../src/engine/composite/dirty';
import type { Bounds, RGBAImage } from '../../../src/engine/types';

/** Every pixel read: the bounds of the non-zero alphas (what inkOf finds reading less). */
function inkEverywhere({ width, height, data }: RGBAImage, at: Bounds): Bounds | null {
  let [left, top, right, bottom] = [Infinity, Infinity, -Infinity, -Infinity];
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (data[(y * width + x) * 4 + 3] === 0) continue;
      [left, top, right, bottom] = [Math.min(left, x), Math.min(top, y), Math.max(right, x + 1), Math.max(bottom, y + 1)];
    }
  }
  return top === Infinity ? null : { left: at.left + left, top: at.top + top, right: at.left + right, bottom: at.top + bottom };
}

/** Pixels with a few inked spots (colour without alpha elsewhere, which is no ink), at a byte offset. */
function spots(width: number, height: number, count: number, seed: number, offset: number): RGBAImage {
  const data = new Uint8ClampedArray(offset + width * height * 4).subarray(offset);
  let s = seed;
  const next = () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32;
  for (let i = 0; i < data.length; i += 4) data[i] = data[i + 1] = data[i + 2] = 255; // white, transparent
  for (let i = 0; i < count; i++) data[(Math.floor(next() * height) * width + Math.floor(next() * width)) * 4 + 3] = 1 + Math.floor(next() * 255);
  return { width, height, data };
}

describe('inkOf (issue 25 §3: the reach of a drawn text from its glyphs)', () => {
  it('finds the bounds every pixel gives, aligned or not, for empty, single, edge and scattered ink', () => {
    const at = { left: -7, top: 12, right: 0, bottom: 0 };
    for (const offset of [0, 1, 4]) {
      for (const [w, h, n, seed] of [[1, 1, 0, 1], [1, 1, 1, 2], [37, 11, 1, 3], [355, 113, 40, 4], [64, 64, 3, 5], [9, 200, 2, 6], [200, 9, 5, 7], [13, 17, 0, 8]]) {
        const img = spots(w, h, n, seed, offset);
        expect(inkOf(img, at), `${w}×${h}, ${n} spots, offset ${offset}`).toEqual(inkEverywhere(img, at));
      }
      // Ink on the four edges only.
      const edges = spots(50, 30, 0, 9, offset);
      for (const [x, y] of [[0, 15], [49, 3], [20, 0], [31, 29]]) edges.data[(y * 50 + x) * 4 + 3] = 255;
      expect(inkOf(edges, at)).toEqual({ left: -7, top: 12, right: 43, bottom: 42 });
    }
  });
});
