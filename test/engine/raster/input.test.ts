import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/errors';
import { toApiError } from '../../../src/dynamic-image/errors';
import { decodeBounded } from '../../../src/engine/raster/bounded';
import { applyOrientation } from '../../../src/engine/raster/orientation';
import { orientedSize, sniffImage } from '../../../src/engine/raster/sniff';
import { testAsset } from '../../helpers/fixtures';
import { solidImage } from './helpers';

async function rejection(p: Promise<unknown>): Promise<ApiError> {
  const e = toApiError(await p.then(() => null, (err: unknown) => err));
  expect(e).toBeInstanceOf(ApiError);
  return e as ApiError;
}

const pixel = (img: { width: number; data: Uint8ClampedArray }, x: number, y: number) => Array.from(img.data.subarray((y * img.width + x) * 4, (y * img.width + x) * 4 + 4));
const isGreen = (p: number[]) => p[1]! > 200 && p[0]! < 60 && p[2]! < 60;

describe('sniffImage', () => {
  it('reads JPEG size from the frame header and EXIF orientation in either byte order', async () => {
    expect(sniffImage(await testAsset('marker-40x20.jpg'))).toEqual({ format: 'jpeg', width: 40, height: 20, orientation: 1 });
    expect(sniffImage(await testAsset('marker-40x20-exif6.jpg'))).toEqual({ format: 'jpeg', width: 40, height: 20, orientation: 6 });
    expect(sniffImage(await testAsset('marker-40x20-exif8.jpg'))).toEqual({ format: 'jpeg', width: 40, height: 20, orientation: 8 });
    expect(orientedSize({ width: 40, height: 20, orientation: 6 })).toEqual({ width: 20, height: 40 });
  });

  it('reads PNG size from IHDR, WebP and GIF sizes from their headers, and refuses the rest', async () => {
    expect(sniffImage(await testAsset('marker-40x20-alpha.png'))).toEqual({ format: 'png', width: 40, height: 20, orientation: 1 });
    const gif = new Uint8Array([...'GIF89a'].map((c) => c.charCodeAt(0)).concat([0x20, 0x03, 0x58, 0x02, 0, 0, 0]));
    expect(sniffImage(gif)).toEqual({ format: 'gif', width: 800, height: 600, orientation: 1 });
    const webp = new Uint8Array(30);
    webp.set([...'RIFF'].map((c) => c.charCodeAt(0)));
    webp.set([...'WEBPVP8L'].map((c) => c.charCodeAt(0)), 8);
    new DataView(webp.buffer).setUint32(21, (99 & 0x3fff) | ((49 & 0x3fff) << 14), true);
    expect(sniffImage(webp)).toEqual({ format: 'webp', width: 100, height: 50, orientation: 1 });
    expect(sniffImage(new TextEncoder().encode('<svg></svg>'))).toBeNull();
    expect(sniffImage((await testAsset('marker-40x20.jpg')).subarray(0, 30))).toBeNull();
  });
});

