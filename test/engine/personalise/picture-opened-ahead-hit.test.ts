import { describe, expect, it } from 'vitest';
import { env } from 'cloudflare:workers';
import { cachedPreview } from '../../../src/dynamic-image/outputs';
import { ResultStore } from '../../../src/dynamic-image/store';
import { UrlImages } from '../../../src/engine/inputs';
import { preparePreview } from '../../../src/engine/preview';
import { encodeJpeg } from '../../../src/engine/raster/codecs';
import { upload, uploadFixture } from '../../dynamic-image/helpers';
import { noiseImage } from '../raster/helpers';
import { countingStore } from './counting-store';

/**
 * Session 23's review: a never-seen picture opened ahead (InputStore.open) is given up when the
 * render does not run: a result-cache hit answers without render(), and the opened answer's unread
 * bytes must not be left holding a storage connection (its body neither read nor cancelled).
 */

const deps = { urlImages: new UrlImages(async () => { throw new Error('no URL images'); }) };

describe('a never-seen picture opened ahead, on a result-cache hit', () => {
  it('is given up, never read', async () => {
    const template = await uploadFixture('agpsd-shapes-smart-objects.psd', 'opened-ahead-hit');
    const res = await upload('images', [[`hit-${Date.now()}.jpg`, await encodeJpeg(noiseImage(600, 450, 3, 'opaque'), 85)]], '?destination=opened-ahead-hit&overwrite=true');
    expect(res.status).toBe(201);
    const name = ((await res.json()) as Array<{ name: string }>)[0].name;
    const options = { template, format: 'jpg', jpegQuality: 85, unsharpMask: null, size: { width: 1000, height: 1000 }, data: { apple: { type: 'image', image: name, resizeMode: 'fill' } } } as never;
    // The result another isolate stored: this one has not seen the picture, its result is found.
    const results = new ResultStore(env.FILES, 24);
    const found: string[] = [];
    results.find = async (fingerprint: string) => (found.push(fingerprint), { name: 'stored-elsewhere.jpg', meta: { preflight: 'ok' } });
    const opening = countingStore(true);
    const hit = await cachedPreview(results, (lookahead) => preparePreview(opening.store, options, deps, undefined, lookahead), false);
    expect(hit).toEqual({ name: 'stored-elsewhere.jpg', created: false, preflight: 'ok' });
    expect(opening.asked.open).toEqual([name]);
    await new Promise((r) => setTimeout(r, 0)); // the cancel runs when the opened answer is in
    expect(opening.asked.bytes).toEqual([]);
    expect(opening.asked.cancel).toEqual([name]);
  });
});
