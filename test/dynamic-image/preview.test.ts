import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app';
import { renderTemplate } from '../../src/engine';
import { resolveTemplate } from '../../src/engine/preview';
import { decodeImage } from '../../src/engine/raster/codecs';
import { readIcc } from '../../src/engine/raster/icc';
import { sniffImage } from '../../src/engine/raster/sniff';
import { FileStore } from '../../src/dynamic-image/store';
import { bundledFont, fixtureServer } from '../helpers/fixtures';
import { call, form, keys, PNG_1x1, postJson, uploadFixture, withKey } from './helpers';

const RESULT_URL = /^http:\/\/localhost\/api\/results\/download\/(\d{10}-[0-9a-f]{32}\.(jpg|png))$/;

let text: string; // 400×400
let design: string; // 900×600
let transparent: string; // 64×64, transparent composite

beforeAll(async () => {
  text = await uploadFixture('psdtools-text.psd', 'pv');
  design = await uploadFixture('psdrb-example-design.psd', 'pv');
  transparent = await uploadFixture('psdtools-blend-multiply.psd', 'pv');
});

async function preview(body: Record<string, unknown>, query = ''): Promise<{ status: number; url?: string; name?: string; body: unknown }> {
  const res = await postJson(`/api/rendering/preview${query}`, body);
  const json = await res.json();
  if (res.status !== 200) return { status: res.status, body: json };
  const m = RESULT_URL.exec(json as string);
  expect(m, json as string).not.toBeNull();
  return { status: 200, url: json as string, name: m![1], body: json };
}

async function download(name: string): Promise<{ res: Response; bytes: Uint8Array }> {
  const res = await call(`/api/results/download/${name}`);
  return { res, bytes: new Uint8Array(await res.arrayBuffer()) };
}

/** Waits until the result `name` has landed in R2 (POST answers its URL before the writes land). */
async function landed(name: string): Promise<void> {
  for (let i = 0; i < 100 && !(await env.FILES.head(`results/${name.slice(0, 10)}/${name}`)); i++) await new Promise((r) => setTimeout(r, 20));
}

async function sizeOf(name: string) {
  const s = sniffImage((await download(name)).bytes)!;
  return { format: s.format, width: s.width, height: s.height };
}

describe('output size: size is a box, s = min(w/W, h/H)', () => {
  it('defaults to 800×800 and keeps the aspect ratio', async () => {
    const r = await preview({ template: design });
    expect(await sizeOf(r.name!)).toEqual({ format: 'jpeg', width: 800, height: 533 });
  });

  it('shrinks into a box, upscales when s > 1, never below 1 px', async () => {
    expect(await sizeOf((await preview({ template: text, size: { width: 100, height: 50 } })).name!)).toMatchObject({ width: 50, height: 50 });
    expect(await sizeOf((await preview({ template: transparent, size: { width: 200, height: 100 } })).name!)).toMatchObject({ width: 100, height: 100 });
    expect(await sizeOf((await preview({ template: design, size: { width: 1, height: 1 } })).name!)).toMatchObject({ width: 1, height: 1 });
    // A side left out is 800.
    expect(await sizeOf((await preview({ template: design, size: { height: 300 } })).name!)).toMatchObject({ width: 450, height: 300 });
  });

  it('at s = 1 a PNG is exactly the composite', async () => {
    const r = await preview({ template: transparent, format: 'png', size: { width: 64, height: 64 } });
    const got = await decodeImage((await download(r.name!)).bytes);
    const { compiled } = await resolveTemplate(new FileStore(env.FILES), transparent);
    const want = await renderTemplate(env.FILES, compiled, { scale: 1, background: 'transparent' });
    expect(got.width).toBe(64);
    expect(Buffer.from(got.data).equals(Buffer.from(want.data))).toBe(true);
  });

  it('refuses sizes that are not positive integers', async () => {
    for (const size of [{ width: 0, height: 10 }, { width: 10.5, height: 10 }, { width: 'a', height: 1 }, { width: 20000, height: 10 }]) {
      expect((await preview({ template: text, size })).status).toBe(400);
    }
  });
});

