// The asset processor: import (multipart sourceFile, designParams.*), from-url through the
// outbound policy, update, check, count per sheet, mockup layers and links, designs from
// mockups, designs and resources, PDF page extraction and page previews.
import { env } from 'cloudflare:workers';
import { PDFDocument } from 'pdf-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { bundledFont, fixtureServer, psdFixture } from '../../helpers/fixtures';
import { seedPlatform } from '../../helpers/platform';
import { api, apiJson, P, pngBytes, S, upload, uploadJson } from '../storage/helpers';

let textPsd: Uint8Array;
let mockupPsd: Uint8Array;

beforeAll(async () => {
  await seedPlatform();
  textPsd = await psdFixture('psdtools-text.psd');
  mockupPsd = await psdFixture('agpsd-shapes-smart-objects.psd');
});

const importFile = (path: string, bytes: Uint8Array | string, filename: string, fields: Record<string, string> = {}, expected = 201) =>
  uploadJson(path, bytes, filename, fields, {}, expected);

describe('import', () => {
  it('takes sourceFile and designParams.*; a file the engine refuses answers 422', async () => {
    const res = await upload(`${P}/designs/import`, textPsd, 'card.psd', { 'designParams.name': 'Imported card', 'designParams.path': '/imports/' }, {}, 'sourceFile');
    const dto = (await res.json()) as any;
    expect(res.status, JSON.stringify(dto)).toBe(201);
    expect(dto).toMatchObject({ name: 'Imported card', designType: 'Psd', hasProblems: true });
    const bad = await upload(`${P}/designs/import`, new Uint8Array([0x38, 0x42, 0x50, 0x53, 0, 9, 0, 0]), 'broken.psd', { 'designParams.path': '/imports/' }, {}, 'sourceFile');
    expect(bad.status).toBe(422);
    const idml = await upload(`${P}/designs/import`, 'PK\u0003\u0004 idml', 'doc.idml', {}, {}, 'sourceFile');
    expect(idml.status).toBe(422);
  });

  it('check lists missing fonts; a tenant font makes it whole (tenant fonts before instance fonts)', async () => {
    const model = { surfaces: [{ width: 100, height: 100, containers: [{ items: [{ type: 'Text', text: 'Hi', x: 0, y: 0, width: 50, height: 20, font: { postscriptName: 'LiberationSerif-Bold', size: 12 } }] }] }] };
    const res = await upload(`${P}/designs/import`, JSON.stringify(model), 'text.json', {}, {}, 'sourceFile');
    const dto = (await res.json()) as any;
    if (res.status !== 201) {
      // The atoms model may spell text items differently; the check itself is what matters here.
      expect(res.status, JSON.stringify(dto)).toBe(201);
    }
    expect(await apiJson('POST', `${P}/designs/${dto.id}/check`, undefined, { token: 1 })).toEqual({ hasProblems: true, missingFonts: ['LiberationSerif-Bold'] });
    await uploadJson(`${S}/fonts`, await bundledFont('LiberationSerif-Bold.ttf'), 'serif-bold.ttf');
    expect(await apiJson('POST', `${P}/designs/${dto.id}/check`, undefined, { token: 1 })).toEqual({ hasProblems: false, missingFonts: [] });
    expect((await apiJson('GET', `${S}/designs/${dto.id}`, undefined, { token: 1 })).hasProblems).toBe(false);
  });

  it('update replaces the file and keeps the id', async () => {
    const a = await importFile(`${S}/images`, pngBytes(2, 2), 'a.png');
    const fd = new FormData();
    fd.append('file', new Blob([pngBytes(8, 6)]), 'b.png');
    const updated = await apiJson('POST', `${P}/images/${a.id}/update`, undefined, { token: 1, raw: fd });
    expect(updated).toMatchObject({ id: a.id, name: a.name, metadata: { width: 8, height: 6 } });
  });
});

