// Issue 25 §1: a layer shrunk to the output grid from its stored bands one at a time
// (resampleRGBAByRows) must give the bytes resampleRGBA gives from every row joined, whatever the
// blocks' heights (an output row whose taps cross a block's edge keeps its sums while the next comes).
import { describe, expect, it } from 'vitest';
import { resampleRGBA, resampleRGBAByRows } from '../../../src/engine/composite/resample';
import type { Bounds } from '../../../src/engine/types';
import { firstDifference } from '../../helpers/pixels';

/** Deterministic RGBA with transparent and opaque runs (alpha decides the premultiplied sums). */
function layerPixels(sb: Bounds, seed: number): Uint8Array {
  const w = sb.right - sb.left;
  const h = sb.bottom - sb.top;
  const data = new Uint8Array(w * h * 4);
  let s = seed;
  for (let i = 0; i < data.length; i++) {
    s = (s * 1103515245 + 12345) >>> 0;
    data[i] = s >>> 24;
  }
  for (let p = 0; p < w * h; p++) if (p % 7 === 0) data[p * 4 + 3] = 0;
  return data;
}

/** Blocks of rows of `sb` as read(y) would give them: the block of `height` rows that holds y (a band). */
const blocksOf = (data: Uint8Array, sb: Bounds, height: number, seen: number[]) => async (y: number) => {
  seen.push(y);
  const w = (sb.right - sb.left) * 4;
  const top = Math.max(sb.top, Math.floor(y / height) * height);
  const bottom = Math.min(sb.bottom, top + height);
  return { data: data.subarray((top - sb.top) * w, (bottom - sb.top) * w), top, bottom };
};

describe('resampleRGBAByRows', () => {
  const cases: { sb: Bounds; f: number; clip: Bounds; heights: number[] }[] = [
    { sb: { left: 0, top: 0, right: 64, bottom: 96 }, f: 0.625, clip: { left: 0, top: 0, right: 40, bottom: 60 }, heights: [1, 2, 3, 16, 17, 96] },
    { sb: { left: 5, top: 13, right: 77, bottom: 130 }, f: 0.5, clip: { left: 0, top: 10, right: 50, bottom: 50 }, heights: [1, 7, 32] },
    { sb: { left: 3, top: 250, right: 40, bottom: 300 }, f: 0.3, clip: { left: 0, top: 70, right: 20, bottom: 95 }, heights: [256, 5] },
    { sb: { left: 0, top: 0, right: 33, bottom: 41 }, f: 0.93, clip: { left: 2, top: 3, right: 30, bottom: 37 }, heights: [4, 41] },
  ];
  for (const { sb, f, clip, heights } of cases) {
    it(`equals resampleRGBA of the rows joined at factor ${f} for blocks of ${heights.join(', ')} rows`, async () => {
      const data = layerPixels(sb, Math.round(f * 1000) + sb.left);
      const expected = resampleRGBA(data, sb, f, clip)!;
      expect(expected).not.toBeNull();
      for (const height of heights) {
        const seen: number[] = [];
        const got = (await resampleRGBAByRows(sb, f, clip, blocksOf(data, sb, height, seen)))!;
        expect({ x: got.x, y: got.y, w: got.w, h: got.h }).toEqual({ x: expected.x, y: expected.y, w: expected.w, h: expected.h });
        expect(firstDifference(got.data, expected.data), `blocks of ${height}`).toBe(-1);
        // Each block is asked for once, top to bottom.
        expect(seen).toEqual([...seen].sort((a, b) => a - b));
        expect(new Set(seen.map((y) => Math.floor(y / height))).size).toBe(seen.length);
      }
    });
  }

  it('draws into the zeroed surface it is given (a strip buffer)', async () => {
    const sb = { left: 0, top: 0, right: 50, bottom: 70 };
    const data = layerPixels(sb, 3);
    const clip = { left: 0, top: 0, right: 30, bottom: 40 };
    const expected = resampleRGBA(data, sb, 0.6, clip)!;
    const into = new Uint8ClampedArray(expected.data.length + 64);
    const got = (await resampleRGBAByRows(sb, 0.6, clip, blocksOf(data, sb, 9, []), (r) => ({ x: r.left, y: r.top, w: r.right - r.left, h: r.bottom - r.top, data: into.subarray(0, (r.right - r.left) * (r.bottom - r.top) * 4) })))!;
    expect(got.data.buffer).toBe(into.buffer);
    expect(firstDifference(got.data, expected.data)).toBe(-1);
  });

  it('is null off the layer, and refuses to enlarge', async () => {
    const sb = { left: 0, top: 0, right: 10, bottom: 10 };
    const read = blocksOf(layerPixels(sb, 1), sb, 4, []);
    expect(await resampleRGBAByRows(sb, 0.5, { left: 20, top: 20, right: 30, bottom: 30 }, read)).toBeNull();
    await expect(resampleRGBAByRows(sb, 1.5, sb, read)).rejects.toThrow(RangeError);
  });
});
