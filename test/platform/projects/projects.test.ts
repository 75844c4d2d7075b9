// Storefront projects (contract, "Storefront"): the four creates and their rules, one project per
// order line, processing status without the runner, lists with every filter, deletes, order
// data and previews. Tenant isolation on every route.
import { beforeAll, describe, expect, it } from 'vitest';
import { env } from 'cloudflare:workers';
import { api, apiJson, seedPlatform, tenantToken } from '../../helpers/platform';
import { FX, seedProjectFixtures } from './fixtures';
import { clearTenantSettings, keepTenantSettings } from '../../helpers/tenant-state';

keepTenantSettings(1); // vitest.shared.config.ts: later files find the tenant's settings as this one did

const SF = '/api/storefront/v1';
const create = (path: string, body: unknown, token: 1 | 2 | string = 1, storefrontId = 1) =>
  api('POST', `${SF}/projects/${path}?storefrontId=${storefrontId}`, body, { token });
const created = async (path: string, body: unknown) => {
  const res = await create(path, body);
  const text = await res.text();
  if (res.status !== 201) throw new Error(`${path}: ${res.status} ${text}`);
  return JSON.parse(text);
};
let order = 0;
const orderId = () => `order-${Date.now()}-${++order}`;

beforeAll(async () => {
  await seedPlatform();
  await seedProjectFixtures();
  await clearTenantSettings(1); // the seed's tenant 1, which processes a project at once
});

