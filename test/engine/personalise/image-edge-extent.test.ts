import { describe, expect, it } from 'vitest';
import { placeImage, type PlacedPicture } from '../../../src/engine/personalise/image';
import { decodeBounded } from '../../../src/engine/raster/bounded';
import { decodeImage, encodeJpeg } from '../../../src/engine/raster/codecs';
import { jpegScaleFor } from '../../../src/engine/raster/jpeg-decode';
import { applyOrientation } from '../../../src/engine/raster/orientation';
import { resample, resampleTaps } from '../../../src/engine/raster/resample';
import type { RGBAImage } from '../../../src/engine/types';
import { psnr, withOrientation } from '../raster/helpers';

// A W×H JPEG decoded at k/8 is ⌈W·k/8⌉ × ⌈H·k/8⌉ pixels covering W·k/8 × H·k/8 of the picture
// (libjpeg's rounded-up size: the last column and row partly past it). Resized as if those pixels
// were the whole picture, the far edge stretched by up to a decoded pixel: hard-edged graphics
// off the grid gave 24–37 dB against the whole decode + the same Lanczos. The resize now maps the
// picture's true extent (resampleTaps' `extent`, handed on by decodeBounded as `extent`).

/** Smooth waves with a saturated patch, fine stripes and a 6-pixel frame at every border (where the stretch shows most). */
function framed(width: number, height: number): RGBAImage {
  const data = new Uint8ClampedArray(width * height * 4);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const g = (x + y) / (width + height);
      let px = [128 + 70 * Math.sin(x / 9) + 30 * Math.sin(x / 3.1 + y / 5.3), 40 + 180 * g + 20 * Math.cos(y / 4.2), 128 + 90 * Math.cos(y / 7 + x / 23)];
      if (x > width / 3 && x < width / 2 && y > height / 4 && y < height / 2) px = [230, 40, 30];
      else if (y > (2 * height) / 3) px[0] += 40 * Math.sin(x / 2.5);
      if (x < 6 || y < 6 || x >= width - 6 || y >= height - 6) px = [10, 10, 200];
      data.set([...px, 255], (y * width + x) * 4);
    }
  return { width, height, data };
}

const rgb = (img: RGBAImage) => Uint8Array.from(img.data.filter((_, i) => i % 4 !== 3));

/** An upright fill placement of `picture` into a width × height rectangle at (3, 2). */
async function placed(picture: PlacedPicture, width: number, height: number, warped = false): Promise<RGBAImage> {
  const quad = { corners: [3, 2, 3 + width, 2, 3 + width, 2 + height, 3, 2 + height], width, height };
  return (await placeImage(picture, quad, 'fill', { warped }))!.pixels;
}

