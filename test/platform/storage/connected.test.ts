/**
 * A design or mockup still connected to a product cannot be deleted (issue 18, item 6): 409
 * naming the products, as pipelines and statuses in use answer; once the connection is removed
 * the delete goes through. The demo seed connects demo-card-design and demo-mockup to product 1.
 */
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, apiJson, seedPlatform } from '../../helpers/platform';

const ST = '/api/storage/v1';
const BO = '/api/backoffice/v1';

beforeAll(async () => {
  await seedPlatform();
});

async function conflict(res: Response) {
  const text = await res.text();
  expect(res.status, text).toBe(409);
  return JSON.parse(text) as { type: string; description: string; products: Array<{ id: number; name: string }> };
}

describe('deleting a connected design or mockup', () => {
  it('DELETE of a design product 1 uses is a 409 naming the product; the design stays', async () => {
    const body = await conflict(await api('DELETE', `${ST}/designs/demo-card-design`, undefined, { token: 1 }));
    expect(body.type).toBe('GeneralConflict');
    expect(body.products).toEqual([{ id: 1, name: 'Demo card' }]);
    expect(body.description).toContain('1 "Demo card"');
    expect((await api('GET', `${ST}/designs/demo-card-design`, undefined, { token: 1 })).status).toBe(200);
  });

  it('batch-delete holding a connected design is a 409 and deletes nothing', async () => {
    const body = await conflict(await api('POST', `${ST}/designs/batch-delete`, { ids: ['demo-card-design'] }, { token: 1 }));
    expect(body.products.map((p) => p.id)).toEqual([1]);
  });

  it('a connected mockup: 409 naming the product', async () => {
    const body = await conflict(await api('DELETE', `${ST}/mockups/demo-mockup`, undefined, { token: 1 }));
    expect(body.products).toEqual([{ id: 1, name: 'Demo card' }]);
    expect((await api('POST', `${ST}/mockups/batch-delete`, { ids: ['demo-mockup'] }, { token: 1 })).status).toBe(409);
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
