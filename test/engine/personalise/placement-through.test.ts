import { describe, expect, it } from 'vitest';
import { placeImage, placementTaps, placementWindow } from '../../../src/engine/personalise/image';
import { decodeBounded } from '../../../src/engine/raster/bounded';
import { encodeJpeg } from '../../../src/engine/raster/codecs';
import { noiseImage } from '../raster/helpers';
import { noise, upright, uprightPlacementCase } from './helpers';

/**
 * Issue 25 §3 (picfuse): a picture decoded for one upright placement at 3/8 or 5/8–7/8 is
 * resampled through that placement's taps as it is decoded (decodeBounded's `through`,
 * placementTaps): placeImage then draws those pixels, the same bytes and bounds as from the
 * whole decode, into the array the placement would have drawn into.
 */

describe('a placement resampled as its picture is decoded (issue 25 §3)', () => {
  it('gives the bytes of the placement from the whole decode, at every k/8, fit and fill, within a canvas or not', async () => {
    const next = noise(7);
    let through = 0;
    let compared = 0;
    for (let t = 0; t < 28; t++) {
      const { jpeg, quad, mode, within, size, label } = await uprightPlacementCase(next, t);
      const whole = await decodeBounded(jpeg, { size, deferResize: true });
      const arrays: Uint8ClampedArray[] = [];
      const arrayFor = (bytes: number) => {
        const array = new Uint8ClampedArray(bytes).fill(99);
        arrays.push(array);
        return array;
      };
      const fused = await decodeBounded(jpeg, {
        size,
        deferResize: true,
        lend: true,
        window: (shape) => placementWindow(shape, quad, mode, within),
        through: (shape) => {
          const taps = placementTaps(shape, quad, mode, within);
          return taps && { ...taps, arrayFor };
        },
      });
      expect({ width: fused.width, height: fused.height, standsFor: fused.standsFor, extent: fused.extent }, label).toEqual({ width: whole.width, height: whole.height, standsFor: whole.standsFor, extent: whole.extent });
      if (fused.placed) {
        through++;
        expect(fused.data.length, label).toBe(0);
        expect(fused.placed.pixels.data.buffer, `${label}: into the array given`).toBe(arrays.at(-1)!.buffer);
        expect(fused.release, label).toBeUndefined();
      }
      const options = within ? { within } : {};
      const a = await placeImage({ ...whole, opaque: true }, quad, mode, options);
      const b = await placeImage({ ...fused, opaque: true }, quad, mode, options);
      expect(b?.bounds, label).toEqual(a?.bounds);
      if (a && b) {
        expect(Buffer.from(b.pixels.data).equals(Buffer.from(a.pixels.data)), label).toBe(true);
        compared++;
      }
      fused.release?.();
    }
    expect(compared).toBeGreaterThan(15);
    expect(through, 'placements resampled as decoded').toBeGreaterThan(8);
  });

  it('placeImage draws such a picture for its own placement only', async () => {
    const jpeg = await encodeJpeg(noiseImage(160, 120, 3, 'opaque'), 85, { subsampling: 2 });
    const quad = { corners: upright(0, 0, 100, 80), width: 100, height: 80 };
    const fused = await decodeBounded(jpeg, { size: { width: 100, height: 80 }, deferResize: true, lend: true, window: (shape) => placementWindow(shape, quad, 'fill'), through: (shape) => placementTaps(shape, quad, 'fill') });
    expect(fused.placed).toBeDefined();
    expect(await placeImage(fused, quad, 'fill')).not.toBeNull();
    await expect(placeImage(fused, { corners: upright(0, 0, 101, 80), width: 101, height: 80 }, 'fill')).rejects.toThrow(/another placement|outside the picture’s window/);
    await expect(placeImage(fused, { corners: upright(0.25, 0, 100.25, 80), width: 100, height: 80 }, 'fill')).rejects.toThrow(/another placement|outside the picture’s window/);
    await expect(placeImage(fused, { corners: [0, 0, 100, 5, 100, 85, 0, 80], width: 100, height: 80 }, 'fill')).rejects.toThrow(/window|upright/);
  });
});
