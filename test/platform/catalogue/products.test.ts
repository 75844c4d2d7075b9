// Back-office products (platform contract, "Back-office" and "Storefront"): CRUD, options and
// variants, copy-on-write versions, connections, set-variant-*, set-image, and the 409 rules.
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, apiJson, seedPlatform } from '../../helpers/platform';

const BO = '/api/backoffice/v1';
const SF = '/api/storefront/v1';

async function addAsset(tenant: number, id: string, type: 'design' | 'mockup', name: string, extra: Record<string, unknown> = {}) {
  await env.DB.prepare(
    `INSERT OR IGNORE INTO assets (tenant_id, id, type, name, design_type, mockup_type, folder_id, custom_fields) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)`,
  )
    .bind(tenant, id, type, name, type === 'design' ? 'Psd' : null, type === 'mockup' ? (extra.mockupType ?? 'Mockup2D') : null, extra.folderId ?? '', JSON.stringify(extra.customFields ?? {}))
    .run();
}

const card = {
  name: 'Card',
  description: 'A card',
  tags: ['paper', 'print'],
  customFields: { Color: 'red', 'odd key': 1 },
  options: [
    { title: 'Size', type: 'Size', values: [{ title: 'A5' }, { title: 'A4' }] },
    { title: 'Paper', values: [{ title: 'Matte' }, { title: 'Glossy' }, { title: 'Linen' }] },
  ],
};

beforeAll(async () => {
  await seedPlatform();
  await addAsset(1, 'cat-design-front', 'design', 'Front side', { customFields: { side: 'front' } });
  await addAsset(1, 'cat-design-back', 'design', 'Back side');
  await addAsset(1, 'cat-mockup-3d', 'mockup', 'Mug 3D', { mockupType: 'Mockup3D' });
  await addAsset(2, 'cat-t2-design', 'design', 'Tenant 2 design');
});

