import { describe, expect, it } from 'vitest';
import { resampleRows, resampleTaps, tapSpan } from '../../../src/engine/raster/resample';
import { unsharpMask } from '../../../src/engine/raster/unsharp';

/** A noisy RGBA image with transparent and semi-transparent pixels. */
function noise(width: number, height: number, seed = 11) {
  const data = new Uint8ClampedArray(width * height * 4);
  let s = seed;
  for (let i = 0; i < data.length; i++) {
    s = (s * 1103515245 + 12345) >>> 0;
    data[i] = s >>> 24;
  }
  for (let i = 3; i < data.length; i += 36) data[i] = 0;
  return { width, height, data };
}

// A frame drawn in strips hands each strip's resize and sharpening a kept buffer (frame.ts, issue 25 §1).
describe('resampleRows and unsharpMask into a kept buffer', () => {
  it('give the same bytes as into new arrays, in the buffer given', async () => {
    const img = noise(180, 120);
    const [width, height] = [100, 67];
    const kept = new Uint8ClampedArray(width * height * 4 + 64).fill(9);
    for (const rows of [{ top: 0, bottom: 20 }, { top: 20, bottom: 45 }, { top: 60, bottom: 67 }]) {
      const span = tapSpan(resampleTaps(img.height, height, 'high'), rows.top, rows.bottom);
      const source = { width: img.width, height: span.end - span.first, data: img.data.subarray(span.first * img.width * 4, span.end * img.width * 4) };
      const fresh = await resampleRows(source, { top: span.first, height: img.height }, width, height, rows, 'high');
      const into = await resampleRows(source, { top: span.first, height: img.height }, width, height, rows, 'high', undefined, kept);
      expect(into.data.buffer).toBe(kept.buffer);
      expect(into.data).toEqual(fresh.data);
    }
    const sharpenKept = new Uint8ClampedArray(img.data.length + 64);
    const mask = { amount: 0.8, radius: 1.5, threshold: 2 };
    const sharpened = await unsharpMask(img, mask, sharpenKept);
    expect(sharpened.data.buffer).toBe(sharpenKept.buffer);
    expect(sharpened.data).toEqual((await unsharpMask(img, mask)).data);
  });
});
