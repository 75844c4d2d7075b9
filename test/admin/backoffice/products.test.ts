// Back office > Products and the project page's item previews, as a browser drives them: every
// form action's happy path, its CSRF refusal, a validation error shown beside its field, and the
// 409s with their reasons; against the real D1/R2 of the demo seed (tenant 1).
import { beforeAll, describe, expect, it } from 'vitest';
import { env, exports } from 'cloudflare:workers';
import { findUser } from '../../../src/identity/users';
import { api, seedPlatform } from '../../helpers/platform';
import { bundledFont } from '../../helpers/fixtures';
import { encodePng } from '../../../src/engine/raster';
import { upload } from '../../platform/storage/helpers';
import { DEMO } from '../../helpers/identity-seed';
import { get, post, signIn, type Browser } from '../../identity/admin/helpers';

let admin: Browser;
let run = 0;
const unique = (s: string) => `${s} ${Date.now().toString(36)}-${++run}`;

beforeAll(async () => {
  await seedPlatform();
  admin = await signIn((await findUser(env.DB, DEMO.admin.id))!);
  // The file's first request through the Worker loads its whole module graph (16–35 s on this
  // 2-core machine, under load): paid here, within the hook's limit, not by the first test's 30 s.
  await (await get('/admin/products', admin)).text();
});

const productIdOf = (res: Response) => Number(/\/admin\/products\/(\d+)$/.exec(res.headers.get('location') ?? '')?.[1]);

async function newProduct(fields: Record<string, string> = {}): Promise<number> {
  const res = await post('/admin/products/new', admin, { name: unique('Card'), options: 'Paper: Matte, Glossy\nSize: A6, A5', ...fields });
  expect(res.status, await res.clone().text()).toBe(303);
  return productIdOf(res);
}

const page = async (id: number) => {
  const res = await get(`/admin/products/${id}`, admin);
  expect(res.status).toBe(200);
  return res.text();
};

const variants = async (id: number) => {
  const res = await api('GET', `/api/backoffice/v1/products/${id}/variants`, undefined, { token: 1 });
  expect(res.status).toBe(200);
  return ((await res.json()) as { items: Array<{ id: number; sku: string | null; price: number | null; isAvailable: boolean; productVariantOptions: Array<{ productOptionValueTitle: string }> }> }).items;
};

const productCount = async () => (await env.DB.prepare(`SELECT count(*) AS n FROM products WHERE tenant_id = 1`).first<{ n: number }>())!.n;

function multipart(path: string, browser: Browser, fields: Record<string, string | File>, csrf: string | null = browser.csrf) {
  const form = new FormData();
  if (csrf !== null) form.set('_csrf', csrf);
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  return exports.default.fetch(`http://localhost${path}`, { method: 'POST', headers: { cookie: browser.cookie }, body: form, redirect: 'manual' });
}

describe('products: list and create', () => {
  it('the list searches and links a New product form with labelled fields', async () => {
    const list = await (await get('/admin/products?search=Demo', admin)).text();
    expect(list).toContain('Demo card');
    expect(list).toContain('href="/admin/products/new"');
    const form = await (await get('/admin/products/new', admin)).text();
    for (const id of ['product-name', 'product-description', 'product-pipeline', 'product-workflow', 'product-options']) expect(form).toContain(`<label for="${id}">`);
    expect(form).toContain('name="_csrf"');
  });

  it("the seeded Demo card's overview lists its SKUs, design (group), mockup and references", async () => {
    const html = await page(1);
    expect(html).toContain('DEMO-CARD-MATTE');
    expect(html).toContain('Demo card design (front)');
    expect(html).toContain('Demo mockup');
    expect(html).toContain('demo-card on ');
  });

  it('create: options and values generate the variants; the page shows them', async () => {
    const name = unique('Poster');
    const res = await post('/admin/products/new', admin, { name, description: 'Big', processingPipelineId: '1', options: 'Paper: Matte, Glossy\nSize: A6, A5, A4' });
    expect(res.status).toBe(303);
    const id = productIdOf(res);
    const vs = await variants(id);
    expect(vs).toHaveLength(6);
    const html = await page(id);
    expect(html).toContain(name);
    expect(html).toContain('Paper: Matte, Glossy');
    expect(html).toContain(`id="variant-${vs[0]!.id}-sku"`);
    expect(html).toMatch(/<option value="1" selected="">/);
  });

  it('create without the CSRF token is refused and creates nothing', async () => {
    const before = await productCount();
    const res = await post('/admin/products/new', admin, { name: unique('Forged'), options: '' }, null);
    expect(res.status).toBe(403);
    expect(await productCount()).toBe(before);
  });

  it('validation errors are shown beside their fields (400) and nothing is created', async () => {
    const before = await productCount();
    const res = await post('/admin/products/new', admin, { name: '  ', options: 'Paper Matte\nSize: A6, A6' });
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toMatch(/id="product-name"[^>]*aria-invalid="true"/);
    expect(html).toContain('id="product-name-error"');
    expect(html).toContain('Line 1: write &quot;Option: value, value&quot;');
    expect(html).toContain('Line 2: the value &quot;A6&quot; is given twice.');
    expect(html).toContain('Size: A6, A6'); // what was typed stays
    expect(await productCount()).toBe(before);
  });

  it('a pipeline that does not exist is a 404 shown beside the pipeline field', async () => {
    const res = await post('/admin/products/new', admin, { name: unique('Lost'), processingPipelineId: '999999' });
    expect(res.status).toBe(404);
    const html = await res.text();
    expect(html).toContain('id="product-pipeline-error"');
    expect(html).toContain('No processing pipeline 999999.');
  });
});

