import { describe, expect, it } from 'vitest';
import { Unprocessable } from '../../../src/engine/errors';
import { decodeBounded } from '../../../src/engine/raster/bounded';
import { jpegFrame } from '../../../src/engine/raster/sniff';
import { jpegFixture } from './helpers';

/** The fixture with its frame header edited: the SOF marker, the precision, the component count. */
async function withFrame(edit: { marker?: number; precision?: number; components?: number }): Promise<Uint8Array> {
  const bytes = (await jpegFixture('photo-64x64-420-q100.jpg')).slice();
  const at = bytes.findIndex((b, i) => b === 0xff && bytes[i + 1] === 0xc0);
  if (edit.marker !== undefined) bytes[at + 1] = edit.marker;
  if (edit.precision !== undefined) bytes[at + 4] = edit.precision;
  if (edit.components !== undefined) bytes[at + 9] = edit.components;
  return bytes;
}

/**
 * CMYK, 12-bit and arithmetic-coded JPEGs from a shopper were refused as "the image data is
 * corrupt" (fuzz2, session 20): mozjpeg's build takes none of them and says why only on stderr.
 * The 422 now names the kind, from the frame header.
 */
describe('decodeBounded: JPEG kinds the decoders do not take', () => {
  it.each([
    ['arithmetic', { marker: 0xc9 }, 'arithmetic-coded JPEGs are not supported; save it as a baseline or progressive JPEG.'],
    ['12-bit', { marker: 0xc1, precision: 12 }, '12-bit JPEGs are not supported; save it with 8 bits per channel.'],
    ['four components (CMYK, YCCK)', { components: 4 }, 'CMYK JPEGs are not supported; save it as an RGB JPEG.'],
  ])('%s: a 422 naming it', async (_, edit, reason) => {
    const err = await decodeBounded(await withFrame(edit), { path: 'data.Photo.image' }).catch((e) => e);
    expect(err).toBeInstanceOf(Unprocessable);
    expect(err.details).toEqual([{ path: 'data.Photo.image', reason }]);
  });

  it('damaged data of a kind they take is still "corrupt"', async () => {
    const bytes = (await jpegFixture('photo-64x64-420-q100.jpg')).slice(0, 400);
    const err = await decodeBounded(bytes, { path: 'data.Photo.image' }).catch((e) => e);
    expect(err.details?.[0]?.reason).toBe('the image data is corrupt.');
  });

  it('jpegFrame reads the header', async () => {
    expect(jpegFrame(await jpegFixture('photo-64x64-420-q100.jpg'))).toEqual({ marker: 0xc0, precision: 8, components: 3 });
    expect(jpegFrame(await jpegFixture('photo-203x141-grey.jpg'))).toEqual({ marker: 0xc0, precision: 8, components: 1 });
    expect(jpegFrame(new Uint8Array([0x89, 0x50]))).toBeNull();
  });
});
