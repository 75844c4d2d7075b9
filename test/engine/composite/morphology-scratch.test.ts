import { describe, expect, it } from 'vitest';
import { bevelLight, bevelMaps, type BevelOptions } from '../../../src/engine/composite/bevel';
import { blur, blurInPlace, dilate, gaussianBlur, gaussianBlurInPlace, Scratch } from '../../../src/engine/composite/morphology';

/**
 * The bevel's tiles reuse their arrays (issue 25 §1): the in-place blur, the dilation into a
 * given array and the one-map-at-a-time light give the very floats of the allocating versions.
 */
const W = 97;
const H = 61;
/** An anti-aliased ellipse with an uneven edge: values that are neither 0 nor 1 along it. */
const shape = new Float32Array(W * H);
for (let y = 0; y < H; y++) {
  for (let x = 0; x < W; x++) {
    const d = Math.hypot((x + 0.5 - 45) / 30, (y + 0.5 - 31) / 19);
    shape[y * W + x] = Math.max(0, Math.min(1, (1 - d) * 19 + 0.5)) * (0.7 + 0.3 * Math.sin(x * 0.37));
  }
}
const reference = dilate(shape, W, H, 6);
const base: BevelOptions = { size: 9, depth: 1.3, up: true, soften: 2, angle: 120, altitude: 30 };

describe('effect arrays reused between tiles', () => {
  it('blurInPlace gives blur’s floats, for whole and half radii', () => {
    for (const radius of [0, 1, 2, 3.5, 8, 40]) {
      const a = shape.slice();
      expect(blurInPlace(a, W, H, radius)).toEqual(blur(shape, W, H, radius));
    }
  });

  it('gaussianBlurInPlace gives gaussianBlur’s floats (the feathered masks), signed values and -0 included', () => {
    const signed = shape.map((v, i) => (i % 7 ? v * 255 - 128 : -0));
    for (const sigma of [0, 0.3, 0.5, 1, 3.3, 12.5, 40]) {
      const a = signed.slice();
      const want = gaussianBlur(signed, W, H, sigma);
      expect(gaussianBlurInPlace(a, W, H, sigma)).toBe(a);
      expect(a.every((v, i) => Object.is(v, want[i]))).toBe(true);
    }
  });

  it('dilate into a given array gives the allocating result', () => {
    const out = new Float32Array(W * H).fill(7);
    expect(dilate(shape, W, H, 6, out)).toBe(out);
    expect(out).toEqual(reference);
  });

  it('bevelLight through a reused Scratch gives bevelMaps’ highlight and shadow, tile after tile', () => {
    const scratch = new Scratch();
    for (const style of ['inner bevel', 'outer bevel', 'emboss', 'pillow emboss']) {
      for (const technique of ['smooth', 'chisel hard', 'chisel soft']) {
        const o = { ...base, style, technique };
        const { hi, lo } = bevelMaps(shape, W, H, o);
        const light = bevelLight(shape, W, H, o, scratch);
        const map = scratch.take('light', W * H);
        expect(light('highlight', map)).toEqual(hi);
        expect(light('shadow', map)).toEqual(lo);
      }
    }
  });

  it('Scratch hands back the same memory for a tile no larger, and more for a larger one', () => {
    const scratch = new Scratch();
    const first = scratch.take('a', 100);
    const second = scratch.take('a', 80);
    expect(second.buffer).toBe(first.buffer);
    expect(second.length).toBe(80);
    const larger = scratch.take('a', 120);
    expect(larger.length).toBe(120);
    expect(larger.buffer).not.toBe(first.buffer);
    expect(scratch.take('b', 100).buffer).not.toBe(larger.buffer);
  });
});
