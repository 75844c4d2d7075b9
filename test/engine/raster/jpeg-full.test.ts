import { describe, expect, it } from 'vitest';
import { decodeBounded } from '../../../src/engine/raster/bounded';
import { decodeJpegMozjpeg, encodeJpeg, encodeJpegMozjpeg } from '../../../src/engine/raster/codecs';
import { decodeJpegFull } from '../../../src/engine/raster/jpeg-decode';
import type { RGBAImage } from '../../../src/engine/types';
import { testAsset } from '../../helpers/fixtures';
import { jpegFixture } from './helpers';

// Our full-size baseline decode (libjpeg's integer IDCT, fancy upsampling and colour tables,
// wasm/assembly/jpeg-idct.ts) must give mozjpeg's bytes exactly: decodeImage uses it before
// mozjpeg (decodeJpegMozjpeg), and no rendered output may move. Files: test/fixtures/jpeg (cjpeg, README.md),
// test/assets/jpeg, and pictures coded here by mozjpeg and by our own encoder.

const FIXTURES = [
  'tiny-1x1-420.jpg', 'tiny-3x3-420.jpg', 'tiny-3x3-422.jpg', 'tiny-5x4-420.jpg',
  'odd-17x9-420.jpg', 'odd-17x9-422.jpg', 'odd-17x9-440.jpg', 'odd-17x9-444.jpg', 'odd-33x17-420-optimized.jpg',
  'photo-203x141-420-q1.jpg', 'photo-203x141-420-q10.jpg', 'photo-203x141-422-q10.jpg', 'photo-203x141-440-q10.jpg', 'photo-203x141-444-q10.jpg',
  'photo-64x64-420-q100.jpg', 'photo-64x64-422-q100.jpg', 'photo-64x64-440-q100.jpg', 'photo-64x64-444-q100.jpg',
  'photo-203x141-420-restart3.jpg', 'photo-203x141-444-restart-row.jpg', 'photo-203x141-grey.jpg', 'photo-203x141-rgb.jpg',
  'photo-203x141-mixed-h2v1.jpg', 'photo-203x141-mixed-restart.jpg',
];
const ASSETS = ['photo-444.jpg', 'photo-422.jpg', 'photo-420-restart.jpg', 'grey-restart.jpg'];

/** Index of the first differing byte, or -1 (a 48 MB picture compared without 48 M expect calls). */
function firstDifference(a: RGBAImage, b: RGBAImage): number {
  if (a.width !== b.width || a.height !== b.height) return 0;
  for (let i = 0; i < a.data.length; i++) if (a.data[i] !== b.data[i]) return i;
  return -1;
}

async function expectMozjpegBytes(jpeg: Uint8Array, label: string): Promise<void> {
  const ref = await decodeJpegMozjpeg(jpeg);
  const ours = await decodeJpegFull(jpeg);
  expect(ours, label).not.toBeNull();
  const at = firstDifference(ours!, ref);
  expect(at, `${label}: first byte that differs (pixel ${at >> 2} of ${ref.width}×${ref.height})`).toBe(-1);
  // And through the loader's full-size branch (no size asked: the picture as it is).
  const bounded = await decodeBounded(jpeg, { path: label });
  expect(firstDifference(bounded, ref), `${label} via decodeBounded`).toBe(-1);
}

/** The bench photo's picture (scripts/make-bench-templates.mjs): sine, ramp and cosine fields. */
function benchPicture(w: number, h: number): RGBAImage {
  const k = w / 1600;
  const data = new Uint8ClampedArray(w * h * 4);
  for (let y = 0, i = 0; y < h; y++) {
    for (let x = 0; x < w; x++, i += 4) {
      data[i] = 128 + 100 * Math.sin(x / (60 * k));
      data[i + 1] = (x + y) / (12 * k);
      data[i + 2] = 200 * Math.abs(Math.cos(y / (90 * k)));
      data[i + 3] = 255;
    }
  }
  return { width: w, height: h, data };
}

/** Noise over colour fields with sharp patches: every coefficient busy, chroma edges everywhere. */
function busyPicture(w: number, h: number): RGBAImage {
  const data = new Uint8ClampedArray(w * h * 4);
  let s = 12345;
  for (let y = 0, i = 0; y < h; y++) {
    for (let x = 0; x < w; x++, i += 4) {
      s ^= s << 13; s ^= s >>> 17; s ^= s << 5;
      const patch = ((x >> 5) + (y >> 4)) % 7 === 0;
      data[i] = patch ? 230 : 128 + 100 * Math.sin(x / 7) + (s & 31) - 16;
      data[i + 1] = patch ? 20 : (x * 3 + y * 2) & 255;
      data[i + 2] = patch ? 30 : ((x / 13 + y / 11) | 0) % 3 ? 200 * Math.abs(Math.cos(y / 9)) : 240;
      data[i + 3] = 255;
    }
  }
  return { width: w, height: h, data };
}

