import { describe, expect, it } from 'vitest';
import { decodeBounded } from '../../../src/engine/raster/bounded';
import { decodeImage, encodeJpeg, encodeJpegMozjpeg } from '../../../src/engine/raster/codecs';
import { decodeJpegScaled, jpegScaleFor } from '../../../src/engine/raster/jpeg-decode';
import { resample } from '../../../src/engine/raster/resample';
import type { RGBAImage } from '../../../src/engine/types';
import { testAsset } from '../../helpers/fixtures';
import { djpegAt, djpegTakesEighths, jpegFixture, maxDiff, noiseImage, psnr, rgbOf } from './helpers';

// The DCT-scaled decoder at every k/8 (k = 1…7; 3, 5, 6, 7 added for placements between 1/4 and
// the full size: a picture filling a layer at 2/3 of its size decodes at 6/8, not whole).
// References: libjpeg-turbo's own `djpeg -scale k/8` (jidctint.c's jpeg_idct_NxN; the test
// server passes k/8 since scaled-place's patch to test/global-setup.ts), and the full decode
// (mozjpeg) resized with the same Lanczos pass, which is what such a placement gave before.

const ALL = [1, 2, 3, 4, 5, 6, 7] as const;
const NEW = [3, 5, 6, 7] as const;

/** Smooth colour ramps and waves (photo-like: no energy near the last frequencies). */
function smooth(width: number, height: number): RGBAImage {
  const data = new Uint8ClampedArray(width * height * 4);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const g = (x + y) / (width + height);
      data.set([128 + 70 * Math.sin(x / 9) + 30 * Math.sin(x / 3.1 + y / 5.3), 40 + 180 * g + 20 * Math.cos(y / 4.2), 128 + 90 * Math.cos(y / 7 + x / 23), 255], (y * width + x) * 4);
    }
  return { width, height, data };
}

/** `smooth` with a saturated sharp-edged patch and fine stripes (graphics, not a photo). */
function hardEdged(width: number, height: number): RGBAImage {
  const img = smooth(width, height);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      if (x > width / 3 && x < width / 2 && y > height / 4 && y < height / 2) img.data.set([230, 40, 30], i);
      else if (y > (2 * height) / 3) img.data[i] += 40 * Math.sin(x / 2.5);
    }
  return img;
}

const takesEighths = await djpegTakesEighths(); // else djpeg decodes whole

describe.runIf(takesEighths)('every k/8 against libjpeg’s own scaled decode (djpeg -scale k/8)', () => {
  // Full-resolution components (4:4:4, grey): the same N-point transform as jpeg_idct_NxN, ours in
  // floats, libjpeg's in fixed point: within a few levels.
  for (const file of ['photo-444.jpg', 'grey-restart.jpg']) {
    it(`${file} (test asset): ≥ 55 dB, at most 4 levels apart`, async () => {
      const jpeg = await testAsset(`jpeg/${file}`);
      for (const k of NEW) {
        const ours = (await decodeJpegScaled(jpeg, k))!;
        const ref = await djpegAt(jpeg, k);
        expect([ours.width, ours.height], `${file} at ${k}/8`).toEqual([ref.width, ref.height]);
        expect(psnr(ours, ref.rgb), `${file} at ${k}/8`).toBeGreaterThan(55);
        expect(maxDiff(rgbOf(ours), ref.rgb), `${file} at ${k}/8`).toBeLessThanOrEqual(4);
      }
    });
  }
  it('sizes off the block grid (17×9, 33×17, 203×141, 1×1, 3×3, 5×4): libjpeg’s size, rounded up, and its pixels', async () => {
    for (const file of ['odd-17x9-444.jpg', 'odd-17x9-420.jpg', 'odd-17x9-422.jpg', 'odd-33x17-420-optimized.jpg', 'photo-203x141-444-q10.jpg', 'photo-203x141-grey.jpg', 'photo-203x141-444-restart-row.jpg', 'tiny-1x1-420.jpg', 'tiny-3x3-420.jpg', 'tiny-5x4-420.jpg']) {
      const jpeg = await jpegFixture(file);
      for (const k of NEW) {
        const ours = (await decodeJpegScaled(jpeg, k))!;
        const ref = await djpegAt(jpeg, k);
        expect([ours.width, ours.height], `${file} at ${k}/8`).toEqual([ref.width, ref.height]);
        expect(psnr(ours, ref.rgb), `${file} at ${k}/8`).toBeGreaterThan(50);
      }
    }
  });
  // Subsampled chroma: 4:2:0 is decoded at the output's resolution as libjpeg does (6 points a
  // block at 3/8, 10–14 at 5/8–7/8: its 8×8 frequencies interpolated); 4:2:2 at k points and
  // upsampled across with libjpeg-turbo's triangle filter (jpeg-chroma.test.ts): 63.9–65.2 dB on
  // this 203×141 picture with colour detail up to the last frequency (replicated: 34.8–40.8).
  for (const [file, floor] of [['photo-420-restart.jpg', 55], ['photo-422.jpg', 60]] as const) {
    it(`${file} (test asset): ≥ ${floor} dB`, async () => {
      const jpeg = await testAsset(`jpeg/${file}`);
      for (const k of NEW) {
        const ours = (await decodeJpegScaled(jpeg, k))!;
        const ref = await djpegAt(jpeg, k);
        expect([ours.width, ours.height]).toEqual([ref.width, ref.height]);
        expect(psnr(ours, ref.rgb), `${file} at ${k}/8`).toBeGreaterThan(floor);
      }
    });
  }
});