describe('products: edit', () => {
  it('details and options: a renamed value set keeps the variants of values that stay (SKU kept)', async () => {
    const id = await newProduct({ options: 'Paper: Matte, Glossy' });
    const [matte] = await variants(id);
    expect((await post(`/admin/products/${id}/variants`, admin, { variant: String(matte!.id), [`sku.${matte!.id}`]: 'KEEP-ME', [`price.${matte!.id}`]: '', [`available.${matte!.id}`]: 'on' })).status).toBe(303);
    const res = await post(`/admin/products/${id}`, admin, { name: 'Renamed card', description: '', options: 'Paper: Matte, Linen' });
    expect(res.status).toBe(303);
    const after = await variants(id);
    expect(after.map((v) => v.productVariantOptions[0]!.productOptionValueTitle)).toEqual(['Matte', 'Linen']);
    expect(after[0]!.sku).toBe('KEEP-ME');
    expect(await page(id)).toContain('Renamed card');
  });

  it('edit: options text left as shown is not re-parsed, so API titles with commas survive a rename', async () => {
    const made = await api('POST', '/api/backoffice/v1/products', { name: unique('Api card'), options: [{ title: 'Colour', values: [{ title: 'Red, dark' }, { title: 'Blue' }] }] }, { token: 1 });
    expect(made.status).toBe(200);
    const { id, productVersionId } = (await made.json()) as { id: number; productVersionId: number };
    const res = await post(`/admin/products/${id}`, admin, { name: 'Renamed API card', options: 'Colour: Red, dark, Blue\r\n' });
    expect(res.status).toBe(303);
    const after = (await (await api('GET', `/api/backoffice/v1/products/${id}`, undefined, { token: 1 })).json()) as { name: string; productVersionId: number };
    expect(after).toMatchObject({ name: 'Renamed API card', productVersionId });
    expect((await variants(id)).map((v) => v.productVariantOptions[0]!.productOptionValueTitle)).toEqual(['Red, dark', 'Blue']);
  });

  it('edit: an empty name is shown beside the field; CSRF refusal changes nothing', async () => {
    const id = await newProduct();
    const bad = await post(`/admin/products/${id}`, admin, { name: '', options: 'Paper: Matte, Glossy\nSize: A6, A5' });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('id="product-name-error"');
    expect((await post(`/admin/products/${id}`, admin, { name: 'Forged' }, 'not-the-token')).status).toBe(403);
    expect(await page(id)).not.toContain('Forged');
  });

  it('variants: SKU, price and availability are edited in the table', async () => {
    const id = await newProduct();
    const vs = await variants(id);
    const fields: Record<string, string | string[]> = { variant: vs.map((v) => String(v.id)) };
    for (const [i, v] of vs.entries()) {
      fields[`sku.${v.id}`] = `SKU-${i}`;
      fields[`price.${v.id}`] = i === 0 ? '12.50' : '';
      if (i !== 1) fields[`available.${v.id}`] = 'on';
    }
    const res = await post(`/admin/products/${id}/variants`, admin, fields);
    expect(res.status).toBe(303);
    const after = await variants(id);
    expect(after.map((v) => v.sku)).toEqual(['SKU-0', 'SKU-1', 'SKU-2', 'SKU-3']);
    expect(after[0]!.price).toBe(12.5);
    expect(after.map((v) => v.isAvailable)).toEqual([true, false, true, true]);
  });

  it('variants: a bad price is shown in its cell (400) and nothing is saved; CSRF refused', async () => {
    const id = await newProduct();
    const [v] = await variants(id);
    const res = await post(`/admin/products/${id}/variants`, admin, { variant: String(v!.id), [`sku.${v!.id}`]: 'NEW', [`price.${v!.id}`]: 'twelve', [`available.${v!.id}`]: 'on' });
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toContain(`id="variant-${v!.id}-price-error"`);
    expect(html).toContain('value="twelve"');
    expect((await variants(id))[0]!.sku).toBeNull();
    expect((await post(`/admin/products/${id}/variants`, admin, { variant: String(v!.id), [`sku.${v!.id}`]: 'NEW' }, null)).status).toBe(403);
    expect((await variants(id))[0]!.sku).toBeNull();
  });
});

