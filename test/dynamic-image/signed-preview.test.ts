/**
 * Signed preview URLs: GET /api/rendering/preview?r=…&sig=… (one round trip, `<img src>`) and
 * POST /api/rendering/preview/url (the helper). The secret is whatever the Worker signs with
 * (PREVIEW_URL_SECRET, else RENDERING_API_KEY), so the test signs through the same module.
 */
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app';
import { sniffImage } from '../../src/engine/raster/sniff';
import { base64url, checkSignature, encodePreviewRequest, etagMatches, signPreviewRequest } from '../../src/dynamic-image/signed';
import { bundledFont } from '../helpers/fixtures';
import { call, form, keys, postJson, uploadFixture, withKey } from './helpers';

const TEXT_LAYER = 'Line 1 Line 2 Line 3 and text';
let text: string; // 400×400

beforeAll(async () => {
  text = await uploadFixture('psdtools-text.psd', 'sp');
  // Re-rendered text needs a font in the store.
  const font = await call('/api/resources/fonts?overwrite=true', withKey({ method: 'POST', body: form([['LiberationSans-Regular.ttf', await bundledFont('LiberationSans-Regular.ttf')]]) }));
  if (font.status !== 201) throw new Error(`font upload: ${font.status}`);
});

async function signedUrl(body: unknown): Promise<string> {
  const r = await encodePreviewRequest(body);
  return `/api/rendering/preview?r=${r}&sig=${await signPreviewRequest(env, r)}`;
}

const timingOf = (res: Response) => res.headers.get('server-timing') ?? '';

