import { describe, expect, it } from 'vitest';
import { placeImage, placementWindow, type ResizeMode } from '../../../src/engine/personalise/image';
import { decodeBounded, dropLentPictures, idlePictureBytes } from '../../../src/engine/raster/bounded';
import { encodeJpeg } from '../../../src/engine/raster/codecs';
import { decodeJpegScaled, type JpegScale } from '../../../src/engine/raster/jpeg-decode';
import { holdPictureKernels, pictureKernelsHeld, releasePictureKernels } from '../../../src/engine/raster/kernels';
import type { Bounds } from '../../../src/engine/types';
import { noiseImage, withOrientation } from './helpers';

/**
 * Issue 25 §3 (wprof): a never-seen picture's scaled decode (decodeBounded's `lend`) is made in the
 * picture kernels, converted in place in their memory, and held there until its placement has read
 * it (kernels.ts' holdPictureKernels), where it was converted in a strip and copied out into a lent
 * array. The same pixels; one picture at a time; the hold ends on every path.
 */

const upright = (left: number, top: number, right: number, bottom: number) => [left, top, right, top, right, bottom, left, bottom];

/** Fills the picture kernels' memory above their static data (their arenas') with bytes no decode makes in that pattern (alpha 0 too). */
async function poisonPictureKernels(seed: number): Promise<void> {
  const k = await holdPictureKernels();
  expect(k).toBeDefined();
  k!.reset();
  const memory = new Uint8Array(k!.memory.buffer);
  let s = seed;
  for (let i = k!.alloc(0); i < memory.length; i++) memory[i] = (s = (Math.imul(s, 1103515245) + 12345) >>> 0) >>> 24;
  k!.reset();
  releasePictureKernels();
}

const same = (a: ArrayBufferView, b: ArrayBufferView) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));

