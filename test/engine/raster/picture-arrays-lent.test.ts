import { describe, expect, it } from 'vitest';
import { decodeBounded, dropLentPictures, lendPicture, lentPictureBytes, releaseOnce } from '../../../src/engine/raster/bounded';
import { encodeJpeg, encodeJpegMozjpeg } from '../../../src/engine/raster/codecs';
import { decodeJpegFull, decodeJpegScaled, type JpegScale } from '../../../src/engine/raster/jpeg-decode';
import { holdPictureKernels, releasePictureKernels } from '../../../src/engine/raster/kernels';
import { noiseImage } from './helpers';

// A lent decode (decodeBounded's `lend`) goes into an array kept between requests, which still
// holds the last picture's pixels: every byte must be written again, at every scale, or a picture
// would show through the next one.
const jpegs = async (width: number, height: number) => ({
  '4:4:4': await encodeJpeg(noiseImage(width, height, 7, 'opaque'), 90, { subsampling: 1 }),
  '4:2:0': await encodeJpeg(noiseImage(width, height, 8, 'opaque'), 80, { subsampling: 2 }),
});

describe('decodeJpegScaled into a given array', () => {
  it('writes every byte: the same pixels as a new array at every eighth, over any old content', async () => {
    for (const [name, jpeg] of Object.entries(await jpegs(203, 141))) {
      for (const scale of [1, 2, 3, 4, 5, 6, 7] as Exclude<JpegScale, 8>[]) {
        const fresh = (await decodeJpegScaled(jpeg, scale))!;
        for (const old of [0, 255, 77]) {
          const into = new Uint8ClampedArray(fresh.data.length).fill(old);
          const given = (await decodeJpegScaled(jpeg, scale, into))!;
          expect(given.data, `${name} ${scale}/8 over ${old}`).toBe(into);
          expect(Buffer.from(given.data).equals(Buffer.from(fresh.data)), `${name} ${scale}/8 over ${old}`).toBe(true);
        }
      }
    }
  });

  it('refuses an array of another length', async () => {
    const jpeg = (await jpegs(64, 48))['4:2:0'];
    await expect(decodeJpegScaled(jpeg, 4, new Uint8ClampedArray(10))).rejects.toThrow(RangeError);
  });
});

