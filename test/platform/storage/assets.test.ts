// Asset storage: upload, metadata, get, file (Range, attachment), update, delete, copy, lists,
// private assets and anonymous URLs, for every type (contract, "Asset storage").
import { env } from 'cloudflare:workers';
import { PDFDocument } from 'pdf-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { bundledFont, psdFixture } from '../../helpers/fixtures';
import { seedPlatform } from '../../helpers/platform';
import { api, apiJson, pngBytes, S, SVG, upload, uploadJson } from './helpers';

let psd: Uint8Array;
let font: Uint8Array;
let pdf: Uint8Array;

beforeAll(async () => {
  await seedPlatform();
  psd = await psdFixture('psdtools-text.psd');
  font = await bundledFont('LiberationSans-Regular.ttf');
  const doc = await PDFDocument.create();
  for (let i = 0; i < 3; i++) doc.addPage([200 + i, 100]);
  pdf = await doc.save();
});

describe('upload and metadata', () => {
  it('a PSD design is compiled: fonts, surfaces and print areas in pt; missing fonts set hasProblems', async () => {
    const dto = await uploadJson(`${S}/designs`, psd, 'text card.psd', { path: '/meta/' });
    expect(dto).toMatchObject({ name: 'text card', designType: 'Psd', private: false, ownerId: null, hasProblems: true });
    expect(dto.metadata.fonts).toContainEqual({ postscriptName: 'ArialMT', family: null, style: null });
    expect(dto.metadata.surfaces).toHaveLength(1);
    expect(dto.metadata.surfaces[0].width).toBeGreaterThan(0);
    expect(dto.metadata.printAreas).toEqual(dto.metadata.surfaces);
    expect(Object.keys(dto.metadata).some((k) => k.startsWith('_'))).toBe(false);
  });

  it('a print-product JSON design is validated and measured', async () => {
    const model = { surfaces: [{ width: 252, height: 144, printAreas: [{ bounds: { x: 0, y: 0, width: 252, height: 144 } }] }] };
    const dto = await uploadJson(`${S}/designs`, JSON.stringify(model), 'card.json', { path: '/meta/' });
    expect(dto).toMatchObject({ designType: 'PrintProduct', hasProblems: false, metadata: { surfaces: [{ width: 252, height: 144 }], printAreas: [{ width: 252, height: 144 }] } });
    const bad = await upload(`${S}/designs`, JSON.stringify({ surfaces: [] }), 'bad.json');
    expect(bad.status).toBe(422);
    expect(bad.headers.get('content-type')).toContain('application/problem+json');
  });

  it('images: PNG with dpi, SVG size, PDF pages; anything else is 422', async () => {
    const png = await uploadJson(`${S}/images`, pngBytes(5, 4), 'dot.png', { path: '/meta/' });
    expect(png).toMatchObject({ mimeType: 'image/png', metadata: { isVector: false, width: 5, height: 4, format: 'png', dpiX: 300, dpiY: 300, pages: 1 } });
    const svg = await uploadJson(`${S}/images`, SVG, 'logo.svg', { path: '/meta/' });
    expect(svg).toMatchObject({ mimeType: 'image/svg+xml', metadata: { isVector: true, width: 192, height: 96, format: 'svg' } });
    const doc = await uploadJson(`${S}/images`, pdf, 'doc.pdf', { path: '/meta/' });
    expect(doc).toMatchObject({ mimeType: 'application/pdf', metadata: { isVector: true, format: 'pdf', pages: 3, width: 200, height: 100 } });
    const res = await upload(`${S}/images`, 'hello', 'x.txt');
    expect(res.status).toBe(422);
    expect(((await res.json()) as any).detail).toMatch(/JPEG, PNG, SVG or PDF/);
  });

  it('mockups: PSD → Mockup2D, GLB → Mockup3D; fonts: PostScript name and family', async () => {
    const m = await uploadJson(`${S}/mockups`, await psdFixture('agpsd-shapes-smart-objects.psd'), 'mock.psd', { path: '/meta/' });
    expect(m).toMatchObject({ type: 'Mockup2D', metadata: { format: 'psd', linkSourceId: null } });
    const glb = new Uint8Array([0x67, 0x6c, 0x54, 0x46, 2, 0, 0, 0, 12, 0, 0, 0]);
    expect(await uploadJson(`${S}/mockups`, glb, 'cup.glb', { path: '/meta/' })).toMatchObject({ type: 'Mockup3D' });
    // A tenant's fonts are unique by PostScript name, and other files sharing this runtime
    // (vitest.shared.config.ts) upload Liberation Sans to tenant 1 too: this upload must be the first.
    const held = await env.DB.prepare(`SELECT id FROM assets WHERE tenant_id = 1 AND type = 'font' AND postscript_name = 'LiberationSans'`).first<{ id: string }>();
    if (held) expect((await api('DELETE', `${S}/fonts/${held.id}`, undefined, { token: 1 })).status).toBe(204);
    const f = await uploadJson(`${S}/fonts`, font, 'LiberationSans-Regular.ttf', { path: '/meta/' });
    expect(f.metadata).toEqual({ postscriptName: 'LiberationSans', family: 'Liberation Sans', style: 'Regular' });
    // The same PostScript name again: 409 (the tenant's fonts are unique by it).
    const again = await upload(`${S}/fonts`, font, 'copy.ttf');
    expect(again.status).toBe(409);
    expect(((await again.json()) as any).type).toBe('GeneralConflict');
    expect((await upload(`${S}/fonts`, pngBytes(), 'x.ttf')).status).toBe(422);
  });

  it('a font over 20 MB is refused with 413 naming the limit', async () => {
    const big = new Uint8Array(20 * 1024 * 1024 + 10);
    const res = await upload(`${S}/fonts`, big, 'huge.ttf');
    expect(res.status).toBe(413);
    expect(((await res.json()) as any).detail).toMatch(/20 MB/);
  });

  it('names are unique per folder ignoring case (409 NameConflict); client ids (409 IdConflict)', async () => {
    await uploadJson(`${S}/images`, pngBytes(), 'a.png', { name: 'Same', path: '/clash/' });
    const res = await upload(`${S}/images`, pngBytes(), 'b.png', { name: 'SAME', path: '/CLASH' });
    expect(res.status).toBe(409);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(await res.json()).toMatchObject({ type: 'NameConflict' });
    await uploadJson(`${S}/images`, pngBytes(), 'c.png', { id: 'my-client-id', path: '/clash/' });
    const dup = await upload(`${S}/images`, pngBytes(), 'd.png', { id: 'my-client-id', path: '/clash/' });
    expect(await dup.json()).toMatchObject({ type: 'IdConflict' });
    expect((await upload(`${S}/images`, pngBytes(), 'e.png', { id: 'bad id!' })).status).toBe(400);
  });

  it('bad requests: not multipart → 415, no file → 400, bad customFields → 400', async () => {
    expect((await api('POST', `${S}/images`, { name: 'x' }, { token: 1 })).status).toBe(415);
    const fd = new FormData();
    fd.append('name', 'x');
    expect((await api('POST', `${S}/images`, undefined, { token: 1, raw: fd })).status).toBe(400);
    expect((await upload(`${S}/images`, pngBytes(), 'x.png', { customFields: '[1]' })).status).toBe(400);
  });
});

