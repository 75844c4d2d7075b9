import { describe, expect, it } from 'vitest';
import { precise } from '../../../src/engine/composite/effects';

// A 10×10 opaque square at (10, 10) in a 30×30 field.
const W = 30;
const H = 30;
const square = new Float32Array(W * H);
for (let y = 10; y < 20; y++) for (let x = 10; x < 20; x++) square[y * W + x] = 1;
const row = (m: Float32Array, y: number, xs: number[]) => xs.map((x) => m[y * W + x]);

describe('glows, precise technique', () => {
  it('outer: full at the edge, falling linearly with the distance from it to nothing at the size', () => {
    const m = precise(square, W, H, 4, 0, false);
    // Pixel centres 0.5, 1.5, 2.5, 3.5, 4.5 px left of the square's edge at x = 10.
    const got = row(m, 15, [9, 8, 7, 6, 5]);
    [1 - 0.5 / 4, 1 - 1.5 / 4, 1 - 2.5 / 4, 1 - 3.5 / 4, 0].forEach((v, i) => expect(got[i]).toBeCloseTo(v, 5));
    expect(row(m, 15, [10, 15, 19])).toEqual([1, 1, 1]); // inside: full
    // Euclidean, not square: the pixel diagonally off the corner (centre 2.5 px right and down).
    expect(m[22 * W + 22]).toBeCloseTo(1 - Math.hypot(2.5, 2.5) / 4, 5);
  });

  it('the spread holds full strength over its share of the size, then falls over the rest', () => {
    const m = precise(square, W, H, 4, 50, false);
    expect(row(m, 15, [9, 8])).toEqual([1, 1]); // 0.5 and 1.5 px: within 2 px
    expect(m[15 * W + 7]).toBeCloseTo(1 - (2.5 - 2) / 2, 5);
    expect(m[15 * W + 5]).toBe(0);
  });

  it('inner: from the edge inward', () => {
    const m = precise(square, W, H, 3, 0, true);
    const got = row(m, 15, [10, 11, 12, 13]);
    [1 - 0.5 / 3, 1 - 1.5 / 3, 1 - 2.5 / 3, 0].forEach((v, i) => expect(got[i]).toBeCloseTo(v, 5));
    expect(m[15 * W + 8]).toBe(1); // outside the shape it is full (the caller masks it by the shape)
  });
});
