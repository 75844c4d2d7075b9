/**
 * Images named by URL (issue 8, item 2.1): one request fetches at most 32 MB in all, anything that
 * is not a JPEG or PNG is dropped at its first bytes, a URL is fetched once per request however
 * many pages or layers name it, and multipage renders one page at a time. The fixture server's
 * /big/<bytes> serves a small JPEG padded to any size (decodable), or text (?kind=text).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_REQUEST_URL_BYTES, UrlImages } from '../../src/engine/inputs';
import { fixtureServer } from '../helpers/fixtures';
import { keys, postJson, uploadFixture } from './helpers';

const MB = 1024 * 1024;
let text: string;

beforeAll(async () => {
  text = await uploadFixture('psdtools-text.psd', 'url-images');
});

const big = (bytes: number, tag: string | number, kind = '') => `${fixtureServer()}/big/${bytes}?tag=${tag}${kind ? `&kind=${kind}` : ''}`;
const photoPage = (url: string) => ({ template: text, size: { width: 100, height: 100 }, data: { Background: { type: 'image', image: url } } });

async function answer(path: string, body: unknown) {
  const started = Date.now();
  const res = await postJson(path, body);
  return { status: res.status, body: (await res.json()) as any, ms: Date.now() - started };
}

describe('a request fetches at most 32 MB of images by URL', () => {
  it('six pages that each name a 25 MB URL get a clear 422 naming the page beyond the budget, and nothing stays behind', async () => {
    const before = await keys('results/');
    for (const [kind, extra] of [['preview', {}], ['hires', { combine: false }], ['hires', { combine: true }]] as const) {
      const pages = Array.from({ length: 6 }, (_, i) => photoPage(big(25 * MB, `${kind}-${JSON.stringify(extra)}-${i}`)));
      const r = await answer(`/api/rendering/multipage/${kind}`, { ...extra, pages });
      console.log(`multipage/${kind} ${JSON.stringify(extra)}: 6 × 25 MB URLs → ${r.status} in ${r.ms} ms`);
      expect(r.status, JSON.stringify(r.body)).toBe(422);
      expect(r.body.message).toMatch(/32 MB/);
      expect(r.body.details[0].path).toBe('pages[1].data.Background.image');
      expect(r.body).not.toHaveProperty('stack');
    }
    expect(await keys('results/')).toEqual(before);

    // The same isolate serves the next request.
    const next = await answer('/api/rendering/preview', photoPage(`${fixtureServer()}/assets/marker-40x20.jpg`));
    expect(next.status, JSON.stringify(next.body)).toBe(200);
  });

  it('a 20 MB URL renders; the same URL on three pages is fetched once; two distinct 20 MB URLs are refused', async () => {
    const one = await answer('/api/rendering/preview', {
      template: text,
      data: { Background: { type: 'image', image: big(20 * MB, 'a') } },
    });
    expect(one.status, JSON.stringify(one.body)).toBe(200);
    const pages = [photoPage(big(20 * MB, 'same')), photoPage(big(20 * MB, 'same')), photoPage(big(20 * MB, 'same'))];
    const same = await answer('/api/rendering/multipage/preview', { pages });
    expect(same.status, JSON.stringify(same.body)).toBe(200);
    const distinct = await answer('/api/rendering/multipage/preview', { pages: [photoPage(big(20 * MB, 'x')), photoPage(big(20 * MB, 'y'))] });
    expect(distinct.status).toBe(422);
    expect(distinct.body.details[0].path).toBe('pages[1].data.Background.image');
  });

  it('UrlImages: one fetch per distinct URL, the budget counts every fetched byte', async () => {
    const calls: string[] = [];
    const images = new UrlImages(async (url, { maxBytes, onBytes }) => {
      calls.push(url);
      expect(maxBytes).toBeLessThanOrEqual(25 * MB);
      onBytes(10 * MB);
      return new Uint8Array(10 * MB);
    });
    await Promise.all([images.get('https://a/1', 'p'), images.get('https://a/1', 'q'), images.get('https://a/2', 'r')]);
    await images.get('https://a/1', 's');
    expect(calls).toEqual(['https://a/1', 'https://a/2']);
    expect(images.bytes).toBe(20 * MB);
    await images.get('https://a/3', 't');
    await expect(images.get('https://a/4', 'data.X.image')).rejects.toMatchObject({ code: 'ERR_INPUTS_TOO_LARGE' });
    expect(MAX_REQUEST_URL_BYTES).toBe(32 * MB);
  });

  it('UrlImages: downloads running at the same time share the budget while they stream', async () => {
    let streamed = 0;
    // Each fake download streams 15 MB in 1 MB chunks, yielding between chunks like a socket.
    const images = new UrlImages(async (_url, { onBytes }) => {
      for (let i = 0; i < 15; i++) {
        await new Promise((r) => setTimeout(r, 1));
        onBytes(MB);
        streamed += MB;
      }
      return new Uint8Array(0);
    });
    const results = await Promise.allSettled(['https://a/1', 'https://a/2', 'https://a/3'].map((u, i) => images.get(u, `data.L${i}.image`)));
    expect(results.filter((r) => r.status === 'rejected').length).toBeGreaterThanOrEqual(1);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toMatchObject({ code: 'ERR_INPUTS_TOO_LARGE' });
    // Never more than the budget plus the chunk that crossed it, per download.
    expect(streamed).toBeLessThanOrEqual(32 * MB + 3 * MB);
  });
});

describe('only images are downloaded', () => {
  it('a 24 MB text body is dropped at its first bytes with a 422', async () => {
    const r = await answer('/api/rendering/preview', photoPage(big(24 * MB, 't', 'text')));
    expect(r.status, JSON.stringify(r.body)).toBe(422);
    expect(r.body.details[0]).toEqual({ path: 'data.Background.image', reason: 'it is not a JPEG or PNG image.' });
    expect(r.ms).toBeLessThan(2000);
  });

  it('internal hosts are refused with 400 (127.0.0.1 is allowed only through OUTBOUND_ALLOW_HOSTS)', async () => {
    for (const url of ['http://localhost:1/a.jpg', 'http://169.254.169.254/latest/meta-data', 'http://[::1]/a.png', 'http://10.0.0.1/a.png', 'http://0x0a.1/a.png', 'http://[::ffff:10.0.0.1]/a.png']) {
      const r = await answer('/api/rendering/preview', photoPage(url));
      expect(r.status, url).toBe(400);
      expect(r.body.details[0].path).toBe('data.Background.image');
      expect(r.body.message).toMatch(/internal/);
    }
  });

  it('an upstream error is a 422 that names neither its status nor its body', async () => {
    const r = await answer('/api/rendering/preview', photoPage(`${fixtureServer()}/status/503`));
    expect(r.status).toBe(422);
    expect(JSON.stringify(r.body)).not.toMatch(/503/);
  });
});