describe('get, file, update, delete', () => {
  it('get and file with Range, attachment and 416', async () => {
    const png = pngBytes(7, 7);
    const dto = await uploadJson(`${S}/images`, png, 'photo.png', { path: '/files/' });
    expect(await apiJson('GET', `${S}/images/${dto.id}`, undefined, { token: 1 })).toMatchObject({ id: dto.id, name: 'photo' });
    const whole = await api('GET', `${S}/images/${dto.id}/file`, undefined, { token: 1 });
    expect(whole.status).toBe(200);
    expect(whole.headers.get('content-disposition')).toMatch(/^inline; filename="photo.png"/);
    expect(new Uint8Array(await whole.arrayBuffer())).toEqual(png);
    const part = await api('GET', `${S}/images/${dto.id}/file?attachment=true`, undefined, { token: 1, headers: { range: 'bytes=-4' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes ${png.length - 4}-${png.length - 1}/${png.length}`);
    expect(part.headers.get('content-disposition')).toMatch(/^attachment/);
    expect(new Uint8Array(await part.arrayBuffer())).toEqual(png.subarray(png.length - 4));
    const none = await api('GET', `${S}/images/${dto.id}/file`, undefined, { token: 1, headers: { range: `bytes=${png.length}-` } });
    expect(none.status).toBe(416);
    expect(none.headers.get('content-range')).toBe(`bytes */${png.length}`);
    // Like every other 4xx, a problem-details body that says what is wrong.
    expect(none.headers.get('content-type')).toBe('application/problem+json');
    expect(await none.json()).toMatchObject({ status: 416, title: 'Range Not Satisfiable', code: 'range_not_satisfiable', detail: expect.stringContaining(`${png.length} bytes`) });
    const empty = await api('GET', `${S}/images/${dto.id}/file`, undefined, { token: 1, headers: { range: 'bytes=-0' } });
    expect(empty.status).toBe(416);
    expect(((await empty.json()) as { status: number }).status).toBe(416);
    // A satisfiable start with an end past the file is cut to the file (206, not 416).
    const past = await api('GET', `${S}/images/${dto.id}/file`, undefined, { token: 1, headers: { range: `bytes=2-${png.length + 50}` } });
    expect(past.status).toBe(206);
    expect(past.headers.get('content-range')).toBe(`bytes 2-${png.length - 1}/${png.length}`);
    await past.arrayBuffer();
  });

  it('a download is named by the base name only: an asset named ../../x/index.html saves as index.html (issue 18, item 11)', async () => {
    const dto = await uploadJson(`${S}/images`, pngBytes(), 'traversal.png', { path: '/files/' });
    const renamed = await api('PUT', `${S}/images/${dto.id}`, { name: '../../../../var/www/html/index.html' }, { token: 1 });
    expect(renamed.status).toBe(200);
    for (const query of ['', '?attachment=true']) {
      const res = await api('GET', `${S}/images/${dto.id}/file${query}`, undefined, { token: 1 });
      const disposition = res.headers.get('content-disposition')!;
      await res.arrayBuffer();
      expect(disposition).toMatch(/filename="index\.html\.png"; filename\*=UTF-8''index\.html\.png$/);
      expect(disposition).not.toContain('..');
      expect(disposition).not.toContain('%2F');
    }
  });

  it('update renames, moves and replaces custom fields; 404 for unknown, malformed and other tenants', async () => {
    const dto = await uploadJson(`${S}/images`, pngBytes(), 'u.png', { path: '/upd/', customFields: '{"a":1}' });
    const updated = await apiJson('PUT', `${S}/images/${dto.id}`, { name: 'renamed', path: '/upd/moved/', customFields: { b: 'x' } }, { token: 1 });
    expect(updated).toMatchObject({ name: 'renamed', customFields: { b: 'x' } });
    expect(updated.folderId).not.toBe(dto.folderId);
    expect((await api('GET', `${S}/images/ffffffffffffffffffffffff`, undefined, { token: 1 })).status).toBe(404);
    expect((await api('GET', `${S}/images/not%20an%20id`, undefined, { token: 1 })).status).toBe(404);
    expect((await api('GET', `${S}/images/${dto.id}`, undefined, { token: 2 })).status).toBe(404);
    expect((await api('GET', `${S}/images/${dto.id}?tenantId=2`, undefined, { token: 1 })).status).toBe(403);
    expect((await api('GET', `${S}/designs/${dto.id}`, undefined, { token: 1 })).status).toBe(404); // another type
    expect((await api('PUT', `${S}/images/${dto.id}`, { name: 7 }, { token: 1 })).status).toBe(400);
  });

  it('delete removes the row and drops the blob reference', async () => {
    const dto = await uploadJson(`${S}/images`, pngBytes(9, 1), 'gone.png', { path: '/del/' });
    expect((await api('DELETE', `${S}/images/${dto.id}`, undefined, { token: 1 })).status).toBe(204);
    expect((await api('GET', `${S}/images/${dto.id}`, undefined, { token: 1 })).status).toBe(404);
    expect((await api('DELETE', `${S}/images/${dto.id}`, undefined, { token: 1 })).status).toBe(404);
  });
});

describe('copy', () => {
  it('Abort, Rename, Overwrite and Skip', async () => {
    const a = await uploadJson(`${S}/images`, pngBytes(2, 2), 'orig.png', { path: '/copy/' });
    const b = await uploadJson(`${S}/images`, pngBytes(3, 3), 'other.png', { path: '/copy/dst/', name: 'orig' });
    const abort = await api('POST', `${S}/images/${a.id}?path=/copy/dst/`, undefined, { token: 1 });
    expect(abort.status).toBe(409);
    const renamed = await apiJson('POST', `${S}/images/${a.id}?path=/copy/dst/&strategy=rename`, undefined, { token: 1 }, 201);
    expect(renamed.name).toBe('orig (1)');
    const renamed2 = await apiJson('POST', `${S}/images/${a.id}?path=/copy/dst/&strategy=Rename`, undefined, { token: 1 }, 201);
    expect(renamed2.name).toBe('orig (2)');
    const skipped = await apiJson('POST', `${S}/images/${a.id}?path=/copy/dst/&strategy=Skip`, undefined, { token: 1 }, 200);
    expect(skipped.id).toBe(b.id);
    const over = await apiJson('POST', `${S}/images/${a.id}?path=/copy/dst/&strategy=Overwrite`, undefined, { token: 1 }, 201);
    expect(over.id).toBe(b.id);
    expect(over.metadata.width).toBe(2);
    const named = await apiJson('POST', `${S}/images/${a.id}?name=fresh`, undefined, { token: 1 }, 201);
    expect(named).toMatchObject({ name: 'fresh', folderId: a.folderId });
    expect((await api('POST', `${S}/images/${a.id}?strategy=Sideways`, undefined, { token: 1 })).status).toBe(400);
  });
});

describe('lists', () => {
  it('paging, sorting, search and the customFields filter', async () => {
    for (let i = 0; i < 5; i++) await uploadJson(`${S}/images`, pngBytes(i + 1, 1), `l${i}.png`, { path: '/list/', customFields: JSON.stringify({ even: i % 2 === 0, n: i }) });
    const all = await apiJson('GET', `${S}/images?path=/list/&sorting=name DESC&take=2&skip=1`, undefined, { token: 1 });
    expect(all.total).toBe(5);
    expect(all.items.map((x: any) => x.name)).toEqual(['l3', 'l2']);
    const even = await apiJson('GET', `${S}/images?path=/LIST&customFields=${encodeURIComponent('{"even":true}')}`, undefined, { token: 1 });
    expect(even.items.map((x: any) => x.name)).toEqual(['l0', 'l2', 'l4']);
    const search = await apiJson('GET', `${S}/images?path=/list/&search=L4`, undefined, { token: 1 });
    expect(search.total).toBe(1);
    for (const bad of ['take=1001', 'skip=-1', 'sorting=colour', 'customFields=[1]']) {
      expect((await api('GET', `${S}/images?${bad}`, undefined, { token: 1 })).status, bad).toBe(400);
    }
    const res = await api('GET', `${S}/images?path=/list/`, undefined, { token: 1 });
    expect(res.headers.get('server-timing')).toMatch(/db;dur=/);
  });
});

describe('private assets', () => {
  it('need an owner to create; wrong owner → 404; lists by owner; retention policy', async () => {
    expect((await upload(`${S}/private-images`, pngBytes(), 'p.png')).status).toBe(400);
    const dto = await uploadJson(`${S}/private-images`, pngBytes(), 'p.png', { ownerId: 'alice' });
    expect(dto).toMatchObject({ ownerId: 'alice', private: true });
    expect(await apiJson('GET', `${S}/private-images/${dto.id}`, undefined, { token: 1 })).toMatchObject({ id: dto.id });
    expect((await api('GET', `${S}/private-images/${dto.id}?ownerId=bob`, undefined, { token: 1 })).status).toBe(404);
    expect((await api('GET', `${S}/images/${dto.id}`, undefined, { token: 1 })).status).toBe(404);
    const list = await apiJson('GET', `${S}/private-images?ownerId=alice`, undefined, { token: 1 });
    expect(list.items.map((x: any) => x.id)).toContain(dto.id);
    expect(await apiJson('GET', `${S}/private-images/${dto.id}/retention-policy`, undefined, { token: 1 })).toBe('Default');
    expect(await apiJson('POST', `${S}/private-images/${dto.id}/retention-policy?policy=never`, undefined, { token: 1 })).toBe('Never');
    const info = await apiJson('GET', `${S}/private-images/file-storage-info?ownerId=alice`, undefined, { token: 1 });
    expect(info).toMatchObject({ fileCount: 1 });
    expect(await apiJson('GET', `${S}/private-images/retainable-file-storage-info?ownerId=alice`, undefined, { token: 1 })).toMatchObject({ fileCount: 0 });
    // A token with Assets but not Private_assets cannot reach private routes.
    const { tenantToken } = await import('../../helpers/platform');
    const assetsOnly = await tenantToken(1, 'Assets_full');
    expect((await api('GET', `${S}/private-images/${dto.id}`, undefined, { token: assetsOnly })).status).toBe(403);
  });

  it('file-storage-info counts a collection', async () => {
    const info = await apiJson('GET', `${S}/designs/file-storage-info`, undefined, { token: 1 });
    expect(info.fileCount).toBeGreaterThan(0);
    expect(info).toHaveProperty('temporaryFileSizeInBytes');
  });
});

describe('anonymous URLs', () => {
  it('issued by anonymousAccess, readable without a token, revoked when cleared', async () => {
    const png = pngBytes(4, 4);
    const dto = await uploadJson(`${S}/resources`, png, 'r.png', { anonymousAccess: 'true', namespace: 'anon' });
    expect(dto.url).toMatch(/\/api\/storage\/v1\/anonymous\/[A-Za-z0-9_-]{22}$/);
    const again = await apiJson('GET', `${S}/resources/${dto.id}`, undefined, { token: 1 });
    expect(again.url).toBe(dto.url);
    const res = await api('GET', dto.url, undefined, { headers: { range: 'bytes=0-1' } });
    expect(res.status).toBe(206);
    expect(res.headers.get('cache-control')).toBe('private, max-age=300');
    await apiJson('PUT', `${S}/resources/${dto.id}`, { anonymousAccess: false }, { token: 1 });
    expect((await api('GET', dto.url)).status).toBe(404);
    const renewed = await apiJson('PUT', `${S}/resources/${dto.id}`, { anonymousAccess: true }, { token: 1 });
    expect(renewed.url).not.toBe(dto.url);
    expect((await api('GET', renewed.url)).status).toBe(200);
  });
});
