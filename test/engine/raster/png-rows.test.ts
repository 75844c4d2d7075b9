import { describe, expect, it } from 'vitest';
import { Unprocessable } from '../../../src/engine/errors';
import { decodeImage, encodePng } from '../../../src/engine/raster/codecs';
import { embedIcc, readIcc, srgbProfile } from '../../../src/engine/raster/icc';
import { encodePngDrawn, encodePngStrips, PngRowEncoder } from '../../../src/engine/raster/png-rows';
import type { RGBAImage } from '../../../src/engine/types';
import { noiseImage } from './helpers';

/** The chunks of a PNG file: type and data. */
function pngChunks(bytes: Uint8Array) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const chunks: { type: string; data: Uint8Array }[] = [];
  for (let p = 8; p < bytes.length; ) {
    const length = view.getUint32(p);
    chunks.push({ type: String.fromCharCode(...bytes.subarray(p + 4, p + 8)), data: bytes.subarray(p + 8, p + 8 + length) });
    p += 12 + length;
  }
  return chunks;
}

/** Smooth colour, a hard edge and transparent corners: every filter wins somewhere. */
function mixedImage(width: number, height: number): RGBAImage {
  const img = noiseImage(width, height, 7);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      if (y < height / 2) img.data.set([(x * 255) / width, (y * 255) / height, x > width / 2 ? 255 : 40, x + y < width / 4 ? 0 : 255], i);
    }
  }
  return img;
}

/** The PNG of `img` made through encodePngStrips, strips of `rows` copied from it. */
const stripsOf = (img: RGBAImage, rows: number, icc?: Uint8Array) =>
  encodePngStrips(img, rows, async ({ top, bottom }, strip) => strip.set(img.data.subarray(top * img.width * 4, bottom * img.width * 4)), { icc });

describe('PNG coded as its rows come (issue 25 §1)', () => {
  for (const [width, height, rows] of [
    [1, 1, 1],
    [1, 9, 4],
    [37, 23, 5],
    [64, 64, 64],
    [200, 131, 16],
    [257, 3, 100],
  ] as const) {
    it(`${width}×${height} in strips of ${rows} rows decodes to the pixels of encodePng's whole-image PNG`, async () => {
      const img = mixedImage(width, height);
      const png = await stripsOf(img, rows);
      const back = await decodeImage(png);
      const whole = await decodeImage(await encodePng(img));
      expect([back.width, back.height]).toEqual([width, height]);
      expect(Buffer.from(back.data).equals(Buffer.from(whole.data))).toBe(true);
      expect(Buffer.from(back.data).equals(Buffer.from(img.data))).toBe(true);
    });
  }

  it('gives the same bytes however its rows are cut into strips and pieces (zlib output does not depend on how its input comes)', async () => {
    // 20,000 px rows (80 KB): a piece of filtered rows handed to zlib holds 3 of them, so a strip
    // of 8 rows goes in 3 writes, a strip of 1 row in one; a 300 px image's strips go whole.
    for (const [width, height, strips] of [[20000, 8, [1, 2, 8]], [300, 200, [1, 5, 200]]] as const) {
      const img = mixedImage(width, height);
      const files = await Promise.all(strips.map((rows) => stripsOf(img, rows)));
      for (const file of files.slice(1)) expect(Buffer.from(file).equals(Buffer.from(files[0]!))).toBe(true);
      expect((await decodeImage(files[0]!)).data).toEqual(img.data);
    }
  });

  it('codes rows its drawer keeps (encodePngDrawn) to the bytes encodePngStrips gives, whatever the strips', async () => {
    // The drawer's rows sit in a reused array of its own, one row of them above the strip's first
    // (a preview's drawn rows start where the unsharp mask's reach does): each strip overwrites it.
    const img = mixedImage(300, 200);
    const icc = srgbProfile();
    const expected = await stripsOf(img, 64, icc);
    for (const rows of [1, 7, 64, 200]) {
      const kept = new Uint8ClampedArray((rows + 1) * 300 * 4);
      const png = await encodePngDrawn(img, rows, async ({ top, bottom }) => {
        kept.fill(9);
        kept.set(img.data.subarray(top * 1200, bottom * 1200), 1200);
        return kept.subarray(1200);
      }, { icc });
      expect(Buffer.from(png).equals(Buffer.from(expected)), `strips of ${rows}`).toBe(true);
    }
    await expect(encodePngDrawn(img, 10, async () => new Uint8Array(1200))).rejects.toThrow(RangeError);
  });

  it('writes the chunks encodePng + embedIcc write (IHDR 8-bit RGBA, iCCP, IDAT, IEND) with the same profile', async () => {
    const img = mixedImage(40, 30);
    const icc = srgbProfile();
    const png = await stripsOf(img, 7, icc);
    const wholeWithIcc = await embedIcc(await encodePng(img), 'png', icc);
    const types = (bytes: Uint8Array) => [...new Set(pngChunks(bytes).map((c) => c.type))];
    expect(types(png)).toEqual(types(wholeWithIcc));
    expect(pngChunks(png)[0]!.data).toEqual(pngChunks(wholeWithIcc)[0]!.data);
    expect(await readIcc(png, 'png')).toEqual(icc);
    expect((await decodeImage(png)).data).toEqual(img.data);
  });

  it('compresses smooth rows: a 512² gradient PNG is a small fraction of its RGBA', async () => {
    const img = mixedImage(512, 512);
    for (let i = 0; i < 512 * 256 * 4; i++) img.data[512 * 256 * 4 + i] = img.data[i]!; // the smooth half twice
    const png = await stripsOf(img, 32);
    expect(png.length).toBeLessThan(512 * 512 * 4 * 0.05);
  });

  it('refuses (422 naming the memory budget) coded bytes past its limit, as they come', async () => {
    const img = noiseImage(256, 256, 3);
    const rows = (limit: number) => encodePngStrips(img, 16, async ({ top, bottom }, strip) => strip.set(img.data.subarray(top * 1024, bottom * 1024)), { maxCodedBytes: limit });
    const error = await rows(64 * 1024).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Unprocessable);
    expect((error as Unprocessable).message).toMatch(/96 MB a request may use/);
    expect((error as Unprocessable).details).toEqual([{ path: 'size', reason: 'over the 96 MB memory budget' }]);
    expect((await decodeImage(await rows(1024 * 1024))).data).toEqual(img.data);
  });

  it('refuses rows beyond the image and a finish before the last row; a failed draw drops the stream', async () => {
    const enc = new PngRowEncoder(4, 2);
    await expect(enc.write(new Uint8Array(4 * 4 * 3), 3)).rejects.toThrow(/beyond/);
    await enc.write(new Uint8Array(16), 1);
    await expect(enc.finish()).rejects.toThrow(/1 of 2 rows/);
    await expect(
      encodePngStrips({ width: 4, height: 4 }, 2, async ({ top }) => {
        if (top > 0) throw new Error('draw failed');
      }),
    ).rejects.toThrow('draw failed');
  });
});