describe('a lent scaled decode held in the picture kernels (issue 25 §3)', () => {
  it('gives the pixels of a decode into a new array, at every eighth, over any old content, and holds them until released', async () => {
    dropLentPictures();
    for (const subsampling of [2, 1] as const) {
      const jpeg = await encodeJpeg(noiseImage(203, 141, 4 + subsampling, 'opaque'), 85, { subsampling });
      for (const scale of [1, 2, 3, 4, 5, 6, 7] as Exclude<JpegScale, 8>[]) {
        const fresh = (await decodeJpegScaled(jpeg, scale))!;
        for (const seed of [1, 77]) {
          await poisonPictureKernels(seed);
          const k = await holdPictureKernels();
          try {
            const held = (await decodeJpegScaled(jpeg, scale, { held: k! }))!;
            expect(held.data.buffer, `4:${subsampling === 2 ? '2:0' : '4:4'} ${scale}/8`).toBe(k!.memory.buffer);
            expect(same(held.data, fresh.data), `4:${subsampling === 2 ? '2:0' : '4:4'} ${scale}/8 over ${seed}`).toBe(true);
          } finally {
            releasePictureKernels();
          }
        }
      }
    }
  });

  it('decodeBounded holds the kernels from the decode to its release; a second picture meanwhile goes into a lent array', async () => {
    dropLentPictures();
    const jpeg = await encodeJpeg(noiseImage(400, 300, 9, 'opaque'), 85, { subsampling: 2 });
    const other = await encodeJpeg(noiseImage(400, 300, 10, 'opaque'), 85, { subsampling: 1 });
    const size = (s: { width: number; height: number }) => ({ width: s.width * 0.6, height: s.height * 0.6 });
    const plain = await decodeBounded(jpeg, { size, deferResize: true });
    const first = await decodeBounded(jpeg, { size, deferResize: true, lend: true });
    expect(pictureKernelsHeld()).toBe(true);
    expect(first.release).toBeTypeOf('function');
    expect([first.width, first.height, first.standsFor]).toEqual([plain.width, plain.height, plain.standsFor]);
    expect(same(first.data, plain.data)).toBe(true);

    const second = await decodeBounded(other, { size, deferResize: true, lend: true });
    expect(second.data.buffer).not.toBe(first.data.buffer);
    expect(same(second.data, (await decodeBounded(other, { size, deferResize: true })).data)).toBe(true);
    second.release!();
    expect(pictureKernelsHeld()).toBe(true);
    expect(idlePictureBytes()).toBe(0); // held: not idle
    first.release!();
    expect(pictureKernelsHeld()).toBe(false);
    first.release!(); // once only: it does not end a later hold
    const third = await decodeBounded(other, { size, deferResize: true, lend: true });
    expect(pictureKernelsHeld()).toBe(true);
    first.release!();
    expect(pictureKernelsHeld()).toBe(true);
    third.release!();

    // Kept between requests, counted apart from the lent arrays, dropped with them.
    expect(idlePictureBytes()).toBeGreaterThan(400 * 300 * 4 * 0.36);
    dropLentPictures();
    expect(idlePictureBytes()).toBe(0);
  });

  it('ends the hold at once when the decode is resized, turned (EXIF) or refused', async () => {
    dropLentPictures();
    const jpeg = await encodeJpeg(noiseImage(400, 300, 11, 'opaque'), 85, { subsampling: 2 });
    const size = (s: { width: number; height: number }) => ({ width: s.width * 0.6, height: s.height * 0.6 });
    const resized = await decodeBounded(jpeg, { size, lend: true });
    expect(resized.release).toBeUndefined();
    expect(pictureKernelsHeld()).toBe(false);
    expect(same(resized.data, (await decodeBounded(jpeg, { size })).data)).toBe(true);

    const turned = withOrientation(jpeg, 6);
    const oriented = await decodeBounded(turned, { size, deferResize: true, lend: true });
    expect(oriented.release).toBeUndefined();
    expect(pictureKernelsHeld()).toBe(false);
    expect(same(oriented.data, (await decodeBounded(turned, { size, deferResize: true })).data)).toBe(true);

    // Entropy data cut short: the scaled decoder refuses it (decoded whole instead, or refused).
    const cut = jpeg.slice(0, Math.floor(jpeg.length * 0.6));
    const got = await decodeBounded(cut, { size, deferResize: true, lend: true }).catch(() => null);
    got?.release?.();
    expect(pictureKernelsHeld()).toBe(false);
    dropLentPictures();
  });

  it('a placement from a windowed decode over poisoned picture kernels gives the whole decode’s bytes', async () => {
    let compared = 0;
    let heldCount = 0;
    for (const subsampling of [2, 1] as const) {
      const base = await encodeJpeg(noiseImage(203, 141, 20 + subsampling, 'opaque'), 88, { subsampling });
      for (const [i, fraction] of [0.2, 0.45, 0.6, 0.8].entries()) {
        for (const mode of ['fit', 'fill'] as ResizeMode[]) {
          const cw = Math.max(6, Math.round(203 * fraction * (i % 2 ? 1.25 : 0.8)));
          const ch = Math.max(6, Math.round(141 * fraction));
          const x0 = (i % 3) * 7 - 5.5;
          const quad = { corners: upright(x0, -3, x0 + cw, -3 + ch), width: cw, height: ch };
          const within: Bounds | undefined = i % 2 ? { left: 0, top: 0, right: Math.round(cw * 0.7), bottom: Math.round(ch * 0.8) } : undefined;
          const size = { width: cw, height: ch };
          const whole = await decodeBounded(base, { size, deferResize: true });
          await poisonPictureKernels(i + 3);
          const held = await decodeBounded(base, { size, deferResize: true, lend: true, window: (shape) => placementWindow(shape, quad, mode, within) });
          // A scaled decode is held (a whole one goes into a lent array: decodeJpegFull).
          if (held.width < 203) heldCount += pictureKernelsHeld() ? 1 : 0;
          const options = within ? { within } : {};
          const a = await placeImage({ ...whole, opaque: true }, quad, mode, options);
          const b = await placeImage({ ...held, opaque: true }, quad, mode, options);
          held.release?.();
          expect(pictureKernelsHeld()).toBe(false);
          const label = `4:${subsampling === 2 ? '2:0' : '4:4'} ${fraction} ${mode}${within ? ' within' : ''}`;
          expect(b?.bounds, label).toEqual(a?.bounds);
          if (a && b) {
            expect(same(b.pixels.data, a.pixels.data), label).toBe(true);
            compared++;
          }
        }
      }
    }
    expect(compared).toBeGreaterThan(12);
    expect(heldCount).toBe(12); // 0.2, 0.45, 0.6 of each: scaled decodes
    dropLentPictures();
  });
});
