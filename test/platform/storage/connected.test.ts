/**
 * A design or mockup still connected to a product cannot be deleted (issue 18, item 6): 409
 * naming the products, as pipelines and statuses in use answer; once the connection is removed
 * the delete goes through. The file connects a design and a mockup of its own to a product of its
 * own (the demo seed's demo-card-design may be connected to more products by files that ran
 * before in the same runtime, vitest.shared.config.ts, such as a copy of product 1).
 */
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, apiJson, seedPlatform } from '../../helpers/platform';

const ST = '/api/storage/v1';
const BO = '/api/backoffice/v1';
const DESIGN = 'c0ec7ed0000000000000a0d1';
const MOCKUP = 'c0ec7ed0000000000000a0e1';
let product: { id: number; name: string };

beforeAll(async () => {
  await seedPlatform();
  await env.DB.batch([
    env.DB.prepare(`INSERT INTO assets (tenant_id, id, type, name, design_type) VALUES (1, ?1, 'design', 'connected-design', 'Psd')`).bind(DESIGN),
    env.DB.prepare(`INSERT INTO assets (tenant_id, id, type, name, mockup_type) VALUES (1, ?1, 'mockup', 'connected-mockup', 'Mockup2D')`).bind(MOCKUP),
  ]);
  const made = await apiJson('POST', `${BO}/products`, { name: `Connected card ${Date.now()}` }, { token: 1 });
  product = { id: made.id, name: made.name };
  await apiJson('POST', `${BO}/products/${product.id}/design-connections`, { connections: [{ designId: DESIGN }] }, { token: 1 });
  await apiJson('POST', `${BO}/products/${product.id}/mockup-connections`, { connections: [{ mockupId: MOCKUP }] }, { token: 1 });
});

async function conflict(res: Response) {
  const text = await res.text();
  expect(res.status, text).toBe(409);
  return JSON.parse(text) as { type: string; description: string; products: Array<{ id: number; name: string }> };
}

describe('deleting a connected design or mockup', () => {
  it('DELETE of a design a product uses is a 409 naming the product; the design stays', async () => {
    const body = await conflict(await api('DELETE', `${ST}/designs/${DESIGN}`, undefined, { token: 1 }));
    expect(body.type).toBe('GeneralConflict');
    expect(body.products).toEqual([product]);
    expect(body.description).toContain(`${product.id} "${product.name}"`);
    expect((await api('GET', `${ST}/designs/${DESIGN}`, undefined, { token: 1 })).status).toBe(200);
  });

  it('batch-delete holding a connected design is a 409 and deletes nothing', async () => {
    const body = await conflict(await api('POST', `${ST}/designs/batch-delete`, { ids: [DESIGN] }, { token: 1 }));
    expect(body.products.map((p) => p.id)).toEqual([product.id]);
    expect((await api('GET', `${ST}/designs/${DESIGN}`, undefined, { token: 1 })).status).toBe(200);
  });

  it('a connected mockup: 409 naming the product', async () => {
    const body = await conflict(await api('DELETE', `${ST}/mockups/${MOCKUP}`, undefined, { token: 1 }));
    expect(body.products).toEqual([product]);
    expect((await api('POST', `${ST}/mockups/batch-delete`, { ids: [MOCKUP] }, { token: 1 })).status).toBe(409);
  });

  it('once the connection is removed the design can be deleted', async () => {
    const designId = 'c0ec7ed000000000000000d1';
    await env.DB.prepare(`INSERT INTO assets (tenant_id, id, type, name, design_type) VALUES (1, ?1, 'design', 'connected-test', 'Psd')`).bind(designId).run();
    const product = await apiJson('POST', `${BO}/products`, { name: `connected-${Date.now()}` }, { token: 1 });
    await apiJson('POST', `${BO}/products/${product.id}/design-connections`, { connections: [{ designId }] }, { token: 1 });
    const refused = await conflict(await api('DELETE', `${ST}/designs/${designId}`, undefined, { token: 1 }));
    expect(refused.products.map((p) => p.id)).toEqual([product.id]);
    await apiJson('DELETE', `${BO}/products/${product.id}/design-connections`, { connections: [{ designId }] }, { token: 1 });
    expect((await api('DELETE', `${ST}/designs/${designId}`, undefined, { token: 1 })).status).toBe(204);
  });
});
