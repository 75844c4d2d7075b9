import { describe, expect, it } from 'vitest';
import { withArena } from '../../../src/engine/raster/kernels';
import { resampleWithTaps, type AxisWeights } from '../../../src/engine/raster/resample';
import type { RGBAImage } from '../../../src/engine/types';
import { firstDifference } from '../../helpers/pixels';
import { random, type Random } from '../composite/kit';
import { randomPicture, randomSize, randomTaps } from './random-resample';

/**
 * Session 12's resample paths on random pictures and taps: the horizontal pass filtering two and
 * four source rows at a time into the ring (resampleRowsH2/H4, 319cb73, 6483cf3) gives the bytes of
 * the one-row pass (resampleRowH) over every row, and chainedTaps without the weights exactly 0 at
 * the ends of each run (3666f89) gives the bytes of the same taps with those zeros put back.
 * Sizes from 1 px, heights that leave 1–3 rows for the tail, enlarging and shrinking, opaque,
 * transparent and mixed alpha, placements at whole and fractional offsets and chains of resizes.
 */

/** `img` through taps h and v with the one-row horizontal pass only, every source row kept (the reference). */
function oneRowAtATime(img: RGBAImage, h: AxisWeights, v: AxisWeights): Promise<RGBAImage> {
  const outWidth = h.bounds.length >> 1;
  const outHeight = v.bounds.length >> 1;
  const out = new Uint8ClampedArray(outWidth * outHeight * 4);
  return withArena((k, arena) => {
    const srcRow = arena.alloc(img.width * 4);
    const scratch = arena.alloc(img.width * 16);
    const ring = arena.alloc(img.height * outWidth * 16);
    const hBounds = arena.alloc(h.bounds.byteLength);
    const hWeights = arena.alloc(h.weights.byteLength);
    const vWeights = arena.alloc(v.weights.byteLength);
    const outRow = arena.alloc(outWidth * 4);
    const u8 = arena.u8();
    new Int32Array(u8.buffer, hBounds, h.bounds.length).set(h.bounds);
    arena.f32().set(h.weights, hWeights >> 2);
    arena.f32().set(v.weights, vWeights >> 2);
    for (let y = 0; y < img.height; y++) {
      u8.set(img.data.subarray(y * img.width * 4, (y + 1) * img.width * 4), srcRow);
      k.resampleRowH(srcRow, img.width, scratch, ring + y * outWidth * 16, outWidth, hBounds, hWeights, h.stride);
    }
    for (let y = 0; y < outHeight; y++) {
      k.resampleRowV(ring, img.height, outWidth, v.bounds[2 * y]!, v.bounds[2 * y + 1]!, vWeights + y * v.stride * 4, outRow);
      out.set(arena.u8().subarray(outRow, outRow + outWidth * 4), y * outWidth * 4);
    }
    return { width: outWidth, height: outHeight, data: out };
  });
}

const picture = (r: Random, w: number, h: number) => randomPicture(r, w, h, ['opaque', 'clear', 'mixed', 'varied', 'edges']);
const size = randomSize;
const taps = (r: Random, src: number, dst: number) => randomTaps(r, src, dst, 0.4, ['high', 'fast']);

/**
 * `t` with zero weights put back at each run's ends (the same number on every run, as many as fit
 * in the source, so that the runs' firsts still do not go down, as filterRows' ring needs): the
 * taps before 3666f89's trim.
 */
function padded(r: Random, t: AxisWeights, src: number): AxisWeights {
  const n = t.bounds.length >> 1;
  const [lead, trail] = [r.int(3), r.int(3)];
  const stride = t.stride + lead + trail;
  const bounds = new Int32Array(n * 2);
  const weights = new Float32Array(n * stride);
  for (let i = 0; i < n; i++) {
    const first = t.bounds[2 * i]!;
    const count = t.bounds[2 * i + 1]!;
    const before = Math.min(first, lead);
    const after = Math.min(src - first - count, trail);
    bounds[2 * i] = first - before;
    bounds[2 * i + 1] = before + count + after;
    weights.set(t.weights.subarray(i * t.stride, i * t.stride + count), i * stride + before);
  }
  return { bounds, weights, stride };
}

const CASES = 300;

describe('session 12 resample paths on random pictures and taps', () => {
  it(`the two- and four-row horizontal pass gives the one-row pass's bytes (${CASES} cases)`, async () => {
    for (let seed = 1; seed <= CASES; seed++) {
      const r = random(12_500 + seed);
      const [sw, sh] = [size(r, 300), size(r, 40)];
      const [dw, dh] = [size(r, 300), size(r, 40)];
      const img = picture(r, sw, sh);
      const h = taps(r, sw, dw);
      const v = taps(r, sh, dh);
      const what = `seed ${12_500 + seed}: ${sw}x${sh} -> ${dw}x${dh}`;
      let got: RGBAImage;
      try {
        got = await resampleWithTaps(img, h, v);
      } catch (e) {
        throw new Error(`${what} threw ${(e as Error)?.message}`, { cause: e });
      }
      const expected = await oneRowAtATime(img, h, v);
      expect([got.width, got.height], what).toEqual([dw, dh]);
      expect(firstDifference(got.data, expected.data), what).toBe(-1);
    }
  });

  it(`chainedTaps' trimmed zeros change no byte (${CASES} cases)`, async () => {
    let trimmedRuns = 0;
    for (let seed = 1; seed <= CASES; seed++) {
      const r = random(13_500 + seed);
      const [sw, sh] = [size(r, 200), size(r, 30)];
      const [dw, dh] = [size(r, 200), size(r, 30)];
      const img = picture(r, sw, sh);
      const h = taps(r, sw, dw);
      const v = taps(r, sh, dh);
      for (let i = 0; i < h.bounds.length >> 1; i++) if (h.bounds[2 * i + 1]! < h.stride) trimmedRuns++;
      const what = `seed ${13_500 + seed}: ${sw}x${sh} -> ${dw}x${dh}`;
      const got = await resampleWithTaps(img, h, v);
      const zeros = await resampleWithTaps(img, padded(r, h, sw), padded(r, v, sh));
      expect(firstDifference(got.data, zeros.data), what).toBe(-1);
    }
    expect(trimmedRuns).toBeGreaterThan(0);
  });

  it('the taps filterRows is given keep its ring valid: runs inside the source, firsts and ends never going down (2,000 random resizes and placements)', () => {
    for (let seed = 1; seed <= 2000; seed++) {
      const r = random(14_500 + seed);
      const src = size(r, 400);
      const dst = size(r, 400);
      const t = taps(r, src, dst);
      let [first, end] = [0, 0];
      for (let i = 0; i < t.bounds.length >> 1; i++) {
        const f = t.bounds[2 * i]!;
        const c = t.bounds[2 * i + 1]!;
        const what = `seed ${14_500 + seed}: ${src} -> ${dst}, run ${i} (${f}, ${c}) after (${first}, ${end})`;
        expect(f >= 0 && c >= 1 && f + c <= src && c <= t.stride, what).toBe(true);
        expect(f >= first && f + c >= end, what).toBe(true);
        [first, end] = [f, f + c];
      }
    }
  });
});
