import { describe, expect, it } from 'vitest';
import { blurInPlace, boxRadii, gaussianBlur, gaussianBlurInPlace } from '../../../src/engine/composite/morphology';

/**
 * Box passes whose radius is far longer than the line (a 1,000 px mask feather previewed 50×,
 * session 19 fuzz: 44 s a request): the window starts from the values inside the line alone, the
 * same floats as summing the whole radius of zeros around them, in time that does not grow with it.
 */
const W = 13;
const H = 7;
const field = Float32Array.from({ length: W * H }, (_, i) => ((i * 37) % 11) / 10 + (i % 3 ? 0 : 0.015625));

/** One box pass of radius r over a line as it was written before (the window summed over the whole radius). */
function boxLineBefore(src: Float32Array, len: number, r: number): Float32Array {
  const out = new Float32Array(len);
  const k = 1 / (2 * r + 1);
  let acc = 0;
  for (let x = -r - 1; x < r; x++) acc += x >= 0 && x < len ? src[x] : 0;
  for (let x = 0; x < len; x++) {
    acc += x + r < len ? src[x + r] : 0;
    acc -= x - r - 1 >= 0 ? src[x - r - 1] : 0;
    out[x] = acc * k;
  }
  return out;
}

function passesBefore(a: Float32Array, boxes: number[]): Float32Array {
  const out = a.slice();
  for (const r of boxes) {
    for (let y = 0; y < H; y++) out.set(boxLineBefore(out.subarray(y * W, y * W + W), W, r), y * W);
    for (let x = 0; x < W; x++) {
      const col = boxLineBefore(Float32Array.from({ length: H }, (_, y) => out[y * W + x]), H, r);
      for (let y = 0; y < H; y++) out[y * W + x] = col[y];
    }
  }
  return out;
}

describe('box passes with radii past the line', () => {
  it('give the floats of the window summed over the whole radius', () => {
    for (const radius of [1, 6, 7, 12, 13, 14, 40, 1000.5]) {
      expect(blurInPlace(field.slice(), W, H, radius)).toEqual(passesBefore(field, boxRadii(radius)));
    }
    // The Gaussian (feathered masks), in place and allocating, agree at such radii too.
    for (const sigma of [5, 500]) expect(gaussianBlurInPlace(field.slice(), W, H, sigma)).toEqual(gaussianBlur(field, W, H, sigma));
  });

  it('take no longer for a radius of a hundred million than for one of ten', () => {
    const started = performance.now();
    const far = blurInPlace(field.slice(), W, H, 1e8);
    // Before: 6 passes × 20 lines × 2 × 10⁸ additions, minutes.
    expect(performance.now() - started).toBeLessThan(2000);
    expect(far.every((v) => Number.isFinite(v))).toBe(true);
  });
});