describe('products: create, read, update', () => {
  it('POST /products answers 200 with the product at its first version; variants are the Cartesian product of the option values', async () => {
    const p = await apiJson('POST', `${BO}/products`, card, { token: 1 }, 200);
    expect(p).toMatchObject({ name: 'Card', description: 'A card', tenantId: 1, tags: ['paper', 'print'], customFields: { Color: 'red', 'odd key': 1 }, image: null, storefrontId: null });
    expect(p.productVersionId).toBeGreaterThan(0);
    const variants = await apiJson('GET', `${BO}/products/${p.id}/variants`, undefined, { token: 1 });
    expect(variants.total).toBe(6);
    const titles = variants.items.map((v: any) => v.productVariantOptions.map((o: any) => o.productOptionValueTitle).join('/'));
    expect(titles).toEqual(['A5/Matte', 'A5/Glossy', 'A5/Linen', 'A4/Matte', 'A4/Glossy', 'A4/Linen']);
    expect(variants.items[0]).toMatchObject({ productId: p.id, productVersionId: p.productVersionId, isAvailable: true, sku: null, price: null });
    expect(variants.items[0].productVariantOptions[0]).toMatchObject({ productOptionType: 'Size', productOptionTitle: 'Size' });
  });

  it('a product without options has exactly one variant', async () => {
    const p = await apiJson('POST', `${BO}/products`, { name: 'Plain' }, { token: 1 }, 200);
    const variants = await apiJson('GET', `${BO}/products/${p.id}/variants`, undefined, { token: 1 });
    expect(variants.total).toBe(1);
    expect(variants.items[0].productVariantOptions).toEqual([]);
  });

  it('options list their values with uids; option types are Simple, Size or PageCount (others → 400)', async () => {
    const p = await apiJson('POST', `${BO}/products`, card, { token: 1 }, 200);
    const options = await apiJson('GET', `${BO}/products/${p.id}/options`, undefined, { token: 1 });
    expect(options.items.map((o: any) => [o.title, o.type, o.productOptionValues.length])).toEqual([['Size', 'Size', 2], ['Paper', 'Simple', 3]]);
    expect(options.items[0].productOptionValues[0]).toMatchObject({ title: 'A5', isDefault: true });
    expect(typeof options.items[0].uid).toBe('string');
    const bad = await api('POST', `${BO}/products`, { name: 'x', options: [{ title: 'T', type: 'Colour', values: [{ title: 'a' }] }] }, { token: 1 });
    expect(bad.status).toBe(400);
    expect(Object.keys((await bad.json() as any).errors)).toContain('options[0].type');
  });

  it('bad bodies are 400 with every problem by path; an unknown workflow or pipeline id is 404 naming the field', async () => {
    const res = await api('POST', `${BO}/products`, { name: '', tags: 'x' }, { token: 1 });
    expect(res.status).toBe(400);
    const problem = (await res.json()) as any;
    expect(Object.keys(problem.errors).sort()).toEqual(['name', 'tags']);
    const missing = await api('POST', `${BO}/products`, { name: 'x', processingPipelineId: 999999 }, { token: 1 });
    expect(missing.status).toBe(404);
    expect((await missing.json() as any).errors).toHaveProperty('processingPipelineId');
    const many = await api('POST', `${BO}/products`, { name: 'x', options: [1, 2, 3].map((n) => ({ title: `o${n}`, values: Array.from({ length: 10 }, (_, i) => ({ title: `v${i}` })) })) }, { token: 1 });
    expect(many.status).toBe(400);
  });

  it('PUT /products/{id} replaces the fields given; GET lists filter by search, tags, customFields and sku', async () => {
    const p = await apiJson('POST', `${BO}/products`, { name: 'Filter me', tags: ['zeta-tag'], customFields: { shelf: 'B7' } }, { token: 1 }, 200);
    const updated = await apiJson('PUT', `${BO}/products/${p.id}`, { description: 'now described', processingPipelineId: 1, personalizationWorkflowId: 1 }, { token: 1 });
    expect(updated).toMatchObject({ name: 'Filter me', description: 'now described', processingPipelineId: 1, personalizationWorkflowId: 1 });
    const variant = (await apiJson('GET', `${BO}/products/${p.id}/variants`, undefined, { token: 1 })).items[0];
    await api('POST', `${BO}/products/${p.id}/set-variant-sku`, [{ productVariantId: variant.id, value: 'ZETA-SKU-1' }], { token: 1 });
    const byTag = await apiJson('GET', `${BO}/products?tags=zeta-tag`, undefined, { token: 1 });
    expect(byTag.items.map((x: any) => x.id)).toEqual([p.id]);
    const byFields = await apiJson('GET', `${BO}/products?customFields=${encodeURIComponent('{"shelf":"B7"}')}`, undefined, { token: 1 });
    expect(byFields.items.map((x: any) => x.id)).toEqual([p.id]);
    const bySku = await apiJson('GET', `${SF}/products?sku=zeta-sku-1`, undefined, { token: 1 });
    expect(bySku.items.map((x: any) => x.id)).toEqual([p.id]);
    const bySearch = await apiJson('GET', `${BO}/products?search=FILTER%20ME&sorting=name%20DESC`, undefined, { token: 1 });
    expect(bySearch.items.map((x: any) => x.id)).toEqual([p.id]);
    expect((await api('GET', `${BO}/products?sorting=colour%20ASC`, undefined, { token: 1 })).status).toBe(400);
  });

  it('another tenant, a malformed id and an unknown id all answer 404', async () => {
    for (const id of ['1', 'abc', '99999999']) {
      expect((await api('GET', `${BO}/products/${id}`, undefined, { token: 2 })).status).toBe(404);
      expect((await api('PUT', `${BO}/products/${id}`, { name: 'x' }, { token: 2 })).status).toBe(404);
      expect((await api('DELETE', `${BO}/products/${id}`, undefined, { token: 2 })).status).toBe(404);
    }
    expect((await apiJson('GET', `${BO}/products`, undefined, { token: 2 })).items.every((p: any) => p.tenantId === 2)).toBe(true);
  });

  it('the scopes: reads need Products_read, create Products_full', async () => {
    const { tenantToken } = await import('../../helpers/platform');
    const readOnly = await tenantToken(1, 'Products_read');
    expect((await api('GET', `${BO}/products`, undefined, { token: readOnly })).status).toBe(200);
    expect((await api('POST', `${BO}/products`, { name: 'x' }, { token: readOnly })).status).toBe(403);
  });
});