describe('products: designs and mockups from storage', () => {
  it('the picker shows the stored designs and mockups with thumbnails', async () => {
    const id = await newProduct();
    const html = await page(id);
    expect(html).toContain('value="demo-card-design"');
    expect(html).toContain('value="demo-mockup"');
    expect(html).toContain('src="/admin/products/thumbnails/design/demo-card-design"');
    const thumb = await get('/admin/products/thumbnails/design/demo-card-design', admin);
    expect(thumb.status).toBe(200);
    expect(thumb.headers.get('content-type')).toBe('image/jpeg');
    expect(new Uint8Array(await thumb.arrayBuffer()).subarray(0, 2)).toEqual(new Uint8Array([0xff, 0xd8]));
    const mockup = await get('/admin/products/thumbnails/mockup/demo-mockup', admin);
    expect(mockup.headers.get('content-type')).toBe('image/jpeg');
    const none = await get('/admin/products/thumbnails/design/no-such-design', admin);
    expect(none.headers.get('x-thumbnail')).toBe('none');
  });

  it('connect a design in a group for some variants, then disconnect it', async () => {
    const id = await newProduct({ options: 'Paper: Matte, Glossy' });
    const options = (await (await api('GET', `/api/backoffice/v1/products/${id}/options`, undefined, { token: 1 })).json()) as { items: Array<{ uid: string; productOptionValues: Array<{ uid: string; title: string }> }> };
    const paper = options.items[0]!;
    const matte = paper.productOptionValues.find((v) => v.title === 'Matte')!;
    const res = await post(`/admin/products/${id}/designs`, admin, { assetId: 'demo-card-design', designGroup: 'front', [`bind.${paper.uid}`]: matte.uid });
    expect(res.status).toBe(303);
    const designs = (await (await api('GET', `/api/backoffice/v1/products/${id}/variant-designs`, undefined, { token: 1 })).json()) as { items: Array<{ designId: string; designGroup: string; productVariantOptions: Array<{ productOptionValueTitle: string }> }> };
    expect(designs.items).toHaveLength(1);
    expect(designs.items[0]).toMatchObject({ designId: 'demo-card-design', designGroup: 'front' });
    const html = await page(id);
    expect(html).toContain('Paper: Matte');
    expect((await post(`/admin/products/${id}/designs/remove`, admin, { assetId: 'demo-card-design', designGroup: 'front' })).status).toBe(303);
    expect(await page(id)).toContain('No design is connected.');
  });

  it('connect: no pick is shown beside the picker (400); an unknown design is 404 with its reason; CSRF refused', async () => {
    const id = await newProduct();
    const none = await post(`/admin/products/${id}/designs`, admin, { designGroup: 'front' });
    expect(none.status).toBe(400);
    expect(await none.text()).toContain('id="design-asset-error"');
    const unknown = await post(`/admin/products/${id}/designs`, admin, { assetId: 'no-such-design' });
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toContain('No public design no-such-design.');
    expect((await post(`/admin/products/${id}/mockups`, admin, { assetId: 'demo-mockup' }, null)).status).toBe(403);
    expect(await page(id)).toContain('No mockup is connected.');
  });

  it('connect a mockup to every variant', async () => {
    const id = await newProduct();
    expect((await post(`/admin/products/${id}/mockups`, admin, { assetId: 'demo-mockup' })).status).toBe(303);
    const html = await page(id);
    expect(html).toContain('aria-label="Disconnect Demo mockup"');
    expect(html).toContain('every variant');
  });
});

