import { describe, expect, it } from 'vitest';
import { encodeJpeg } from '../../../src/engine/raster/codecs';
import { decodeJpegScaled, decodeJpegScaledThrough, type JpegScale } from '../../../src/engine/raster/jpeg-decode';
import { withArena } from '../../../src/engine/raster/kernels';
import { pushedRows, resampleWithTaps, tapSpan, type AxisWeights } from '../../../src/engine/raster/resample';
import type { RGBAImage } from '../../../src/engine/types';
import { firstDifference } from '../../helpers/pixels';
import { testAsset } from '../../helpers/fixtures';
import { random, type Random } from '../composite/kit';
import { jpegFixture, noiseImage } from './helpers';
import { randomPicture, randomSize, randomTaps } from './random-resample';

// A picture resampled as it is decoded (decodeJpegScaledThrough through pushedRows: the decoder's
// MCU rows filtered across as they are made, each output row down once its rows are) gives the
// bytes of resampleWithTaps on decodeJpegScaled's picture, at every scale it takes (3/8, 5/8–7/8),
// every sampling (4:4:0's rows converted an MCU row late), restarts, sizes off the grid, windows
// (the placement's: the rows and columns its taps read), and the taps of resizes and placements.

const SCALES = [3, 5, 6, 7] as const;

/** Random taps for a picture of w × h, cut to random output rows and columns (a placement's, reading part of it). */
function tapsFor(r: Random, w: number, h: number): { h: AxisWeights; v: AxisWeights } {
  const cut = (t: AxisWeights): AxisWeights => {
    const n = t.bounds.length >> 1;
    const from = r.chance(0.5) ? 0 : r.int(n);
    const count = 1 + r.int(n - from);
    return { bounds: t.bounds.slice(2 * from, 2 * (from + count)), weights: t.weights.slice(from * t.stride, (from + count) * t.stride), stride: t.stride };
  };
  return { h: cut(randomTaps(r, w, randomSize(r, Math.max(2, w)), 0.5, ['high', 'high', 'fast'])), v: cut(randomTaps(r, h, randomSize(r, Math.max(2, h)), 0.5, ['high', 'high', 'fast'])) };
}

/** The pixels `taps` read of a picture (its window, as placementWindow gives it). */
const readBy = (taps: { h: AxisWeights; v: AxisWeights }) => {
  const columns = tapSpan(taps.h, 0, taps.h.bounds.length >> 1);
  const rows = tapSpan(taps.v, 0, taps.v.bounds.length >> 1);
  return { left: columns.first, top: rows.first, right: columns.end, bottom: rows.end };
};

async function check(name: string, jpeg: Uint8Array, r: Random, rounds: number): Promise<number> {
  let checked = 0;
  for (const scale of SCALES) {
    const whole = await decodeJpegScaled(jpeg, scale);
    if (!whole) return checked; // a coding left to mozjpeg
    for (let i = 0; i < rounds; i++) {
      const taps = tapsFor(r, whole.width, whole.height);
      const window = readBy(taps);
      const picture = (await decodeJpegScaled(jpeg, scale, undefined, window))!;
      const expected = await resampleWithTaps(picture, taps.h, taps.v);
      const into = r.chance(0.5) ? new Uint8ClampedArray(expected.data.length + 8).fill(77) : undefined;
      const got = await decodeJpegScaledThrough(jpeg, scale, pushedRows(taps.h, taps.v, into), window, whole);
      expect(got, `${name} at ${scale}/8`).not.toBeNull();
      expect(got!.width).toBe(expected.width);
      expect(got!.height).toBe(expected.height);
      if (into) expect(got!.data.buffer).toBe(into.buffer);
      expect(firstDifference(got!.data, expected.data), `${name} at ${scale}/8, round ${i}: ${expected.width}×${expected.height} from ${JSON.stringify(window)}`).toBe(-1);
      checked++;
    }
  }
  return checked;
}

