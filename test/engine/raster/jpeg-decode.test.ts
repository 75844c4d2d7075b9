import { describe, expect, it } from 'vitest';
import { decodeImage, encodeJpeg, encodeJpegMozjpeg } from '../../../src/engine/raster/codecs';
import { decodeBounded } from '../../../src/engine/raster/bounded';
import { decodeJpegScaled, jpegScaleFor } from '../../../src/engine/raster/jpeg-decode';
import type { RGBAImage } from '../../../src/engine/types';
import { runTool, testAsset } from '../../helpers/fixtures';
import { base64ToBytes, noiseImage, parsePpm, psnr, rgbOf } from './helpers';

// The reference is libjpeg-turbo's own scaled decode (`djpeg -scale 1/N`). Its reduced IDCTs
// (jidctred.c) also fold in some odd higher frequencies where ours keeps exactly the N×N lowest
// ones (4:2:2 chroma is upsampled with its triangle filter as there, replicated at 1/8 as there):
// close, not identical, so floors rather than equality.
const FILES = [
  { file: 'photo-444.jpg', floor: 37 },
  { file: 'grey-restart.jpg', floor: 37 },
  { file: 'photo-422.jpg', floor: 37 },
  { file: 'photo-420-restart.jpg', floor: 30 },
];

async function reference(jpeg: Uint8Array, scale: number) {
  const out = await runTool('djpeg', jpeg, { scale: `1/${8 / scale}` });
  expect(out.code).toBe(0);
  return parsePpm(base64ToBytes(out.pages[0]!));
}

describe('scaled JPEG decoding in the DCT domain', () => {
  for (const { file, floor } of FILES) {
    it(`${file}: 1/2, 1/4 and 1/8 match libjpeg's scaled decode`, async () => {
      const jpeg = await testAsset(`jpeg/${file}`);
      for (const scale of [4, 2, 1] as const) {
        const ours = await decodeJpegScaled(jpeg, scale);
        const ref = await reference(jpeg, scale);
        expect(ours, `${file} at ${scale}/8`).not.toBeNull();
        expect([ours!.width, ours!.height]).toEqual([ref.width, ref.height]);
        expect(psnr(ours!, ref.rgb), `${file} at ${scale}/8`).toBeGreaterThan(floor);
      }
    });
  }

  it('our own encoder’s files (4:2:0 and 4:4:4, sizes off the MCU grid) give the full decode’s area average', async () => {
    const img = photoLike(157, 93);
    for (const quality of [75, 95]) {
      const jpeg = await encodeJpeg(img, quality);
      const full = await decodeImage(jpeg);
      for (const scale of [4, 2, 1] as const) {
        const ours = await decodeJpegScaled(jpeg, scale);
        expect([ours!.width, ours!.height]).toEqual([Math.ceil((157 * scale) / 8), Math.ceil((93 * scale) / 8)]);
        expect(psnr(ours!, areaAverage(full, 8 / scale)), `q${quality} at ${scale}/8`).toBeGreaterThan(30);
      }
    }
  });

  it('leaves progressive files to the full decoder (null)', async () => {
    expect(await decodeJpegScaled(await testAsset('jpeg/photo-progressive.jpg'), 2)).toBeNull();
    const mozProgressive = await encodeJpegMozjpeg(noiseImage(40, 30, 1, 'opaque'), 80, { progressive: true, baseline: false });
    expect(await decodeJpegScaled(mozProgressive, 2)).toBeNull();
  });

  it('refuses corrupt data with an error, not garbage', async () => {
    const jpeg = await testAsset('jpeg/photo-444.jpg');
    await expect(decodeJpegScaled(jpeg.subarray(0, 100), 2)).rejects.toThrow(/corrupt/);
    await expect(decodeJpegScaled(new Uint8Array([0xff, 0xd8, 0xff, 0xd9]), 2)).rejects.toThrow(/corrupt/);
  });

  it('picks the largest reduction that still covers the placement', () => {
    const photo = { width: 1600, height: 1200 };
    expect(jpegScaleFor(photo, 400, 300)).toBe(2);
    expect(jpegScaleFor(photo, 401, 300)).toBe(3);
    expect(jpegScaleFor(photo, 600, 450)).toBe(3);
    expect(jpegScaleFor(photo, 601, 300)).toBe(4);
    expect(jpegScaleFor(photo, 200, 150)).toBe(1);
    expect(jpegScaleFor(photo, 900, 10)).toBe(5);
    expect(jpegScaleFor(photo, 1067, 800)).toBe(6); // a full-canvas layer's picture at 2/3
    expect(jpegScaleFor(photo, 1400, 1050)).toBe(7);
    expect(jpegScaleFor(photo, 1401, 10)).toBe(8);
    expect(jpegScaleFor(photo, 10, 1051)).toBe(8);
  });

  it('decodeBounded uses it for a smaller placement and still returns the exact size asked', async () => {
    const jpeg = await testAsset('jpeg/photo-420-restart.jpg');
    const full = await decodeImage(jpeg);
    const small = await decodeBounded(jpeg, { size: { width: 50, height: 35 } });
    expect([small.width, small.height]).toEqual([50, 35]);
    const viaFull = await decodeBounded(jpeg, { size: { width: 50, height: 35 }, maxPixels: full.width * full.height });
    expect(psnr(small, rgbOf(viaFull))).toBeGreaterThan(30);
  });
});

/** Smooth colour ramps with a sharp-edged patch, as photos mostly are. */
function photoLike(width: number, height: number): RGBAImage {
  const data = new Uint8ClampedArray(width * height * 4);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      const patch = x > 50 && x < 100 && y > 30 && y < 60;
      data.set(patch ? [230, 40, 30, 255] : [128 + 90 * Math.sin(x / 9), (255 * (x + y)) / (width + height), 180 * Math.abs(Math.cos(y / 7)), 255], i);
    }
  return { width, height, data };
}

/** RGB of `img` shrunk by `factor` with each output pixel the mean of the pixels it covers. */
function areaAverage(img: RGBAImage, factor: number): Uint8Array {
  const w = Math.ceil(img.width / factor);
  const h = Math.ceil(img.height / factor);
  const rgb = new Uint8Array(w * h * 3);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const sum = [0, 0, 0];
      let n = 0;
      for (let sy = y * factor; sy < Math.min(img.height, (y + 1) * factor); sy++)
        for (let sx = x * factor; sx < Math.min(img.width, (x + 1) * factor); sx++, n++)
          for (let c = 0; c < 3; c++) sum[c]! += img.data[(sy * img.width + sx) * 4 + c]!;
      for (let c = 0; c < 3; c++) rgb[(y * w + x) * 3 + c] = Math.round(sum[c]! / n);
    }
  return rgb;
}

describe('the source pixel limit counts the pixels decoded', () => {
  it('accepts a baseline JPEG over the limit when its scaled decode is within it, and refuses a progressive one', async () => {
    const baseline = await testAsset('jpeg/photo-420-restart.jpg'); // 203 × 141 = 28,623 px
    const small = { size: { width: 50, height: 35 }, maxPixels: 10_000 };
    expect(await decodeBounded(baseline, small)).toMatchObject({ width: 50, height: 35 });
    await expect(decodeBounded(baseline, { ...small, size: { width: 150, height: 100 } })).rejects.toThrow(/more than 0.0 MP/);
    await expect(decodeBounded(await testAsset('jpeg/photo-progressive.jpg'), small)).rejects.toThrow(/more than 0.0 MP/);
  });
});
