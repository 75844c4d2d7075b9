import { describe, expect, it } from 'vitest';
import { flattenOverWhite } from '../../../src/engine/raster/pixels';

/**
 * Issue 25 §3 (fullpic): flattenOverWhite's kernel says when a chunk (1 MB of pixels, raster/kernels.ts
 * inChunks) held only opaque pixels, and that chunk is then not copied back. Pictures of 2.7 chunks,
 * opaque but for a few pixels in one chunk (or none), one of them in the last pixels past a whole
 * quad: every chunk gives the one-pixel formula.
 */

let seed = 77;
const next = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 24);

const PIXELS = 700_003; // 2.67 chunks of 262,144, and 3 pixels past a whole quad

function flattened(data: Uint8ClampedArray): Uint8ClampedArray {
  const expected = new Uint8ClampedArray(data.length);
  for (let i = 0; i < data.length; i += 4) {
    const a = data[i + 3]!;
    for (let c = 0; c < 3; c++) expected[i + c] = Math.round((data[i + c]! * a + 255 * (255 - a)) / 255);
    expected[i + 3] = 255;
  }
  return expected;
}

describe('flattenOverWhite over chunks that are all opaque (issue 25 §3, fullpic)', () => {
  const cases: Array<[string, number[]]> = [
    ['all opaque', []],
    ['translucent in the first chunk', [5, 1000, 262_143]],
    ['translucent in the second chunk only', [262_144, 300_001]],
    ['translucent in the last pixels only', [PIXELS - 1]],
    ['transparent in the last chunk', [600_000, 699_999]],
  ];
  it.each(cases)('%s: the one-pixel formula everywhere', async (_, translucent) => {
    const data = new Uint8ClampedArray(PIXELS * 4);
    for (let i = 0; i < data.length; i++) data[i] = (i & 3) === 3 ? 255 : next();
    for (const p of translucent) data[p * 4 + 3] = p % 2 ? 0 : 1 + (p % 250);
    const expected = flattened(data);
    await flattenOverWhite(data);
    expect(Buffer.from(data).equals(Buffer.from(expected))).toBe(true);
  });
});
