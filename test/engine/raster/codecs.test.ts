import { describe, expect, it } from 'vitest';
import { decodeImage, encodeJpeg, encodeJpegMozjpeg, encodePng, imageFormatOf } from '../../../src/engine/raster/codecs';
import { embedIcc, readIcc, srgbProfile, srgbToLinear } from '../../../src/engine/raster/icc';
import { flattenOverWhite } from '../../../src/engine/raster/pixels';
import { sniffImage } from '../../../src/engine/raster/sniff';
import { maxDiff, noiseImage, solidImage } from './helpers';

function smoothImage(width: number, height: number) {
  const img = solidImage(width, height, [0, 0, 0, 255]);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) img.data.set([(x * 255) / width, (y * 255) / height, 128, 255], (y * width + x) * 4);
  return img;
}

describe('codecs', () => {
  it('PNG round-trips RGBA exactly, alpha included', async () => {
    const img = noiseImage(31, 17, 4);
    const png = await encodePng(img);
    expect(imageFormatOf(png)).toBe('png');
    const back = await decodeImage(png);
    expect([back.width, back.height]).toEqual([31, 17]);
    expect(back.data).toEqual(img.data);
  });

  it('JPEG round-trips a smooth image closely at quality 90 and 4:4:4', async () => {
    const img = smoothImage(64, 48);
    const jpeg = await encodeJpeg(img, 90);
    expect(imageFormatOf(jpeg)).toBe('jpeg');
    const back = await decodeImage(jpeg);
    expect([back.width, back.height]).toEqual([64, 48]);
    expect(maxDiff(back.data, img.data)).toBeLessThanOrEqual(8);
  });

  it('JPEG quality maps directly: lower quality, smaller file', async () => {
    const img = noiseImage(64, 64, 8, 'opaque');
    const sizes = await Promise.all([20, 60, 95].map(async (q) => (await encodeJpeg(img, q)).length));
    expect(sizes[0]).toBeLessThan(sizes[1]!);
    expect(sizes[1]).toBeLessThan(sizes[2]!);
  });

  it('JPEG output is baseline sequential (SOF0), 4:2:0 below quality 90 and 4:4:4 from 90', async () => {
    const img = smoothImage(32, 32);
    const sampling = (jpeg: Uint8Array) => {
      for (let p = 2; p < jpeg.length; ) {
        const marker = jpeg[p + 1]!;
        const length = (jpeg[p + 2]! << 8) | jpeg[p + 3]!;
        if (marker >= 0xc0 && marker <= 0xc2) return { sof: marker, luma: jpeg[p + 11]! };
        p += 2 + length;
      }
      return null;
    };
    expect(sampling(await encodeJpeg(img, 85))).toEqual({ sof: 0xc0, luma: 0x22 });
    expect(sampling(await encodeJpeg(img, 92))).toEqual({ sof: 0xc0, luma: 0x11 });
  });

  it('the mozjpeg encoder (smaller files, slower) follows the same quality and chroma rules', async () => {
    const img = smoothImage(48, 32);
    const jpeg = await encodeJpegMozjpeg(img, 85);
    expect(maxDiff((await decodeImage(jpeg)).data, img.data)).toBeLessThanOrEqual(12);
  });

  it('a flattened semi-transparent image encodes to the white-composited colour', async () => {
    const img = solidImage(16, 16, [0, 0, 0, 128]);
    await flattenOverWhite(img.data);
    const jpeg = await encodeJpeg(img, 95);
    const back = await decodeImage(jpeg);
    expect(Math.abs(back.data[0]! - 127)).toBeLessThanOrEqual(2);
  });

  it('corrupt bytes fail to decode with an error, not a crash', async () => {
    const png = await encodePng(noiseImage(8, 8));
    await expect(decodeImage(png.subarray(0, 40))).rejects.toThrow();
    await expect(decodeImage(new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 2]))).rejects.toThrow();
    await expect(decodeImage(new Uint8Array([1, 2, 3]))).rejects.toThrow();
  });
});