describe('applyOrientation', () => {
  it('maps the top-left marker to where each EXIF orientation displays it', () => {
    const img = solidImage(3, 2, [0, 0, 0, 255]);
    img.data.set([0, 255, 0, 255], 0); // stored top-left
    const expected: Record<number, [number, number, number, number]> = {
      // orientation: [displayed width, height, marker x, marker y]
      1: [3, 2, 0, 0], 2: [3, 2, 2, 0], 3: [3, 2, 2, 1], 4: [3, 2, 0, 1],
      5: [2, 3, 0, 0], 6: [2, 3, 1, 0], 7: [2, 3, 1, 2], 8: [2, 3, 0, 2],
    };
    for (const [o, [w, h, x, y]] of Object.entries(expected)) {
      const out = applyOrientation(img, Number(o));
      expect([out.width, out.height], `orientation ${o}`).toEqual([w, h]);
      expect(isGreen(pixel(out, x, y)), `orientation ${o}`).toBe(true);
    }
  });

  it('takes every displayed pixel from the stored pixel each EXIF orientation names', () => {
    // Stored 3 × 2, pixel i (row-major) marked by red = 40·i: 0 1 2 / 3 4 5.
    const img = solidImage(3, 2, [0, 0, 0, 255]);
    for (let i = 0; i < 6; i++) img.data[i * 4] = 40 * i;
    const expected: Record<number, number[]> = {
      1: [0, 1, 2, 3, 4, 5], 2: [2, 1, 0, 5, 4, 3], 3: [5, 4, 3, 2, 1, 0], 4: [3, 4, 5, 0, 1, 2],
      5: [0, 3, 1, 4, 2, 5], 6: [3, 0, 4, 1, 5, 2], 7: [5, 2, 4, 1, 3, 0], 8: [2, 5, 1, 4, 0, 3],
    };
    for (const [o, order] of Object.entries(expected)) {
      const out = applyOrientation(img, Number(o));
      expect(Array.from({ length: 6 }, (_, i) => out.data[i * 4]! / 40), `orientation ${o}`).toEqual(order);
    }
  });
});

describe('decodeBounded', () => {
  it('applies EXIF orientation after decoding (6: rotate 90° clockwise)', async () => {
    const img = await decodeBounded(await testAsset('marker-40x20-exif6.jpg'));
    expect([img.width, img.height]).toEqual([20, 40]);
    expect(isGreen(pixel(img, 18, 1))).toBe(true);
  });

  it('scales to the wanted displayed size right after decoding', async () => {
    const img = await decodeBounded(await testAsset('marker-40x20-exif8.jpg'), { size: (s) => ({ width: s.width / 2, height: s.height / 2 }) });
    expect([img.width, img.height]).toEqual([10, 20]);
    expect(img.source).toMatchObject({ width: 40, height: 20, orientation: 8 });
  });

  it('keeps PNG alpha', async () => {
    const img = await decodeBounded(await testAsset('marker-40x20-alpha.png'));
    expect(pixel(img, 39, 19)[3]).toBe(128);
  });

  it('refuses, from the header alone, a source above the pixel limit with 422 naming the path', async () => {
    const e = await rejection(decodeBounded(await testAsset('marker-40x20.jpg'), { maxPixels: 799, path: 'data.Photo' }));
    expect(e.status).toBe(422);
    expect(e.details?.[0]?.path).toBe('data.Photo');
  });

  it('refuses, from the header alone, a decode that would not fit the 96 MB request budget (422 naming the path)', async () => {
    // A PNG header of 3,600 × 3,600 (12.96 MP: within the 13 MP source limit, above the budget's
    // 12.58 MP at 8 bytes a pixel); no pixel data is read before the refusal.
    const png = new Uint8Array(33);
    png.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
    new DataView(png.buffer).setUint32(16, 3600);
    new DataView(png.buffer).setUint32(20, 3600);
    png.set([8, 6, 0, 0, 0], 24);
    const e = await rejection(decodeBounded(png, { size: { width: 100, height: 100 }, path: 'data.Photo' }));
    expect(e.status).toBe(422);
    expect(e.message).toMatch(/96 MB/);
    expect(e.details?.[0]?.path).toBe('data.Photo');
  });

  it('refuses a placement above 16 MP with 422', async () => {
    const e = await rejection(decodeBounded(await testAsset('marker-40x20.jpg'), { size: { width: 5000, height: 4000 } }));
    expect(e.status).toBe(422);
  });

  it('refuses unknown, unsupported and corrupt images with 422', async () => {
    for (const bytes of [new TextEncoder().encode('hello'), new Uint8Array([...'GIF89a'].map((c) => c.charCodeAt(0)).concat([1, 0, 1, 0, 0, 0, 0]))]) {
      expect((await rejection(decodeBounded(bytes))).status).toBe(422);
    }
    const jpeg = await testAsset('marker-40x20.jpg');
    const corrupt = jpeg.slice(0, jpeg.length - 200);
    expect((await rejection(decodeBounded(corrupt))).status).toBe(422);
  });
});