describe('import from URL', () => {
  it('downloads through the outbound policy with headers as a map or an array', async () => {
    const url = `${fixtureServer()}/assets/marker-40x20.jpg`;
    const a = await apiJson('POST', `${P}/images/import/from-url`, { sourceUrl: url, requestHeaders: { 'x-test': '1' }, path: '/from-url/' }, { token: 1 }, 201);
    expect(a).toMatchObject({ name: 'marker-40x20', mimeType: 'image/jpeg', metadata: { width: 40, height: 20 } });
    const b = await apiJson('POST', `${S}/images/import/from-url`, { sourceUrl: url, requestHeaders: [{ name: 'x-test', value: '2' }], name: 'second', path: '/from-url/' }, { token: 1 }, 201);
    expect(b.name).toBe('second');
    const redirected = await apiJson('POST', `${P}/resources/import/from-url`, { sourceUrl: `${fixtureServer()}/redirect/2/assets/marker-40x20.jpg` }, { token: 1 }, 201);
    expect(redirected.format).toBe('jpeg');
  });

  it('422 saying why: status, too many redirects, a refused host; 413 beyond the limit', async () => {
    const why = async (sourceUrl: string, type = 'images') => {
      const res = await api('POST', `${P}/${type}/import/from-url`, { sourceUrl }, { token: 1 });
      return { status: res.status, detail: ((await res.json()) as any).detail as string };
    };
    expect(await why(`${fixtureServer()}/status/404`)).toMatchObject({ status: 422 });
    expect((await why(`${fixtureServer()}/redirect/4/assets/marker-40x20.jpg`)).detail).toMatch(/redirect/);
    expect((await why('http://10.0.0.1/x.png')).detail).toMatch(/internal|not allowed/);
    expect((await why('ftp://example.com/x.png')).status).toBe(422);
    expect(await why(`${fixtureServer()}/big/${21 * 1024 * 1024}`, 'fonts')).toMatchObject({ status: 413 });
    expect((await api('POST', `${P}/images/import/from-url`, { requestHeaders: {} }, { token: 1 })).status).toBe(400);
    // No declared length: the limit is counted as the body streams in.
    expect(await why(`${fixtureServer()}/big/${21 * 1024 * 1024}?chunked=1`, 'fonts')).toMatchObject({ status: 413, detail: expect.stringMatching(/20 MB/) });
  });

  it('streams a download into R2 (a 12 MB resource of unknown length) and leaves no staging behind', async () => {
    const size = 12 * 1024 * 1024;
    const r = await apiJson('POST', `${P}/resources/import/from-url`, { sourceUrl: `${fixtureServer()}/big/${size}?kind=text&chunked=1` }, { token: 1 }, 201);
    const file = await api('GET', `${S}/resources/${r.id}/file`, undefined, { token: 1, headers: { range: `bytes=${size - 3}-` } });
    expect(file.status).toBe(206);
    expect(file.headers.get('content-range')).toBe(`bytes ${size - 3}-${size - 1}/${size}`);
    expect(new Uint8Array(await file.arrayBuffer())).toEqual(new Uint8Array(3)); // the fixture pads with zeros after its first MB of 'a'
    const head = await api('GET', `${S}/resources/${r.id}/file`, undefined, { token: 1, headers: { range: 'bytes=0-2' } });
    expect(await head.text()).toBe('aaa');
    expect((await env.FILES.list({ prefix: 'p/1/cache/staging/' })).objects).toEqual([]);
  });
});

describe('designs', () => {
  it('calculate-count-per-sheet of a PSD (px ÷ ppi × 72)', async () => {
    const d = await importFile(`${S}/designs`, textPsd, 'count.psd');
    const surface = d.metadata.surfaces[0];
    const r = await apiJson('POST', `${P}/designs/${d.id}/calculate-count-per-sheet`, { sheetWidth: surface.width * 2, sheetHeight: surface.height * 3 }, { token: 1 });
    expect(r).toMatchObject({ count: 6, columns: 2, rows: 3, rotated: false });
    expect((await api('POST', `${P}/designs/${d.id}/calculate-count-per-sheet`, { sheetWidth: -1, sheetHeight: 10 }, { token: 1 })).status).toBe(400);
    expect((await api('POST', `${P}/designs/ffffffffffffffffffffffff/calculate-count-per-sheet`, { sheetWidth: 1, sheetHeight: 1 }, { token: 1 })).status).toBe(404);
  });

  it('count per sheet of a print product uses the union of print areas and their largest bleed', async () => {
    const model = {
      surfaces: [{ width: 300, height: 200, printAreas: [{ bounds: { x: 0, y: 0, width: 100, height: 50 }, bleed: { left: 5, top: 5, right: 5, bottom: 5 } }] }],
    };
    const d = await importFile(`${S}/designs`, JSON.stringify(model), 'pp.json');
    const r = await apiJson('POST', `${P}/designs/${d.id}/calculate-count-per-sheet`, { sheetWidth: 330, sheetHeight: 120 }, { token: 1 });
    expect(r).toEqual({ count: 6, columns: 3, rows: 2, rotated: false, itemWidth: 110, itemHeight: 60 });
    const noBleed = await apiJson('POST', `${P}/designs/${d.id}/calculate-count-per-sheet`, { sheetWidth: 330, sheetHeight: 120, bleed: 0 }, { token: 1 });
    expect(noBleed.count).toBe(6);
  });

  it('private designs from a public design and from a resource; embed-all-linked-data', async () => {
    const pub = await importFile(`${S}/designs`, textPsd, 'public.psd');
    const copy = await apiJson('POST', `${P}/private-designs/from-design?designId=${pub.id}&ownerId=alice&name=Mine`, undefined, { token: 1 }, 201);
    expect(copy).toMatchObject({ ownerId: 'alice', name: 'Mine', private: true, designType: 'Psd' });
    expect((await api('POST', `${P}/private-designs/from-design?designId=${pub.id}`, undefined, { token: 1 })).status).toBe(400);
    const res = await importFile(`${S}/resources`, JSON.stringify({ surfaces: [{ width: 10, height: 10 }] }), 'r.json');
    const fromRes = await apiJson('POST', `${P}/private-designs/from-resource?resourceId=${res.id}&ownerId=alice&privateDesignId=alice-design-1`, undefined, { token: 1 }, 201);
    expect(fromRes).toMatchObject({ id: 'alice-design-1', designType: 'PrintProduct' });
    const img = await importFile(`${S}/images`, pngBytes(3, 3), 'embed.png');
    const pp = {
      surfaces: [{ width: 100, height: 100, containers: [{ items: [{ type: 'Image', x: 0, y: 0, width: 10, height: 10, source: { type: 'Storage', id: img.id } }] }] }],
    };
    const d = await importFile(`${S}/designs`, JSON.stringify(pp), 'embed.json');
    const embedded = await apiJson('POST', `${P}/designs/${d.id}/embed-all-linked-data`, undefined, { token: 1 });
    expect(embedded.id).toBe(d.id);
    const file = await (await api('GET', `${S}/designs/${d.id}/file`, undefined, { token: 1 })).json() as any;
    expect(file.surfaces[0].containers[0].items[0].source).toMatchObject({ type: 'Embedded', key: expect.stringMatching(/^p\/1\/embedded\/[0-9a-f]{64}$/) });
  });
});