describe('ICC profiles', () => {
  it('the built-in sRGB profile is a well-formed ICC v2 display profile', () => {
    const icc = srgbProfile();
    const v = new DataView(icc.buffer, icc.byteOffset, icc.byteLength);
    const text = (at: number) => String.fromCharCode(...icc.subarray(at, at + 4));
    expect(v.getUint32(0)).toBe(icc.length);
    expect(icc[8]).toBe(2);
    expect([text(12), text(16), text(20), text(36)]).toEqual(['mntr', 'RGB ', 'XYZ ', 'acsp']);
    const tags = new Map<string, { offset: number; size: number }>();
    for (let i = 0; i < v.getUint32(128); i++) {
      const at = 132 + i * 12;
      tags.set(text(at), { offset: v.getUint32(at + 4), size: v.getUint32(at + 8) });
    }
    for (const sig of ['desc', 'cprt', 'wtpt', 'rXYZ', 'gXYZ', 'bXYZ', 'rTRC', 'gTRC', 'bTRC']) {
      const tag = tags.get(sig)!;
      expect(tag, sig).toBeDefined();
      expect(tag.offset % 4).toBe(0);
      expect(tag.offset + tag.size).toBeLessThanOrEqual(icc.length);
    }
    // Colorants sum to the D50 white point (within s15Fixed16 rounding).
    const xyz = (sig: string) => [0, 1, 2].map((k) => v.getInt32(tags.get(sig)!.offset + 8 + 4 * k) / 65536);
    const sum = [0, 1, 2].map((k) => xyz('rXYZ')[k]! + xyz('gXYZ')[k]! + xyz('bXYZ')[k]!);
    xyz('wtpt').forEach((w, k) => expect(Math.abs(sum[k]! - w)).toBeLessThan(0.001));
    // The tone curve is the sRGB transfer function.
    const trc = tags.get('rTRC')!;
    const n = v.getUint32(trc.offset + 8);
    const mid = v.getUint16(trc.offset + 12 + 2 * Math.floor(n / 2)) / 65535;
    expect(Math.abs(mid - srgbToLinear(Math.floor(n / 2) / (n - 1)))).toBeLessThan(1e-4);
  });

  it('a JPEG carries the profile in APP2 ICC_PROFILE segments after SOI/APP0 and reads back identical', async () => {
    const jpeg = await encodeJpeg(smoothImage(16, 16), 80);
    const icc = srgbProfile();
    const tagged = await embedIcc(jpeg, 'jpeg', icc);
    expect(await readIcc(tagged, 'jpeg')).toEqual(icc);
    // APP0 (JFIF) first, then APP2.
    expect([tagged[2], tagged[3]]).toEqual([0xff, 0xe0]);
    const app0End = 4 + ((tagged[4]! << 8) | tagged[5]!);
    expect([tagged[app0End], tagged[app0End + 1]]).toEqual([0xff, 0xe2]);
    expect((await decodeImage(tagged)).width).toBe(16);
    // Embedding again replaces, not duplicates.
    const twice = await embedIcc(tagged, 'jpeg', icc);
    expect(twice.length).toBe(tagged.length);
  });

  it('a profile larger than one JPEG segment is split into numbered chunks and reassembled', async () => {
    const big = new Uint8Array(150_000).map((_, i) => (i * 7) & 255);
    const tagged = await embedIcc(await encodeJpeg(smoothImage(8, 8), 80), 'jpeg', big);
    expect(await readIcc(tagged, 'jpeg')).toEqual(big);
  });

  it('a PNG carries the profile in an iCCP chunk right after IHDR and stays decodable', async () => {
    const img = noiseImage(12, 9, 2);
    const tagged = await embedIcc(await encodePng(img), 'png', srgbProfile(), 'sRGB');
    expect(String.fromCharCode(...tagged.subarray(37, 41))).toBe('iCCP');
    expect(await readIcc(tagged, 'png')).toEqual(srgbProfile());
    expect((await decodeImage(tagged)).data).toEqual(img.data);
    expect(sniffImage(tagged)).toMatchObject({ format: 'png', width: 12, height: 9 });
  });
});