describe('full-size JPEG decoding gives mozjpeg’s bytes', () => {
  it('cjpeg files: 4:2:0, 4:2:2, 4:4:0, 4:4:4, mixed factors, grey, RGB, restarts, q10–q100, 1×1 to 203×141', async () => {
    for (const name of FIXTURES) await expectMozjpegBytes(await jpegFixture(name), name);
    for (const name of ASSETS) await expectMozjpegBytes(await testAsset(`jpeg/${name}`), name);
  });

  it('three components as libjpeg reads their colour space: JFIF first, then the Adobe transform, then the ids', async () => {
    const jpeg = await jpegFixture('photo-203x141-444-q10.jpg'); // JFIF, components 1, 2, 3
    const adobe = (transform: number) => new Uint8Array([0xff, 0xee, 0, 14, 0x41, 0x64, 0x6f, 0x62, 0x65, 0, 100, 0, 0, 0, 0, transform]);
    const withSegment = (file: Uint8Array, segment: Uint8Array) => new Uint8Array([...file.subarray(0, 2), ...segment, ...file.subarray(2)]);
    const noJfif = new Uint8Array([...jpeg.subarray(0, 2), ...jpeg.subarray(4 + ((jpeg[4]! << 8) | jpeg[5]!))]);
    await expectMozjpegBytes(withSegment(jpeg, adobe(0)), 'JFIF and Adobe transform 0 (YCbCr)');
    await expectMozjpegBytes(withSegment(noJfif, adobe(0)), 'Adobe transform 0 alone (RGB)');
    await expectMozjpegBytes(withSegment(noJfif, adobe(1)), 'Adobe transform 1');
    await expectMozjpegBytes(withSegment(noJfif, adobe(2)), 'Adobe transform 2 (unknown: YCbCr)');
    await expectMozjpegBytes(noJfif, 'no JFIF, no Adobe, ids 1 2 3');
  });

  it('mozjpeg’s and our encoder’s files, 1601×1199 (off the MCU grid) and the bench photo', async () => {
    const busy = busyPicture(1601, 1199);
    await expectMozjpegBytes(await encodeJpegMozjpeg(busy, 75), 'mozjpeg q75 4:2:0 1601×1199');
    await expectMozjpegBytes(await encodeJpegMozjpeg(busy, 95), 'mozjpeg q95 4:4:4 1601×1199');
    await expectMozjpegBytes(await encodeJpeg(busy, 10), 'ours q10 4:2:0 1601×1199');
    await expectMozjpegBytes(await encodeJpeg(busy, 100), 'ours q100 4:4:4 1601×1199');
    const bench = await encodeJpegMozjpeg(benchPicture(1600, 1200), 85);
    await expectMozjpegBytes(bench, 'bench photo 1600×1200 q85');
  }, 60_000);

  it('a 12 MP phone-sized photo', async () => {
    await expectMozjpegBytes(await encodeJpeg(benchPicture(4000, 3000), 85), '12 MP 4000×3000 q85');
  }, 120_000);

  it('damaged files: decodeBounded gives mozjpeg’s picture (ours, or mozjpeg’s own when the data runs short)', async () => {
    for (const name of ['photo-203x141-420-restart3.jpg', 'photo-203x141-444-restart-row.jpg', 'photo-203x141-mixed-h2v1.jpg']) {
      const whole = await jpegFixture(name);
      const flipped = whole.slice();
      flipped[whole.length >> 1]! ^= 0x10;
      const flippedLate = whole.slice();
      flippedLate[Math.floor(whole.length * 0.7)]! ^= 0x01;
      const cases = { truncated: whole.slice(0, Math.floor(whole.length * 0.6)), 'without EOI': whole.slice(0, -2), flipped, flippedLate };
      for (const [damage, jpeg] of Object.entries(cases)) {
        const bounded = await decodeBounded(jpeg, { path: name });
        expect(firstDifference(bounded, await decodeJpegMozjpeg(jpeg)), `${name} ${damage}`).toBe(-1);
      }
      // Data that runs short is left to mozjpeg (libjpeg leaves the rest of the segment grey).
      expect(await decodeJpegFull(cases.truncated), `${name} truncated`).toBeNull();
    }
  });

  it('leaves progressive files to mozjpeg (null), and decodeBounded then decodes them with it', async () => {
    const progressive = await testAsset('jpeg/photo-progressive.jpg');
    expect(await decodeJpegFull(progressive)).toBeNull();
    expect(firstDifference(await decodeBounded(progressive), await decodeJpegMozjpeg(progressive))).toBe(-1);
  });
});
