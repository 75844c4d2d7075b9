import { describe, expect, it } from 'vitest';
import { flattenOverWhite, premultiply, unpremultiply } from '../../../src/engine/raster/pixels';
import { withArena, type Arena } from '../../../src/engine/raster/kernels';
import { axisWeights, resample } from '../../../src/engine/raster/resample';
import { gaussianKernel, unsharpMask } from '../../../src/engine/raster/unsharp';
import type { RGBAImage } from '../../../src/engine/types';
import { maxDiff, noiseImage, solidImage } from './helpers';

/** Plain-JS separable resample on premultiplied float pixels: the reference for the WASM one. */
function referenceResample(img: RGBAImage, w: number, h: number, quality: 'high' | 'fast'): Uint8ClampedArray {
  const filter = (src: number, dst: number) =>
    quality === 'high'
      ? { support: 3, at: (x: number) => (Math.abs(x) < 3 ? sinc(x) * sinc(x / 3) : 0) }
      : dst < src
        ? { support: 0.5, at: (x: number) => (x > -0.5 && x <= 0.5 ? 1 : 0) }
        : { support: 1, at: (x: number) => Math.max(0, 1 - Math.abs(x)) };
  const hw = axisWeights(img.width, w, filter(img.width, w));
  const vw = axisWeights(img.height, h, filter(img.height, h));
  const pre = new Float64Array(img.width * img.height * 4);
  for (let i = 0; i < pre.length; i += 4) {
    const a = img.data[i + 3]!;
    for (let c = 0; c < 3; c++) pre[i + c] = (img.data[i + c]! * a) / 255;
    pre[i + 3] = a;
  }
  const tmp = new Float64Array(w * img.height * 4);
  for (let y = 0; y < img.height; y++)
    for (let x = 0; x < w; x++)
      for (let t = 0; t < hw.bounds[2 * x + 1]!; t++)
        for (let c = 0; c < 4; c++) tmp[(y * w + x) * 4 + c]! += pre[(y * img.width + hw.bounds[2 * x]! + t) * 4 + c]! * hw.weights[x * hw.stride + t]!;
  const out = new Uint8ClampedArray(w * h * 4);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const acc = [0, 0, 0, 0];
      for (let t = 0; t < vw.bounds[2 * y + 1]!; t++)
        for (let c = 0; c < 4; c++) acc[c]! += tmp[((vw.bounds[2 * y]! + t) * w + x) * 4 + c]! * vw.weights[y * vw.stride + t]!;
      const a = Math.min(255, Math.max(0, acc[3]!));
      if (a < 0.5) continue;
      for (let c = 0; c < 3; c++) out[(y * w + x) * 4 + c] = Math.round((Math.min(a, Math.max(0, acc[c]!)) * 255) / a);
      out[(y * w + x) * 4 + 3] = Math.round(a);
    }
  return out;
}
const sinc = (x: number) => (x === 0 ? 1 : Math.sin(Math.PI * x) / (Math.PI * x));

describe('resample', () => {
  it('a constant image stays constant, shrinking and enlarging, in both qualities', async () => {
    const img = solidImage(97, 61, [200, 30, 120, 180]);
    for (const quality of ['high', 'fast'] as const) {
      for (const [w, h] of [[10, 7], [33, 20], [250, 170], [97, 5]]) {
        const out = await resample(img, w!, h!, { quality });
        expect(out.width).toBe(w);
        expect(out.height).toBe(h);
        expect(maxDiff(out.data, solidImage(w!, h!, [200, 30, 120, 180]).data)).toBeLessThanOrEqual(1);
      }
    }
  });

  it('matches a plain-JS premultiplied reference within one level', async () => {
    const img = noiseImage(120, 90, 7);
    for (const quality of ['high', 'fast'] as const) {
      for (const [w, h] of [[37, 29], [200, 150], [120, 45]]) {
        const out = await resample(img, w!, h!, { quality });
        expect(maxDiff(out.data, referenceResample(img, w!, h!, quality))).toBeLessThanOrEqual(1);
      }
    }
  });

  it('premultiplied filtering leaves no dark fringe where opaque colour meets transparency', async () => {
    // Left half opaque white, right half transparent black: straight-alpha filtering would give grey.
    const img = solidImage(64, 8, [255, 255, 255, 255]);
    for (let y = 0; y < 8; y++) for (let x = 32; x < 64; x++) img.data.set([0, 0, 0, 0], (y * 64 + x) * 4);
    const out = await resample(img, 20, 4);
    for (let i = 0; i < out.data.length; i += 4) {
      if (out.data[i + 3]! > 0) expect(out.data[i]!).toBeGreaterThanOrEqual(254);
    }
  });

  it('box downscale by an integer factor is the block average', async () => {
    const img = noiseImage(8, 8, 3, 'opaque');
    const out = await resample(img, 2, 2, { quality: 'fast' });
    let sum = 0;
    for (let y = 0; y < 4; y++) for (let x = 0; x < 4; x++) sum += img.data[(y * 8 + x) * 4]!;
    expect(Math.abs(out.data[0]! - sum / 16)).toBeLessThanOrEqual(0.5 + 1e-6);
  });
});