describe('creating projects', () => {
  it('with-single-item: 201 ProjectDto with the item, the initial status and the resolved SKU', async () => {
    const p = await created('with-single-item', {
      ownerId: FX.owner,
      productReference: FX.reference,
      name: 'Card',
      orderId: orderId(),
      orderNumber: 1001,
      orderName: 'Order 1001',
      orderLineItemId: 'line-1',
      customerId: 'c-1',
      customerName: 'Ann',
      item: { name: 'front', groupId: 'g1', quantity: 3, fields: { Line1: 'Hi' }, hidden: { x: 1 }, designIds: [FX.design, FX.privateDesign], productSpecifier: { type: 'Product', id: FX.product, variantId: FX.variant } },
    });
    expect(p).toMatchObject({
      storefrontId: 1,
      tenantId: 1,
      productReference: FX.reference,
      ownerId: FX.owner,
      name: 'Card',
      orderNumber: 1001,
      orderName: 'Order 1001',
      orderLineItemId: 'line-1',
      customerName: 'Ann',
      status: 1,
    });
    expect(p.items).toHaveLength(1);
    expect(p.items[0]).toMatchObject({ name: 'front', groupId: 'g1', quantity: 3, fields: { Line1: 'Hi' }, hidden: { x: 1 }, designIds: [FX.design, FX.privateDesign], sku: FX.sku });
    expect(p.created).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('a project whose product has a pipeline is InProgress; one without is Completed with no outputs', async () => {
    const withPipeline = await created('with-single-item', { ownerId: FX.owner, productReference: FX.reference, item: {} });
    expect(withPipeline.processingStatus).toBe('InProgress');
    // No variant named: the version's only variant (and its SKU).
    expect(withPipeline.items[0].sku).toBe(FX.sku);
    const plain = await created('with-single-item', { ownerId: FX.owner, productReference: FX.plainReference, item: {} });
    expect(plain.processingStatus).toBe('Completed');
    const none = await created('with-single-item', { ownerId: FX.owner, items: [{}] });
    expect(none.processingStatus).toBe('Completed');
  });

  it('a missing storefront user is created (not anonymous)', async () => {
    const owner = `new-user-${Date.now()}`;
    await created('with-single-item', { ownerId: owner, item: {} });
    const user = await apiJson('GET', `${SF}/storefront-users/${owner}?storefrontId=1`, undefined, { token: 1 });
    expect(user).toMatchObject({ userId: owner, isAnonymous: false, storefrontId: 1 });
  });

  it('item and items: both or neither → 400; items of two → 400', async () => {
    expect((await create('with-single-item', { ownerId: FX.owner })).status).toBe(400);
    expect((await create('with-single-item', { ownerId: FX.owner, item: {}, items: [{}] })).status).toBe(400);
    expect((await create('with-single-item', { ownerId: FX.owner, items: [{}, {}] })).status).toBe(400);
  });

  it('ownerId is required; storefrontId is required; orderName and orderNumber are checked', async () => {
    const noOwner = await create('with-single-item', { item: {} });
    expect(noOwner.status).toBe(400);
    expect(((await noOwner.json()) as any).errors).toHaveProperty('ownerId');
    expect((await api('POST', `${SF}/projects/with-single-item`, { ownerId: 'x', item: {} }, { token: 1 })).status).toBe(400);
    const badName = await create('with-single-item', { ownerId: FX.owner, orderName: 'bad/name!', orderNumber: 1.5, item: {} });
    expect(badName.status).toBe(400);
    expect(Object.keys(((await badName.json()) as any).errors)).toEqual(expect.arrayContaining(['orderName', 'orderNumber']));
  });

  it('an unknown storefront, reference or design answers 404 with errors by path', async () => {
    expect((await create('with-single-item', { ownerId: FX.owner, item: {} }, 1, 999999)).status).toBe(404);
    const ref = await create('with-single-item', { ownerId: FX.owner, productReference: 'no-such-ref', item: {} });
    expect(ref.status).toBe(404);
    expect(((await ref.json()) as any).errors).toHaveProperty('productReference');
    const design = await create('with-multiple-items', { ownerId: FX.owner, items: [{}, { designIds: [FX.design, FX.otherOwnersDesign] }] });
    expect(design.status).toBe(404);
    expect(((await design.json()) as any).errors).toHaveProperty(['items[1].designIds[1]']);
  });

  it("item designIds are the owner's private or public designs only", async () => {
    const res = await create('with-single-item', { ownerId: 'someone', item: { designIds: [FX.privateDesign] } });
    expect(res.status).toBe(404);
  });

  it('limits: 100 items, 20 designIds per item, 64 KB of fields', async () => {
    expect((await create('with-multiple-items', { ownerId: FX.owner, items: Array.from({ length: 101 }, () => ({})) })).status).toBe(400);
    expect((await create('with-single-item', { ownerId: FX.owner, item: { designIds: Array.from({ length: 21 }, () => FX.design) } })).status).toBe(400);
    expect((await create('with-single-item', { ownerId: FX.owner, item: { fields: { big: 'x'.repeat(70_000) } } })).status).toBe(400);
  });

  it('a repeated create for the same order line returns the same project (its own body ignored)', async () => {
    const oid = orderId();
    const first = await created('with-single-item', { ownerId: FX.owner, orderId: oid, orderLineItemId: 'L1', name: 'first', item: {} });
    const again = await create('with-single-item', { ownerId: FX.owner, orderId: oid, orderLineItemId: 'L1', name: 'second', item: { name: 'other' } });
    expect(again.status).toBe(201);
    const body = (await again.json()) as any;
    expect(body.id).toBe(first.id);
    expect(body.name).toBe('first');
    // By line index too.
    const a = await created('with-single-item', { ownerId: FX.owner, orderId: oid, orderLineItemIndex: 4, item: {} });
    const b = await created('with-single-item', { ownerId: FX.owner, orderId: oid, orderLineItemIndex: 4, item: {} });
    expect(b.id).toBe(a.id);
    const count = await env.DB.prepare(`SELECT count(*) AS n FROM projects WHERE tenant_id = 1 AND order_id = ?1`).bind(oid).first<{ n: number }>();
    expect(count!.n).toBe(2);
  });

  it('parallel creates for one order line make one project with one set of items', async () => {
    const oid = orderId();
    const results = await Promise.all(
      Array.from({ length: 8 }, () => created('with-multiple-items', { ownerId: FX.owner, orderId: oid, items: [{ orderLineItemId: 'P1' }, { name: 'b' }] })),
    );
    expect(new Set(results.map((r) => r.id)).size).toBe(1);
    const items = await env.DB.prepare(`SELECT count(*) AS n FROM project_items WHERE tenant_id = 1 AND project_id = ?1`).bind(results[0].id).first<{ n: number }>();
    expect(items!.n).toBe(2);
  });

  it('with-multiple-items and its alias multiple-items; the project takes the first item line', async () => {
    const oid = orderId();
    const p = await created('with-multiple-items', { ownerId: FX.owner, orderId: oid, items: [{ orderLineItemId: 'M1', productReference: FX.reference }, { productReference: FX.plainReference }] });
    expect(p.items).toHaveLength(2);
    expect(p.orderLineItemId).toBe('M1');
    const alias = await created('multiple-items', { ownerId: FX.owner, items: [{}] });
    expect(alias.items).toHaveLength(1);
  });

  it('by-scenario/specific-pipeline: pipelines must exist, items are matched by name', async () => {
    const p = await created('by-scenario/specific-pipeline', {
      ownerId: FX.owner,
      orderDetails: { orderId: orderId(), orderNumber: 7, customerName: 'Bo' },
      items: [{ name: 'a' }],
      scenario: { pipelineId: FX.pipeline, itemPipelines: [{ itemName: 'a', pipelineId: FX.pipeline }] },
    });
    expect(p).toMatchObject({ orderNumber: 7, customerName: 'Bo', processingStatus: 'InProgress' });
    const missing = await create('by-scenario/specific-pipeline', { ownerId: FX.owner, scenario: { pipelineId: 987654 } });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as any).errors).toHaveProperty(['scenario.pipelineId']);
    const unnamed = await create('by-scenario/specific-pipeline', { ownerId: FX.owner, items: [{ name: 'a' }], scenario: { itemPipelines: [{ itemName: 'zz', pipelineId: FX.pipeline }] } });
    expect(unnamed.status).toBe(400);
  });

  it('by-scenario/render-hires: one item with the scenario design', async () => {
    const p = await created('by-scenario/render-hires', { ownerId: FX.owner, scenario: { designId: FX.design, format: 'pdf' } });
    expect(p.items[0].designIds).toEqual([FX.design]);
    expect(p.processingStatus).toBe('InProgress');
    const bad = await create('by-scenario/render-hires', { ownerId: FX.owner, scenario: { designId: FX.otherOwnersDesign } });
    expect(bad.status).toBe(404);
  });

  it('named private designs become retention Never', async () => {
    await env.DB.prepare(`UPDATE assets SET retention_policy = 'Default' WHERE tenant_id = 1 AND id = ?1`).bind(FX.privateDesign).run();
    await created('with-single-item', { ownerId: FX.owner, item: { designIds: [FX.privateDesign] } });
    const row = await env.DB.prepare(`SELECT retention_policy AS r FROM assets WHERE tenant_id = 1 AND id = ?1`).bind(FX.privateDesign).first<{ r: string }>();
    expect(row!.r).toBe('Never');
  });

  it("a named print-product design's Storage sources become Never too; a repeated create marks nothing", async () => {
    const ids = { design: 'bbbbbbbbbbbbbbbbbbbb0001', source: 'bbbbbbbbbbbbbbbbbbbb0002', other: 'bbbbbbbbbbbbbbbbbbbb0003' };
    await env.DB.batch([
      env.DB.prepare(`INSERT OR IGNORE INTO assets (tenant_id, id, type, owner_id, name, design_type, metadata, retention_policy) VALUES (1, ?1, 'design', ?2, 'pp', 'PrintProduct', ?3, 'Default')`).bind(ids.design, FX.owner, JSON.stringify({ _sources: [ids.source] })),
      env.DB.prepare(`INSERT OR IGNORE INTO assets (tenant_id, id, type, owner_id, name, retention_policy) VALUES (1, ?1, 'image', ?2, 'photo', 'Default')`).bind(ids.source, FX.owner),
      env.DB.prepare(`INSERT OR IGNORE INTO assets (tenant_id, id, type, owner_id, name, design_type, retention_policy) VALUES (1, ?1, 'design', ?2, 'other', 'Psd', 'Default')`).bind(ids.other, FX.owner),
    ]);
    const oid = orderId();
    await created('with-single-item', { ownerId: FX.owner, orderId: oid, orderLineItemId: 'R1', item: { designIds: [ids.design] } });
    await created('with-single-item', { ownerId: FX.owner, orderId: oid, orderLineItemId: 'R1', item: { designIds: [ids.other] } });
    const { results } = await env.DB.prepare(`SELECT id, retention_policy AS r FROM assets WHERE tenant_id = 1 AND id IN (?1, ?2, ?3) ORDER BY id`).bind(ids.design, ids.source, ids.other).all<{ id: string; r: string }>();
    expect(results.map((x) => x.r)).toEqual(['Never', 'Never', 'Default']);
  });

  it('startProcessingOnStatus: Pending until the project first enters that status', async () => {
    await env.DB.prepare(`INSERT INTO tenant_settings (tenant_id, start_processing_on_status) VALUES (1, 2) ON CONFLICT (tenant_id) DO UPDATE SET start_processing_on_status = 2`).run();
    try {
      const p = await created('with-single-item', { ownerId: FX.owner, productReference: FX.plainReference, item: {} });
      expect(p.processingStatus).toBe('Pending');
      await apiJson('POST', `${SF}/projects/${p.id}/transitions/start-production`, undefined, { token: 1 });
      const after = await apiJson('GET', `${SF}/projects/${p.id}`, undefined, { token: 1 });
      expect(after.processingStatus).toBe('Completed');
      const row = await env.DB.prepare(`SELECT processing_triggered_at AS t FROM projects WHERE tenant_id = 1 AND id = ?1`).bind(p.id).first<{ t: number }>();
      expect(row!.t).toBeGreaterThan(0);
    } finally {
      await env.DB.prepare(`UPDATE tenant_settings SET start_processing_on_status = NULL WHERE tenant_id = 1`).run();
    }
  });

  it('needs Projects_full (and Private_assets_full for ownerId)', async () => {
    const reader = await tenantToken(1, 'Projects_read Private_assets_full');
    expect((await create('with-single-item', { ownerId: FX.owner, item: {} }, reader)).status).toBe(403);
    const noPrivate = await tenantToken(1, 'Projects_full');
    expect((await create('with-single-item', { ownerId: FX.owner, item: {} }, noPrivate)).status).toBe(403);
  });

  it("tenant 2 cannot use tenant 1's storefront, references or designs", async () => {
    expect((await create('with-single-item', { ownerId: 'x', item: {} }, 2, 1)).status).toBe(404);
    const ref = await create('with-single-item', { ownerId: 'x', productReference: FX.reference, item: {} }, 2, 2);
    expect(ref.status).toBe(404);
    const design = await create('with-single-item', { ownerId: 'x', item: { designIds: [FX.design] } }, 2, 2);
    expect(design.status).toBe(404);
  });
});