/** GETs `path` until Server-Timing reports `want` (the copies are written after the answer). */
async function getUntil(path: string, want: RegExp): Promise<Response> {
  for (let i = 0; ; i++) {
    const res = await call(path);
    if (want.test(timingOf(res)) || i >= 50) return res;
    await res.arrayBuffer();
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('signed preview URLs', () => {
  it('renders a signed request as the image itself, with a content ETag and long-lived caching', async () => {
    const url = await signedUrl({ template: text, size: { width: 120, height: 120 }, format: 'png' });
    const res = await call(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('etag')).toMatch(/^"[0-9a-f]{32}"$/);
    expect(res.headers.get('cache-control')).toMatch(/^public, max-age=\d+/);
    expect(timingOf(res)).toMatch(/cache;desc="miss"/);
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect(sniffImage(bytes)).toMatchObject({ format: 'png', width: 120, height: 120 });
    expect(Number(res.headers.get('content-length'))).toBe(bytes.length);
  });

  it('refuses a missing signature (401) and a wrong one (403) with a JSON problem', async () => {
    const r = await encodePreviewRequest({ template: text });
    const missing = await call(`/api/rendering/preview?r=${r}`);
    expect(missing.status).toBe(401);
    expect(await missing.json()).toMatchObject({ error: 'unauthorized', details: [{ path: 'sig' }] });
    const other = await encodePreviewRequest({ template: text, jpegQuality: 50 });
    for (const sig of [await signPreviewRequest(env, other), 'x'.repeat(43), 'not base64!', base64url(new Uint8Array(32)).slice(0, 40)]) {
      const bad = await call(`/api/rendering/preview?r=${r}&sig=${encodeURIComponent(sig)}`);
      expect(bad.status, sig).toBe(403);
      expect(await bad.json()).toMatchObject({ error: 'forbidden' });
    }
    // Another secret signs differently.
    const foreign = await signPreviewRequest({ PREVIEW_URL_SECRET: 'someone else' }, r);
    expect((await call(`/api/rendering/preview?r=${r}&sig=${foreign}`)).status).toBe(403);
  });

  it('unsigned URLs are a setting, off by default', async () => {
    expect(env.PREVIEW_ALLOW_UNSIGNED ?? 'false').toBe('false');
    await expect(checkSignature({ RENDERING_API_KEY: 'k', PREVIEW_ALLOW_UNSIGNED: 'true' }, 'abc', undefined)).resolves.toBeUndefined();
    await expect(checkSignature({ RENDERING_API_KEY: 'k' }, 'abc', undefined)).rejects.toMatchObject({ status: 401 });
    // A signature that is given is checked even when unsigned URLs are allowed.
    await expect(checkSignature({ RENDERING_API_KEY: 'k', PREVIEW_ALLOW_UNSIGNED: 'true' }, 'abc', 'x'.repeat(43))).rejects.toMatchObject({ status: 403 });
  });

  it('malformed encodings and invalid requests are 400s that say what is wrong', async () => {
    const sign = async (r: string) => `/api/rendering/preview?r=${encodeURIComponent(r)}&sig=${await signPreviewRequest(env, r)}`;
    const deflated = async (text: string) => {
      const packed = await new Response(new Blob([text]).stream().pipeThrough(new CompressionStream('deflate-raw'))).arrayBuffer();
      return base64url(new Uint8Array(packed));
    };
    const cases: Array<[string, string]> = [
      ['not base64url', 'a+b/c='],
      ['not deflate', base64url(new TextEncoder().encode('{"template":"x"}'))],
      ['not JSON', await deflated('{template')],
      ['not an object', await deflated('[1,2]')],
      ['too deep', await deflated('{"data":' + '['.repeat(100) + ']'.repeat(100) + '}')],
      ['proto', await deflated('{"template":"x","data":{"__proto__":{"type":"text","text":"a"}}}')],
      ['bad version', await encodePreviewRequest({ template: text, v: 'zz' })],
      ['schema', await encodePreviewRequest({ template: text, size: { width: 0 } })],
      ['bomb', await deflated(JSON.stringify({ template: text, pad: 'a'.repeat(200_000) }))],
    ];
    for (const [what, r] of cases) {
      const res = await call(await sign(r));
      expect(res.status, what).toBe(400);
      const body = (await res.json()) as { error: string; details?: Array<{ path: string }> };
      expect(body.error, what).toBe('invalid_request');
      expect(body.details?.[0]?.path, what).toMatch(/^r/);
    }
    expect((await call('/api/rendering/preview')).status).toBe(400);
    // An unknown template is a 404, as for POST.
    expect((await call(await signedUrl({ template: 'sp/nope' }))).status).toBe(404);
  });

  it('a second viewer gets it from the cache; the result is kept in R2 for other locations', async () => {
    const body = { template: text, size: { width: 111, height: 111 }, data: { [TEXT_LAYER]: { type: 'text', text: 'Second viewer' } } };
    const url = await signedUrl(body);
    const first = await call(url);
    expect(first.status).toBe(200);
    const bytes = new Uint8Array(await first.arrayBuffer());
    const second = await getUntil(url, /edge hit/);
    expect(timingOf(second)).toMatch(/cache;desc="edge hit"/);
    expect(second.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(Buffer.from(await second.arrayBuffer()).equals(Buffer.from(bytes))).toBe(true);
    // The same request signed by anyone (the cache is keyed without sig) and R2 holds the result.
    const results = (await keys('results/')).length;
    expect(results).toBeGreaterThan(0);
    await caches.default.delete(new Request(`http://localhost${url.replace(/&sig=.*/, '')}`));
    const other = await getUntil(url, /result store hit/);
    expect(timingOf(other)).toMatch(/result store hit/);
    expect(other.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(Buffer.from(await other.arrayBuffer()).equals(Buffer.from(bytes))).toBe(true);
  });

  it('answers 304 to If-None-Match with its ETag, from the cache and when rendered', async () => {
    const url = await signedUrl({ template: text, size: { width: 99, height: 99 } });
    const first = await call(url);
    const etag = first.headers.get('etag')!;
    await first.arrayBuffer();
    const again = await call(url, { headers: { 'if-none-match': `W/"nope", ${etag}` } });
    expect(again.status).toBe(304);
    expect(again.headers.get('etag')).toBe(etag);
    expect(await again.text()).toBe('');
    const other = await call(url, { headers: { 'if-none-match': '"nope"' } });
    expect(other.status).toBe(200);
    await other.arrayBuffer();
    expect(etagMatches('*', etag)).toBe(true);
  });

  it('works with frame reuse: a one-line text change redraws only its rows', async () => {
    const size = { width: 200, height: 200 };
    await (await call(await signedUrl({ template: text, size }))).arrayBuffer();
    const res = await call(await signedUrl({ template: text, size, data: { [TEXT_LAYER]: { type: 'text', text: 'Changed line' } } }));
    expect(res.status).toBe(200);
    expect(timingOf(res)).toMatch(/frame;desc="redrawn rows \d+-\d+ of 200(, columns \d+-\d+ of 200)?"/);
    expect(sniffImage(new Uint8Array(await res.arrayBuffer()))).toMatchObject({ format: 'jpeg', width: 200, height: 200 });
  });

  it('the helper builds a signed URL (API key), pinning the template version', async () => {
    const body = { template: text.replace(/\.psd$/, ''), size: { width: 64, height: 64 } };
    expect((await postJson('/api/rendering/preview/url', body)).status).toBe(403);
    const res = await postJson('/API/Rendering/Preview/URL', body, withKey());
    expect(res.status).toBe(200);
    const { url } = (await res.json()) as { url: string };
    expect(url).toMatch(/^http:\/\/localhost\/api\/rendering\/preview\?r=[\w-]+&sig=[\w-]{43}$/);
    const img = await call(url.slice('http://localhost'.length));
    expect(img.status).toBe(200);
    expect(img.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    await img.arrayBuffer();
    // Bad requests are refused before any URL is handed out.
    expect((await postJson('/api/rendering/preview/url', { template: 'sp/nope' }, withKey())).status).toBe(404);
    expect((await postJson('/api/rendering/preview/url', { template: text, data: { Nope: { visible: false } } }, withKey())).status).toBe(400);
  });

  it('a pinned URL stops working when its template is replaced', async () => {
    const name = await uploadFixture('psdtools-blend-screen.psd', 'sp-re', 'swap.psd');
    const res = await postJson('/api/rendering/preview/url', { template: name, size: { width: 16, height: 16 } }, withKey());
    const { url } = (await res.json()) as { url: string };
    await uploadFixture('psdtools-blend-overlay.psd', 'sp-re', 'swap.psd');
    const stale = await call(url.slice('http://localhost'.length));
    expect(stale.status).toBe(404);
    expect(await stale.json()).toMatchObject({ error: 'not_found' });
  });

  it('a POST answers its URL before the result lands: the download right after it gets the image, and a signed GET of the same request finds it with the same ETag', async () => {
    const body = { template: text, size: { width: 133, height: 133 }, data: { [TEXT_LAYER]: { type: 'text', text: 'Answered first' } } };
    const post = await postJson('/api/rendering/preview', body);
    expect(post.status).toBe(200);
    const name = /download\/(.+)$/.exec((await post.json()) as string)![1];
    const download = await call(`/api/results/download/${name}`);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('image/jpeg');
    const bytes = new Uint8Array(await download.arrayBuffer());
    expect(sniffImage(bytes)).toMatchObject({ format: 'jpeg', width: 133, height: 133 });
    const get = await call(await signedUrl(body));
    expect(get.status).toBe(200);
    expect(timingOf(get)).toMatch(/result store hit/);
    expect(Buffer.from(await get.arrayBuffer()).equals(Buffer.from(bytes))).toBe(true);
    expect(get.headers.get('etag')).toBe(download.headers.get('etag'));
    // Once landed, the download from R2 is the same bytes with the same ETag.
    for (let i = 0; i < 50 && (await keys('results/')).every((k) => !k.endsWith(name)); i++) await new Promise((r) => setTimeout(r, 20));
    const again = await call(`/api/results/download/${name}`);
    expect(again.headers.get('etag')).toBe(download.headers.get('etag'));
    expect(Buffer.from(await again.arrayBuffer()).equals(Buffer.from(bytes))).toBe(true);
    const revalidated = await call(await signedUrl(body), { headers: { 'if-none-match': download.headers.get('etag')! } });
    expect(revalidated.status).toBe(304);
  });

  it('PREVIEW_R2_COPY=false (one-location local dev) keeps only the Cache API copy; unset or anything else keeps both', async () => {
    const app = createApp();
    const get = async (url: string, setting?: string) => {
      const after: Promise<unknown>[] = [];
      const ctx = { waitUntil: (p: Promise<unknown>) => after.push(p), passThroughOnException() {}, props: {} } as unknown as ExecutionContext;
      const res = await app.fetch(new Request(`http://localhost${url}`), { ...env, PREVIEW_R2_COPY: setting }, ctx);
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      await Promise.all(after);
      return res;
    };
    const body = (w: number) => ({ template: text, size: { width: w, height: w }, data: { [TEXT_LAYER]: { type: 'text', text: 'One location' } } });
    const uncache = (url: string) => caches.default.delete(new Request(`http://localhost${url.replace(/&sig=.*/, '')}`));
    const off = await signedUrl(body(71));
    expect(timingOf(await get(off, 'false'))).toMatch(/cache;desc="miss"/);
    expect(timingOf(await get(off, 'false'))).toMatch(/cache;desc="edge hit"/);
    await uncache(off);
    expect(timingOf(await get(off, 'false'))).toMatch(/cache;desc="miss"/); // nothing in R2: rendered again
    for (const [w, setting] of [[72, undefined], [73, 'true']] as const) {
      const on = await signedUrl(body(w));
      await get(on, setting);
      await uncache(on);
      expect(timingOf(await get(on, setting)), String(setting)).toMatch(/result store hit/);
    }
  });

  it('Server-Timing names every stage of a one-line change (POST and GET)', async () => {
    const body = (i: number) => ({ template: text, size: { width: 150, height: 150 }, data: { [TEXT_LAYER]: { type: 'text', text: `Line ${i}` } } });
    await postJson('/api/rendering/preview', body(0));
    const post = await postJson('/api/rendering/preview', body(1));
    expect(post.status).toBe(200);
    const phases = (res: Response) => [...timingOf(res).matchAll(/([\w-]+);dur=/g)].map((m) => m[1]);
    expect(phases(post)).toEqual(expect.arrayContaining(['request', 'template', 'validate', 'inputs', 'fingerprint', 'lookup', 'overrides', 'render', 'encode', 'store', 'total']));
    const get = await call(await signedUrl(body(2)));
    expect(get.status).toBe(200);
    expect(phases(get)).toEqual(expect.arrayContaining(['request', 'verify', 'edge', 'decode', 'template', 'inputs', 'fingerprint', 'lookup', 'render', 'encode', 'total']));
    expect(phases(get)).not.toContain('store'); // kept after the answer
    await get.arrayBuffer();
  });
});
