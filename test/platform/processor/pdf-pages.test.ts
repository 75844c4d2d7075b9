// PDF images: every page is drawn once at import to p/<t>/assets/images/<id>/pages/<n>.png
// (PDFium, long side 2,048 px); page previews resample that PNG; update redraws, delete removes.
import { env } from 'cloudflare:workers';
import { PDFDocument, rgb } from 'pdf-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeImage } from '../../../src/engine/raster/codecs';
import { sweepAssets } from '../../../src/platform/assets';
import { psdFixture } from '../../helpers/fixtures';
import { seedPlatform } from '../../helpers/platform';
import { api, apiJson, P, S, uploadJson } from '../storage/helpers';
import { keepTenantSettings } from '../../helpers/tenant-state';

keepTenantSettings(1); // vitest.shared.config.ts: later files find the tenant's settings as this one did

beforeAll(async () => {
  await seedPlatform();
});

/** Page 0: 200 × 100 pt, red left half, blue top-right quarter. Page 1: 100 × 100 pt, green. */
async function twoPagePdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const p0 = doc.addPage([200, 100]);
  p0.drawRectangle({ x: 0, y: 0, width: 100, height: 100, color: rgb(1, 0, 0) });
  p0.drawRectangle({ x: 100, y: 50, width: 100, height: 50, color: rgb(0, 0, 1) });
  const p1 = doc.addPage([100, 100]);
  p1.drawRectangle({ x: 0, y: 0, width: 100, height: 100, color: rgb(0, 1, 0) });
  return doc.save();
}

const pageKey = (id: string, n: number) => `p/1/assets/images/${id}/pages/${n}.png`;
const pixel = (img: { width: number; data: Uint8ClampedArray }, x: number, y: number) => Array.from(img.data.subarray((y * img.width + x) * 4, (y * img.width + x) * 4 + 3));
const near = (a: number[], b: number[]) => a.every((v, i) => Math.abs(v - b[i]!) <= 8);

