import { describe, expect, it } from 'vitest';
import { placeImage, placementWindow, type ResizeMode } from '../../../src/engine/personalise/image';
import { decodeBounded, lendPicture, releaseOnce } from '../../../src/engine/raster/bounded';
import { encodeJpeg } from '../../../src/engine/raster/codecs';
import type { Bounds } from '../../../src/engine/types';
import { noiseImage, withOrientation } from '../raster/helpers';

/**
 * Review of decodewin (84c6c6f, fc6df37, c6f6b1a): a decode windowed for one upright placement
 * leaves the lent array's other pixels as the last request left them. Here the lent pool is
 * poisoned before every windowed decode, so a placement that read one pixel outside its window
 * would differ from the placement of the whole decode: every EXIF orientation, k/8 and whole-size
 * decodes, a picture smaller than its layer, fit (letterboxed) and fill, layers of another aspect,
 * partly off the canvas (`within`).
 */

/** Fills both arrays the lent pool keeps with bytes no decode makes in that pattern (alpha 0 too). */
function poisonLentPool(seed: number): void {
  const held = [lendPicture(8 * 1024 * 1024)!, lendPicture(8 * 1024 * 1024)!];
  for (const array of held) {
    let s = seed;
    for (let i = 0; i < array.length; i++) array[i] = (s = (Math.imul(s, 1103515245) + 12345) >>> 0) >>> 24;
  }
  for (const array of held) releaseOnce(array)();
}

const upright = (left: number, top: number, right: number, bottom: number) => [left, top, right, top, right, bottom, left, bottom];

describe('a placement from a windowed decode over a poisoned lent array (review of decodewin)', () => {
  it('gives the whole decode’s bytes for every EXIF orientation, k/8 and whole-size, fit and fill, within or not', async () => {
    let compared = 0;
    let windowed = 0;
    for (const subsampling of [2, 1] as const) {
      const base = await encodeJpeg(noiseImage(203, 141, subsampling, 'opaque'), 88, { subsampling });
      for (let orientation = 1; orientation <= 8; orientation++) {
        const jpeg = orientation === 1 ? base : withOrientation(base, orientation);
        const [dw, dh] = orientation >= 5 ? [141, 203] : [203, 141];
        // 0.95 and 1.3: a whole-size decode (1.3: the picture smaller than its layer).
        for (const [i, fraction] of [0.2, 0.45, 0.6, 0.8, 0.95, 1.3].entries()) {
          for (const mode of ['fit', 'fill'] as ResizeMode[]) {
            // A layer of another aspect than the picture, at a fractional offset, maybe cut by the canvas.
            const cw = Math.max(6, Math.round(dw * fraction * (i % 2 ? 1.25 : 0.8)));
            const ch = Math.max(6, Math.round(dh * fraction));
            const x0 = (i % 3) * 7 - 5.5;
            const y0 = (orientation % 3) * 5 - 4;
            const quad = { corners: upright(x0, y0, x0 + cw, y0 + ch), width: cw, height: ch };
            const within: Bounds | undefined = (i + orientation) % 2 ? { left: 0, top: 0, right: Math.round(cw * 0.7), bottom: Math.round(ch * 0.8) } : undefined;
            const size = { width: cw, height: ch };
            const label = `EXIF ${orientation}, 4:${subsampling === 2 ? '2:0' : '2:2'}, ${fraction} ${mode}${within ? ' within' : ''}`;
            const whole = await decodeBounded(jpeg, { size, deferResize: true });
            poisonLentPool(orientation * 31 + i);
            const lent = await decodeBounded(jpeg, { size, deferResize: true, lend: true, window: (shape) => placementWindow(shape, quad, mode, within) });
            const options = within ? { within } : {};
            const a = await placeImage({ ...whole, opaque: true }, quad, mode, options);
            const b = await placeImage({ ...lent, opaque: true }, quad, mode, options);
            expect(b?.bounds, label).toEqual(a?.bounds);
            if (a && b) {
              expect(Buffer.from(b.pixels.data).equals(Buffer.from(a.pixels.data)), label).toBe(true);
              compared++;
            }
            if (lent.window) windowed++;
            lent.release?.();
          }
        }
      }
    }
    expect(compared).toBe(2 * 8 * 6 * 2);
    expect(windowed).toBeGreaterThan(100);
  });
});
