import { describe, expect, it } from 'vitest';
import { placeImage } from '../../../src/engine/personalise/image';
import { decodeBounded } from '../../../src/engine/raster/bounded';
import { encodeJpeg, encodePng } from '../../../src/engine/raster/codecs';
import { resample } from '../../../src/engine/raster/resample';
import type { RGBAImage } from '../../../src/engine/types';

/**
 * A picture that fills a large placement (issue 25 §3, picture-decode): a never-seen 1600×1200
 * photo given to a full-canvas layer is decoded whole (no DCT-scaled decode covers it), resized by
 * the loader, then resampled again by the placement. Guards /tmp/team/tasks13/picture-decode-fold.patch
 * (decodeBounded defers that resize too when the decode is at most twice the size wanted per
 * axis, and the upright placement folds it into its one pass): whichever way the loader answers,
 * no picture larger than twice the wanted size per axis is handed on, and the placement of what it
 * answers is within 50 dB of the loader's resize followed by the placement.
 */
function photoLike(width: number, height: number, alpha = false): RGBAImage {
  const data = new Uint8ClampedArray(width * height * 4);
  let s = 7;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      s = (s * 1103515245 + 12345) & 0x7fffffff;
      const i = (y * width + x) * 4;
      data[i] = 128 + 90 * Math.sin(x / 37) * Math.cos(y / 53) + (s & 15);
      data[i + 1] = 120 + 80 * Math.sin((x + y) / 71) + ((s >> 4) & 15);
      data[i + 2] = ((x * 3 + y) >> 3) & 255;
      data[i + 3] = alpha && ((x >> 5) + (y >> 5)) % 7 === 0 ? 0 : 255;
    }
  }
  return { width, height, data };
}

/** PSNR of the premultiplied pixels (the colour under a transparent pixel does not show). */
function psnr(a: Uint8ClampedArray, b: Uint8ClampedArray): number {
  expect(a.length).toBe(b.length);
  let se = 0;
  for (let i = 0; i < a.length; i++) {
    const k = 3 - (i & 3); // offset to this pixel's alpha, 0 for the alpha itself
    se += k ? ((a[i]! * a[i + k]! - b[i]! * b[i + k]!) / 255) ** 2 : (a[i]! - b[i]!) ** 2;
  }
  return se === 0 ? Infinity : 10 * Math.log10((255 * 255 * a.length) / se);
}

describe('a full-size decode for a placement it nearly fills', () => {
  // The poster's "Background" at the 800 px preview's render scale 1/4 (1500×1000 of 6000×4000), fill; layer-effects-all's 800×640 at scale 1.
  const cases = [
    { name: 'poster background', wanted: { width: 1500, height: 1125 }, corners: [0, 0, 1500, 0, 1500, 1000, 0, 1000], content: { width: 6000, height: 4000 } },
    { name: 'canvas-sized, cropped across', wanted: { width: 853, height: 640 }, corners: [0, 0, 800, 0, 800, 640, 0, 640], content: { width: 800, height: 640 } },
  ];
  for (const format of ['jpeg', 'png'] as const) {
    for (const c of cases) {
      it(`${format}, ${c.name}: at most twice the wanted size is handed on, placed within 50 dB of resize + place`, async () => {
        const source = photoLike(1600, 1200, format === 'png');
        const bytes = format === 'jpeg' ? await encodeJpeg(source, 90) : await encodePng(source);
        const loaded = await decodeBounded(bytes, { size: c.wanted, deferResize: true });
        expect(loaded.width).toBeLessThanOrEqual(2 * c.wanted.width);
        expect(loaded.height).toBeLessThanOrEqual(2 * c.wanted.height);
        if (!loaded.standsFor) expect([loaded.width, loaded.height]).toEqual([c.wanted.width, c.wanted.height]);
        // The reference: the loader's resize (decodeBounded without deferring), then the placement.
        const resized = await decodeBounded(bytes, { size: c.wanted });
        expect([resized.width, resized.height]).toEqual([c.wanted.width, c.wanted.height]);
        const quad = { corners: c.corners, ...c.content };
        const a = (await placeImage(resized, quad, 'fill'))!;
        const b = (await placeImage(loaded, quad, 'fill'))!;
        expect(b.bounds).toEqual(a.bounds);
        expect(psnr(a.pixels.data, b.pixels.data)).toBeGreaterThanOrEqual(format === 'png' ? 40 : 50);
      });
    }
  }

  it('a full-size decode more than twice the wanted size is still resized by the loader (no large picture kept)', async () => {
    const bytes = await encodePng(photoLike(1600, 1200));
    const loaded = await decodeBounded(bytes, { size: { width: 700, height: 525 }, deferResize: true });
    expect(loaded.standsFor).toBeUndefined();
    expect([loaded.width, loaded.height]).toEqual([700, 525]);
    const direct = await resample((await decodeBounded(bytes, {})) as RGBAImage, 700, 525);
    expect(psnr(loaded.data, direct.data)).toBe(Infinity);
  });
});