describe('listing, reading and deleting projects', () => {
  it('lists created DESC with total, and filters by every parameter', async () => {
    const owner = `list-owner-${Date.now()}`;
    const oid = orderId();
    const a = await created('with-single-item', { ownerId: owner, productReference: FX.reference, orderId: oid, item: {} });
    const b = await created('with-single-item', { ownerId: owner, productReference: FX.plainReference, item: {} });
    const list = await apiJson('GET', `${SF}/projects?ownerId=${owner}`, undefined, { token: 1 });
    expect(list.total).toBe(2);
    expect(list.items.map((p: any) => p.id)).toEqual([b.id, a.id]);
    const q = async (query: string) => (await apiJson('GET', `${SF}/projects?ownerId=${owner}&${query}`, undefined, { token: 1 })).items.map((p: any) => p.id);
    expect(await q('processingStatus=InProgress')).toEqual([a.id]);
    expect(await q('processingStatus=completed')).toEqual([b.id]);
    expect(await q('processingStatus=Completed&processingStatus=InProgress')).toEqual([b.id, a.id]);
    expect(await q(`productReference=${FX.plainReference}`)).toEqual([b.id]);
    expect(await q(`orderId=${oid}`)).toEqual([a.id]);
    expect(await q('status=1')).toEqual([b.id, a.id]);
    expect(await q('status=2')).toEqual([]);
    expect(await q('datePeriod=Today')).toHaveLength(2);
    expect(await q('datePeriod=LastWeek')).toHaveLength(2);
    expect(await q('storefrontId=1')).toHaveLength(2);
    expect(await q('storefrontId=2')).toEqual([]);
    expect(await q('sorting=created ASC')).toEqual([a.id, b.id]);
    expect(await q('take=1&skip=1')).toEqual([a.id]);
    const timed = await api('GET', `${SF}/projects?ownerId=${owner}`, undefined, { token: 1 });
    expect(timed.headers.get('server-timing')).toMatch(/^total;dur=\d+$/);
    expect((await api('GET', `${SF}/projects?processingStatus=Nope`, undefined, { token: 1 })).status).toBe(400);
    expect((await api('GET', `${SF}/projects?datePeriod=Forever`, undefined, { token: 1 })).status).toBe(400);
    expect((await api('GET', `${SF}/projects?sorting=color ASC`, undefined, { token: 1 })).status).toBe(400);
  });

  it("tenant 2's list never shows tenant 1's projects", async () => {
    await created('with-single-item', { ownerId: FX.owner, item: {} });
    const list = await apiJson('GET', `${SF}/projects`, undefined, { token: 2 });
    expect(list.items.every((p: any) => p.tenantId === 2)).toBe(true);
  });

  it('gets a project; unknown, malformed and foreign ids are 404', async () => {
    const p = await created('with-single-item', { ownerId: FX.owner, item: {} });
    expect((await apiJson('GET', `${SF}/projects/${p.id}`, undefined, { token: 1 })).id).toBe(p.id);
    for (const [id, token] of [[String(p.id), 2], ['99999999', 1], ['abc', 1]] as const) {
      expect((await api('GET', `${SF}/projects/${id}`, undefined, { token })).status).toBe(404);
    }
  });

  it('deletes a project with its items, order data and jobs (200 empty)', async () => {
    const p = await created('with-single-item', { ownerId: FX.owner, item: {} });
    await apiJson('POST', `${SF}/projects/${p.id}/order-data`, [{ key: 'k', value: 'v' }], { token: 1 }, 204);
    await env.DB.prepare(`INSERT INTO jobs (tenant_id, id, do_name, project_id) VALUES (1, ?1, 'x', ?2)`).bind(`job-${p.id}`, p.id).run();
    expect((await api('DELETE', `${SF}/projects/${p.id}`, undefined, { token: 2 })).status).toBe(404);
    const res = await api('DELETE', `${SF}/projects/${p.id}`, undefined, { token: 1 });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('');
    for (const table of ['project_items', 'order_data', 'jobs']) {
      const row = await env.DB.prepare(`SELECT count(*) AS n FROM ${table} WHERE tenant_id = 1 AND project_id = ?1`).bind(p.id).first<{ n: number }>();
      expect(row!.n, table).toBe(0);
    }
    expect((await api('GET', `${SF}/projects/${p.id}`, undefined, { token: 1 })).status).toBe(404);
  });

  it("batch-delete answers {total, items: []} and skips ids naming nothing (another tenant's too)", async () => {
    const a = await created('with-single-item', { ownerId: FX.owner, item: {} });
    const b = await created('with-single-item', { ownerId: FX.owner, item: {} });
    const foreign = await apiJson('DELETE', `${SF}/projects/batch-delete`, { ids: [a.id] }, { token: 2 });
    expect(foreign).toEqual({ total: 0, items: [] });
    const result = await apiJson('DELETE', `${SF}/projects/batch-delete`, { ids: [a.id, b.id, 99999999] }, { token: 1 });
    expect(result).toEqual({ total: 2, items: [] });
    expect((await api('DELETE', `${SF}/projects/batch-delete`, { ids: ['x'] }, { token: 1 })).status).toBe(400);
  });
});