/** An axis's taps written into the arena, as filterRows writes them: the pointers of their bounds (i32) and weights (f32). */
function weightsIn(arena: Arena, weights: ReturnType<typeof axisWeights>): { bounds: number; w: number } {
  const bounds = arena.alloc(weights.bounds.byteLength);
  const w = arena.alloc(weights.weights.byteLength);
  new Int32Array(arena.u8().buffer, bounds, weights.bounds.length).set(weights.bounds);
  arena.f32().set(weights.weights, w >> 2);
  return { bounds, w };
}

describe('horizontal pass on two rows', () => {
  it('resampleRowsH2 gives each row the same floats as resampleRowH (shrinking, enlarging, tails of 1-3 pixels, opaque, varied and mixed alpha)', async () => {
    for (const [srcW, dstW] of [[800, 750], [37, 13], [13, 37], [9, 3], [5, 6], [1, 1], [640, 241]] as const) {
      // Opaque (premultiplied by no multiplication), varied, and mixed alpha.
      for (const alpha of ['opaque', 'varied', 'mixed'] as const) {
        const rows = noiseImage(srcW, 2, 7 + srcW, alpha === 'opaque' ? 'opaque' : 'varied');
        if (alpha === 'mixed') for (let i = 3; i < rows.data.length; i += 12) rows.data[i] = 255;
        const weights = axisWeights(srcW, dstW, { support: 3, at: (x) => (Math.abs(x) < 3 ? sinc(x) * sinc(x / 3) : 0) });
        const [one, two] = await withArena((k, arena) => {
          const src = arena.alloc(srcW * 8);
          const scratch = arena.alloc(srcW * 32);
          const out = arena.alloc(dstW * 64);
          const { bounds, w } = weightsIn(arena, weights);
          arena.u8().set(rows.data, src);
          k.resampleRowH(src, srcW, scratch, out, dstW, bounds, w, weights.stride);
          k.resampleRowH(src + srcW * 4, srcW, scratch, out + dstW * 16, dstW, bounds, w, weights.stride);
          k.resampleRowsH2(src, src + srcW * 4, srcW, scratch, out + dstW * 32, out + dstW * 48, dstW, bounds, w, weights.stride);
          const f = arena.f32();
          return [f.slice(out >> 2, (out >> 2) + dstW * 8), f.slice((out >> 2) + dstW * 8, (out >> 2) + dstW * 16)];
        });
        expect(two, `${srcW} -> ${dstW}, ${alpha}`).toEqual(one);
      }
    }
  });
});

describe('horizontal pass on four rows', () => {
  it('resampleRowsH4 gives each row the same floats as resampleRowH (shrinking, enlarging, an odd last pixel, opaque and varied alpha)', async () => {
    for (const [srcW, dstW] of [[800, 750], [37, 13], [13, 37], [9, 3], [5, 6], [1, 1], [640, 241], [775, 413]] as const) {
      for (const alpha of ['opaque', 'varied'] as const) {
        const rows = noiseImage(srcW, 4, 11 + srcW, alpha);
        const weights = axisWeights(srcW, dstW, { support: 3, at: (x) => (Math.abs(x) < 3 ? sinc(x) * sinc(x / 3) : 0) });
        const [one, four] = await withArena((k, arena) => {
          const src = arena.alloc(srcW * 16);
          const scratch = arena.alloc(srcW * 64);
          const out = arena.alloc(dstW * 128);
          const { bounds, w } = weightsIn(arena, weights);
          arena.u8().set(rows.data, src);
          for (let r = 0; r < 4; r++) k.resampleRowH(src + r * srcW * 4, srcW, scratch, out + r * dstW * 16, dstW, bounds, w, weights.stride);
          const at = (r: number) => out + (4 + r) * dstW * 16;
          k.resampleRowsH4(src, srcW * 4, srcW, scratch, at(0), at(1), at(2), at(3), dstW, bounds, w, weights.stride);
          const f = arena.f32();
          return [f.slice(out >> 2, (out >> 2) + dstW * 16), f.slice((out >> 2) + dstW * 16, (out >> 2) + dstW * 32)];
        });
        expect(four, `${srcW} -> ${dstW}, ${alpha}`).toEqual(one);
      }
    }
  });
});

