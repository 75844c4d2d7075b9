import { describe, expect, it } from 'vitest';
import { FileStore } from '../../../src/dynamic-image/store';
import { clearEngineCaches } from '../../../src/engine/cache';
import { UrlImages } from '../../../src/engine/inputs';
import { preparePreview } from '../../../src/engine/preview';
import { dropLentPictures } from '../../../src/engine/raster/bounded';
import { encodeJpeg, encodePng } from '../../../src/engine/raster/codecs';
import { pictureKernelsHeld } from '../../../src/engine/raster/kernels';
import { env } from 'cloudflare:workers';
import { uploadFixture } from '../../dynamic-image/helpers';
import { noiseImage } from '../raster/helpers';

/**
 * Session 22's review: a request refused after its pictures were decoded (another picture of it
 * corrupt) gave back neither the lent decode nor the picture kernels a never-seen picture's decode
 * holds (raster/kernels.ts holdPictureKernels) until the collector found the picture: meanwhile
 * every never-seen picture of every request went into a lent array, and dropLentPictures could not
 * drop the kernels' memory.
 */

/** A PNG whose header is sound and whose data is not (decoded, it is refused as corrupt). */
async function corruptPng(): Promise<Uint8Array> {
  const png = await encodePng(noiseImage(64, 64, 4, 'varied'));
  const idat = png.findIndex((_, i) => png[i] === 0x49 && png[i + 1] === 0x44 && png[i + 2] === 0x41 && png[i + 3] === 0x54);
  png.fill(0xff, idat + 4, idat + 24); // the zlib stream's start, not zlib any more
  return png;
}

describe('a request refused after its pictures were decoded', () => {
  it('gives the picture kernels back at once', async () => {
    clearEngineCaches();
    dropLentPictures();
    const template = await uploadFixture('agpsd-shapes-smart-objects.psd', 'hold-refused');
    const store = new FileStore(env.FILES);
    // Stored as a URL's picture is (no renditions): its scaled decode is made in the picture kernels.
    await store.put('images', 'hold-refused/photo.jpg', await encodeJpeg(noiseImage(800, 600, 3, 'opaque'), 85));
    await store.put('images', 'hold-refused/bad.png', await corruptPng());
    const deps = { urlImages: new UrlImages(async () => { throw new Error('no URL images'); }) };
    const ask = async (data: Record<string, unknown>) => (await preparePreview(store, { template, format: 'jpg', jpegQuality: 85, unsharpMask: null, size: { width: 1000, height: 1000 }, data } as never, deps)).render();
    await ask({ apple: { type: 'image', image: 'hold-refused/photo.jpg', resizeMode: 'fill' } });
    expect(pictureKernelsHeld()).toBe(false);
    clearEngineCaches(); // the placement is made again (its decode held again)
    await expect(ask({ apple: { type: 'image', image: 'hold-refused/photo.jpg', resizeMode: 'fill' }, calendar: { type: 'image', image: 'hold-refused/bad.png' } })).rejects.toThrow(/corrupt/);
    expect(pictureKernelsHeld()).toBe(false);
  });
});