describe('order data', () => {
  it('upserts by key (204) and GET /order shows the order with its data', async () => {
    const p = await created('with-single-item', { ownerId: FX.owner, orderId: orderId(), orderUrl: 'https://shop.example/o/1', orderNumber: 5, orderName: 'Order 5', customerId: 'c5', customerName: 'Cy', item: {} });
    const itemId = p.items[0].id;
    await apiJson('POST', `${SF}/projects/${p.id}/order-data`, [{ key: 'Gift', value: 'yes' }, { key: 'tags', value: 'a,b', type: 'CommaSeparatedList' }], { token: 1 }, 204);
    await apiJson('POST', `${SF}/projects/${p.id}/order-data`, [{ key: 'Gift', value: 'no' }], { token: 1 }, 204);
    await apiJson('POST', `${SF}/projects/${p.id}/order-data?itemId=${itemId}`, [{ key: 'meta', value: '{"a":1}', type: 'serializedjson' }], { token: 1 }, 204);
    const o = await apiJson('GET', `${SF}/projects/${p.id}/order`, undefined, { token: 1 });
    expect(o).toMatchObject({ orderUrl: 'https://shop.example/o/1', orderNumber: 5, orderName: 'Order 5', customerId: 'c5', customerName: 'Cy' });
    expect(o.data).toEqual(
      expect.arrayContaining([
        { key: 'Gift', value: 'no', type: 'PlainText', itemId: null },
        { key: 'tags', value: 'a,b', type: 'CommaSeparatedList', itemId: null },
        { key: 'meta', value: '{"a":1}', type: 'SerializedJson', itemId },
      ]),
    );
    expect(o.data).toHaveLength(3);
  });

  it('bad type, bad JSON, unknown item → 4xx; more than 200 keys → 400 and nothing stored', async () => {
    const p = await created('with-single-item', { ownerId: FX.owner, item: {} });
    expect((await api('POST', `${SF}/projects/${p.id}/order-data`, [{ key: 'a', value: 'b', type: 'Xml' }], { token: 1 })).status).toBe(400);
    expect((await api('POST', `${SF}/projects/${p.id}/order-data`, [{ key: 'a', value: '{', type: 'SerializedJson' }], { token: 1 })).status).toBe(400);
    expect((await api('POST', `${SF}/projects/${p.id}/order-data?itemId=99999999`, [{ key: 'a', value: 'b' }], { token: 1 })).status).toBe(404);
    const many = Array.from({ length: 201 }, (_, i) => ({ key: `k${i}`, value: 'v' }));
    expect((await api('POST', `${SF}/projects/${p.id}/order-data`, many, { token: 1 })).status).toBe(400);
    await apiJson('POST', `${SF}/projects/${p.id}/order-data`, many.slice(0, 150), { token: 1 }, 204);
    expect((await api('POST', `${SF}/projects/${p.id}/order-data`, many.slice(100, 201), { token: 1 })).status).toBe(400);
    const o = await apiJson('GET', `${SF}/projects/${p.id}/order`, undefined, { token: 1 });
    expect(o.data).toHaveLength(150);
  });

  it("tenant 2 cannot read or write tenant 1's order data", async () => {
    const p = await created('with-single-item', { ownerId: FX.owner, item: {} });
    expect((await api('POST', `${SF}/projects/${p.id}/order-data`, [{ key: 'a', value: 'b' }], { token: 2 })).status).toBe(404);
    expect((await api('GET', `${SF}/projects/${p.id}/order`, undefined, { token: 2 })).status).toBe(404);
  });
});