describe('format, quality, colour', () => {
  it('accepts jpg, jpeg, png in any case; JPEG is opaque, PNG keeps alpha; both carry an ICC profile', async () => {
    for (const [format, want] of [['jpg', 'jpeg'], ['JPEG', 'jpeg'], ['Png', 'png']] as const) {
      const r = await preview({ template: transparent, format, size: { width: 64, height: 64 } });
      const { res, bytes } = await download(r.name!);
      expect(sniffImage(bytes)!.format).toBe(want);
      expect(res.headers.get('content-type')).toBe(`image/${want}`);
      expect(await readIcc(bytes, want)).not.toBeNull();
      const img = await decodeImage(bytes);
      const alphas = new Set<number>();
      for (let i = 3; i < img.data.length; i += 4) alphas.add(img.data[i]);
      if (want === 'png') expect(Math.min(...alphas)).toBeLessThan(255);
      else expect([...alphas]).toEqual([255]);
    }
    expect((await preview({ template: text, format: 'gif' })).status).toBe(400);
  });

  it('jpegQuality must be an integer 0–100', async () => {
    expect((await preview({ template: text, jpegQuality: 0, size: { width: 40, height: 40 } })).status).toBe(200);
    expect((await preview({ template: text, jpegQuality: 100, size: { width: 40, height: 40 } })).status).toBe(200);
    for (const q of [-1, 101, 50.5, '85']) {
      const r = await preview({ template: text, jpegQuality: q });
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ details: [{ path: 'jpegQuality' }] });
    }
  });

  it('unsharpMask accepts false, true and "amount, radius, threshold" with or without parentheses', async () => {
    for (const unsharpMask of [false, true, 'false', '(1.2, 0.5, 0.05)', '0.8,1,0', ' ( 2 , 0.3 , 0.5 ) ']) {
      expect((await preview({ template: text, size: { width: 100, height: 100 }, unsharpMask })).status, String(unsharpMask)).toBe(200);
    }
    for (const unsharpMask of ['1,2', 'a,b,c', '(1, 1, 2)', 5, { amount: 1 }]) {
      const r = await preview({ template: text, unsharpMask });
      expect(r.status, String(unsharpMask)).toBe(400);
      expect(r.body).toMatchObject({ details: [{ path: 'unsharpMask' }] });
    }
  });

  it('optimizePreview renders straight onto the output grid (no pyramid level + final resample)', async () => {
    // 900×600 into 270×270 → s = 0.3: the default path renders level 0.5 and resamples.
    const r = await preview({ template: design, format: 'png', size: { width: 270, height: 270 }, unsharpMask: false, optimizePreview: true });
    const got = await decodeImage((await download(r.name!)).bytes);
    const { compiled } = await resolveTemplate(new FileStore(env.FILES), design);
    const want = await renderTemplate(env.FILES, compiled, { scale: 0.3, background: 'transparent' });
    expect([got.width, got.height]).toEqual([270, 180]);
    expect(Buffer.from(got.data).equals(Buffer.from(want.data))).toBe(true);
  });

  it('unsharpMask and optimizePreview change nothing when s ≥ 1', async () => {
    const plain = await download((await preview({ template: transparent, format: 'png', size: { width: 64, height: 64 }, unsharpMask: false })).name!);
    const sharp = await download((await preview({ template: transparent, format: 'png', size: { width: 64, height: 64 }, unsharpMask: '3, 2, 0', optimizePreview: true })).name!);
    expect(Buffer.from(sharp.bytes).equals(Buffer.from(plain.bytes))).toBe(true);
  });
});

