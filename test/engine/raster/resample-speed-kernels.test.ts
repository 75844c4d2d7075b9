import { describe, expect, it } from 'vitest';
import { resampleTaps, resampleWithTaps, type AxisWeights } from '../../../src/engine/raster/resample';
import type { RGBAImage } from '../../../src/engine/types';
import { firstDifference } from '../../helpers/pixels';
import { random, type Random } from '../composite/kit';
import { randomPicture, randomSize, randomTaps } from './random-resample';

/**
 * Session 16's resample kernels (the horizontal pass one output pixel at a time over four rows,
 * four opaque pixels at a time only converted; the vertical pass unpremultiplying four pixels at
 * once with pmax/pmin clamps, one vector division, floor-and-bias rounding and one store) give
 * the bytes of the kernels before them: every f32 operation of those spelled out below with
 * Math.fround, in its order, on random pictures of every alpha kind and random taps (resizes and
 * placements through chains of resizes), sizes from 1 px and tails of 1–3 pixels and rows.
 */

const f = Math.fround;

/** Session 15's resample in f32 steps: premultiply, taps across, taps down, unpremultiply, round. */
function beforeKernels(img: RGBAImage, h: AxisWeights, v: AxisWeights): Uint8ClampedArray {
  const outW = h.bounds.length >> 1;
  const outH = v.bounds.length >> 1;
  const inv255 = f(1 / 255);
  const premul = new Float32Array(img.width * img.height * 4);
  for (let i = 0; i < img.width * img.height; i++) {
    const m = f(img.data[i * 4 + 3]! * inv255);
    for (let c = 0; c < 3; c++) premul[i * 4 + c] = f(img.data[i * 4 + c]! * m);
    premul[i * 4 + 3] = img.data[i * 4 + 3]!;
  }
  const across = new Float32Array(outW * img.height * 4);
  for (let y = 0; y < img.height; y++)
    for (let x = 0; x < outW; x++)
      for (let c = 0; c < 4; c++) {
        let acc = 0;
        for (let t = 0; t < h.bounds[2 * x + 1]!; t++) acc = f(acc + f(premul[(y * img.width + h.bounds[2 * x]! + t) * 4 + c]! * h.weights[x * h.stride + t]!));
        across[(y * outW + x) * 4 + c] = acc;
      }
  const out = new Uint8ClampedArray(outW * outH * 4);
  const byte = (x: number) => (Number.isNaN(x) ? 0 : Math.min(255, Math.max(0, Math.trunc(f(x + 0.5)))));
  for (let y = 0; y < outH; y++)
    for (let x = 0; x < outW; x++) {
      const acc = [0, 1, 2, 3].map((c) => {
        let sum = 0;
        for (let t = 0; t < v.bounds[2 * y + 1]!; t++) sum = f(sum + f(across[((v.bounds[2 * y]! + t) * outW + x) * 4 + c]! * v.weights[y * v.stride + t]!));
        return sum;
      });
      const a = Math.min(Math.max(acc[3]!, 0), 255);
      if (a < 0.5) continue;
      const scale = f(255 / a);
      for (let c = 0; c < 3; c++) out[(y * outW + x) * 4 + c] = byte(f(Math.min(Math.max(acc[c]!, 0), a) * scale));
      out[(y * outW + x) * 4 + 3] = byte(a);
    }
  return out;
}

const picture = (r: Random, w: number, h: number) => randomPicture(r, w, h, ['opaque', 'opaque', 'clear', 'mixed', 'varied', 'edges']);
const size = randomSize;
const taps = (r: Random, src: number, dst: number) => randomTaps(r, src, dst, 0.5, ['high', 'high', 'fast']);

describe('resample kernels give the bytes of the kernels before them', () => {
  it('on random pictures and taps, shrinking and enlarging, every alpha kind', async () => {
    const r = random(1616);
    for (let run = 0; run < 150; run++) {
      const [sw, sh, dw, dh] = [size(r, 60), size(r, 40), size(r, 60), size(r, 40)];
      const img = picture(r, sw, sh);
      const h = taps(r, sw, dw);
      const v = taps(r, sh, dh);
      const out = await resampleWithTaps(img, h, v);
      expect(firstDifference(out.data, beforeKernels(img, h, v)), `${sw}×${sh} → ${dw}×${dh}`).toBe(-1);
    }
  });

  it('an opaque photo-like picture at the frame and placement scales of the bench (1.2, 1.04)', async () => {
    const r = random(3);
    for (const [sw, sh, dw, dh] of [[240, 154, 200, 128], [250, 188, 240, 154]] as const) {
      const img = picture(r, sw, sh);
      for (let i = 0; i < sw * sh; i++) img.data[i * 4 + 3] = 255;
      const h = resampleTaps(sw, dw);
      const v = resampleTaps(sh, dh);
      expect(firstDifference((await resampleWithTaps(img, h, v)).data, beforeKernels(img, h, v))).toBe(-1);
    }
  });
});