describe('previews', () => {
  it("streams the items' first Preview resource", async () => {
    const p = await created('with-single-item', { ownerId: FX.owner, item: { resources: [{ resourceId: FX.previewResource, name: 'p', type: 'Preview' }] } });
    const res = await api('GET', `${SF}/projects/${p.id}/preview`, undefined, { token: 1 });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(new Uint8Array(await res.arrayBuffer())[1]).toBe(0x50);
    expect((await api('GET', `${SF}/projects/${p.id}/preview`, undefined, { token: 2 })).status).toBe(404);
  });
});

describe('processing results, resume and restart (the runner behind them)', () => {
  it('a project without a pipeline: Completed, no output files; resume and restart have nothing to do (409)', async () => {
    const p = await created('with-single-item', { ownerId: FX.owner, productReference: FX.plainReference, item: {} });
    const r = await apiJson('GET', `${SF}/projects/${p.id}/processing-results`, undefined, { token: 1 });
    expect(r).toEqual({ status: 'Completed', statusDescription: null, outputFileDetails: [] });
    expect((await api('POST', `${SF}/projects/${p.id}/resume-processing`, undefined, { token: 1 })).status).toBe(409);
  });

  it('Pending before processing starts; unknown, malformed and foreign ids are 404', async () => {
    await env.DB.prepare(`INSERT INTO tenant_settings (tenant_id, start_processing_on_status) VALUES (1, 3) ON CONFLICT (tenant_id) DO UPDATE SET start_processing_on_status = 3`).run();
    try {
      const p = await created('with-single-item', { ownerId: FX.owner, item: {} });
      expect((await apiJson('GET', `${SF}/projects/${p.id}/processing-results`, undefined, { token: 1 })).status).toBe('Pending');
      for (const [id, token] of [[String(p.id), 2], ['99999999', 1], ['x', 1]] as const) {
        expect((await api('GET', `${SF}/projects/${id}/processing-results`, undefined, { token })).status).toBe(404);
        expect((await api('POST', `${SF}/projects/${id}/restart-processing`, undefined, { token })).status).toBe(404);
      }
      expect((await api('GET', `${SF}/projects/${p.id}/processing-results?itemId=x`, undefined, { token: 1 })).status).toBe(400);
    } finally {
      await env.DB.prepare(`UPDATE tenant_settings SET start_processing_on_status = NULL WHERE tenant_id = 1`).run();
    }
  });
});
