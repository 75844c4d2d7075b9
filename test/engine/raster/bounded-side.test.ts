import { describe, expect, it } from 'vitest';
import { Unprocessable } from '../../../src/engine/errors';
import { decodeBounded, MAX_SOURCE_SIDE } from '../../../src/engine/raster/bounded';
import { encodePng } from '../../../src/engine/raster/codecs';

/** A PNG's signature and IHDR alone: the header decodeBounded judges before decoding anything. */
function pngHeader(width: number, height: number): Uint8Array {
  const bytes = new Uint8Array(8 + 25);
  bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const view = new DataView(bytes.buffer);
  view.setUint32(8, 13);
  bytes.set([0x49, 0x48, 0x44, 0x52], 12); // IHDR
  view.setUint32(16, width);
  view.setUint32(20, height);
  bytes.set([8, 6, 0, 0, 0], 24); // 8-bit RGBA
  return bytes;
}

/**
 * A 1,000,000 × 1 PNG (4 MB of pixels, within the source pixel limit) placed in a layer or asked
 * as a thumbnail grew the isolate by ~85 MB in the resize's row buffers and taps, and a 128 MB
 * runtime was killed (fuzz2, session 20). A side past MAX_SOURCE_SIDE is refused from the header.
 */
describe('decodeBounded: the longest side', () => {
  it.each([
    [1_000_000, 1],
    [1, 1_000_000],
    [MAX_SOURCE_SIDE + 1, 2],
  ])('refuses %i × %i with a 422 naming the path and the side', async (width, height) => {
    const err = await decodeBounded(pngHeader(width, height), { path: 'data.Photo.image', size: { width: 400, height: 400 } }).catch((e) => e);
    expect(err).toBeInstanceOf(Unprocessable);
    expect(err.details).toEqual([{ path: 'data.Photo.image', reason: `${width}×${height} has a side longer than 200,000 px.` }]);
  });

  it('still decodes a picture whose side is the limit', async () => {
    const width = MAX_SOURCE_SIDE;
    const data = new Uint8ClampedArray(width * 4).fill(200);
    const png = await encodePng({ width, height: 1, data });
    const picture = await decodeBounded(png, { path: 'data.Photo.image', size: { width: 400, height: 1 } });
    expect([picture.width, picture.height]).toEqual([400, 1]);
    expect(picture.data[0]).toBe(200);
  });
});