describe('decodeBounded with lend', () => {
  const half = (s: { width: number; height: number }) => ({ width: s.width * 0.6, height: s.height * 0.6 });

  // A scaled decode goes into a lent array while another picture holds the picture kernels
  // (else into them: picture-kernels-held.test.ts).
  it('gives the pixels of a decode without it, and its array back to be decoded into again', async () => {
    dropLentPictures();
    expect(await holdPictureKernels()).toBeDefined();
    const { '4:2:0': first, '4:4:4': second } = await jpegs(400, 300);
    const plain = await decodeBounded(first, { size: half, deferResize: true });
    const lent = await decodeBounded(first, { size: half, deferResize: true, lend: true });
    expect(lent.release).toBeTypeOf('function');
    expect([lent.width, lent.height, lent.standsFor]).toEqual([plain.width, plain.height, plain.standsFor]);
    expect(Buffer.from(lent.data).equals(Buffer.from(plain.data))).toBe(true);
    const buffer = lent.data.buffer;
    lent.release!();
    lent.release!(); // a second call gives nothing back twice
    expect(lentPictureBytes()).toBe(buffer.byteLength);

    // The next picture of that size goes into the same array, every pixel its own.
    const next = await decodeBounded(second, { size: half, deferResize: true, lend: true });
    expect(next.data.buffer).toBe(buffer);
    expect(lentPictureBytes()).toBe(0);
    const nextPlain = await decodeBounded(second, { size: half, deferResize: true });
    expect(Buffer.from(next.data).equals(Buffer.from(nextPlain.data))).toBe(true);

    // While it is lent, another decode gets an array of its own.
    const other = await decodeBounded(first, { size: half, deferResize: true, lend: true });
    expect(other.data.buffer).not.toBe(buffer);
    expect(Buffer.from(other.data).equals(Buffer.from(plain.data))).toBe(true);
    next.release!();
    other.release!();
    expect(lentPictureBytes()).toBe(2 * buffer.byteLength);
    releasePictureKernels();
    dropLentPictures();
    expect(lentPictureBytes()).toBe(0);
  });

  it('gives the array back at once when the decode is resized', async () => {
    dropLentPictures();
    expect(await holdPictureKernels()).toBeDefined();
    const jpeg = (await jpegs(400, 300))['4:2:0'];
    // Not deferred: resized into a new array, the lent one free again.
    const resized = await decodeBounded(jpeg, { size: half, lend: true });
    const plain = await decodeBounded(jpeg, { size: half });
    expect(resized.release).toBeUndefined();
    expect(Buffer.from(resized.data).equals(Buffer.from(plain.data))).toBe(true);
    expect(lentPictureBytes()).toBeGreaterThan(0);
    releasePictureKernels();
    dropLentPictures();
  });

  it('lends a JPEG decoded whole by our decoder (the same pixels), not one mozjpeg decodes', async () => {
    dropLentPictures();
    const { '4:2:0': first, '4:4:4': second } = await jpegs(400, 300);
    // Wanted at 95 %: no eighth covers it, so the picture is decoded whole and left to the placement.
    const most = (s: { width: number; height: number }) => ({ width: s.width * 0.95, height: s.height * 0.95 });
    const plain = await decodeBounded(first, { size: most, deferResize: true });
    const whole = await decodeBounded(first, { size: most, deferResize: true, lend: true });
    expect([whole.width, whole.height]).toEqual([400, 300]);
    expect(whole.release).toBeTypeOf('function');
    expect(Buffer.from(whole.data).equals(Buffer.from(plain.data))).toBe(true);
    const buffer = whole.data.buffer;
    whole.release!();
    expect(lentPictureBytes()).toBe(400 * 300 * 4);
    // The next one goes into the same array, every byte its own.
    const next = await decodeBounded(second, { size: most, deferResize: true, lend: true });
    expect(next.data.buffer).toBe(buffer);
    expect(Buffer.from(next.data).equals(Buffer.from((await decodeBounded(second, { size: most, deferResize: true })).data))).toBe(true);
    next.release!();

    // Progressive: mozjpeg's decode in its own array, nothing to give back; the lent one free again.
    const progressive = await encodeJpegMozjpeg(noiseImage(400, 300, 3, 'opaque'), 80, { progressive: true, baseline: false });
    const moz = await decodeBounded(progressive, { size: most, deferResize: true, lend: true });
    expect(moz.release).toBeUndefined();
    expect(moz.data.buffer).not.toBe(buffer);
    expect(Buffer.from(moz.data).equals(Buffer.from((await decodeBounded(progressive, { size: most, deferResize: true })).data))).toBe(true);
    expect(lentPictureBytes()).toBe(400 * 300 * 4);
    dropLentPictures();
  });
});

describe('decodeJpegFull into a given array', () => {
  it('writes every byte: the same pixels as a new array, over any old content', async () => {
    const odd = await encodeJpeg(noiseImage(97, 61, 5, 'opaque'), 85, { subsampling: 2 });
    for (const [name, jpeg] of Object.entries({ ...(await jpegs(203, 141)), odd })) {
      const fresh = (await decodeJpegFull(jpeg))!;
      for (const old of [0, 255, 77]) {
        const into = new Uint8ClampedArray(fresh.data.length).fill(old);
        const given = (await decodeJpegFull(jpeg, into))!;
        expect(given.data, `${name} over ${old}`).toBe(into);
        expect(Buffer.from(given.data).equals(Buffer.from(fresh.data)), `${name} over ${old}`).toBe(true);
      }
    }
  });

  it('leaves an array of another length unused', async () => {
    const jpeg = (await jpegs(64, 48))['4:2:0'];
    const into = new Uint8ClampedArray(10);
    const decoded = (await decodeJpegFull(jpeg, into))!;
    expect(decoded.data).not.toBe(into);
    expect(Buffer.from(decoded.data).equals(Buffer.from((await decodeJpegFull(jpeg))!.data))).toBe(true);
  });
});

describe('lendPicture', () => {
  it('lends up to 8 MB (a 1600×1200 picture whole), keeps two free at most, and none above it', () => {
    dropLentPictures();
    expect(lendPicture(8 * 1024 * 1024 + 1)).toBeUndefined();
    const a = lendPicture(1600 * 1200 * 4)!;
    const b = lendPicture(6_000_000)!;
    const c = lendPicture(100)!;
    const [giveA, giveB, giveC] = [releaseOnce(a), releaseOnce(b), releaseOnce(c)];
    giveA();
    giveA();
    giveB();
    expect(lentPictureBytes()).toBe(1600 * 1200 * 4 + 6_000_000);
    giveC(); // a third: the oldest free one is dropped
    expect(lentPictureBytes()).toBe(6_000_000 + 100);
    dropLentPictures();
    expect(lentPictureBytes()).toBe(0);
  });
});