describe('versions are copy-on-write', () => {
  it('changing options makes a new version; variants keep SKU, price, weight and availability by option-value uids; the old version stays readable', async () => {
    const p = await apiJson('POST', `${BO}/products`, card, { token: 1 }, 200);
    const v1 = p.productVersionId;
    const variants = (await apiJson('GET', `${BO}/products/${p.id}/variants`, undefined, { token: 1 })).items;
    const a5Matte = variants[0];
    await apiJson('POST', `${BO}/products/${p.id}/set-variant-sku`, [{ productVariantId: a5Matte.id, value: 'A5-MATTE' }], { token: 1 }, 204);
    await apiJson('POST', `${BO}/products/${p.id}/set-variant-price`, [{ productVariantId: a5Matte.id, value: 9.5 }], { token: 1 }, 204);
    await apiJson('POST', `${BO}/products/${p.id}/set-variant-weight`, [{ productVariantId: a5Matte.id, value: 12 }], { token: 1 }, 204);
    await apiJson('POST', `${BO}/products/${p.id}/set-variant-availability`, [{ productVariantId: variants[1].id, value: false }], { token: 1 }, 204);

    const options = (await apiJson('GET', `${BO}/products/${p.id}/options`, undefined, { token: 1 })).items;
    // Drop "Linen", add "Kraft": 4 variants; A5/Matte keeps its values.
    const next = options.map((o: any) => ({ uid: o.uid, title: o.title, type: o.type, values: o.productOptionValues.filter((v: any) => v.title !== 'Linen').map((v: any) => ({ uid: v.uid, title: v.title })) }));
    next[1].values.push({ title: 'Kraft' });
    const newOptions = await apiJson('PUT', `${BO}/products/${p.id}/options`, { options: next }, { token: 1 });
    expect(newOptions.items[1].productOptionValues.map((v: any) => v.title)).toEqual(['Matte', 'Glossy', 'Kraft']);
    const product = await apiJson('GET', `${BO}/products/${p.id}`, undefined, { token: 1 });
    expect(product.productVersionId).not.toBe(v1);
    const now = (await apiJson('GET', `${BO}/products/${p.id}/variants`, undefined, { token: 1 })).items;
    expect(now).toHaveLength(6);
    const kept = now.find((v: any) => v.uid === a5Matte.uid);
    expect(kept).toMatchObject({ sku: 'A5-MATTE', price: 9.5, weight: 12, isAvailable: true });
    expect(kept.id).not.toBe(a5Matte.id);
    expect(now.find((v: any) => v.uid === variants[1].uid).isAvailable).toBe(false);

    const old = await apiJson('GET', `${BO}/products/${p.id}/variants?productVersionId=${v1}`, undefined, { token: 1 });
    expect(old.total).toBe(6);
    expect(old.items.map((v: any) => v.productVersionId)).toEqual(Array(6).fill(v1));
    expect((await apiJson('GET', `${BO}/products/${p.id}?productVersionId=${v1}`, undefined, { token: 1 })).productVersionId).toBe(v1);
    expect((await api('GET', `${BO}/products/${p.id}?productVersionId=1`, undefined, { token: 1 })).status).toBe(404);
  });

  it('set-variant-* on a version a project uses makes a new version: the project\'s version never changes', async () => {
    const p = await apiJson('POST', `${BO}/products`, { name: 'Used' }, { token: 1 }, 200);
    const variant = (await apiJson('GET', `${BO}/products/${p.id}/variants`, undefined, { token: 1 })).items[0];
    await env.DB.prepare(`INSERT INTO projects (id, tenant_id, storefront_id, owner_id) VALUES (880001, 1, 1, 'demo-customer')`).run();
    await env.DB.prepare(`INSERT INTO project_items (tenant_id, project_id, product_id, product_version_id, product_variant_id) VALUES (1, 880001, ?1, ?2, ?3)`).bind(p.id, p.productVersionId, variant.id).run();
    await apiJson('POST', `${BO}/products/${p.id}/set-variant-sku`, [{ productVariantId: variant.id, value: 'NEW' }], { token: 1 }, 204);
    const after = await apiJson('GET', `${BO}/products/${p.id}`, undefined, { token: 1 });
    expect(after.productVersionId).not.toBe(p.productVersionId);
    expect((await apiJson('GET', `${BO}/products/${p.id}/variants/${variant.id}`, undefined, { token: 1 })).sku).toBeNull();
    expect((await apiJson('GET', `${BO}/products/${p.id}/variants`, undefined, { token: 1 })).items[0]).toMatchObject({ sku: 'NEW', uid: variant.uid });
    // Deleting a product used by projects → 409.
    const del = await api('DELETE', `${BO}/products/${p.id}`, undefined, { token: 1 });
    expect(del.status).toBe(409);
    expect(await del.json()).toMatchObject({ type: 'GeneralConflict' });
  });

  it('set-variant-* names variants of the current version: another id → 404 naming the entry, nothing changed', async () => {
    const p = await apiJson('POST', `${BO}/products`, { name: 'Setter' }, { token: 1 }, 200);
    const variant = (await apiJson('GET', `${BO}/products/${p.id}/variants`, undefined, { token: 1 })).items[0];
    const res = await api('POST', `${BO}/products/${p.id}/set-variant-sku`, [{ productVariantId: variant.id, value: 'OK' }, { productVariantId: 1, value: 'NO' }], { token: 1 });
    expect(res.status).toBe(404);
    expect((await res.json() as any).errors).toHaveProperty(['[1].productVariantId']);
    expect((await apiJson('GET', `${BO}/products/${p.id}/variants/${variant.id}`, undefined, { token: 1 })).sku).toBeNull();
    expect((await api('POST', `${BO}/products/${p.id}/set-variant-price`, [{ productVariantId: variant.id, value: 'cheap' }], { token: 1 })).status).toBe(400);
  });
});

