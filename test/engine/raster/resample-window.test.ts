import { describe, expect, it } from 'vitest';
import { resample, resampleRows, resampleTaps, tapReaders, tapSpan, type ResampleQuality } from '../../../src/engine/raster/resample';

/** A noisy RGBA image with transparent and semi-transparent pixels (premultiplication matters). */
function noise(width: number, height: number, seed = 7) {
  const data = new Uint8ClampedArray(width * height * 4);
  let s = seed;
  for (let i = 0; i < data.length; i++) {
    s = (s * 1103515245 + 12345) >>> 0;
    data[i] = s >>> 24;
  }
  for (let i = 3; i < data.length; i += 40) data[i] = 0;
  return { width, height, data };
}

/** Columns [left, right) of rows [top, bottom) of an image. */
function crop(img: { width: number; data: Uint8ClampedArray }, top: number, bottom: number, left: number, right: number) {
  const out = new Uint8ClampedArray((bottom - top) * (right - left) * 4);
  for (let y = top; y < bottom; y++) out.set(img.data.subarray((y * img.width + left) * 4, (y * img.width + right) * 4), (y - top) * (right - left) * 4);
  return out;
}

describe('resampleRows with a column window (issue 25 §3)', () => {
  // Shrinking and enlarging, both qualities; windows inside, at either edge and the whole width.
  const cases: [number, number, number, number, ResampleQuality][] = [
    [240, 160, 100, 67, 'high'],
    [240, 160, 100, 67, 'fast'],
    [90, 70, 200, 150, 'high'],
    [90, 70, 200, 150, 'fast'],
    [123, 77, 123, 50, 'high'],
  ];
  for (const [sw, sh, dw, dh, quality] of cases) {
    it(`gives the bytes of the whole resize for any window (${sw}×${sh} → ${dw}×${dh}, ${quality})`, async () => {
      const img = noise(sw, sh);
      const whole = await resample(img, dw, dh, { quality });
      const rows = resampleTaps(sh, dh, quality);
      const columns = resampleTaps(sw, dw, quality);
      for (const [a, b, l, r] of [[5, 20, 10, 30], [0, dh, 0, 7], [dh - 9, dh, dw - 13, dw], [3, 4, 0, dw], [0, 2, dw - 1, dw]] as const) {
        // The source window those output pixels read, exactly (no spare row or column).
        const v = tapSpan(rows, a, b);
        const h = tapSpan(columns, l, r);
        const window = { width: h.end - h.first, height: v.end - v.first, data: crop(img, v.first, v.end, h.first, h.end) };
        const got = await resampleRows(window, { top: v.first, height: sh, left: h.first, width: sw }, dw, dh, { top: a, bottom: b }, quality, { left: l, right: r });
        expect([got.width, got.height]).toEqual([r - l, b - a]);
        expect(got.data, `rows ${a}-${b} columns ${l}-${r}`).toEqual(crop(whole, a, b, l, r));
      }
    });
  }

  it('refuses a window that lacks a column the output reads', async () => {
    const img = noise(60, 40);
    const columns = resampleTaps(60, 30, 'high');
    const h = tapSpan(columns, 10, 20);
    const window = { width: h.end - h.first - 1, height: 40, data: crop(img, 0, 40, h.first + 1, h.end) };
    await expect(resampleRows(window, { top: 0, height: 40, left: h.first + 1, width: 60 }, 30, 20, { top: 0, bottom: 20 }, 'high', { left: 10, right: 20 })).rejects.toThrow(RangeError);
  });

  it('names the destination indices that read a source span, and the span destinations read', () => {
    const taps = resampleTaps(1000, 100, 'fast'); // box: destination i reads sources 10i … 10i+9
    expect(tapReaders(taps, 25, 26)).toEqual({ first: 2, end: 3 });
    expect(tapReaders(taps, 0, 1000)).toEqual({ first: 0, end: 100 });
    expect(tapSpan(taps, 2, 4)).toEqual({ first: 20, end: 40 });
    const lanczos = resampleTaps(1000, 100, 'high');
    const readers = tapReaders(lanczos, 500, 510)!;
    expect(readers.first).toBeLessThan(50);
    expect(readers.end).toBeGreaterThan(51);
    for (let i = 0; i < 100; i++) {
      const reads = lanczos.bounds[2 * i]! < 510 && lanczos.bounds[2 * i]! + lanczos.bounds[2 * i + 1]! > 500;
      expect(reads, `destination ${i}`).toBe(i >= readers.first && i < readers.end);
    }
  });
});
