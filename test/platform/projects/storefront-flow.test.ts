// The storefront flow as a shop's back end drives it, black-box over HTTP (issue 10, "Proof"):
// a Client Credentials token → the demo product (PSD design, pipeline) → a product reference →
// a project with-single-item for a new storefront user → statuses and transitions → order data.
// Only the catalogue rows the demo seed writes are put in D1 directly (the contract's demo ids,
// INSERT OR IGNORE); the reference goes through the back-office API when it is mounted.
import { beforeAll, describe, expect, it } from 'vitest';
import { env } from 'cloudflare:workers';
import { psdFixture } from '../../helpers/fixtures';
import { call, seedPlatform } from '../../helpers/platform';

const PIPELINE = JSON.stringify({
  tasks: [
    { name: 'extract', type: 'extract-project-design', outputArtifacts: ['design*'] },
    { name: 'render', type: 'render-hires', inputArtifacts: ['design*'], outputArtifacts: ['result*'], parameters: { hiResOutputDpi: 300, hiResOutputFileFormat: 'Pdf' } },
    { name: 'finalize', type: 'finalize', finalArtifacts: ['result*'] },
  ],
});

async function seedDemoCatalogue(): Promise<void> {
  const bytes = await psdFixture('psdtools-text.psd');
  const sha = [...new Uint8Array(await crypto.subtle.digest('SHA-256', bytes))].map((b) => b.toString(16).padStart(2, '0')).join('');
  await env.FILES.put(`p/1/blobs/${sha}`, bytes);
  const rows: Array<[string, ...unknown[]]> = [
    [`INSERT OR IGNORE INTO blobs (tenant_id, sha256, size, content_type, refcount) VALUES (1, ?1, ?2, 'image/vnd.adobe.photoshop', 1)`, sha, bytes.length],
    [`INSERT OR IGNORE INTO assets (tenant_id, id, type, name, blob_sha, size, format, design_type) VALUES (1, 'demo-card-design', 'design', 'Demo card design', ?1, ?2, 'psd', 'Psd')`, sha, bytes.length],
    [`INSERT OR IGNORE INTO processing_pipelines (id, tenant_id, name, raw_content) VALUES (1, 1, 'render-hires', ?1)`, PIPELINE],
    [`INSERT OR IGNORE INTO personalization_workflows (id, tenant_id, name, content, workflow_type) VALUES (1, 1, 'Demo editor', '{}', 'WorkflowElements')`],
    [`INSERT OR IGNORE INTO products (id, tenant_id, name, current_version_id, processing_pipeline_id, personalization_workflow_id) VALUES (1, 1, 'Demo card', 1, 1, 1)`],
    [`INSERT OR IGNORE INTO product_versions (id, tenant_id, product_id) VALUES (1, 1, 1)`],
    [`INSERT OR IGNORE INTO product_options (id, tenant_id, product_version_id, product_id, uid, title) VALUES (1, 1, 1, 1, 'paper', 'Paper')`],
    [`INSERT OR IGNORE INTO option_values (id, tenant_id, product_version_id, option_uid, uid, title) VALUES (1, 1, 1, 'paper', 'matte', 'Matte')`],
    [`INSERT OR IGNORE INTO variants (id, tenant_id, product_version_id, product_id, uid, option_value_uids, sku) VALUES (1, 1, 1, 1, 'v-matte', '["matte"]', 'DEMO-CARD-MATTE')`],
    [`INSERT OR IGNORE INTO design_connections (id, tenant_id, product_version_id, design_id, design_group) VALUES (1, 1, 1, 'demo-card-design', 'front')`],
  ];
  await env.DB.batch(rows.map(([sql, ...params]) => env.DB.prepare(sql).bind(...params)));
}

async function http(method: string, path: string, token: string | null, body?: unknown): Promise<{ status: number; json: any; text: string; headers: Headers }> {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await call(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text, headers: res.headers };
}

beforeAll(async () => {
  await seedPlatform();
  await seedDemoCatalogue();
});