describe('decodeJpegScaledThrough', () => {
  it('test assets (4:2:0 with restarts, 4:2:2, 4:4:4, grey with restarts): resampleWithTaps’ bytes on the decode', async () => {
    const r = random(31);
    for (const file of ['photo-420-restart.jpg', 'photo-422.jpg', 'photo-444.jpg', 'grey-restart.jpg']) {
      expect(await check(file, await testAsset(`jpeg/${file}`), r, 4), file).toBeGreaterThan(0);
    }
  });

  it('fixtures off the block grid, 4:4:0, mixed sampling, restarts, RGB, tiny: the same', async () => {
    const r = random(32);
    for (const file of [
      'odd-17x9-420.jpg', 'odd-17x9-422.jpg', 'odd-17x9-440.jpg', 'odd-17x9-444.jpg', 'odd-33x17-420-optimized.jpg',
      'photo-203x141-420-restart3.jpg', 'photo-203x141-422-q10.jpg', 'photo-203x141-440-q10.jpg', 'photo-203x141-444-restart-row.jpg',
      'photo-203x141-grey.jpg', 'photo-203x141-mixed-h2v1.jpg', 'photo-203x141-mixed-restart.jpg', 'photo-203x141-rgb.jpg',
      'tiny-1x1-420.jpg', 'tiny-3x3-422.jpg', 'tiny-5x4-420.jpg',
    ]) {
      expect(await check(file, await jpegFixture(file), r, 3), file).toBeGreaterThan(0);
    }
  });

  it('noise in 4:4:4 and 4:2:0 from our encoder: the same', async () => {
    const r = random(33);
    for (const subsampling of [1, 2] as const) {
      const jpeg = await encodeJpeg(noiseImage(211, 157, 5 + subsampling, 'opaque'), 85, { subsampling });
      expect(await check(`noise ${subsampling}`, jpeg, r, 6)).toBeGreaterThan(0);
    }
  });

  it('answers null for the scales decoded in whole planes, a progressive JPEG, and a frame of another size', async () => {
    const jpeg = await testAsset('jpeg/photo-422.jpg');
    const whole = (await decodeJpegScaled(jpeg, 6))!;
    const taps = tapsFor(random(34), whole.width, whole.height);
    for (const scale of [1, 2, 4] as Exclude<JpegScale, 8>[]) expect(await decodeJpegScaledThrough(jpeg, scale, pushedRows(taps.h, taps.v))).toBeNull();
    expect(await decodeJpegScaledThrough(await testAsset('jpeg/photo-progressive.jpg'), 6, pushedRows(taps.h, taps.v))).toBeNull();
    expect(await decodeJpegScaledThrough(jpeg, 6, pushedRows(taps.h, taps.v), undefined, { width: whole.width + 1, height: whole.height })).toBeNull();
  });
});

describe('pushedRows', () => {
  /** `img` pushed through `taps` in runs of `run` rows (runs at multiples of it, the first from `from`), each run's rows written over garbage. */
  const pushed = (img: RGBAImage, taps: { h: AxisWeights; v: AxisWeights }, run: number, from: number, to: number) =>
    withArena((k, arena) => {
      const rows = pushedRows(taps.h, taps.v);
      rows.alloc(k, arena, img.width * 4, run);
      rows.start();
      const u8 = new Uint8Array(k.memory.buffer);
      for (let y = from; y < to; ) {
        const end = Math.min(to, (Math.floor(y / run) + 1) * run);
        const at = rows.rowsAt(y);
        u8.fill(0xa5, at, at + (end - y) * img.width * 4);
        u8.set(img.data.subarray(y * img.width * 4, end * img.width * 4), at);
        rows.push(y, end);
        y = end;
      }
      return rows.finish();
    });

  it('gives resampleWithTaps’ bytes whatever the runs (1–16 rows, from any row at or before those read), every alpha kind', async () => {
    const r = random(35);
    for (let round = 0; round < 120; round++) {
      const [w, hgt] = [randomSize(r, 60), randomSize(r, 60)];
      const img = randomPicture(r, w, hgt, ['opaque', 'opaque', 'clear', 'mixed', 'varied', 'edges']);
      const taps = tapsFor(r, w, hgt);
      const expected = await resampleWithTaps(img, taps.h, taps.v);
      const first = readBy(taps).top;
      const run = 1 + r.int(16);
      const from = r.chance(0.5) ? first : r.int(first + 1);
      const got = await pushed(img, taps, run, from, hgt);
      expect(firstDifference(got.data, expected.data), `${w}×${hgt} → ${expected.width}×${expected.height} in runs of ${run} from ${from}`).toBe(-1);
    }
  });

  it('refuses rows that skip some, and ends short of rows never pushed', async () => {
    const r = random(36);
    const img = randomPicture(r, 40, 40, ['opaque']);
    const taps = tapsFor(r, 40, 40);
    const { top, bottom } = readBy({ h: taps.h, v: { ...taps.v, bounds: taps.v.bounds } });
    if (top > 0) await expect(pushed(img, taps, 4, top + 1, 40)).rejects.toThrow(RangeError);
    await expect(pushed(img, taps, 4, 0, bottom - 1)).rejects.toThrow(RangeError);
  });
});