describe('every k/8 against the full decode', () => {
  it('sizes are the full size × k/8 rounded up, for every k', async () => {
    const jpeg = await encodeJpeg(smooth(157, 93), 90);
    for (const k of ALL) {
      const ours = (await decodeJpegScaled(jpeg, k))!;
      expect([ours.width, ours.height]).toEqual([Math.ceil((157 * k) / 8), Math.ceil((93 * k) / 8)]);
    }
  });

  /** What a placement at `fraction` gives now (decodeBounded: the k/8 decode, Lanczos) against before (the full decode, Lanczos): PSNR, max levels. */
  async function placedBothWays(jpeg: Uint8Array, fraction: number) {
    const full = await decodeImage(jpeg);
    const width = Math.round(full.width * fraction);
    const height = Math.round(full.height * fraction);
    const k = jpegScaleFor(full, width, height);
    const before = rgbOf(await resample(full, width, height, { quality: 'high' }));
    const now = await decodeBounded(jpeg, { size: { width, height } });
    return { k, db: psnr(now, before), max: maxDiff(rgbOf(now), before) };
  }
  const FRACTIONS = [0.3, 0.36, 0.55, 0.6, 0.667, 0.75, 0.8, 0.87];

  // Photo-like content, 4:4:4 and 4:2:0 (our encoder), grey (mozjpeg; restart intervals: the
  // djpeg comparisons above): the placement moves by a few levels. Measured 4:4:4 48.2–51.6 dB
  // (≤ 4 levels), grey 52.9–55.9 (≤ 2), 4:2:0 45.3–48.5 (≤ 9: this much colour detail, upsampled
  // by the full decode's triangle filter, by ours in the DCT domain); the bench photo 50.8–53.6.
  const photos: [string, () => Promise<Uint8Array>][] = [
    ['4:4:4', () => encodeJpeg(smooth(400, 304), 92, { subsampling: 1 })],
    ['4:2:0', () => encodeJpeg(smooth(400, 304), 92, { subsampling: 2 })],
    ['grey (mozjpeg)', () => encodeJpegMozjpeg(smooth(400, 304), 90, { color_space: 1 })],
  ];
  for (const [name, make] of photos) {
    it(`${name}: placed at 0.3–0.87 of its size (3/8–7/8), ≥ 45 dB and ≤ 10 levels against the full decode + Lanczos`, async () => {
      const jpeg = await make();
      for (const fraction of FRACTIONS) {
        const { k, db, max } = await placedBothWays(jpeg, fraction);
        expect(NEW as readonly number[], `${name} at ${fraction}`).toContain(k);
        expect(db, `${name} at ${fraction} (${k}/8)`).toBeGreaterThan(45);
        expect(max, `${name} at ${fraction} (${k}/8)`).toBeLessThanOrEqual(10);
      }
    });
  }

  // Graphics with a saturated sharp edge, at a size off the block grid (403 × 301): the decode's
  // last column and row stand for less than a whole pixel (libjpeg's size, rounded up), and the
  // resize maps the picture's extent, W·k/8 of them (finishDecode; edge-extent), not the pixels:
  // 45.6–50.8 dB (28.7–36.9 while they were resized as the whole picture).
  it('hard-edged graphics off the block grid: ≥ 43 dB (28.7–36.9 resized as if the partial pixels were whole)', async () => {
    const jpeg = await encodeJpeg(hardEdged(403, 301), 92, { subsampling: 1 });
    for (const fraction of FRACTIONS) {
      const { k, db } = await placedBothWays(jpeg, fraction);
      expect(db, `at ${fraction} (${k}/8)`).toBeGreaterThan(43);
    }
  });
});

describe('decodeBounded at k/8', () => {
  it('picks the smallest k/8 covering both axes, and hands that decode on when the resize is deferred', async () => {
    const jpeg = await encodeJpeg(smooth(400, 300), 90);
    const picture = await decodeBounded(jpeg, { size: { width: 267, height: 200 }, deferResize: true });
    expect([picture.width, picture.height, picture.standsFor]).toEqual([300, 225, { width: 267, height: 200 }]);
    const resized = await decodeBounded(jpeg, { size: { width: 267, height: 200 } });
    expect([resized.width, resized.height, resized.standsFor]).toEqual([267, 200, undefined]);
  });

  it('refusals: progressive → null (decodeBounded decodes it whole), damaged data throws', async () => {
    const progressive = await testAsset('jpeg/photo-progressive.jpg');
    const baseline = await testAsset('jpeg/photo-444.jpg');
    const moz = await encodeJpegMozjpeg(noiseImage(40, 30, 1, 'opaque'), 80, { progressive: true, baseline: false });
    for (const k of NEW) {
      expect(await decodeJpegScaled(progressive, k)).toBeNull();
      expect(await decodeJpegScaled(moz, k)).toBeNull();
      await expect(decodeJpegScaled(baseline.subarray(0, 100), k)).rejects.toThrow(/corrupt/);
    }
    const placed = await decodeBounded(progressive, { size: { width: 140, height: 97 } });
    expect([placed.width, placed.height]).toEqual([140, 97]);
  });

  it('counts the k/8 decode against the source limit', async () => {
    const jpeg = await testAsset('jpeg/photo-420-restart.jpg'); // 203 × 141
    const size = { width: 130, height: 90 }; // 5/8: 127 × 89 is short, so 6/8: 153 × 106 = 16,218 px
    expect(await decodeBounded(jpeg, { size, maxPixels: 16_218 })).toMatchObject(size);
    await expect(decodeBounded(jpeg, { size, maxPixels: 16_217 })).rejects.toThrow(/more than/);
  });
});