describe('request errors', () => {
  it('unknown template → 404, bad names → 400, missing template → 400', async () => {
    expect((await preview({ template: 'pv/nope' })).status).toBe(404);
    expect((await preview({ template: '../x' })).status).toBe(400);
    expect((await preview({ template: '/pv/x' })).status).toBe(400);
    expect((await preview({})).status).toBe(400);
    expect((await postJson('/api/information/template', { template: 'pv\\x' })).status).toBe(400);
  });

  it('malformed JSON → 400, bodies over 1 MB → 413', async () => {
    const bad = await call('/api/rendering/preview', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"template":' });
    expect(bad.status).toBe(400);
    const big = JSON.stringify({ template: text, data: { x: { type: 'text', text: 'a'.repeat(1024 * 1024) } } });
    const res = await call('/api/rendering/preview', { method: 'POST', headers: { 'content-type': 'application/json' }, body: big });
    expect(res.status).toBe(413);
  });

  it('bad disableCache values → 400; the model. prefix and any case are accepted', async () => {
    expect((await preview({ template: text }, '?disableCache=1')).status).toBe(400);
    expect((await preview({ template: text }, '?model.disableCache=TRUE')).status).toBe(200);
  });
});

describe('result cache', () => {
  it('an equal request returns the cached result; disableCache=true renders anew', async () => {
    const body = { template: text, size: { width: 120, height: 120 }, jpegQuality: 70 };
    const first = await preview(body);
    const again = await preview({ jpegQuality: 70, size: { height: 120, width: 120 }, template: text });
    expect(again.url).toBe(first.url);
    const fresh = await preview(body, '?disableCache=true');
    expect(fresh.url).not.toBe(first.url);
    // A different request is a different result.
    expect((await preview({ ...body, jpegQuality: 71 })).url).not.toBe(first.url);
  });

  it('a re-uploaded template is a different input', async () => {
    const name = await uploadFixture('psdtools-blend-screen.psd', 'pv-re', 'swap.psd');
    const a = await preview({ template: name, size: { width: 32, height: 32 } });
    await uploadFixture('psdtools-blend-overlay.psd', 'pv-re', 'swap.psd');
    const b = await preview({ template: name, size: { width: 32, height: 32 } });
    expect(b.url).not.toBe(a.url);
  });

  it('a hit checks the result still exists', async () => {
    const body = { template: text, size: { width: 90, height: 90 } };
    const first = await preview(body);
    await landed(first.name!);
    const key = (await keys('results/')).find((k) => k.endsWith(first.name!))!;
    await env.FILES.delete(key);
    const second = await preview(body);
    expect(second.url).not.toBe(first.url);
    expect((await download(second.name!)).res.status).toBe(200);
  });

  it('deleting a result removes its index entry', async () => {
    const body = { template: text, size: { width: 77, height: 77 } };
    const first = await preview(body);
    await landed(first.name!);
    const indexBefore = await keys('cache/results/');
    const del = await call(`/api/results/delete?file=${first.name}`, withKey({ method: 'DELETE' }));
    expect(del.status).toBe(200);
    expect((await keys('cache/results/')).length).toBe(indexBefore.length - 1);
    expect((await download(first.name!)).res.status).toBe(404);
    expect((await call(`/api/results/delete/${first.name}`, withKey({ method: 'DELETE' }))).status).toBe(404);
    expect((await preview(body)).url).not.toBe(first.url);
  });

  it('a failed render leaves no result and no index entry', async () => {
    const before = await keys();
    for (const data of [
      { Nope: { type: 'image', image: 'pv/missing.png' } },
      { Background: { type: 'image', image: 'pv/missing.png' } },
      { Background: { type: 'image', image: `${fixtureServer()}/status/404` } },
      { Background: { type: 'image', image: 'ftp://example.com/a.png' } },
      // Fetched fine, fails while rendering: not an image.
      { Background: { type: 'image', image: `${fixtureServer()}/fixtures/psd/manifest.json` } },
    ]) {
      const r = await preview({ template: text, data });
      expect(r.status, JSON.stringify(data)).toBeGreaterThanOrEqual(400);
      expect(r.status).toBeLessThan(500);
    }
    expect(await keys()).toEqual(before);
  });
});

describe('personalisation', () => {
  it('renders data with a stored image and new text; the inputs are part of the cache key', async () => {
    const photo = await preview({ template: design, size: { width: 300, height: 300 }, format: 'png' });
    const bytes = (await download(photo.name!)).bytes;
    const up = await call('/api/resources/images?destination=pv-img&overwrite=true', withKey({ method: 'POST', body: form([['photo.png', bytes]]) }));
    expect(up.status).toBe(201);
    await call('/api/resources/fonts?overwrite=true', withKey({ method: 'POST', body: form([['LiberationSans-Regular.ttf', await bundledFont('LiberationSans-Regular.ttf')]]) }));

    const body = {
      template: text,
      size: { width: 200, height: 200 },
      data: { Background: { type: 'image', image: 'pv-img/photo.png', resizeMode: 'fill' }, 'Line 1 Line 2 Line 3 and text': { type: 'text', text: 'Hello' } },
    };
    const a = await preview(body, '?disableCache=true');
    expect(a.status, JSON.stringify(a.body)).toBe(200);
    const plain = await preview({ template: text, size: { width: 200, height: 200 } });
    expect(Buffer.from((await download(a.name!)).bytes).equals(Buffer.from((await download(plain.name!)).bytes))).toBe(false);

    const cached = await preview(body);
    // Replacing the image's bytes changes the fingerprint.
    await call('/api/resources/images?destination=pv-img&overwrite=true', withKey({ method: 'POST', body: form([['photo.png', PNG_1x1]]) }));
    expect((await preview(body)).url).not.toBe(cached.url);
  });

  it('fetches images by URL (concurrently with preloadImages)', async () => {
    const body = {
      template: text,
      size: { width: 100, height: 100 },
      preloadImages: true,
      data: { Background: { type: 'image', image: `${fixtureServer()}/assets/rendering/dot.png` } },
    };
    const before = await keys('results/');
    const r = await preview(body);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect((await keys('results/')).length).toBe(before.length + 1);
  });

  it('refuses data that does not fit the template with 400 naming each problem', async () => {
    const r = await preview({ template: text, data: { Missing: { type: 'text', text: 'x' }, Background: { type: 'text', text: 'y' } } });
    expect(r.status).toBe(400);
    expect((r.body as { details: Array<{ path: string }> }).details.map((d) => d.path)).toEqual(expect.arrayContaining(['data.Missing', 'data.Background.type']));
  });
});

describe('results', () => {
  it('result URLs are absolute, random, and use PUBLIC_BASE_URL when set', async () => {
    const a = await preview({ template: text, size: { width: 10, height: 10 } }, '?disableCache=true');
    const b = await preview({ template: text, size: { width: 10, height: 10 } }, '?disableCache=true');
    expect(a.name).not.toBe(b.name);
    const app = createApp();
    const res = await app.fetch(
      new Request('http://internal/api/rendering/preview', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ template: text }) }),
      { ...env, PUBLIC_BASE_URL: 'https://images.example.com/' },
      { waitUntil() {}, passThroughOnException() {}, props: {} } as unknown as ExecutionContext,
    );
    expect(await res.json()).toMatch(/^https:\/\/images\.example\.com\/api\/results\/download\/\d{10}-[0-9a-f]{32}\.jpg$/);
  });

  it('download streams with its content type and Cache-Control: private, max-age=<remaining life>', async () => {
    const r = await preview({ template: text, size: { width: 20, height: 20 } });
    for (const path of [`/api/results/download/${r.name}`, `/api/results/download?file=${r.name}`, `/API/Results/Download/?File=${r.name}`]) {
      const res = await call(path);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/jpeg');
      const maxAge = Number(/^private, max-age=(\d+)$/.exec(res.headers.get('cache-control') ?? '')?.[1]);
      expect(maxAge).toBeGreaterThan(24 * 3600 - 120);
      expect(maxAge).toBeLessThanOrEqual(24 * 3600);
      await res.arrayBuffer();
    }
  });

  it('download of an unknown result → 404 JSON; missing name → 400', async () => {
    for (const path of ['/api/results/download/2026010100-00000000000000000000000000000000.jpg', '/api/results/download?file=whatever.jpg']) {
      const res = await call(path);
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ error: 'not_found' });
    }
    expect((await call('/api/results/download')).status).toBe(400);
    expect((await call('/api/results/download?file=../x')).status).toBe(400);
  });
});