describe('products: image', () => {
  const png = () => new File([Uint8Array.from(atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='), (ch) => ch.charCodeAt(0))], 'card.png', { type: 'image/png' });

  it('upload: the image is saved and shown', async () => {
    const id = await newProduct();
    const res = await multipart(`/admin/products/${id}/image`, admin, { file: png() });
    expect(res.status).toBe(303);
    expect(await page(id)).toContain(`src="/admin/products/${id}/image"`);
    const img = await get(`/admin/products/${id}/image`, admin);
    expect(img.status).toBe(200);
    expect(img.headers.get('content-type')).toBe('image/png');
  });

  it('a photo bigger than an admin form (256 KB) is accepted: the image route has the upload cap', async () => {
    const id = await newProduct();
    const data = new Uint8ClampedArray(400 * 400 * 4);
    for (let i = 0, x = 1; i < data.length; i++) data[i] = (x = (x * 1103515245 + 12345) >>> 0) >>> 24; // noise: PNG cannot shrink it
    const bytes = await encodePng({ width: 400, height: 400, data });
    expect(bytes.byteLength).toBeGreaterThan(256 * 1024);
    const res = await multipart(`/admin/products/${id}/image`, admin, { file: new File([bytes], 'photo.png', { type: 'image/png' }) });
    expect(res.status).toBe(303);
    expect((await get(`/admin/products/${id}/image`, admin)).headers.get('content-type')).toBe('image/png');
  });

  it('a file that is not an image is shown beside the field (400); CSRF refused', async () => {
    const id = await newProduct();
    const res = await multipart(`/admin/products/${id}/image`, admin, { file: new File(['hello'], 'notes.txt', { type: 'text/plain' }) });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('id="product-image-error"');
    expect((await multipart(`/admin/products/${id}/image`, admin, { file: png() }, null)).status).toBe(403);
    expect(await page(id)).toContain('No image yet.');
  });
});

describe('products: storefront references and delete', () => {
  it('add a reference, see it, remove it', async () => {
    const id = await newProduct();
    const ref = `admin-ref-${Date.now().toString(36)}`;
    expect((await post(`/admin/products/${id}/references`, admin, { storefrontId: '1', reference: ref, referenceName: 'Admin card' })).status).toBe(303);
    expect(await page(id)).toContain(`<code>${ref}</code>`);
    const resolved = await api('GET', `/api/backoffice/v1/product-references/${ref}?storefrontId=1`, undefined, { token: 1 });
    expect(await resolved.json()).toMatchObject({ productId: id, productReferenceName: 'Admin card' });
    expect((await post(`/admin/products/${id}/references/remove`, admin, { storefrontId: '1', reference: ref })).status).toBe(303);
    expect(await page(id)).toContain('No storefront names this product.');
  });

  it('a duplicate reference is a 409 that says which product has it (existingReferences)', async () => {
    const id = await newProduct();
    const res = await post(`/admin/products/${id}/references`, admin, { storefrontId: '1', reference: 'demo-card' });
    expect(res.status).toBe(409);
    const html = await res.text();
    expect(html).toContain('already has the product reference &quot;demo-card&quot;');
    expect(html).toContain('Existing reference: it names product #1.');
    expect(html).toContain('id="reference-name-error"');
  });

  it('an empty reference is shown beside its field (400); CSRF refused', async () => {
    const id = await newProduct();
    const res = await post(`/admin/products/${id}/references`, admin, { storefrontId: '1', reference: ' ' });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('id="reference-name-error"');
    expect((await post(`/admin/products/${id}/references`, admin, { storefrontId: '1', reference: 'forged' }, null)).status).toBe(403);
  });

  it('deleting a product in use is a 409 with its reason; an unused one is deleted', async () => {
    const id = await newProduct();
    const ref = `in-use-${Date.now().toString(36)}`;
    expect((await post(`/admin/products/${id}/references`, admin, { storefrontId: '1', reference: ref })).status).toBe(303);
    const blocked = await post(`/admin/products/${id}/delete`, admin, {});
    expect(blocked.status).toBe(409);
    expect(await blocked.text()).toContain(`Product ${id} is used by projects, product references, links or bundles; remove those first.`);
    expect((await post(`/admin/products/${id}/delete`, admin, {}, null)).status).toBe(403);
    expect((await post(`/admin/products/${id}/references/remove`, admin, { storefrontId: '1', reference: ref })).status).toBe(303);
    const res = await post(`/admin/products/${id}/delete`, admin, {});
    expect(res.status).toBe(303);
    expect((await get(`/admin/products/${id}`, admin)).status).toBe(404);
  });
});

describe('project page: each item with its designs previewed with the item data', () => {
  const LAYER = 'Line 1 Line 2 Line 3 and text'; // the text layer of demo-card-design (psdtools-text.psd)

  beforeAll(async () => {
    // A font for the text (the design's ArialMT is not in the tenant: the engine falls back to it).
    const res = await upload('/api/storage/v1/fonts', await bundledFont('LiberationSans-Regular.ttf'), 'LiberationSans-Regular.ttf');
    expect([201, 409]).toContain(res.status);
  });

  async function project(item: Record<string, unknown>) {
    const res = await api('POST', '/api/storefront/v1/projects/with-single-item?storefrontId=1', { ownerId: 'admin-preview-owner', orderId: unique('order').replace(/\W/g, '-'), item }, { token: 1 });
    expect(res.status, await res.clone().text()).toBe(201);
    const p = (await res.json()) as { id: number; items: Array<{ id: number }> };
    return { id: p.id, itemId: p.items[0]!.id };
  }

  it("an item of a product without designIds shows the product's design, drawn with the fields that name its layers", async () => {
    const productId = await newProduct({ options: '' });
    expect((await post(`/admin/products/${productId}/designs`, admin, { assetId: 'demo-card-design' })).status).toBe(303);
    const withData = await project({ productSpecifier: { type: 'Product', id: productId }, fields: { [LAYER]: 'Ada Lovelace', Note: 'rush order' } });
    const html = await (await get(`/admin/projects/${withData.id}`, admin)).text();
    const src = `/admin/projects/${withData.id}/items/${withData.itemId}/preview?design=demo-card-design`;
    expect(html).toContain(`src="${src}"`);
    expect(html).toContain(`alt="Preview of item 1 with its data: Demo card design"`);
    expect(html).toContain('rush order');
    const res = await get(src, admin);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/jpeg');
    // Only the field naming a layer is drawn; "Note" is order data, not the design's.
    expect(decodeURIComponent(res.headers.get('x-preview-data') ?? '')).toBe(LAYER);
    const withDataBytes = new Uint8Array(await res.arrayBuffer());

    const plain = await project({ productSpecifier: { type: 'Product', id: productId }, fields: {} });
    const plainRes = await get(`/admin/projects/${plain.id}/items/${plain.itemId}/preview?design=demo-card-design`, admin);
    expect(plainRes.headers.get('x-preview-data')).toBe('');
    expect(new Uint8Array(await plainRes.arrayBuffer())).not.toEqual(withDataBytes);
  });

  it("an item's own designIds; a design the item does not have is a placeholder; another item is 404", async () => {
    const p = await project({ designIds: ['demo-card-design'], fields: { [LAYER]: 'Grace' } });
    const ok = await get(`/admin/projects/${p.id}/items/${p.itemId}/preview`, admin);
    expect(ok.headers.get('content-type')).toBe('image/jpeg');
    const other = await get(`/admin/projects/${p.id}/items/${p.itemId}/preview?design=demo-mockup`, admin);
    expect(other.headers.get('x-preview')).toBe('none');
    expect((await get(`/admin/projects/${p.id}/items/999999999/preview`, admin)).status).toBe(404);
  });
});

describe('tenant isolation', () => {
  it("another tenant's product is a 404 page for every action, and changes nothing", async () => {
    const made = await api('POST', '/api/backoffice/v1/products', { name: unique('Tenant 2 card') }, { token: 2 });
    expect(made.status).toBe(200);
    const { id } = (await made.json()) as { id: number };
    expect((await get(`/admin/products/${id}`, admin)).status).toBe(404);
    expect((await post(`/admin/products/${id}`, admin, { name: 'Taken over' })).status).toBe(404);
    expect((await post(`/admin/products/${id}/delete`, admin, {})).status).toBe(404);
    expect((await post(`/admin/products/${id}/references`, admin, { storefrontId: '1', reference: 'stolen' })).status).toBe(404);
    const still = (await (await api('GET', `/api/backoffice/v1/products/${id}`, undefined, { token: 2 })).json()) as { name: string };
    expect(still.name).not.toBe('Taken over');
  });
});
