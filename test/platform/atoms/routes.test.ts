// Design atoms routes (/api/atoms/v1) over HTTP: designs stored as PrintProduct assets, model
// get/put with etags (a lost race is a 409), variables and items data, previews and proofs (pixels
// at known points, PDFs), /to-resource, image previews, the stateless builders, effects and
// extract-image, the print-product CRUD, surface mockups, 3D geometry, scopes and tenancy.
import { env } from 'cloudflare:workers';
import { readPsd } from 'ag-psd';
import { PDFDocument } from 'pdf-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeImage, encodePng } from '../../../src/engine/raster';
import { bundledFont, fixtureServer, psdFixture, testAsset } from '../../helpers/fixtures';
import { seedPlatform, tenantToken } from '../../helpers/platform';
import { api, apiJson, pngBytes, upload, uploadJson } from '../storage/helpers';
import { cmykPercentToSrgb } from '../../../src/engine/colour';

const A = '/api/atoms/v1';
const S = '/api/storage/v1';

let logoId: string;
let photoId: string;
let otherPhotoId: string;
let logoPng: Uint8Array;
let jpeg: Uint8Array;

/** A 2 × 2 PNG with a transparent pixel (for recolour) or an opaque one. */
async function tinyPng(alpha: boolean): Promise<Uint8Array> {
  const data = new Uint8ClampedArray(16).fill(200);
  if (alpha) data[3] = 0;
  return encodePng({ width: 2, height: 2, data });
}

/** The business card with Storage images of tenant 1. */
function card(extra: { photoVariable?: boolean } = {}) {
  return {
    surfaces: [
      {
        id: 'card',
        name: 'Card',
        width: 252,
        height: 144,
        printAreas: [{ id: 'front', name: 'Front', bounds: { x: 0, y: 0, width: 252, height: 144 }, bleed: { left: 9, top: 9, right: 9, bottom: 9 } }],
        containers: [
          {
            id: 'main',
            name: 'Main',
            items: [
              { id: 'bg', type: 'Rectangle', name: 'Background', x: 0, y: 0, width: 126, height: 144, fillColor: '#ff0000' },
              { id: 'right', type: 'Rectangle', name: 'Right', x: 126, y: 0, width: 126, height: 144, fillColor: 'cmyk(100,0,0,0)' },
              { id: 'logo', type: 'Image', name: 'Logo', x: 10, y: 10, width: 40, height: 40, source: { type: 'Storage', id: logoId } },
              {
                id: 'photo', type: 'Image', name: 'Photo', isVariable: extra.photoVariable ?? true, x: 150, y: 20, width: 80, height: 60, fitMode: 'Fill',
                ...(extra.photoVariable === false ? { source: { type: 'Storage', id: photoId } } : { constraints: { allowedFolder: '/photos' } }),
              },
              { id: 'name', type: 'Text', name: 'Name', isVariable: true, x: 10, y: 90, width: 200, height: 24, text: '', placeholder: 'Your name', font: { postscriptName: 'LiberationSans-Bold', size: 16 }, constraints: { maxLength: 20 } },
              { id: 'title', type: 'Text', name: 'Title', x: 10, y: 115, width: 200, height: 20, text: 'Analyst', font: { postscriptName: 'LiberationSans', size: 10 }, color: '#ffffff' },
              { id: 'g', type: 'Group', name: 'Group', x: 0, y: 0, width: 252, height: 144, items: [{ id: 'dot', type: 'Ellipse', name: 'Dot', x: 230, y: 120, width: 10, height: 10, fillColor: '#00ff00' }] },
            ],
          },
        ],
      },
    ],
  };
}

async function createCard(name: string, model: unknown = card(), query = ''): Promise<any> {
  return apiJson('POST', `${A}/designs${query}`, { product: model, name, path: '/atoms/' }, { token: 1 }, 201);
}

async function pixelsOf(res: Response) {
  const bytes = new Uint8Array(await res.arrayBuffer());
  return decodeImage(bytes);
}
const px = (img: { width: number; data: Uint8ClampedArray }, x: number, y: number) => [...img.data.subarray((y * img.width + x) * 4, (y * img.width + x) * 4 + 3)];
const near = (got: number[], want: number[], tol = 24) => want.every((v, i) => Math.abs(got[i]! - v) <= tol);

beforeAll(async () => {
  await seedPlatform();
  for (const f of ['LiberationSans-Regular.ttf', 'LiberationSans-Bold.ttf']) {
    const res = await upload(`${S}/fonts`, await bundledFont(f), f);
    expect([201, 409]).toContain(res.status);
  }
  logoPng = await tinyPng(true);
  jpeg = await testAsset('marker-40x20.jpg');
  logoId = (await uploadJson(`${S}/images`, logoPng, 'logo.png', { path: '/logos/' })).id;
  photoId = (await uploadJson(`${S}/images`, jpeg, 'photo.jpg', { path: '/photos/' })).id;
  otherPhotoId = (await uploadJson(`${S}/images`, jpeg, 'elsewhere.jpg', { path: '/other/' })).id;
});