describe('mockups', () => {
  it('artwork layers, groups, links and a design from a mockup', async () => {
    const m = await importFile(`${S}/mockups`, mockupPsd, 'mock.psd');
    const layers = await apiJson('GET', `${P}/mockups/${m.id}/artwork-layers`, undefined, { token: 1 });
    expect(layers.length).toBeGreaterThan(0);
    expect(layers[0]).toMatchObject({ name: expect.any(String), index: expect.any(Number), corners: expect.any(Array) });
    expect(Array.isArray(await apiJson('GET', `${P}/mockups/${m.id}/groups`, undefined, { token: 1 }))).toBe(true);
    const link = await apiJson('POST', `${P}/mockups/${m.id}/create-mockup-link`, { artworkLayer: layers[0].name, name: 'link 1' }, { token: 1 }, 201);
    expect(link).toMatchObject({ type: 'MockupLink', metadata: { linkSourceId: m.id } });
    expect((await api('POST', `${P}/mockups/${m.id}/create-mockup-link`, { artworkLayer: 'no such layer' }, { token: 1 })).status).toBe(400);
    const links = await apiJson('POST', `${P}/mockups/${m.id}/batch-create-mockup-links`, [{ artworkLayer: layers[0].name, name: 'link 2' }], { token: 1 }, 201);
    expect(links).toHaveLength(1);
    const design = await apiJson('POST', `${P}/designs/from-mockup`, { mockupId: m.id, designParams: { name: 'From mockup' } }, { token: 1 }, 201);
    expect(design).toMatchObject({ name: 'From mockup', designType: 'PrintProduct' });
    expect(design.metadata.surfaces).toHaveLength(layers.length);
    const priv = await apiJson('POST', `${P}/private-designs/from-mockup`, { mockupId: m.id, designParams: { ownerId: 'bob' } }, { token: 1 }, 201);
    expect(priv.ownerId).toBe('bob');
    expect((await api('POST', `${P}/designs/from-mockup`, { mockupId: 'ffffffffffffffffffffffff' }, { token: 1 })).status).toBe(404);
  });
});

describe('PDF pages', () => {
  it('extract a page into a one-page PDF image; a page out of range is 404 (previews: test/platform/processor/pdf-pages.test.ts)', async () => {
    const doc = await PDFDocument.create();
    doc.addPage([100, 100]);
    doc.addPage([300, 200]);
    const img = await importFile(`${S}/images`, await doc.save(), 'two.pdf', { path: '/pdfs/' });
    const page = await apiJson('POST', `${P}/images/${img.id}/pages/1/extract`, undefined, { token: 1 }, 201);
    expect(page).toMatchObject({ name: 'two_p2', folderId: img.folderId, metadata: { pages: 1, width: 300, height: 200 } });
    expect((await api('POST', `${P}/images/${img.id}/pages/2/extract`, undefined, { token: 1 })).status).toBe(404);
    expect((await api('GET', `${P}/images/${img.id}/pages/5/preview`, undefined, { token: 1 })).status).toBe(404);
  });
});