describe('unsharp mask', () => {
  it('amount 0 is the identity', async () => {
    const img = noiseImage(50, 40, 9);
    const out = await unsharpMask(img, { amount: 0, radius: 2, threshold: 0 });
    expect(out.data).toEqual(img.data);
  });

  it('leaves flat regions and alpha untouched and sharpens an edge', async () => {
    const img = solidImage(40, 30, [100, 100, 100, 255]);
    for (let y = 0; y < 30; y++) for (let x = 20; x < 40; x++) img.data.set([200, 200, 200, 128], (y * 40 + x) * 4);
    const out = await unsharpMask(img, { amount: 1.2, radius: 1, threshold: 0 });
    const px = (x: number, y: number) => Array.from(out.data.subarray((y * 40 + x) * 4, (y * 40 + x) * 4 + 4));
    expect(px(2, 15)).toEqual([100, 100, 100, 255]);
    expect(px(37, 15)).toEqual([200, 200, 200, 128]);
    expect(px(19, 15)[0]).toBeLessThan(100); // darker side of the edge gets darker
    expect(px(20, 15)[0]).toBeGreaterThan(200);
    for (let i = 3; i < out.data.length; i += 4) expect(out.data[i]).toBe(img.data[i]);
  });

  it('a threshold above the edge contrast leaves the image unchanged', async () => {
    const img = solidImage(30, 10, [100, 100, 100, 255]);
    for (let y = 0; y < 10; y++) for (let x = 15; x < 30; x++) img.data.set([110, 110, 110, 255], (y * 30 + x) * 4);
    const untouched = await unsharpMask(img, { amount: 2, radius: 1, threshold: 0.05 }); // 12.75 levels > 10
    expect(untouched.data).toEqual(img.data);
    const sharpened = await unsharpMask(img, { amount: 2, radius: 1, threshold: 0.01 });
    expect(maxDiff(sharpened.data, img.data)).toBeGreaterThan(0);
  });

  // Odd width: the kernel's two-pixel steps end on a single pixel. Radius 0.5 is the default.
  it.each([1.5, 0.5])('matches a plain-JS reference on an opaque image (bands join seamlessly), radius %s', async (radius) => {
    const img = noiseImage(301, 200, 5, 'opaque');
    const params = { amount: 1.2, radius, threshold: 0.05 };
    const out = await unsharpMask(img, params);
    const k = gaussianKernel(params.radius);
    const r = k.length - 1;
    const { width, height, data } = img;
    const at = (x: number, y: number, c: number) => data[(Math.min(height - 1, Math.max(0, y)) * width + Math.min(width - 1, Math.max(0, x))) * 4 + c]!;
    let worst = 0;
    for (let y = 0; y < height; y += 7)
      for (let x = 0; x < width; x += 3)
        for (let c = 0; c < 3; c++) {
          let blur = 0;
          for (let j = -r; j <= r; j++) {
            let row = 0;
            for (let i = -r; i <= r; i++) row += at(x + i, y + j, c) * k[Math.abs(i)]!;
            blur += row * k[Math.abs(j)]!;
          }
          const o = at(x, y, c);
          const d = o - blur;
          const expected = Math.abs(d) >= params.threshold * 255 ? Math.min(255, Math.max(0, Math.round(o + params.amount * d))) : o;
          worst = Math.max(worst, Math.abs(out.data[(y * width + x) * 4 + c]! - expected));
        }
    expect(worst).toBeLessThanOrEqual(1);
  });
});

describe('pixel conversions', () => {
  it('flatten over white composites exactly and makes every pixel opaque', async () => {
    const img = noiseImage(33, 17, 11);
    const expected = new Uint8ClampedArray(img.data.length);
    for (let i = 0; i < img.data.length; i += 4) {
      const a = img.data[i + 3]!;
      for (let c = 0; c < 3; c++) expected[i + c] = Math.round((img.data[i + c]! * a + 255 * (255 - a)) / 255);
      expected[i + 3] = 255;
    }
    await flattenOverWhite(img.data);
    expect(img.data).toEqual(expected);
  });

  it('premultiply is exact; unpremultiply inverts it within rounding', async () => {
    const img = noiseImage(600, 500, 13); // > one streaming chunk
    const original = new Uint8ClampedArray(img.data);
    await premultiply(img.data);
    for (let i = 0; i < 4000; i += 4) {
      const a = original[i + 3]!;
      for (let c = 0; c < 3; c++) expect(img.data[i + c]).toBe(Math.round((original[i + c]! * a) / 255));
    }
    await unpremultiply(img.data);
    let violations = 0;
    for (let i = 0; i < img.data.length; i += 4) {
      const a = original[i + 3]!;
      const ok = a === 0 ? img.data[i] === 0 : Math.abs(img.data[i]! - original[i]!) <= Math.ceil(255 / a / 2) + 1;
      if (!ok) violations++;
    }
    expect(violations).toBe(0);
  });
});