describe('storefront flow over HTTP', () => {
  it('token → product → reference → project for a new user → statuses → order data', async () => {
    // 1. The shop's back end gets a token (Client Credentials).
    const tokenRes = await call('/connect/token', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials&client_id=demo-backend&client_secret=demo-backend-secret',
    });
    expect(tokenRes.status).toBe(200);
    const token = ((await tokenRes.json()) as { access_token: string }).access_token;

    // 2. The product's reference in storefront 1 (back-office API when mounted).
    const reference = `flow-card-${Date.now()}`;
    const created = await http('POST', '/api/backoffice/v1/product-references?storefrontId=1', token, {
      productReference: reference,
      productReferenceType: 'Product',
      productReferenceName: 'Demo card',
      productId: 1,
    });
    if (created.status === 404 && /No endpoint/.test(created.text)) {
      await env.DB.prepare(`INSERT INTO product_references (tenant_id, storefront_id, product_reference, product_reference_type, product_reference_name, product_id) VALUES (1, 1, ?1, 'Product', 'Demo card', 1)`)
        .bind(reference)
        .run();
    } else {
      expect([200, 201]).toContain(created.status);
    }

    // 3. A project for a storefront user the platform has never seen.
    const owner = `shopper-${Date.now()}`;
    const orderId = `web-${Date.now()}`;
    const project = await http('POST', '/api/storefront/v1/projects/with-single-item?storefrontId=1', token, {
      ownerId: owner,
      productReference: reference,
      orderId,
      orderNumber: 42,
      orderName: 'Web order 42',
      orderLineItemIndex: 0,
      customerName: 'Ada',
      item: { name: 'Business card', quantity: 100, designIds: ['demo-card-design'], sku: 'DEMO-CARD-MATTE', fields: { Name: 'Ada' } },
    });
    expect(project.status, project.text).toBe(201);
    expect(project.json).toMatchObject({ productReference: reference, ownerId: owner, orderId, orderNumber: 42, status: 1 });
    expect(project.json.items[0]).toMatchObject({ designIds: ['demo-card-design'], sku: 'DEMO-CARD-MATTE', quantity: 100 });
    // The product has a pipeline: processing started (the runner takes it from here).
    expect(['InProgress', 'Completed']).toContain(project.json.processingStatus);
    const id = project.json.id;

    // The shopper now exists in the storefront, and a repeat of the order line is the same project.
    expect((await http('GET', `/api/storefront/v1/storefront-users/${owner}?storefrontId=1`, token)).json).toMatchObject({ userId: owner, isAnonymous: false });
    const repeat = await http('POST', '/api/storefront/v1/projects/with-single-item?storefrontId=1', token, { ownerId: owner, orderId, orderLineItemIndex: 0, item: {} });
    expect(repeat.status).toBe(201);
    expect(repeat.json.id).toBe(id);

    // 4. Statuses: the tenant's model, the available transitions, a transition and a wrong one.
    const statuses = await http('GET', '/api/storefront/v1/projects/statuses', token);
    expect(statuses.json.map((s: any) => s.code)).toEqual(expect.arrayContaining([1, 2, 3]));
    const available = await http('GET', `/api/storefront/v1/projects/${id}/transitions`, token);
    expect(available.json.map((t: any) => t.name)).toEqual(['start-production']);
    const wrong = await http('POST', `/api/storefront/v1/projects/${id}/transitions/complete`, token);
    expect(wrong.status).toBe(409);
    expect(wrong.json.availableTransitions.map((t: any) => t.name)).toEqual(['start-production']);
    const moved = await http('POST', `/api/storefront/v1/projects/${id}/transitions/start-production`, token);
    expect(moved.json).toMatchObject({ code: 2, displayName: 'In production' });

    // 5. Order data, upserted by key, and the order as the shop reads it back.
    expect((await http('POST', `/api/storefront/v1/projects/${id}/order-data`, token, [{ key: 'Shipping', value: 'Express' }])).status).toBe(204);
    expect((await http('POST', `/api/storefront/v1/projects/${id}/order-data`, token, [{ key: 'Shipping', value: 'Standard' }, { key: 'Extras', value: 'box,ribbon', type: 'CommaSeparatedList' }])).status).toBe(204);
    const order = await http('GET', `/api/storefront/v1/projects/${id}/order`, token);
    expect(order.json).toMatchObject({ orderId, orderNumber: 42, orderName: 'Web order 42', customerName: 'Ada' });
    expect(order.json.data).toEqual([
      { key: 'Extras', value: 'box,ribbon', type: 'CommaSeparatedList', itemId: null },
      { key: 'Shipping', value: 'Standard', type: 'PlainText', itemId: null },
    ]);

    // The project is in the lists the shop filters by.
    const listed = await http('GET', `/api/storefront/v1/projects?orderId=${orderId}&status=2&datePeriod=Today`, token);
    expect(listed.json.items.map((p: any) => p.id)).toEqual([id]);

    // The design editor's token for the shopper is confined to that user.
    const editorToken = await http('GET', `/api/storefront/v1/storefront-users/token?storefrontId=1&storefrontUserId=${owner}`, token);
    expect(editorToken.status).toBe(200);
    expect((await http('GET', `/api/storefront/v1/projects/${id}`, editorToken.text)).status).toBe(403);
  });

  it('previews a project without a Preview resource: an 800 px JPEG of its first design, kept as an anonymous resource', async () => {
    const token = await (await import('../../helpers/platform')).tenantToken(1);
    const p = await http('POST', '/api/storefront/v1/projects/with-single-item?storefrontId=1', token, { ownerId: 'preview-shopper', item: { designIds: ['demo-card-design'] } });
    expect(p.status, p.text).toBe(201);
    const res = await call(`/api/storefront/v1/projects/${p.json.id}/preview`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/jpeg');
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect([bytes[0], bytes[1]]).toEqual([0xff, 0xd8]);
    const kept = await env.DB.prepare(`SELECT count(*) AS n FROM assets WHERE tenant_id = 1 AND type = 'resource' AND namespace = 'project-previews' AND source_id = ?1`)
      .bind(`project-${p.json.id}`)
      .first<{ n: number }>();
    expect(kept!.n).toBe(1);
    // The URL is anonymous: it opens without a token; a second call reuses the kept resource.
    const url = await http('GET', `/api/storefront/v1/projects/${p.json.id}/preview-url`, token);
    expect(url.status).toBe(200);
    expect(url.text).toMatch(/^http.*\/api\/storage\/v1\/anonymous\//);
    const anonymous = await call(url.text);
    expect(anonymous.status).toBe(200);
    expect(new Uint8Array(await anonymous.arrayBuffer()).length).toBe(bytes.length);
    expect((await http('GET', `/api/storefront/v1/projects/${p.json.id}/preview-url`, token)).text).toBe(url.text);
    expect((await http('GET', `/api/storefront/v1/projects/${p.json.id}/preview`, await (await import('../../helpers/platform')).tenantToken(2))).status).toBe(404);
    // Deleting the project deletes its kept preview and the preview's anonymous URL.
    expect((await http('DELETE', `/api/storefront/v1/projects/${p.json.id}`, token)).status).toBe(200);
    const gone = await env.DB.prepare(`SELECT count(*) AS n FROM assets WHERE tenant_id = 1 AND namespace = 'project-previews' AND source_id = ?1`)
      .bind(`project-${p.json.id}`)
      .first<{ n: number }>();
    expect(gone!.n).toBe(0);
    expect((await call(url.text)).status).toBe(404);
  });

  it('previews a project whose item names no designIds from its product variant’s design, the one extract-project-design takes', async () => {
    const token = await (await import('../../helpers/platform')).tenantToken(1);
    const p = await http('POST', '/api/storefront/v1/projects/with-single-item?storefrontId=1', token, { ownerId: 'preview-shopper', productReference: 'demo-card', item: { sku: 'DEMO-CARD-MATTE' } });
    expect(p.status, p.text).toBe(201);
    expect(p.json.items[0].designIds).toEqual([]);
    const { storedItemDesignIds } = await import('../../../src/platform/projects/item-designs');
    expect(await storedItemDesignIds(env.DB, 1, p.json.items[0].id, [])).toEqual(['demo-card-design']);
    const res = await call(`/api/storefront/v1/projects/${p.json.id}/preview`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/jpeg');
    await res.arrayBuffer();
    const url = await http('GET', `/api/storefront/v1/projects/${p.json.id}/preview-url`, token);
    expect(url.status, url.text).toBe(200);
  });

  it("draws the project preview with the item's fields (layer names matched ignoring case; other order fields ignored)", async () => {
    const token = await (await import('../../helpers/platform')).tenantToken(1);
    // A font for the text (the design's ArialMT is not in the tenant: the engine falls back to it).
    const { upload } = await import('../storage/helpers');
    const font = await upload('/api/storage/v1/fonts', await (await import('../../helpers/fixtures')).bundledFont('LiberationSans-Regular.ttf'), 'LiberationSans-Regular.ttf');
    expect([201, 409]).toContain(font.status);
    const preview = async (fields?: Record<string, string>) => {
      const p = await http('POST', '/api/storefront/v1/projects/with-single-item?storefrontId=1', token, { ownerId: 'preview-shopper', item: { designIds: ['demo-card-design'], ...(fields && { fields }) } });
      expect(p.status, p.text).toBe(201);
      const res = await call(`/api/storefront/v1/projects/${p.json.id}/preview`, { headers: { authorization: `Bearer ${token}` } });
      expect(res.status, await res.clone().text()).toBe(200);
      return new Uint8Array(await res.arrayBuffer());
    };
    const plain = await preview();
    const named = await preview({ 'LINE 1 LINE 2 LINE 3 AND TEXT': 'Ada Lovelace', paper: 'Matte' });
    expect(named).not.toEqual(plain);
    expect(await preview({ paper: 'Matte' })).toEqual(plain);
  });
});