describe('a k/8 decode of a size off its grid is resized from the picture’s extent', () => {
  it('placed (upright, warped) and resized like the whole decode, for every EXIF orientation: ≥ 33 dB (was 24–34)', async () => {
    const jpeg = await encodeJpeg(framed(203, 141), 92, { subsampling: 2 });
    for (const orientation of [1, 3, 6, 7]) {
      const file = orientation === 1 ? jpeg : withOrientation(jpeg, orientation);
      const whole = applyOrientation(await decodeImage(jpeg), orientation);
      for (const fraction of [0.3, 0.5, 0.6, 0.75, 0.87]) {
        const width = Math.round(whole.width * fraction);
        const height = Math.round(whole.height * fraction);
        const at = `EXIF ${orientation} at ${fraction}`;
        const size = { width, height };
        const deferred = await decodeBounded(file, { size, deferResize: true });
        expect(deferred.width, at).toBeLessThan(whole.width); // a k/8 decode
        expect(deferred.extent, at).toBeDefined();
        const reference = await placed({ ...whole, standsFor: size, opaque: true }, width, height);
        expect(psnr(await placed({ ...deferred, opaque: true }, width, height), rgb(reference)), at).toBeGreaterThan(33);
        expect(psnr(await placed(deferred, width, height, true), rgb(reference)), `${at}, warped`).toBeGreaterThan(33);
        expect(psnr(await decodeBounded(file, { size }), rgb(await resample(whole, width, height))), `${at}, resized`).toBeGreaterThan(33);
      }
    }
  });

  it('the extent is the decode’s partial pixels, oriented: mirrored axes put them first', async () => {
    const jpeg = await encodeJpeg(framed(203, 141), 92, { subsampling: 1 });
    const size = { width: 101, height: 70 }; // 4/8: 102 × 71 pixels for 101.5 × 70.5
    expect(jpegScaleFor({ width: 203, height: 141 }, 101, 70)).toBe(4);
    const extentOf = async (orientation: number, wanted = size) => (await decodeBounded(withOrientation(jpeg, orientation), { size: wanted, deferResize: true })).extent;
    expect(await extentOf(1)).toEqual({ left: 0, top: 0, width: 101.5, height: 70.5 });
    expect(await extentOf(2)).toEqual({ left: 0.5, top: 0, width: 101.5, height: 70.5 });
    expect(await extentOf(3)).toEqual({ left: 0.5, top: 0.5, width: 101.5, height: 70.5 });
    expect(await extentOf(4)).toEqual({ left: 0, top: 0.5, width: 101.5, height: 70.5 });
    const turned = { width: 70, height: 101 };
    expect(await extentOf(5, turned)).toEqual({ left: 0, top: 0, width: 70.5, height: 101.5 });
    expect(await extentOf(6, turned)).toEqual({ left: 0.5, top: 0, width: 70.5, height: 101.5 });
    expect(await extentOf(7, turned)).toEqual({ left: 0.5, top: 0.5, width: 70.5, height: 101.5 });
    expect(await extentOf(8, turned)).toEqual({ left: 0, top: 0.5, width: 70.5, height: 101.5 });
  });

  it('on the grid nothing is named and nothing moves: the same taps and bytes as before', async () => {
    const jpeg = await encodeJpeg(framed(200, 144), 92, { subsampling: 2 });
    const deferred = await decodeBounded(jpeg, { size: { width: 150, height: 108 }, deferResize: true });
    expect([deferred.width, deferred.height, deferred.extent]).toEqual([150, 108, undefined]);
    // Decoded at the size wanted, on the grid: kept as decoded, not resized.
    const exact = await decodeBounded(jpeg, { size: { width: 150, height: 108 } });
    expect(Buffer.from(exact.data).equals(Buffer.from(deferred.data))).toBe(true);
    // A whole extent is no extent.
    const img = framed(40, 30);
    const plain = await resample(img, 23, 17);
    const whole = await resample(img, 23, 17, { extent: { left: 0, top: 0, width: 40, height: 30 } });
    expect(Buffer.from(whole.data).equals(Buffer.from(plain.data))).toBe(true);
    expect(resampleTaps(40, 23, 'high', { start: 0, size: 40 }).weights).toEqual(resampleTaps(40, 23).weights);
  });

  it('off the grid at the size decoded, the partial pixel still maps: resized from 101.5 to 102 pixels', async () => {
    const jpeg = await encodeJpeg(framed(203, 141), 92, { subsampling: 1 });
    const size = { width: 102, height: 71 }; // round(101.5), round(70.5): the 4/8 decode's own size
    const deferred = await decodeBounded(jpeg, { size, deferResize: true });
    expect([deferred.width, deferred.height]).toEqual([102, 71]);
    const resized = await decodeBounded(jpeg, { size });
    expect(Buffer.from(resized.data).equals(Buffer.from(deferred.data))).toBe(false);
    const whole = await decodeImage(jpeg);
    const reference = rgb(await resample(whole, 102, 71));
    expect(psnr(resized, reference)).toBeGreaterThan(psnr(deferred, reference) + 3);
  });
});
