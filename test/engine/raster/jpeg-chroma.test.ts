import { describe, expect, it } from 'vitest';
import { decodeJpegScaled, type JpegScale } from '../../../src/engine/raster/jpeg-decode';
import type { RGBAImage } from '../../../src/engine/types';
import { testAsset } from '../../helpers/fixtures';
import { djpegAt, djpegTakesEighths, jpegFixture, maxDiff, psnr, rgbOf } from './helpers';

// 4:2:2 and 4:4:0 chroma in the DCT-scaled decode (k/8, k = 1…7) against libjpeg-turbo's own
// (`djpeg -scale k/8`): it decodes such chroma at k points a block, as we do, then upsamples it
// with jdsample.c's triangle filters (h2v1/h1v2_fancy_upsample), except at 1/8 and for a plane at
// most 2 samples wide, which it replicates. Replicated at every k, these files gave 24–41 dB.

const ROWS = [3, 5, 6, 7] as const; // converted an MCU row at a time, libjpeg's integer colour tables
const WHOLE = [2, 4] as const; // whole planes, float colour; libjpeg's reduced IDCTs (jidctred.c) differ

async function against(jpeg: Uint8Array, k: Exclude<JpegScale, 8>) {
  const ours = (await decodeJpegScaled(jpeg, k))!;
  const ref = await djpegAt(jpeg, k);
  expect([ours.width, ours.height]).toEqual([ref.width, ref.height]);
  return { db: psnr(ours, ref.rgb), max: maxDiff(rgbOf(ours), ref.rgb) };
}

const takesEighths = await djpegTakesEighths(); // else djpeg decodes whole

const ACROSS = ['photo-203x141-422-q10.jpg', 'photo-64x64-422-q100.jpg', 'photo-203x141-mixed-h2v1.jpg', 'photo-203x141-mixed-restart.jpg'];
const DOWN = ['photo-203x141-440-q10.jpg', 'photo-64x64-440-q100.jpg'];

describe.runIf(takesEighths)('4:2:2 and 4:4:0 chroma at k/8 as libjpeg-turbo decodes it', () => {
  // Measured 61.1–68.8 dB, ≤ 3 levels (4:4:4 and 4:2:0 at these scales: 63.9–65.4, ≤ 3).
  it('chroma at half the columns (4:2:2, and 2×2 luma with 1×2 chroma) at 3/8, 5/8–7/8: ≥ 60 dB, ≤ 3 levels', async () => {
    const files: [string, Uint8Array][] = await Promise.all(ACROSS.map(async (f) => [f, await jpegFixture(f)] as [string, Uint8Array]));
    files.push(['photo-422.jpg (test asset)', await testAsset('jpeg/photo-422.jpg')]);
    for (const [file, jpeg] of files)
      for (const k of ROWS) {
        const { db, max } = await against(jpeg, k);
        expect(db, `${file} at ${k}/8`).toBeGreaterThan(60);
        expect(max, `${file} at ${k}/8`).toBeLessThanOrEqual(3);
      }
  });

  // Each output row from its nearer chroma row and the one beyond: the planes hold three MCU
  // rows and each is converted after the next is decoded (jpeg-decode.ts' decodeScan). Measured
  // 60.1–66.4 dB, ≤ 3 levels (replicated, 26.6–32.1).
  it('chroma at half the rows (4:4:0) at 3/8, 5/8–7/8: ≥ 60 dB, ≤ 3 levels', async () => {
    for (const file of DOWN) {
      const jpeg = await jpegFixture(file);
      for (const k of ROWS) {
        const { db, max } = await against(jpeg, k);
        expect(db, `${file} at ${k}/8`).toBeGreaterThan(60);
        expect(max, `${file} at ${k}/8`).toBeLessThanOrEqual(3);
      }
    }
  });

  // 1/4 and 1/2: libjpeg's 2×2 and 4×4 IDCTs fold in higher frequencies ours leaves out, so the
  // luma limits these (the 4:4:4 test asset: 39.6 and 42.8 dB): measured 34.5–43.0 (replicated,
  // 23.6–35.8), the bench photo 51.6 and 57.0.
  it('both at 1/4 and 1/2 (whole planes): ≥ 34 dB', async () => {
    for (const file of [...ACROSS, ...DOWN]) {
      const jpeg = await jpegFixture(file);
      for (const k of WHOLE) expect((await against(jpeg, k)).db, `${file} at ${k}/8`).toBeGreaterThan(34);
    }
  });

  it('1/8, and planes at most 2 samples wide, stay replicated as libjpeg-turbo’s; edges off the block grid repeat the last sample', async () => {
    for (const file of [...ACROSS, ...DOWN]) expect((await against(await jpegFixture(file), 1)).max, `${file} at 1/8`).toBeLessThanOrEqual(1);
    for (const file of ['tiny-3x3-422.jpg', 'odd-17x9-422.jpg', 'odd-17x9-440.jpg']) {
      const jpeg = await jpegFixture(file);
      for (const k of [1, 2, 3, 4, 5, 6, 7] as const) expect((await against(jpeg, k)).max, `${file} at ${k}/8`).toBe(0);
    }
  });
});
