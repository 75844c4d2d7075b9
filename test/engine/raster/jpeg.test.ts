import { describe, expect, it } from 'vitest';
import { decodeImage } from '../../../src/engine/raster/codecs';
import { completedTables, countJpegRowsOf, encodeBaselineJpeg, encodeJpegRowsOf, jpegFromRows, scaledTable, type JpegRowSource } from '../../../src/engine/raster/jpeg';
import { sniffImage } from '../../../src/engine/raster/sniff';
import type { RGBAImage } from '../../../src/engine/types';
import { noiseImage, solidImage } from './helpers';

function psnr(a: RGBAImage, b: RGBAImage): number {
  let se = 0;
  let n = 0;
  for (let i = 0; i < a.data.length; i += 4)
    for (let c = 0; c < 3; c++) {
      se += (a.data[i + c]! - b.data[i + c]!) ** 2;
      n++;
    }
  return 10 * Math.log10((255 * 255) / (se / n || 1e-9));
}

function photoLike(width: number, height: number): RGBAImage {
  const img = noiseImage(width, height, 17, 'opaque');
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      const n = (img.data[i]! & 15) - 8;
      img.data[i] = 128 + 100 * Math.sin(x / 23) + n;
      img.data[i + 1] = ((x + y) * 255) / (width + height) + n;
      img.data[i + 2] = 200 * Math.abs(Math.cos(y / 17)) + n;
    }
  return img;
}

describe('baseline JPEG encoder', () => {
  it('quality maps through the IJG formula: 50 is the Annex K table, 100 is all ones', () => {
    expect(scaledTable([16, 11, 255], 50)).toEqual([16, 11, 255]);
    expect(scaledTable([16, 11, 255], 100)).toEqual([1, 1, 1]);
    expect(scaledTable([16, 11, 255], 0)).toEqual([255, 255, 255]);
  });

  it('decodes (with mozjpeg) to the same picture, in odd sizes, both subsamplings', async () => {
    for (const [w, h] of [[1, 1], [17, 9], [64, 48], [333, 201]] as const) {
      const img = photoLike(w, h);
      for (const subsampling of [1, 2] as const) {
        const jpeg = await encodeBaselineJpeg(img, { quality: 90, subsampling });
        expect(sniffImage(jpeg)).toMatchObject({ format: 'jpeg', width: w, height: h });
        const back = await decodeImage(jpeg);
        expect([back.width, back.height]).toEqual([w, h]);
        if (w * h > 100) expect(psnr(img, back), `${w}×${h} sub ${subsampling}`).toBeGreaterThan(subsampling === 1 ? 34 : 30);
      }
    }
  });

  it('fitted Huffman tables give a smaller file that decodes to the same pixels as the standard tables', async () => {
    const img = photoLike(160, 120);
    for (const subsampling of [1, 2] as const) {
      const standard = await encodeBaselineJpeg(img, { quality: 85, subsampling, optimizeHuffman: false });
      const fitted = await encodeBaselineJpeg(img, { quality: 85, subsampling });
      expect(fitted.length).toBeLessThan(standard.length);
      expect((await decodeImage(fitted)).data).toEqual((await decodeImage(standard)).data);
    }
  });

  it('images too big for the coefficient cache (two transforming passes) give the same bytes', async () => {
    const img = photoLike(200, 150);
    const cached = await encodeBaselineJpeg(img, { quality: 80, subsampling: 2 });
    const uncached = await encodeBaselineJpeg(img, { quality: 80, subsampling: 2, maxCoefficientCache: 0 });
    expect(uncached).toEqual(cached);
  });

  it('a solid colour comes back exactly at high quality', async () => {
    const img = solidImage(40, 24, [200, 100, 50, 255]);
    const back = await decodeImage(await encodeBaselineJpeg(img, { quality: 100, subsampling: 1 }));
    let worst = 0;
    for (let i = 0; i < back.data.length; i += 4) for (let c = 0; c < 3; c++) worst = Math.max(worst, Math.abs(back.data[i + c]! - img.data[i + c]!));
    expect(worst).toBeLessThanOrEqual(1);
  });

  it('survives worst-case content (noise at quality 100) without overflowing its buffers', async () => {
    const img = noiseImage(96, 80, 5, 'opaque');
    const back = await decodeImage(await encodeBaselineJpeg(img, { quality: 100, subsampling: 1 }));
    expect(psnr(img, back)).toBeGreaterThan(40);
  });
});

describe('a JPEG coded a strip at a time (encodeJpegRowsOf)', () => {
  it('decodes to the same pixels as the image coded whole, with tables fitted to the first strip', async () => {
    for (const [quality, subsampling] of [[85, 2], [95, 1]] as const) {
      const img = photoLike(203, 150);
      const mcu = 8 * subsampling;
      const rows: Uint8Array[] = [];
      let tables;
      // Strips of 3 MCU rows, each read from a buffer holding only that strip; the last one short.
      for (let top = 0; top < img.height; top += 3 * mcu) {
        const bottom = Math.min(img.height, top + 3 * mcu);
        const strip = img.data.slice(top * img.width * 4, bottom * img.width * 4);
        const source: JpegRowSource = {
          width: img.width,
          height: img.height,
          kind: 'rgb',
          read: (y, n, into) => into.set(strip.subarray((y - top) * img.width * 4, (y - top + n) * img.width * 4)),
        };
        const done = await encodeJpegRowsOf(source, { quality, subsampling, from: top / mcu, to: Math.ceil(bottom / mcu), tables });
        tables = done.specs;
        rows.push(...done.rows);
      }
      expect(rows).toHaveLength(Math.ceil(img.height / mcu));
      const streamed = await decodeImage(jpegFromRows({ width: img.width, height: img.height, quality, subsampling, specs: tables!, rows }));
      const whole = await decodeImage(await encodeBaselineJpeg(img, { quality, subsampling }));
      expect(streamed.data).toEqual(whole.data);
    }
  });

  it('tables fitted to rows counted strip by strip are those fitted to the rows at once (the same bytes)', async () => {
    for (const [quality, subsampling] of [[85, 2], [95, 1]] as const) {
      const img = photoLike(203, 150);
      const mcu = 8 * subsampling;
      const bytes = new Uint8Array(img.data.buffer);
      const source: JpegRowSource = { width: img.width, height: img.height, kind: 'rgb', read: (y, n, into) => into.set(bytes.subarray(y * img.width * 4, (y + n) * img.width * 4)) };
      // Fitted to the first 5 MCU rows at once, as renderFrameJpeg did with one strip that tall.
      const atOnce = await encodeJpegRowsOf(source, { quality, subsampling, from: 0, to: 5 });
      // The same rows counted 2 + 2 + 1 MCU rows at a time.
      const counts = new Uint32Array(4 * 256);
      for (const [from, to] of [[0, 2], [2, 4], [4, 5]]) await countJpegRowsOf(source, { quality, subsampling, from, to }, counts);
      const specs = completedTables(counts);
      expect(specs).toEqual(atOnce.specs);
      const all = Math.ceil(img.height / mcu);
      const coded = await encodeJpegRowsOf(source, { quality, subsampling, from: 0, to: all, tables: specs });
      const rest = await encodeJpegRowsOf(source, { quality, subsampling, from: 5, to: all, tables: atOnce.specs });
      expect(jpegFromRows({ width: img.width, height: img.height, quality, subsampling, specs, rows: coded.rows })).toEqual(
        jpegFromRows({ width: img.width, height: img.height, quality, subsampling, specs: atOnce.specs, rows: [...atOnce.rows, ...rest.rows] }),
      );
    }
  });
});
