import { describe, expect, it } from 'vitest';
import { clearEngineCaches } from '../../../src/engine/cache';
import { UrlImages, type InputStore } from '../../../src/engine/inputs';
import { preparePreview } from '../../../src/engine/preview';
import { encodeJpeg } from '../../../src/engine/raster/codecs';
import { upload, uploadFixture } from '../../dynamic-image/helpers';
import { noiseImage } from '../raster/helpers';
import { countingStore } from './counting-store';

/**
 * Issue 25 §3: a picture this isolate has not seen is opened (InputStore.open) beside the
 * template's read, its head and bytes in one answer, so that the render finds its bytes there
 * instead of waiting a storage round trip for them; the bytes are read only if the render asks
 * (a rendition may stand for the picture) and are given up otherwise; a layer whose last picture
 * a rendition stood for has its next one headed. The same output bytes.
 */

const deps = { urlImages: new UrlImages(async () => { throw new Error('no URL images'); }) };
const preview = (store: InputStore, template: string, size: number, data: Record<string, unknown>) =>
  preparePreview(store, { template, format: 'jpg', jpegQuality: 85, unsharpMask: null, size: { width: size, height: size }, data } as never, deps);

async function uploadPicture(name: string, width: number, height: number): Promise<string> {
  // Distinct bytes after the image's end (as a shopper's own upload): nothing is found in a cache by content.
  const jpeg = await encodeJpeg(noiseImage(width, height, 3, 'opaque'), 85);
  const bytes = new Uint8Array([...jpeg, ...new TextEncoder().encode(name)]);
  const res = await upload('images', [[name, bytes]], '?destination=opened-ahead&overwrite=true');
  expect(res.status).toBe(201);
  return ((await res.json()) as Array<{ name: string }>)[0].name;
}

describe('a never-seen picture opened ahead', () => {
  it('heads a name this isolate has seen, as before', async () => {
    const template = await uploadFixture('agpsd-shapes-smart-objects.psd', 'opened-ahead');
    const name = await uploadPicture(`seen-${Date.now()}.jpg`, 600, 450);
    const data = { apple: { type: 'image', image: name, resizeMode: 'fill' } };
    const plain = countingStore(false);
    await (await preview(plain.store, template, 1000, data)).render();
    expect(plain.asked.head).toEqual([name]);
    const opening = countingStore(true);
    await (await preview(opening.store, template, 1000, data)).render();
    expect(opening.asked.open).toEqual([]);
    expect(opening.asked.head).toEqual([name]);
  });

  it('opens a name not seen, reads its bytes from that answer, and gives up what a rendition stands for', async () => {
    const template = await uploadFixture('agpsd-shapes-smart-objects.psd', 'opened-ahead');
    const large = await uploadPicture(`large-${Date.now()}.jpg`, 600, 450); // filling 400 × 300 at 1000²: decoded at 6/8, no rendition
    const small = await uploadPicture(`small-${Date.now()}.jpg`, 900, 700); // 40 × 30 at 100²: its 1/8 rendition

    clearEngineCaches();
    const opening = countingStore(true);
    const opened = await (await preview(opening.store, template, 1000, { apple: { type: 'image', image: large, resizeMode: 'fill' } })).render();
    expect(opening.asked.open).toEqual([large]);
    expect(opening.asked.head).toEqual([]);
    expect(opening.asked.read).toEqual([]); // its bytes came with the opened answer
    expect(opening.asked.bytes).toEqual([large]);
    expect(opening.asked.cancel).toEqual([]);
    clearEngineCaches();
    const plain = countingStore(false);
    expect((await (await preview(plain.store, template, 1000, { apple: { type: 'image', image: large, resizeMode: 'fill' } })).render()).bytes).toEqual(opened.bytes);

    // Placed small, its rendition stands for it: the opened bytes are not read, and are given up.
    const tiny = countingStore(true);
    await (await preview(tiny.store, template, 100, { apple: { type: 'image', image: small, resizeMode: 'fill' } })).render();
    expect(tiny.asked.open).toEqual([small]);
    expect(tiny.asked.bytes).toEqual([]);
    expect(tiny.asked.read).toEqual([]);
    expect(tiny.asked.cancel).toEqual([small]);

    // The layer's last picture was stood for by a rendition: the next one there is headed, not opened
    // (an opened answer comes after a head would); once one is read whole again, they are opened again.
    const next = await uploadPicture(`next-${Date.now()}.jpg`, 900, 700);
    const headed = countingStore(true);
    await (await preview(headed.store, template, 100, { apple: { type: 'image', image: next, resizeMode: 'fill' } })).render();
    expect(headed.asked.open).toEqual([]);
    expect(headed.asked.head).toEqual([next]);
    const whole = await uploadPicture(`whole-${Date.now()}.jpg`, 600, 450);
    await (await preview(headed.store, template, 1000, { apple: { type: 'image', image: whole, resizeMode: 'fill' } })).render();
    expect(headed.asked.read).toEqual([whole]);
    const after = await uploadPicture(`after-${Date.now()}.jpg`, 600, 450);
    await (await preview(headed.store, template, 1000, { apple: { type: 'image', image: after, resizeMode: 'fill' } })).render();
    expect(headed.asked.open).toEqual([after]);
  });

  it('gives up the opened bytes of a refused request', async () => {
    const template = await uploadFixture('agpsd-shapes-smart-objects.psd', 'opened-ahead-refused');
    const name = await uploadPicture(`refused-${Date.now()}.jpg`, 300, 200);
    const opening = countingStore(true);
    const data = { apple: { type: 'image', image: name, resizeMode: 'fill' }, 'no such layer': { type: 'text', text: 'x' } };
    await expect(preview(opening.store, template, 400, data)).rejects.toThrow();
    expect(opening.asked.open).toEqual([name]);
    await new Promise((r) => setTimeout(r, 0)); // the cancel runs when the opened answer is in
    expect(opening.asked.cancel).toEqual([name]);
    expect(opening.asked.bytes).toEqual([]);
  });
});
