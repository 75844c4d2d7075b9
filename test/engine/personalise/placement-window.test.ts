import { describe, expect, it } from 'vitest';
import { placeImage, placementWindow } from '../../../src/engine/personalise/image';
import { decodeBounded } from '../../../src/engine/raster/bounded';
import { noiseImage } from '../raster/helpers';
import { noise, upright, uprightPlacementCase } from './helpers';

/**
 * Issue 25 §3 (decodewin): a picture decoded for one upright placement makes only the pixels that
 * placement's taps read (placementWindow, decodeBounded's `window`): the placement gives the same
 * bytes as from the whole decode, and a 'fill' placement of another aspect decodes less.
 */

describe('a placement from a decode windowed for it (issue 25 §3)', () => {
  it('gives the bytes of the placement from the whole decode, at every k/8, fit and fill, within a canvas or not', async () => {
    const next = noise(5);
    let narrower = 0;
    let compared = 0;
    for (let t = 0; t < 24; t++) {
      const { jpeg, quad, mode, within, size, label } = await uprightPlacementCase(next, t);
      const whole = await decodeBounded(jpeg, { size, deferResize: true });
      const windowed = await decodeBounded(jpeg, { size, deferResize: true, lend: true, window: (shape) => placementWindow(shape, quad, mode, within) });
      const options = within ? { within } : {};
      const a = await placeImage({ ...whole, opaque: true }, quad, mode, options);
      const b = await placeImage({ ...windowed, opaque: true }, quad, mode, options);
      expect(b?.bounds, label).toEqual(a?.bounds);
      if (a && b) {
        expect(Buffer.from(b.pixels.data).equals(Buffer.from(a.pixels.data)), label).toBe(true);
        compared++;
      }
      const made = windowed.window;
      if (made && (made.right - made.left) * (made.bottom - made.top) < windowed.width * windowed.height) narrower++;
      windowed.release?.();
    }
    expect(compared).toBeGreaterThan(15);
    expect(narrower, 'windows narrower than the picture').toBeGreaterThan(8);
  });

  it('a warped placement asks for the whole picture; placeImage refuses to read outside a window', async () => {
    const skewed = { corners: [0, 0, 50, 5, 50, 45, 0, 40], width: 50, height: 40 };
    expect(placementWindow({ width: 80, height: 60 }, skewed, 'fill')).toBeUndefined();
    const picture = { ...noiseImage(80, 60, 3, 'opaque'), window: { left: 10, top: 0, right: 70, bottom: 60 } };
    await expect(placeImage(picture, skewed, 'fill')).rejects.toThrow(/whole picture/);
    const square = { corners: upright(0, 0, 60, 60), width: 60, height: 60 };
    await expect(placeImage(picture, square, 'fit')).rejects.toThrow(/outside the picture’s window/);
    const read = placementWindow(picture, square, 'fill')!;
    expect(read.left).toBeGreaterThanOrEqual(10);
    expect(read.right).toBeLessThanOrEqual(70);
    expect(await placeImage(picture, square, 'fill')).not.toBeNull();
  });
});