describe('designs', () => {
  it('creates a PrintProduct design asset; the stored model has ids and defaults', async () => {
    const dto = await createCard('Card 1');
    expect(dto).toMatchObject({ name: 'Card 1', designType: 'PrintProduct', hasProblems: false, metadata: { surfaces: [{ width: 252, height: 144 }] } });
    const res = await api('GET', `${A}/designs/${dto.id}/model`, undefined, { token: 1 });
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toMatch(/^"[0-9a-f]{64}"$/);
    const model = (await res.json()) as any;
    expect(model.version).toBe(1);
    expect(model.surfaces[0].containers[0].items[0]).toMatchObject({ id: 'bg', rotation: 0, opacity: 1, visible: true });
    // The storage API sees the same asset.
    expect((await apiJson('GET', `${S}/designs/${dto.id}`, undefined, { token: 1 })).designType).toBe('PrintProduct');
  });

  it('answers every model problem at once by JSON path (400), and a taken name with 409', async () => {
    const bad = card();
    (bad.surfaces[0].containers[0].items[0] as any).fillColor = 'not-a-colour';
    (bad.surfaces[0].containers[0].items[4] as any).font.postscriptName = 'NoSuchFont-Regular';
    const res = await api('POST', `${A}/designs`, { product: bad, name: 'Bad' }, { token: 1 });
    expect(res.status).toBe(400);
    const problem = (await res.json()) as any;
    expect(Object.keys(problem.errors)).toEqual(expect.arrayContaining(['surfaces[0].containers[0].items[0].fillColor', 'surfaces[0].containers[0].items[4].font.postscriptName']));
    await createCard('Taken');
    const again = await api('POST', `${A}/designs`, { product: card(), name: 'taken', path: '/atoms/' }, { token: 1 });
    expect(again.status).toBe(409);
    expect(((await again.json()) as any).type).toBe('NameConflict');
    expect((await api('POST', `${A}/designs`, { name: 'No product' }, { token: 1 })).status).toBe(400);
  });

  it('privateStorageOwner makes a private design (needs Private_assets_full)', async () => {
    const dto = await createCard('Mine', card(), '?privateStorageOwner=alice');
    expect(dto).toMatchObject({ ownerId: 'alice', private: true });
    expect((await api('GET', `${A}/designs/${dto.id}/model?ownerId=alice`, undefined, { token: 1 })).status).toBe(200);
    expect((await api('GET', `${A}/designs/${dto.id}/model?ownerId=bob`, undefined, { token: 1 })).status).toBe(404);
    expect((await api('GET', `${A}/designs/${dto.id}/model`, undefined, { token: 1 })).status).toBe(404);
    const assetsOnly = await tenantToken(1, 'Assets_full');
    expect((await api('POST', `${A}/designs?privateStorageOwner=alice`, { product: card(), name: 'Nope' }, { token: assetsOnly })).status).toBe(403);
  });

  it('PUT validates the whole model and honours If-Match; two PUTs from one version: one 409', async () => {
    const dto = await createCard('Race');
    const res = await api('GET', `${A}/designs/${dto.id}/model`, undefined, { token: 1 });
    const etag = res.headers.get('etag')!;
    const model = (await res.json()) as any;
    const a = structuredClone(model);
    a.surfaces[0].name = 'A';
    const b = structuredClone(model);
    b.surfaces[0].name = 'B';
    const [ra, rb] = await Promise.all([
      api('PUT', `${A}/designs/${dto.id}/model`, a, { token: 1, headers: { 'if-match': etag } }),
      api('PUT', `${A}/designs/${dto.id}/model`, b, { token: 1, headers: { 'if-match': etag } }),
    ]);
    expect([ra.status, rb.status].sort()).toEqual([200, 409]);
    const loser = ra.status === 409 ? ra : rb;
    expect(((await loser.json()) as any).type).toBe('GeneralConflict');
    const winner = ra.status === 200 ? 'A' : 'B';
    expect(((await apiJson('GET', `${A}/designs/${dto.id}/model`, undefined, { token: 1 })) as any).surfaces[0].name).toBe(winner);
    // A stale etag is refused; no If-Match uses the version read by the request.
    expect((await api('PUT', `${A}/designs/${dto.id}/model`, a, { token: 1, headers: { 'if-match': etag } })).status).toBe(409);
    b.surfaces[0].containers[0].items[0].fillColor = 'nope';
    const invalid = await api('PUT', `${A}/designs/${dto.id}/model`, b, { token: 1 });
    expect(invalid.status).toBe(400);
    expect(Object.keys(((await invalid.json()) as any).errors)).toEqual(['surfaces[0].containers[0].items[0].fillColor']);
    // Blob refcounts: the edit released one reference to the old content and took one on the new.
    const refs = (sha: string) => env.DB.prepare(`SELECT refcount FROM blobs WHERE tenant_id = 1 AND sha256 = ?1`).bind(sha).first<{ refcount: number }>().then((r) => r?.refcount ?? 0);
    const current = (await api('GET', `${A}/designs/${dto.id}/model`, undefined, { token: 1 })).headers.get('etag')!.replace(/"/g, '');
    const [oldBefore, newBefore] = [await refs(current), 0];
    const changed = await api('PUT', `${A}/designs/${dto.id}/model`, { ...a, surfaces: [{ ...a.surfaces[0], name: 'Refcount' }] }, { token: 1 });
    const next = changed.headers.get('etag')!.replace(/"/g, '');
    expect([await refs(current), await refs(next)]).toEqual([oldBefore - 1, newBefore + 1]);
  });

  it('lists variables and applies items data to items that are not variables', async () => {
    const dto = await createCard('Vars');
    const vars = await apiJson('GET', `${A}/designs/${dto.id}/variables`, undefined, { token: 1 });
    expect(vars.items).toEqual([
      { name: 'Photo', value: '', type: 'Image', constraints: { allowedFolder: '/photos', required: false } },
      { name: 'Name', value: '', type: 'Text', constraints: { maxLength: 20, required: false } },
    ]);
    const model = await apiJson('POST', `${A}/designs/${dto.id}/apply-items-data`, { itemsData: { Title: { text: 'Engineer', color: '#000000' }, Dot: { visible: false } } }, { token: 1 });
    expect(model.surfaces[0].containers[0].items[5]).toMatchObject({ text: 'Engineer', color: '#000000' });
    const variable = await api('POST', `${A}/designs/${dto.id}/apply-items-data`, { itemsData: { Name: { text: 'x' }, Nobody: { visible: true } } }, { token: 1 });
    expect(variable.status).toBe(400);
    expect(Object.keys(((await variable.json()) as any).errors).sort()).toEqual(['itemsData["Name"]', 'itemsData["Nobody"]']);
    expect((await api('POST', `${A}/designs/${dto.id}/apply-items-data`, { itemsData: { Background: { fillColor: 'bad' } } }, { token: 1 })).status).toBe(400);
  });
});

describe('renders', () => {
  let id: string;
  beforeAll(async () => {
    id = (await createCard('Render me')).id;
  });

  it('render-preview: JPEG fitted into 800 × 800 with colours at known points and Server-Timing', async () => {
    const res = await api('POST', `${A}/designs/render-preview`, { designId: id, renderingConfig: { stub: false } }, { token: 1 });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/jpeg');
    expect(res.headers.get('server-timing')).toMatch(/render/);
    const img = await pixelsOf(res);
    expect([img.width, img.height]).toEqual([800, Math.round((144 * 800) / 252)]);
    expect(near(px(img, 300, 200), [255, 0, 0])).toBe(true); // left half red
    expect(near(px(img, 700, 440), cmykPercentToSrgb([100, 0, 0, 0]))).toBe(true); // right half cmyk(100,0,0,0) through the default CMYK profile
    // The preview's stages; the same request again draws nothing anew (its one run is cached).
    expect(res.headers.get('server-timing')).toMatch(/load;dur=\d+.*svg;dur=\d+, raster;dur=\d+, encode;dur=\d+/);
    const again = await api('POST', `${A}/designs/render-preview`, { designId: id, renderingConfig: { stub: false } }, { token: 1 });
    expect(again.headers.get('server-timing')).toMatch(/layers;desc="1\/1 runs from cache"/);
    expect((await pixelsOf(again)).data).toEqual(img.data);
  });

  it('stub draws empty variables; visualizePrintAreas strokes #00a3ff; PNG keeps alpha', async () => {
    const res = await api('POST', `${A}/designs/render-preview`, { designId: id, renderingConfig: { width: 252, height: 144, fileFormat: 'png', visualizePrintAreas: true } }, { token: 1 });
    expect(res.headers.get('content-type')).toBe('image/png');
    const img = await pixelsOf(res);
    expect(near(px(img, 185, 50), [0xe6, 0xe6, 0xe6], 8)).toBe(true); // the photo stub (off its diagonals)
    // The 1 px outline is centred on the surface's edge: half of it covers the red background there.
    const edge = px(img, 0, 70);
    expect(edge[2]! > 150 && edge[0]! < 128).toBe(true);
    expect(near(px(img, 2, 70), [255, 0, 0], 8)).toBe(true);
    const plain = await pixelsOf(await api('POST', `${A}/designs/render-preview`, { designId: id, renderingConfig: { width: 252, height: 144, stub: false } }, { token: 1 }));
    expect(near(px(plain, 185, 50), cmykPercentToSrgb([100, 0, 0, 0]))).toBe(true);
  });

  it('variableData fills variables; allowedFolder, unknown names and maxLength are 400s', async () => {
    const ok = await api('POST', `${A}/designs/render-preview`, { designId: id, variableData: [{ name: 'Name', value: 'Ada' }, { name: 'Photo', value: photoId, type: 'Image' }] }, { token: 1 });
    expect(ok.status).toBe(200);
    const outside = await api('POST', `${A}/designs/render-preview`, { designId: id, variableData: [{ name: 'Photo', value: otherPhotoId }] }, { token: 1 });
    expect(outside.status).toBe(400);
    const bad = await api('POST', `${A}/designs/render-preview`, { designId: id, variableData: [{ name: 'Nobody', value: 'x' }, { name: 'Name', value: 'x'.repeat(21) }] }, { token: 1 });
    expect(bad.status).toBe(400);
    expect(Object.keys(((await bad.json()) as any).errors).sort()).toEqual(['variableData[0].name', 'variableData[1].value']);
    expect((await api('POST', `${A}/designs/render-preview`, { designId: id, renderingConfig: { surfaceIndex: 3 } }, { token: 1 })).status).toBe(400);
    expect((await api('POST', `${A}/designs/render-preview`, { designId: id, renderingConfig: { width: 0 } }, { token: 1 })).status).toBe(400);
    expect((await api('POST', `${A}/designs/render-preview`, { designId: 'ffffffffffffffffffffffff' }, { token: 1 })).status).toBe(404);
    expect((await api('POST', `${A}/designs/render-preview`, { designId: id, mockupId: 'ffffffffffffffffffffffff', renderingConfig: { mockupStrategy: 'SpecifiedMockup' } }, { token: 1 })).status).toBe(404);
    expect((await api('POST', `${A}/designs/render-preview`, { designId: id, renderingConfig: { mockupStrategy: 'SpecifiedMockup' } }, { token: 1 })).status).toBe(400);
  });

  it('a large image is drawn from its pre-scaled copy: placement and colours unchanged, the same bytes warm', async () => {
    const w = 800;
    const h = 400;
    const data = new Uint8ClampedArray(w * h * 4);
    for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) data.set(x < w / 2 ? [255, 0, 0, 255] : [0, 0, 255, 255], (y * w + x) * 4);
    const big = (await uploadJson(`${S}/images`, await encodePng({ width: w, height: h, data }), 'halves.png')).id;
    const model = { surfaces: [{ width: 100, height: 60, containers: [{ items: [{ type: 'Image', x: 10, y: 10, width: 80, height: 40, source: { type: 'Storage', id: big } }] }] }] };
    const design = await apiJson('POST', `${A}/designs`, { product: model, name: 'Halves' }, { token: 1 }, 201);
    const render = () => api('POST', `${A}/designs/render-preview`, { designId: design.id, renderingConfig: { width: 100, height: 60, fileFormat: 'Png' } }, { token: 1 });
    const first = new Uint8Array(await (await render()).arrayBuffer());
    const img = await decodeImage(first);
    expect([img.width, img.height]).toEqual([100, 60]);
    expect(near(px(img, 12, 30), [255, 0, 0], 8)).toBe(true);
    expect(near(px(img, 48, 30), [255, 0, 0], 8)).toBe(true);
    expect(near(px(img, 52, 30), [0, 0, 255], 8)).toBe(true);
    expect(near(px(img, 88, 49), [0, 0, 255], 8)).toBe(true);
    expect(img.data[(5 * 100 + 50) * 4 + 3]).toBe(0); // above the image: transparent
    expect(new Uint8Array(await (await render()).arrayBuffer())).toEqual(first);
  });

  it('a 2D mockup PSD frames the preview: the surface placed into its artwork layer by the engine', async () => {
    const mockup = await uploadJson(`${S}/mockups`, await psdFixture('agpsd-shapes-smart-objects.psd'), 'frame.psd');
    const layers = await apiJson('GET', `/api/processor/v1/mockups/${mockup.id}/artwork-layers`, undefined, { token: 1 });
    expect(layers.length).toBeGreaterThan(0);
    const framed = await api('POST', `${A}/designs/render-preview`, { designId: id, mockupId: mockup.id, renderingConfig: { width: 300, height: 300, mockupStrategy: 'SpecifiedMockup' } }, { token: 1 });
    expect(framed.status, await framed.clone().text()).toBe(200);
    const withMockup = await pixelsOf(framed);
    const plain = await pixelsOf(await api('POST', `${A}/designs/render-preview`, { designId: id, mockupId: mockup.id, renderingConfig: { width: 300, height: 300, mockupStrategy: 'None' } }, { token: 1 }));
    expect(Math.max(withMockup.width, withMockup.height)).toBeLessThanOrEqual(300);
    expect([withMockup.width, withMockup.height]).not.toEqual([plain.width, plain.height]);
    // The card's red shows somewhere inside the mockup.
    let red = 0;
    for (let i = 0; i < withMockup.data.length; i += 4) if (withMockup.data[i]! > 200 && withMockup.data[i + 1]! < 60 && withMockup.data[i + 2]! < 60) red++;
    expect(red).toBeGreaterThan(20);
    expect((await api('POST', `${A}/designs/render-preview`, { designId: id, mockupId: mockup.id, mockupOwnerId: 'alice' }, { token: 1 })).status).toBe(404);
    const image = await api('POST', `${A}/images/render-preview`, { imageId: photoId, mockupId: mockup.id, renderingConfig: { width: 300, height: 300 } }, { token: 1 });
    expect(image.status, await image.clone().text()).toBe(200);
    const framedImage = await pixelsOf(image);
    expect([framedImage.width, framedImage.height]).toEqual([withMockup.width, withMockup.height]);
  });

  it('render-proof: 1200 px image without stub, and a PDF with a page per print area', async () => {
    const img = await pixelsOf(await api('POST', `${A}/designs/render-proof`, { designId: id }, { token: 1 }));
    expect(img.width).toBe(1200);
    const res = await api('POST', `${A}/designs/render-proof`, { designId: id, renderingConfig: { fileFormat: 'Pdf', pdfTextOutputMode: 'Text' }, variableData: [{ name: 'Name', value: 'Ada' }] }, { token: 1 });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    const pdf = await PDFDocument.load(new Uint8Array(await res.arrayBuffer()));
    expect(pdf.getPageCount()).toBe(1);
    const page = pdf.getPage(0);
    expect(page.getMediaBox()).toMatchObject({ width: 270, height: 162 });
    expect(page.getTrimBox()).toMatchObject({ x: 9, y: 9, width: 252, height: 144 });
    expect((await api('POST', `${A}/designs/render-preview`, { designId: id, renderingConfig: { fileFormat: 'Pdf' } }, { token: 1 })).status).toBe(400);
  });

  it('/to-resource stores the render; a taken name → 409 unless overwriteExistingResource (same id)', async () => {
    const first = await apiJson('POST', `${A}/designs/render-preview/to-resource`, { designId: id, resourceName: 'card-preview.jpg', resourceNamespace: 'atoms' }, { token: 1 });
    expect(first).toMatchObject({ name: 'card-preview.jpg', namespace: 'atoms', private: false, ownerId: null });
    const file = await api('GET', new URL(first.url).pathname, undefined, { token: 1 });
    expect(file.headers.get('content-type')).toMatch(/image\/jpeg/);
    const clash = await api('POST', `${A}/designs/render-preview/to-resource`, { designId: id, resourceName: 'card-preview.jpg', resourceNamespace: 'atoms' }, { token: 1 });
    expect(clash.status).toBe(409);
    expect(((await clash.json()) as any).type).toBe('NameConflict');
    const over = await apiJson('POST', `${A}/designs/render-proof/to-resource`, { designId: id, resourceName: 'card-preview.jpg', resourceNamespace: 'atoms', overwriteExistingResource: true, anonymousAccess: true }, { token: 1 });
    expect(over.id).toBe(first.id);
    expect(over.url).toContain('/anonymous/');
    const priv = await apiJson('POST', `${A}/designs/render-proof/to-resource`, { designId: id, renderingConfig: { fileFormat: 'Pdf' }, resourceOwnerId: 'alice' }, { token: 1 });
    expect(priv).toMatchObject({ name: 'proof.pdf', ownerId: 'alice', private: true });
    const readOnly = await tenantToken(1, 'Assets_read');
    expect((await api('POST', `${A}/designs/render-preview/to-resource`, { designId: id }, { token: readOnly })).status).toBe(403);
    expect((await api('POST', `${A}/designs/render-preview`, { designId: id }, { token: readOnly })).status).toBe(200);
  });

  it('a PSD design previews through the rendering engine; print-product routes on it → 422', async () => {
    const psd = await uploadJson(`${S}/designs`, await psdFixture('psdtools-text.psd'), 'psd-card.psd');
    const res = await api('POST', `${A}/designs/render-preview`, { designId: psd.id, renderingConfig: { width: 200, height: 200 } }, { token: 1 });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/jpeg');
    expect((await api('GET', `${A}/designs/${psd.id}/model`, undefined, { token: 1 })).status).toBe(422);
    // extract-image on a PSD design: a layer's own pixels, by layer name.
    const parsed = readPsd(await psdFixture('psdtools-text.psd'), { skipLayerImageData: true, skipCompositeImageData: true, skipThumbnail: true });
    const walk = (ls: any[] | undefined): any[] => (ls ?? []).flatMap((l) => [l, ...walk(l.children)]);
    const layer = walk(parsed.children).find((l) => !l.children && (l.right ?? 0) > (l.left ?? 0) && (l.bottom ?? 0) > (l.top ?? 0));
    const pixels = await api('POST', `${A}/designs/print-product/items/extract-image`, { designId: psd.id, itemId: layer.name, outputType: 'Png' }, { token: 1 });
    expect(pixels.status, await pixels.clone().text()).toBe(200);
    const img = await pixelsOf(pixels);
    expect([img.width, img.height]).toEqual([layer.right - layer.left, layer.bottom - layer.top]);
    expect((await api('POST', `${A}/designs/print-product/items/extract-image`, { designId: psd.id, itemId: 'No such layer' }, { token: 1 })).status).toBe(404);
    expect((await api('GET', `${A}/designs/${psd.id}/print-product/surfaces`, undefined, { token: 1 })).status).toBe(422);
  });
});

describe('image previews', () => {
  it('from storage: Fit keeps the aspect, Fill covers the box', async () => {
    const fit = await pixelsOf(await api('POST', `${A}/images/render-preview`, { imageId: photoId, renderingConfig: { width: 100, height: 100 } }, { token: 1 }));
    expect([fit.width, fit.height]).toEqual([100, 50]);
    const fill = await pixelsOf(await api('POST', `${A}/images/render-preview`, { imageId: photoId, renderingConfig: { width: 100, height: 100, fitMode: 'Fill', fileFormat: 'Png' } }, { token: 1 }));
    expect([fill.width, fill.height]).toEqual([100, 100]);
    expect((await api('POST', `${A}/images/render-preview`, { imageId: 'ffffffffffffffffffffffff' }, { token: 1 })).status).toBe(404);
  });

  it('from a file (multipart) and from a URL (through the outbound policy), also to-resource', async () => {
    const fd = new FormData();
    fd.append('file', new Blob([jpeg]), 'x.jpg');
    fd.append('renderingConfig.width', '80');
    fd.append('renderingConfig.fileFormat', 'png');
    const res = await api('POST', `${A}/images/render-preview/from-file`, undefined, { token: 1, raw: fd });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect((await pixelsOf(res)).width).toBe(80);
    const url = `${fixtureServer()}/assets/marker-40x20.jpg`;
    const fromUrl = await pixelsOf(await api('POST', `${A}/images/render-preview/from-url`, { url, renderingConfig: { width: 20, height: 20 } }, { token: 1 }));
    expect([fromUrl.width, fromUrl.height]).toEqual([20, 10]);
    expect((await api('POST', `${A}/images/render-preview/from-url`, { url: 'http://10.0.0.1/x.jpg' }, { token: 1 })).status).toBe(400);
    const stored = await apiJson('POST', `${A}/images/render-preview/from-url/to-resource`, { url, resourceName: 'from-url.jpg' }, { token: 1 });
    expect(stored.name).toBe('from-url.jpg');
    const fd2 = new FormData();
    fd2.append('file', new Blob([jpeg]), 'x.jpg');
    fd2.append('resourceName', 'from-file.jpg');
    expect((await apiJson('POST', `${A}/images/render-preview/from-file/to-resource`, undefined, { token: 1, raw: fd2 })).name).toBe('from-file.jpg');
    expect((await apiJson('POST', `${A}/images/render-preview/to-resource`, { imageId: photoId, resourceName: 'from-storage.jpg' }, { token: 1 })).name).toBe('from-storage.jpg');
    expect((await api('POST', `${A}/images/render-preview/from-file`, 'x', { token: 1 })).status).toBe(415);
  });
});

describe('builders and items', () => {
  it('an empty product, rectangles and ellipses with defaults; item errors by the item\'s path', async () => {
    const model = await apiJson('POST', `${A}/designs/print-product`, { surfaces: [{ width: 200, height: 100 }] }, { token: 1 });
    expect(model.surfaces[0]).toMatchObject({ width: 200, height: 100, printAreas: [{ bounds: { x: 0, y: 0, width: 200, height: 100 } }], containers: [{ items: [] }] });
    const rect = await apiJson('POST', `${A}/designs/print-product/items/rectangle`, { x: 1, y: 2, width: 30, height: 40, fillColor: '#123456' }, { token: 1 });
    expect(rect).toMatchObject({ type: 'Rectangle', x: 1, width: 30, fillColor: '#123456', borderWidth: 0, opacity: 1 });
    expect(rect.id).toBeTruthy();
    expect((await apiJson('POST', `${A}/designs/print-product/items/ellipse`, { width: 5, height: 5 }, { token: 1 })).type).toBe('Ellipse');
    const bad = await api('POST', `${A}/designs/print-product/items/rectangle`, { width: -1, height: 5, fillColor: 'x' }, { token: 1 });
    expect(bad.status).toBe(400);
    expect(Object.keys(((await bad.json()) as any).errors).sort()).toEqual(['fillColor', 'width']);
    expect((await api('POST', `${A}/designs/print-product`, { surfaces: [] }, { token: 1 })).status).toBe(400);
  });

  it('batch-creates image items at natural size from storage, URLs and files (Embedded)', async () => {
    const fromStorage = await apiJson('POST', `${A}/designs/print-product/items/from-storage/batch-create`, { items: [{ imageId: photoId, x: 5 }] }, { token: 1 });
    expect(fromStorage.items[0]).toMatchObject({ type: 'Image', x: 5, width: 40, height: 20, source: { type: 'Storage', id: photoId } });
    expect((await api('POST', `${A}/designs/print-product/items/from-storage/batch-create`, { items: [{ imageId: 'ffffffffffffffffffffffff' }] }, { token: 1 })).status).toBe(404);
    const url = `${fixtureServer()}/assets/marker-40x20.jpg`;
    const fromUrl = await apiJson('POST', `${A}/designs/print-product/items/from-url/batch-create`, { items: [{ url }] }, { token: 1 });
    expect(fromUrl.items[0]).toMatchObject({ width: 40, height: 20, source: { type: 'Embedded' } });
    expect(fromUrl.items[0].source.key).toMatch(/^p\/1\/embedded\/[0-9a-f]{64}$/);
    expect(await env.FILES.head(fromUrl.items[0].source.key)).not.toBeNull();
    const fd = new FormData();
    fd.append('files', new Blob([jpeg]), 'one.jpg');
    fd.append('files', new Blob([logoPng]), 'two.png');
    const fromFile = await apiJson('POST', `${A}/designs/print-product/items/from-file/batch-create`, undefined, { token: 1, raw: fd });
    expect(fromFile.items.map((i: any) => [i.name, i.width, i.height])).toEqual([['one', 40, 20], ['two', 2, 2]]);
  });

  it('apply-effects recolours a transparent image; an opaque one or a shape → 409', async () => {
    const item = { type: 'Image', width: 10, height: 10, source: { type: 'Storage', id: logoId } };
    expect((await apiJson('POST', `${A}/designs/print-product/items/apply-effects`, { item, effects: { recolor: '#ff0000' } }, { token: 1 })).recolor).toBe('#ff0000');
    const opaque = await api('POST', `${A}/designs/print-product/items/apply-effects`, { item: { ...item, source: { type: 'Storage', id: photoId } }, effects: { recolor: '#ff0000' } }, { token: 1 });
    expect(opaque.status).toBe(409);
    const shape = await api('POST', `${A}/designs/print-product/items/apply-effects`, { item: { type: 'Rectangle', width: 1, height: 1 }, effects: { recolor: '#ff0000' } }, { token: 1 });
    expect(shape.status).toBe(409);
  });

  it('extract-image gives an item\'s source as Jpeg or Png, also to a resource', async () => {
    const dto = await createCard('Extract', card({ photoVariable: false }));
    const res = await api('POST', `${A}/designs/print-product/items/extract-image`, { designId: dto.id, itemId: 'photo', outputType: 'Png' }, { token: 1 });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect((await pixelsOf(res)).width).toBe(40);
    const inline = await api('POST', `${A}/designs/model/items/extract-image`, { item: { type: 'Image', width: 1, height: 1, source: { type: 'Storage', id: logoId } }, outputType: 'Jpeg' }, { token: 1 });
    expect(inline.headers.get('content-type')).toBe('image/jpeg');
    expect((await api('POST', `${A}/designs/print-product/items/extract-image`, { designId: dto.id, itemId: 'bg' }, { token: 1 })).status).toBe(422);
    expect((await api('POST', `${A}/designs/print-product/items/extract-image`, { designId: dto.id, itemId: 'nope' }, { token: 1 })).status).toBe(404);
    const r = await apiJson('POST', `${A}/designs/print-product/items/extract-image/to-resource`, { designId: dto.id, itemId: 'photo' }, { token: 1 });
    expect(r.name).toBe('Photo.png');
  });
});

describe('print-product CRUD', () => {
  let id: string;
  const P = () => `${A}/designs/${id}/print-product`;
  beforeAll(async () => {
    id = (await createCard('Crud')).id;
  });

  it('surfaces: list, add at an index, get, update, model, delete', async () => {
    const list = await apiJson('GET', `${P()}/surfaces`, undefined, { token: 1 });
    expect(list.total).toBe(1);
    expect(list.items[0]).toEqual(expect.not.objectContaining({ containers: expect.anything() }));
    const back = await apiJson('POST', `${P()}/surfaces/model?index=1`, { id: 'back', name: 'Back', width: 252, height: 144, containers: [{ id: 'back-main', items: [] }] }, { token: 1 }, 201);
    expect(back).toMatchObject({ id: 'back', containers: [{ id: 'back-main' }] });
    expect((await apiJson('GET', `${P()}/surfaces/back`, undefined, { token: 1 })).containers).toBeUndefined();
    expect((await apiJson('PUT', `${P()}/surfaces/back`, { Name: 'Reverse' }, { token: 1 })).name).toBe('Reverse');
    expect((await apiJson('GET', `${P()}/surfaces/back/model`, undefined, { token: 1 })).containers[0].id).toBe('back-main');
    expect((await api('PUT', `${P()}/surfaces/back`, { width: -5 }, { token: 1 })).status).toBe(400);
    expect((await api('DELETE', `${P()}/surfaces/back`, undefined, { token: 1 })).status).toBe(204);
    expect((await api('GET', `${P()}/surfaces/back`, undefined, { token: 1 })).status).toBe(404);
    expect((await api('DELETE', `${P()}/surfaces/card`, undefined, { token: 1 })).status).toBe(400);
  });

  it('containers (and the singular container/{id}/model alias)', async () => {
    const created = await apiJson('POST', `${P()}/containers/model?surfaceId=card&index=0`, { id: 'under', name: 'Under', items: [{ type: 'Rectangle', width: 5, height: 5 }] }, { token: 1 }, 201);
    expect(created).toMatchObject({ id: 'under', surfaceId: 'card' });
    const list = await apiJson('GET', `${P()}/containers?surfaceId=card`, undefined, { token: 1 });
    expect(list.items.map((c: any) => c.id)).toEqual(['under', 'main']);
    expect((await apiJson('GET', `${P()}/container/under/model`, undefined, { token: 1 })).items).toHaveLength(1);
    expect((await apiJson('PUT', `${P()}/containers/under/model`, { name: 'Empty', items: [] }, { token: 1 })).items).toEqual([]);
    expect((await apiJson('PUT', `${P()}/containers/under`, { visible: false }, { token: 1 })).visible).toBe(false);
    expect((await api('GET', `${P()}/containers?surfaceId=nope`, undefined, { token: 1 })).status).toBe(404);
    expect((await api('DELETE', `${P()}/containers/under`, undefined, { token: 1 })).status).toBe(204);
  });

  it('items: filters, add with top/left into a group, update, replace, delete', async () => {
    const top = await apiJson('GET', `${P()}/items?containerId=main`, undefined, { token: 1 });
    expect(top.items.map((i: any) => i.id)).toEqual(['bg', 'right', 'logo', 'photo', 'name', 'title', 'g']);
    expect(top.items[6].items).toBeUndefined();
    const inGroup = await apiJson('GET', `${P()}/items?parentItemId=g`, undefined, { token: 1 });
    expect(inGroup.items).toEqual([expect.objectContaining({ id: 'dot', parentItemId: 'g', containerId: 'main', surfaceId: 'card' })]);
    const added = await apiJson('POST', `${P()}/items/model?parentItemId=g&top=7&left=8`, { type: 'Rectangle', width: 4, height: 4, fillColor: '#000000' }, { token: 1 }, 201);
    expect(added).toMatchObject({ x: 8, y: 7, parentItemId: 'g' });
    expect((await apiJson('GET', `${P()}/items/g/model`, undefined, { token: 1 })).items).toHaveLength(2);
    expect((await apiJson('PUT', `${P()}/items/${added.id}`, { fillColor: '#ffffff' }, { token: 1 })).fillColor).toBe('#ffffff');
    const bad = await api('PUT', `${P()}/items/${added.id}`, { fillColor: 'nope' }, { token: 1 });
    expect(bad.status).toBe(400);
    expect(Object.keys(((await bad.json()) as any).errors)[0]).toMatch(/^surfaces\[0\]\.containers\[0\]\.items\[6\]\.items\[1\]\.fillColor$/);
    const replaced = await apiJson('PUT', `${P()}/items/${added.id}/model`, { type: 'Ellipse', width: 3, height: 3 }, { token: 1 });
    expect(replaced).toMatchObject({ id: added.id, type: 'Ellipse' });
    expect((await api('DELETE', `${P()}/items/${added.id}`, undefined, { token: 1 })).status).toBe(204);
    expect((await api('DELETE', `${P()}/items/${added.id}`, undefined, { token: 1 })).status).toBe(404);
    expect((await api('POST', `${P()}/items/model?containerId=nope`, { type: 'Rectangle', width: 1, height: 1 }, { token: 1 })).status).toBe(404);
  });

  it('print areas', async () => {
    const area = await apiJson('POST', `${P()}/print-areas/model`, { id: 'inner', bounds: { x: 10, y: 10, width: 50, height: 50 }, shape: 'Ellipse' }, { token: 1 }, 201);
    expect(area).toMatchObject({ id: 'inner', surfaceId: 'card', shape: 'Ellipse' });
    expect((await apiJson('GET', `${P()}/print-areas`, undefined, { token: 1 })).total).toBe(2);
    expect((await apiJson('PUT', `${P()}/print-areas/inner`, { name: 'Inner' }, { token: 1 })).name).toBe('Inner');
    const outside = await api('PUT', `${P()}/print-areas/inner/model`, { bounds: { x: 240, y: 0, width: 50, height: 50 } }, { token: 1 });
    expect(outside.status).toBe(400);
    expect((await apiJson('GET', `${P()}/print-areas/inner/model`, undefined, { token: 1 })).name).toBe('Inner');
    expect((await api('DELETE', `${P()}/print-areas/inner`, undefined, { token: 1 })).status).toBe(204);
  });

  it('surface mockups: PATCH multipart, GET the placement and the file; previews draw them', async () => {
    const fd = new FormData();
    fd.append('sourceFile', new Blob([jpeg]), 'up.jpg');
    fd.append('position.top', '4');
    fd.append('position.left', '2');
    fd.append('dpi', '144');
    const up = await apiJson('PATCH', `${P()}/surfaces/card/mockup-up`, undefined, { token: 1, raw: fd });
    expect(up).toMatchObject({ x: 2, y: 4, width: 20, height: 10, source: { type: 'Embedded' } });
    expect(await apiJson('GET', `${P()}/surfaces/card/mockup-up`, undefined, { token: 1 })).toEqual(up);
    const f = await api('GET', `${P()}/surfaces/card/mockup-up/file`, undefined, { token: 1 });
    expect(f.headers.get('content-type')).toBe('image/jpeg');
    expect((await api('GET', `${P()}/surfaces/card/mockup-down`, undefined, { token: 1 })).status).toBe(404);
    const none = await pixelsOf(await api('POST', `${A}/designs/render-preview`, { designId: id, renderingConfig: { width: 252, height: 144, mockupStrategy: 'None' } }, { token: 1 }));
    const auto = await pixelsOf(await api('POST', `${A}/designs/render-preview`, { designId: id, renderingConfig: { width: 252, height: 144 } }, { token: 1 }));
    expect(px(none, 8, 8)).not.toEqual(px(auto, 8, 8));
    expect((await api('PATCH', `${P()}/surfaces/card/mockup-up`, 'x', { token: 1 })).status).toBe(415);
  });
});

describe('3D mockups, scopes and tenancy', () => {
  it('serves a stored GLB geometry', async () => {
    const glb = new Uint8Array(20);
    glb.set([0x67, 0x6c, 0x54, 0x46, 2, 0, 0, 0, 20, 0, 0, 0]);
    const m = await uploadJson(`${S}/mockups`, glb, 'cup.glb');
    expect(m.type).toBe('Mockup3D');
    const res = await api('GET', `${A}/mockups-3d/${m.id}/geometry/file`, undefined, { token: 1 });
    expect(res.status).toBe(200);
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(glb);
    expect((await api('GET', `${A}/mockups-3d/ffffffffffffffffffffffff/geometry/file`, undefined, { token: 1 })).status).toBe(404);
  });

  it('edits need Assets_update; the helpers any token', async () => {
    const dto = await createCard('Scopes');
    const read = await tenantToken(1, 'Assets_read');
    expect((await api('GET', `${A}/designs/${dto.id}/model`, undefined, { token: read })).status).toBe(200);
    expect((await api('PUT', `${A}/designs/${dto.id}/print-product/items/bg`, { name: 'x' }, { token: read })).status).toBe(403);
    const other = await tenantToken(1, 'Projects_read');
    expect((await api('POST', `${A}/designs/print-product`, { surfaces: [{ width: 1, height: 1 }] }, { token: other })).status).toBe(200);
    expect((await api('GET', `${A}/designs/${dto.id}/model`, undefined, { token: other })).status).toBe(403);
    expect((await api('POST', `${A}/designs/print-product`, { surfaces: [{ width: 1, height: 1 }] })).status).toBe(401);
  });

  it('tenant 2 sees none of tenant 1\'s designs or images', async () => {
    const dto = await createCard('Tenant one');
    expect((await api('GET', `${A}/designs/${dto.id}/model`, undefined, { token: 2 })).status).toBe(404);
    expect((await api('POST', `${A}/designs/render-preview`, { designId: dto.id }, { token: 2 })).status).toBe(404);
    expect((await api('GET', `${A}/designs/${dto.id}/print-product/items`, undefined, { token: 2 })).status).toBe(404);
    expect((await api('POST', `${A}/images/render-preview`, { imageId: photoId }, { token: 2 })).status).toBe(404);
    // A model of tenant 2 naming tenant 1's image or embedded key: 404, never the bytes.
    const model = { surfaces: [{ width: 10, height: 10, containers: [{ items: [{ type: 'Image', width: 10, height: 10, source: { type: 'Storage', id: photoId } }] }] }] };
    const mine = await apiJson('POST', `${A}/designs`, { product: model, name: 'T2 card' }, { token: 2 }, 201);
    expect((await api('POST', `${A}/designs/render-preview`, { designId: mine.id }, { token: 2 })).status).toBe(404);
    const embedded = { type: 'Image', width: 1, height: 1, source: { type: 'Embedded', key: `p/1/embedded/${'0'.repeat(64)}` } };
    expect((await api('POST', `${A}/designs/model/items/extract-image`, { item: embedded }, { token: 2 })).status).toBe(404);
    expect((await api('GET', `${A}/designs/${dto.id}/model?tenantId=1`, undefined, { token: 2 })).status).toBe(403);
  });
});