describe('PDF pages as images', () => {
  it('import draws each page once to its R2 key (long side 2,048 px)', async () => {
    const img = await uploadJson(`${S}/images`, await twoPagePdf(), 'pages.pdf', { path: '/pdf-pages/' });
    expect(img.metadata).toMatchObject({ pages: 2, width: 200, height: 100 });
    const p0 = await env.FILES.get(pageKey(img.id, 0));
    const p1 = await env.FILES.get(pageKey(img.id, 1));
    expect(p0?.httpMetadata?.contentType).toBe('image/png');
    const d0 = await decodeImage(new Uint8Array(await p0!.arrayBuffer()));
    const d1 = await decodeImage(new Uint8Array(await p1!.arrayBuffer()));
    expect([d0.width, d0.height, d1.width, d1.height]).toEqual([2048, 1024, 2048, 2048]);
    expect(pixel(d0, 100, 500)).toEqual([255, 0, 0]);
    expect(pixel(d0, 1800, 200)).toEqual([0, 0, 255]);
    expect(pixel(d0, 1800, 900)).toEqual([255, 255, 255]);
    expect(await env.FILES.get(pageKey(img.id, 2))).toBeNull();
  });

  it('page preview resamples the stored page: fitted inside width × height, png or jpeg; bad values 400, out of range 404', async () => {
    const img = await uploadJson(`${S}/images`, await twoPagePdf(), 'preview.pdf', { path: '/pdf-pages/' });
    const res = await api('GET', `${P}/images/${img.id}/pages/0/preview?width=400&height=400`, undefined, { token: 1 });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    const png = await decodeImage(new Uint8Array(await res.arrayBuffer()));
    expect([png.width, png.height]).toEqual([400, 200]);
    expect(near(pixel(png, 50, 100), [255, 0, 0])).toBe(true);
    expect(near(pixel(png, 350, 50), [0, 0, 255])).toBe(true);
    expect(near(pixel(png, 350, 150), [255, 255, 255])).toBe(true);

    const jpg = await api('GET', `${P}/images/${img.id}/pages/1/preview?height=100&format=jpeg`, undefined, { token: 1 });
    expect(jpg.status).toBe(200);
    expect(jpg.headers.get('content-type')).toBe('image/jpeg');
    const j = await decodeImage(new Uint8Array(await jpg.arrayBuffer()));
    expect([j.width, j.height]).toEqual([100, 100]);
    expect(near(pixel(j, 50, 50), [0, 255, 0])).toBe(true);

    const whole = await api('GET', `${P}/images/${img.id}/pages/0/preview`, undefined, { token: 1 });
    expect((await decodeImage(new Uint8Array(await whole.arrayBuffer()))).width).toBe(2048);

    for (const qs of ['width=0', 'width=abc', 'height=99999', 'format=gif']) {
      const bad = await api('GET', `${P}/images/${img.id}/pages/0/preview?${qs}`, undefined, { token: 1 });
      expect(bad.status, qs).toBe(400);
    }
    expect((await api('GET', `${P}/images/${img.id}/pages/2/preview`, undefined, { token: 1 })).status).toBe(404);
    expect((await api('GET', `${P}/images/nope/pages/0/preview`, undefined, { token: 1 })).status).toBe(404);
  });

  it('preview-with-mockup places the page into the mockup PSD (PNG); unknown mockup 404, page out of range 404', async () => {
    const img = await uploadJson(`${S}/images`, await twoPagePdf(), 'on-mockup.pdf', { path: '/pdf-pages/' });
    const mockup = await uploadJson(`${S}/mockups`, await psdFixture('agpsd-shapes-smart-objects.psd'), 'mock.psd', { path: '/pdf-pages/' });
    const res = await api('POST', `${P}/images/${img.id}/pages/1/preview-with-mockup`, { mockupId: mockup.id }, { token: 1 });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    const out = await decodeImage(new Uint8Array(await res.arrayBuffer()));
    expect(Math.max(out.width, out.height)).toBe(800);
    // The green page shows somewhere in the mockup.
    let green = 0;
    for (let i = 0; i < out.data.length; i += 4) if (out.data[i]! < 60 && out.data[i + 1]! > 200 && out.data[i + 2]! < 60) green++;
    expect(green).toBeGreaterThan(100);
    expect((await api('POST', `${P}/images/${img.id}/pages/1/preview-with-mockup`, { mockupId: 'nope' }, { token: 1 })).status).toBe(404);
    expect((await api('POST', `${P}/images/${img.id}/pages/9/preview-with-mockup`, { mockupId: mockup.id }, { token: 1 })).status).toBe(404);
  });

  it('a copy (D1 rows only) gets its pages drawn on first preview', async () => {
    const img = await uploadJson(`${S}/images`, await twoPagePdf(), 'copied.pdf', { path: '/pdf-pages/' });
    await env.FILES.delete([pageKey(img.id, 0), pageKey(img.id, 1)]);
    const res = await api('GET', `${P}/images/${img.id}/pages/1/preview?width=64`, undefined, { token: 1 });
    expect(res.status).toBe(200);
    expect(await env.FILES.head(pageKey(img.id, 0))).not.toBeNull();
    expect(await env.FILES.head(pageKey(img.id, 1))).not.toBeNull();
  });

  it('update redraws the pages (a shorter PDF drops the extra ones); delete removes them', async () => {
    const img = await uploadJson(`${S}/images`, await twoPagePdf(), 'updated.pdf', { path: '/pdf-pages/' });
    const one = await PDFDocument.create();
    one.addPage([50, 100]).drawRectangle({ x: 0, y: 0, width: 50, height: 100, color: rgb(0, 0, 0) });
    const fd = new FormData();
    fd.append('file', new Blob([await one.save()]), 'one.pdf');
    const updated = await apiJson('POST', `${P}/images/${img.id}/update`, undefined, { token: 1, raw: fd });
    expect(updated.metadata).toMatchObject({ pages: 1 });
    const p0 = await decodeImage(new Uint8Array(await (await env.FILES.get(pageKey(img.id, 0)))!.arrayBuffer()));
    expect([p0.width, p0.height]).toEqual([1024, 2048]);
    expect(pixel(p0, 500, 1000)).toEqual([0, 0, 0]);
    expect(await env.FILES.head(pageKey(img.id, 1))).toBeNull();

    expect((await api('DELETE', `${S}/images/${img.id}`, undefined, { token: 1 })).status).toBeLessThan(300);
    expect(await env.FILES.head(pageKey(img.id, 0))).toBeNull();
  });

  /** Every R2 key under the asset's pages prefix (listed, not guessed: no page may stay). */
  const pagesOf = async (tenant: number, id: string) => (await env.FILES.list({ prefix: `p/${tenant}/assets/images/${id}/` })).objects.map((o) => o.key);

  it('a recursive folder delete removes the pages of every PDF in the subtree', async () => {
    const top = await uploadJson(`${S}/images`, await twoPagePdf(), 'top.pdf', { path: '/pdf-tree/' });
    const deep = await uploadJson(`${S}/images`, await twoPagePdf(), 'deep.pdf', { path: '/pdf-tree/inner/' });
    const copy = await apiJson('POST', `${S}/images/${deep.id}?strategy=Rename`, undefined, { token: 1 }, 201);
    expect((await api('GET', `${P}/images/${copy.id}/pages/0/preview?width=32`, undefined, { token: 1 })).status).toBe(200); // draws the copy's pages
    for (const id of [top.id, deep.id, copy.id]) expect(await pagesOf(1, id)).toHaveLength(2);
    const folder = await apiJson('GET', `${S}/images/folders?fullPath=/pdf-tree/`, undefined, { token: 1 });
    expect((await api('DELETE', `${S}/images/folders/${folder.id}?recursive=true`, undefined, { token: 1 })).status).toBe(204);
    for (const id of [top.id, deep.id, copy.id]) expect(await pagesOf(1, id), id).toEqual([]);
  });

  it('batch delete removes the pages of the PDFs it deletes', async () => {
    const a = await uploadJson(`${S}/images`, await twoPagePdf(), 'batch-a.pdf', { path: '/pdf-batch/' });
    const b = await uploadJson(`${S}/images`, await twoPagePdf(), 'batch-b.pdf', { path: '/pdf-batch/' });
    await apiJson('POST', `${S}/images/batch-delete`, { ids: [a.id, b.id] }, { token: 1 }, 204);
    expect([...(await pagesOf(1, a.id)), ...(await pagesOf(1, b.id))]).toEqual([]);
  });

  it('the retention sweep removes the pages of the private PDFs it deletes', async () => {
    await env.DB.prepare(
      `INSERT INTO tenant_settings (tenant_id, enable_assets_retention, assets_retention_period_in_days) VALUES (1, 1, 30)
       ON CONFLICT (tenant_id) DO UPDATE SET enable_assets_retention = 1, assets_retention_period_in_days = 30`,
    ).run();
    const old = await uploadJson(`${S}/private-images`, await twoPagePdf(), 'old.pdf', { ownerId: 'pdf-ret' });
    const fresh = await uploadJson(`${S}/private-images`, await twoPagePdf(), 'fresh.pdf', { ownerId: 'pdf-ret' });
    expect(await pagesOf(1, old.id)).toHaveLength(2);
    await env.DB.prepare(`UPDATE assets SET last_modified = ?1 WHERE tenant_id = 1 AND id = ?2`).bind(Date.now() - 31 * 86_400_000, old.id).run();
    await sweepAssets(env);
    expect((await api('GET', `${S}/private-images/${old.id}`, undefined, { token: 1 })).status).toBe(404);
    expect(await pagesOf(1, old.id)).toEqual([]);
    expect(await pagesOf(1, fresh.id)).toHaveLength(2);
  });

  it('a broken PDF is refused at import with 422 and leaves no pages behind', async () => {
    const bytes = new TextEncoder().encode('%PDF-1.7\n%garbage that is not a PDF body\n%%EOF\n');
    const res = await api('POST', `${S}/images`, undefined, { token: 1, raw: (() => {
      const fd = new FormData();
      fd.append('file', new Blob([bytes]), 'broken.pdf');
      return fd;
    })() });
    expect(res.status).toBe(422);
    const listed = await env.FILES.list({ prefix: 'p/1/assets/images/' });
    const ids = new Set(listed.objects.map((o) => o.key.split('/')[4]));
    const { results } = await env.DB.prepare(`SELECT id FROM assets WHERE tenant_id = 1 AND type = 'image'`).all<{ id: string }>();
    const live = new Set(results.map((r) => r.id));
    for (const id of ids) expect(live.has(id!), `pages of ${id} without an asset`).toBe(true);
  });
});
