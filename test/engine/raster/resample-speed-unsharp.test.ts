import { describe, expect, it } from 'vitest';
import { gaussianKernel, unsharpMask } from '../../../src/engine/raster/unsharp';
import type { RGBAImage } from '../../../src/engine/types';
import { firstDifference } from '../../helpers/pixels';
import { random, type Random } from '../composite/kit';

/**
 * Session 16's unsharp mask in one sweep (a ring of rows blurred across, each output row blurred
 * down and sharpened as soon as its rows are in; pmax/pmin clamps; the blurred alpha's reciprocal
 * kept while it repeats) gives the bytes of the two-pass kernel it replaced: every f32 operation of
 * that kernel spelled out below with Math.fround, in its order, on random images of every alpha
 * kind, widths and heights from 1 px, radii whose reach is 1 to 4 pixels, bands joined.
 */

const f = Math.fround;

/** The two-pass kernel (premultiply, blur across, blur down, sharpen) in f32 steps. */
function twoPass(img: RGBAImage, amount: number, radius: number, threshold: number): Uint8ClampedArray {
  const { width, height, data } = img;
  const k = gaussianKernel(radius);
  const r = k.length - 1;
  const inv255 = f(1 / 255);
  const premul = new Float32Array(width * height * 4);
  for (let i = 0; i < width * height; i++) {
    const m = f(data[i * 4 + 3]! * inv255);
    for (let c = 0; c < 3; c++) premul[i * 4 + c] = f(data[i * 4 + c]! * m);
    premul[i * 4 + 3] = data[i * 4 + 3]!;
  }
  const across = new Float32Array(premul.length);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++)
      for (let c = 0; c < 4; c++) {
        const at = (xx: number) => premul[(y * width + Math.min(width - 1, Math.max(0, xx))) * 4 + c]!;
        let acc = f(at(x) * k[0]!);
        for (let t = 1; t <= r; t++) acc = f(acc + f(f(at(x - t) + at(x + t)) * k[t]!));
        across[(y * width + x) * 4 + c] = acc;
      }
  const out = new Uint8ClampedArray(data.length);
  const [amountF, thresholdF] = [f(amount), f(f(threshold) * 255)];
  const byte = (v: number) => Math.min(255, Math.max(0, Math.trunc(f(v + 0.5))));
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      const blur = [0, 1, 2, 3].map((c) => {
        const at = (yy: number) => across[(Math.min(height - 1, Math.max(0, yy)) * width + x) * 4 + c]!;
        let acc = f(at(y) * k[0]!);
        for (let t = 1; t <= r; t++) acc = f(acc + f(f(at(y - t) + at(y + t)) * k[t]!));
        return acc;
      });
      const blurA = blur[3]!;
      if (blurA < f(0.001) || data[i + 3] === 0) {
        out.set(data.subarray(i, i + 4), i);
        continue;
      }
      const scale = f(255 / blurA);
      for (let c = 0; c < 3; c++) {
        const o = data[i + c]!;
        const diff = f(o - f(blur[c]! * scale));
        const sharpened = Math.min(255, Math.max(0, f(o + f(diff * amountF))));
        out[i + c] = byte(Math.abs(diff) >= thresholdF ? sharpened : o);
      }
      out[i + 3] = data[i + 3]!;
    }
  return out;
}

function picture(r: Random, w: number, h: number): RGBAImage {
  const kind = r.pick(['opaque', 'clear', 'mixed', 'varied', 'flat'] as const);
  const data = new Uint8ClampedArray(w * h * 4);
  for (let i = 0; i < w * h; i++) {
    const a = kind === 'opaque' || kind === 'flat' ? 255 : kind === 'clear' ? 0 : kind === 'mixed' ? r.pick([0, 255, 255, 1, 254]) : r.int(256);
    data.set(kind === 'flat' ? [90, 90, r.pick([90, 91, 200]), a] : [r.int(256), r.pick([0, 255, r.int(256)]), r.int(256), a], i * 4);
  }
  return { width: w, height: h, data };
}

describe('unsharpMask in one sweep gives the two-pass kernel’s bytes', () => {
  it('on random images, sizes from 1 px, radii reaching 1–4 px, the default settings and others', async () => {
    const r = random(16);
    for (let run = 0; run < 120; run++) {
      const w = r.pick([1, 2, 3, 4, 5, 1 + r.int(70)]);
      const h = r.pick([1, 2, 3, 5, 1 + r.int(40)]);
      const img = picture(r, w, h);
      const radius = r.pick([0.5, 0.5, 0.3, 0.7, 1, 1.3]);
      const amount = r.pick([1.2, 0.5, 3]);
      const threshold = r.pick([0.05, 0, 0.2]);
      const out = await unsharpMask(img, { amount, radius, threshold });
      expect(firstDifference(out.data, twoPass(img, amount, radius, threshold)), `${w}×${h}, ${amount}, ${radius}, ${threshold}`).toBe(-1);
    }
  });

  it('across bands (an image taller than one band)', async () => {
    const r = random(7);
    const img = picture(r, 1200, 120); // 109 rows a band at 1,200 px
    for (let i = 3; i < img.data.length; i += 4) img.data[i] = i % 97 === 3 ? 0 : 255;
    const out = await unsharpMask(img, { amount: 1.2, radius: 0.5, threshold: 0.05 });
    expect(firstDifference(out.data, twoPass(img, 1.2, 0.5, 0.05))).toBe(-1);
  });
});