describe('design and mockup connections', () => {
  it('connections bind designs to the variants whose options match (empty options = every variant), each change a new version', async () => {
    const p = await apiJson('POST', `${BO}/products`, { name: 'Connected', options: [{ title: 'Side', values: [{ title: 'One' }, { title: 'Two' }] }] }, { token: 1 }, 200);
    const [side] = (await apiJson('GET', `${BO}/products/${p.id}/options`, undefined, { token: 1 })).items;
    const two = side.productOptionValues[1];
    const after = await apiJson(
      'POST',
      `${BO}/products/${p.id}/design-connections`,
      {
        connections: [
          { designId: 'cat-design-front', designGroup: 'front' },
          { designId: 'cat-design-back', designGroup: 'back', options: [{ optionUID: side.uid, optionValueUIDs: [two.uid] }] },
        ],
      },
      { token: 1 },
    );
    expect(after.productVersionId).not.toBe(p.productVersionId);
    const designs = await apiJson('GET', `${SF}/products/${p.id}/variant-designs`, undefined, { token: 1 });
    expect(designs.items.map((d: any) => `${d.productVariantOptions[0].productOptionValueTitle}:${d.designName}:${d.designGroup}`)).toEqual(['One:Front side:front', 'Two:Front side:front', 'Two:Back side:back']);
    expect(designs.items[0]).toMatchObject({ designId: 'cat-design-front', productId: p.id, productVersionId: after.productVersionId });
    expect(typeof designs.items[0].productVariantUID).toBe('string');
    expect((await apiJson('GET', `${SF}/products/${p.id}/variant-designs?search=BACK`, undefined, { token: 1 })).total).toBe(1);
    expect((await apiJson('GET', `${SF}/products/${p.id}/variant-designs?designCustomFields=${encodeURIComponent('{"side":"front"}')}`, undefined, { token: 1 })).total).toBe(2);
    expect((await apiJson('GET', `${SF}/products/${p.id}/variant-designs?designPath=/`, undefined, { token: 1 })).total).toBe(3);
    expect((await apiJson('GET', `${SF}/products/${p.id}/variant-designs?designPath=/elsewhere/`, undefined, { token: 1 })).total).toBe(0);
    // The first version had no connections and still has none.
    expect((await apiJson('GET', `${SF}/products/${p.id}/variant-designs?productVersionId=${p.productVersionId}`, undefined, { token: 1 })).total).toBe(0);

    await apiJson('POST', `${BO}/products/${p.id}/mockup-connections`, { connections: [{ mockupId: 'cat-mockup-3d' }] }, { token: 1 });
    const mockups = await apiJson('GET', `${SF}/products/${p.id}/variant-mockups`, undefined, { token: 1 });
    expect(mockups.items.map((m: any) => [m.mockupName, m.mockupValidationType])).toEqual([['Mug 3D', 'Mockup3D'], ['Mug 3D', 'Mockup3D']]);
    expect((await apiJson('GET', `${SF}/products/${p.id}/variant-mockups?mockupValidationType=Mockup2D`, undefined, { token: 1 })).total).toBe(0);

    const listed = await apiJson('GET', `${BO}/products/${p.id}/design-connections`, undefined, { token: 1 });
    expect(listed.connections).toEqual([
      { designId: 'cat-design-front', designGroup: 'front', options: [] },
      { designId: 'cat-design-back', designGroup: 'back', options: [{ optionUID: side.uid, optionValueUIDs: [two.uid] }] },
    ]);
    // Removing keeps the others; the design connections survive the mockup change.
    await apiJson('DELETE', `${BO}/products/${p.id}/design-connections`, { connections: [{ designId: 'cat-design-back' }] }, { token: 1 });
    expect((await apiJson('GET', `${SF}/products/${p.id}/variant-designs`, undefined, { token: 1 })).total).toBe(2);
    const gone = await api('DELETE', `${BO}/products/${p.id}/design-connections`, { connections: [{ designId: 'cat-design-back' }] }, { token: 1 });
    expect(gone.status).toBe(404);
  });

  it('a connection naming another tenant\'s design, an unknown option uid or value uid is refused by path', async () => {
    const p = await apiJson('POST', `${BO}/products`, { name: 'Refuses' }, { token: 1 }, 200);
    const foreign = await api('POST', `${BO}/products/${p.id}/design-connections`, { connections: [{ designId: 'cat-design-front' }, { designId: 'cat-t2-design' }] }, { token: 1 });
    expect(foreign.status).toBe(404);
    expect((await foreign.json() as any).errors).toEqual({ 'connections[1].designId': [expect.any(String)] });
    const option = await api('POST', `${BO}/products/${p.id}/design-connections`, { connections: [{ designId: 'cat-design-front', options: [{ optionUID: 'nope', optionValueUIDs: [] }] }] }, { token: 1 });
    expect(option.status).toBe(400);
    expect((await option.json() as any).errors).toHaveProperty(['connections[0].options[0].optionUID']);
    expect((await apiJson('GET', `${BO}/products/${p.id}`, undefined, { token: 1 })).productVersionId).toBe(p.productVersionId);
  });
});

