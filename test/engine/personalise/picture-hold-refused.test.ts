import { describe, expect, it } from 'vitest';
import { FileStore } from '../../../src/dynamic-image/store';
import { clearEngineCaches } from '../../../src/engine/cache';
import { UrlImages } from '../../../src/engine/inputs';
import { preparePreview } from '../../../src/engine/preview';
import { dropLentPictures } from '../../../src/engine/raster/bounded';
import { encodeJpeg } from '../../../src/engine/raster/codecs';
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
function corruptPng(): Uint8Array {
  const table = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (b: Uint8Array) => {
    let x = 0xffffffff;
    for (const v of b) x = table[(x ^ v) & 255]! ^ (x >>> 8);
    return (x ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Uint8Array) => {
    const b = new Uint8Array(12 + data.length);
    const view = new DataView(b.buffer);
    view.setUint32(0, data.length);
    b.set(new TextEncoder().encode(type), 4);
    b.set(data, 8);
    view.setUint32(8 + data.length, crc(b.subarray(4, 8 + data.length)));
    return b;
  };
  const ihdr = new Uint8Array(13);
  new DataView(ihdr.buffer).setUint32(0, 64);
  new DataView(ihdr.buffer).setUint32(4, 64);
  ihdr[8] = 8;
  ihdr[9] = 6;
  const parts = [Uint8Array.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', ihdr), chunk('IDAT', new TextEncoder().encode('not zlib data at all')), chunk('IEND', new Uint8Array(0))];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) (out.set(p, at), (at += p.length));
  return out;
}

describe('a request refused after its pictures were decoded', () => {
  it('gives the picture kernels back at once', async () => {
    clearEngineCaches();
    dropLentPictures();
    const template = await uploadFixture('agpsd-shapes-smart-objects.psd', 'hold-refused');
    const store = new FileStore(env.FILES);
    // Stored as a URL's picture is (no renditions): its scaled decode is made in the picture kernels.
    await store.put('images', 'hold-refused/photo.jpg', await encodeJpeg(noiseImage(800, 600, 3, 'opaque'), 85));
    await store.put('images', 'hold-refused/bad.png', corruptPng());
    const deps = { urlImages: new UrlImages(async () => { throw new Error('no URL images'); }) };
    const ask = async (data: Record<string, unknown>) => (await preparePreview(store, { template, format: 'jpg', jpegQuality: 85, unsharpMask: null, size: { width: 1000, height: 1000 }, data } as never, deps)).render();
    await ask({ apple: { type: 'image', image: 'hold-refused/photo.jpg', resizeMode: 'fill' } });
    expect(pictureKernelsHeld()).toBe(false);
    clearEngineCaches(); // the placement is made again (its decode held again)
    await expect(ask({ apple: { type: 'image', image: 'hold-refused/photo.jpg', resizeMode: 'fill' }, calendar: { type: 'image', image: 'hold-refused/bad.png' } })).rejects.toThrow(/corrupt/);
    expect(pictureKernelsHeld()).toBe(false);
  });
});