describe('variants for the storefront', () => {
  it('variants filter by options, sku and takeAvailableOnly; a variant reads by id; the storefront product routes are deprecated in OpenAPI', async () => {
    const p = await apiJson('POST', `${BO}/products`, card, { token: 1 }, 200);
    const all = (await apiJson('GET', `${SF}/products/${p.id}/variants`, undefined, { token: 1 })).items;
    await apiJson('POST', `${BO}/products/${p.id}/set-variant-sku`, all.map((v: any, i: number) => ({ productVariantId: v.id, value: `SKU-${i}` })), { token: 1 }, 204);
    await apiJson('POST', `${BO}/products/${p.id}/set-variant-availability`, [{ productVariantId: all[0].id, value: false }], { token: 1 }, 204);
    const a4 = await apiJson('GET', `${SF}/products/${p.id}/variants?options=${encodeURIComponent('{"Size":"a4"}')}`, undefined, { token: 1 });
    expect(a4.total).toBe(3);
    expect((await apiJson('GET', `${SF}/products/${p.id}/variants?sku=sku-5`, undefined, { token: 1 })).items.map((v: any) => v.sku)).toEqual(['SKU-5']);
    expect((await apiJson('GET', `${SF}/products/${p.id}/variants?takeAvailableOnly=true`, undefined, { token: 1 })).total).toBe(5);
    expect((await apiJson('GET', `${SF}/products/${p.id}/variants?take=2&skip=1`, undefined, { token: 1 })).items.map((v: any) => v.id)).toEqual([all[1].id, all[2].id]);
    expect((await apiJson('GET', `${SF}/products/${p.id}/variants/${all[3].id}`, undefined, { token: 1 })).sku).toBe('SKU-3');
    expect((await api('GET', `${SF}/products/${p.id}/variants/${all[3].id}`, undefined, { token: 2 })).status).toBe(404);
    expect((await api('GET', `${SF}/products/${p.id}/variants/1`, undefined, { token: 1 })).status).toBe(404);

    const doc = (await (await api('GET', '/api/docs/platform.json')).json()) as any;
    expect(doc.paths['/api/storefront/v1/products'].get.deprecated).toBe(true);
    expect(doc.paths['/api/storefront/v1/products/{id}/variant-designs'].get.deprecated).toBe(true);
    expect(doc.paths['/api/storefront/v1/product-references'].get.deprecated).toBeUndefined();
    expect(doc.paths['/api/backoffice/v1/products'].get.deprecated).toBeUndefined();
  });

  it('the demo product: reference demo-card, SKU DEMO-CARD-MATTE, design group front, pipeline 1, workflow 1', async () => {
    const product = await apiJson('GET', `${SF}/products/1`, undefined, { token: 1 });
    expect(product).toMatchObject({ name: 'Demo card', productVersionId: 1, processingPipelineId: 1, personalizationWorkflowId: 1, storefrontId: 1, storefrontProductId: 'demo-card' });
    const variants = await apiJson('GET', `${SF}/products/1/variants`, undefined, { token: 1 });
    expect(variants.items).toEqual([expect.objectContaining({ id: 1, sku: 'DEMO-CARD-MATTE', productVariantOptions: [expect.objectContaining({ productOptionTitle: 'Paper', productOptionValueTitle: 'Matte' })] })]);
    const workflow = await apiJson('GET', `${SF}/products/1/personalization-workflow`, undefined, { token: 1 });
    expect(workflow).toMatchObject({ id: 1, name: 'Demo editor', workflowType: 'WorkflowElements' });
  });
});

describe('set-image', () => {
  it('the uploaded image becomes a public resource and the product image {resourceId, url}', async () => {
    const p = await apiJson('POST', `${BO}/products`, { name: 'With image' }, { token: 1 }, 200);
    const png = Uint8Array.from(atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='), (c) => c.charCodeAt(0));
    const form = new FormData();
    form.append('file', new File([png], 'thumb.png', { type: 'image/png' }));
    const res = await api('POST', `${BO}/products/${p.id}/set-image`, undefined, { token: 1, raw: form });
    expect(res.status, await res.clone().text()).toBe(200);
    const product = (await res.json()) as any;
    expect(product.image.resourceId).toMatch(/^[0-9a-f]{24}$/);
    expect(product.image.url).toMatch(/^http/);
    const image = await api('GET', product.image.url.replace(/^https?:\/\/[^/]+/, ''));
    expect(image.status).toBe(200);
    const empty = await api('POST', `${BO}/products/${p.id}/set-image`, undefined, { token: 1, raw: new FormData() });
    expect(empty.status).toBe(400);
  });
});
