// Copy-on-write under concurrency and at the size limit: parallel edits of one product either
// win or answer 409, never leave a half-made version; a 500-variant product is versioned in one
// batch (timings printed, loose bounds asserted).
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, apiJson, seedPlatform } from '../../helpers/platform';

const BO = '/api/backoffice/v1';

beforeAll(async () => {
  await seedPlatform();
  await env.DB.prepare(`INSERT OR IGNORE INTO assets (tenant_id, id, type, name, design_type) VALUES (1, 'scale-design', 'design', 'Scale', 'Psd')`).run();
});

/** Every version of the product is whole: its variants are the product of its option values. */
async function versionsAreWhole(productId: number) {
  const { results } = await env.DB.prepare(
    `SELECT v.id,
       (SELECT count(*) FROM variants x WHERE x.tenant_id = 1 AND x.product_version_id = v.id) AS variants,
       (SELECT count(*) FROM product_options o WHERE o.tenant_id = 1 AND o.product_version_id = v.id) AS options,
       (SELECT coalesce(exp(sum(ln(n))), 1) FROM (SELECT count(*) AS n FROM option_values ov WHERE ov.tenant_id = 1 AND ov.product_version_id = v.id GROUP BY ov.option_uid)) AS expected
     FROM product_versions v WHERE v.tenant_id = 1 AND v.product_id = ?1`,
  )
    .bind(productId)
    .all<{ id: number; variants: number; options: number; expected: number }>();
  return results;
}

describe('versions under concurrency', () => {
  it('parallel option changes: each answers 200 or 409, the product ends at one whole version, and every version is whole', async () => {
    const p = await apiJson('POST', `${BO}/products`, { name: 'Raced', options: [{ title: 'A', values: [{ title: 'a1' }] }] }, { token: 1 }, 200);
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        api('PUT', `${BO}/products/${p.id}/options`, { options: [{ title: 'A', values: Array.from({ length: i + 1 }, (_, j) => ({ title: `v${j}` })) }] }, { token: 1 }),
      ),
    );
    expect(results.map((r) => r.status).every((s) => s === 200 || s === 409)).toBe(true);
    expect(results.some((r) => r.status === 200)).toBe(true);
    const versions = await versionsAreWhole(p.id);
    expect(versions.length).toBe(1 + results.filter((r) => r.status === 200).length);
    for (const v of versions) expect(Math.round(v.expected)).toBe(v.variants);
  });

  it('parallel creates of one reference: exactly one 201, the others 409 with existingReferences', async () => {
    const p = await apiJson('POST', `${BO}/products`, { name: 'Ref race' }, { token: 1 }, 200);
    const results = await Promise.all(
      Array.from({ length: 5 }, () => api('POST', `${BO}/product-references?storefrontId=1`, { productReference: 'race-ref', productReferenceType: 'Product', productId: p.id }, { token: 1 })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409]);
    const conflict = (await results.find((r) => r.status === 409)!.json()) as any;
    expect(conflict.existingReferences).toHaveLength(1);
  });
});

describe('a product at the size limit', () => {
  it('500 variants: create, a new version from connections, set 500 SKUs, and list variant designs, each within bounds', async () => {
    const options = [
      { title: 'Size', values: Array.from({ length: 20 }, (_, i) => ({ title: `S${i}` })) },
      { title: 'Paper', values: Array.from({ length: 25 }, (_, i) => ({ title: `P${i}` })) },
    ];
    const timed = async <T>(f: () => Promise<T>): Promise<[T, number]> => {
      const t0 = performance.now();
      const r = await f();
      return [r, performance.now() - t0];
    };
    const [p, createMs] = await timed(() => apiJson('POST', `${BO}/products`, { name: 'Big', options }, { token: 1 }, 200));
    const variants = (await apiJson('GET', `${BO}/products/${p.id}/variants?take=1000`, undefined, { token: 1 })).items;
    expect(variants).toHaveLength(500);
    const [, skuMs] = await timed(() => apiJson('POST', `${BO}/products/${p.id}/set-variant-sku`, variants.map((v: any, i: number) => ({ productVariantId: v.id, value: `BIG-${i}` })), { token: 1 }, 204));
    const [after, versionMs] = await timed(() => apiJson('POST', `${BO}/products/${p.id}/design-connections`, { connections: [{ designId: 'scale-design', designGroup: 'front' }] }, { token: 1 }));
    expect(after.productVersionId).not.toBe(p.productVersionId);
    const current = (await apiJson('GET', `${BO}/products/${p.id}/options`, undefined, { token: 1 })).items;
    const reordered = current.map((o: any) => ({ uid: o.uid, title: o.title, values: o.productOptionValues.map((v: any) => ({ uid: v.uid, title: v.title })).reverse() }));
    const [, optionsMs] = await timed(() => apiJson('PUT', `${BO}/products/${p.id}/options`, { options: reordered }, { token: 1 }));
    const [designs, designsMs] = await timed(() => apiJson('GET', `${BO}/products/${p.id}/variant-designs?take=1000`, undefined, { token: 1 }));
    expect(designs.total).toBe(500);
    expect(designs.items.map((d: any) => d.sku).sort()).toEqual(variants.map((_: unknown, i: number) => `BIG-${i}`).sort());
    const tooMany = await api('POST', `${BO}/products`, { name: 'Too big', options: [...options, { title: 'X', values: [{ title: 'x1' }, { title: 'x2' }] }] }, { token: 1 });
    expect(tooMany.status).toBe(400);
    console.log(`catalogue at 500 variants: create ${createMs.toFixed(0)} ms, set 500 SKUs ${skuMs.toFixed(0)} ms, new version (connections) ${versionMs.toFixed(0)} ms, new version (options, 500 variants kept by uids) ${optionsMs.toFixed(0)} ms, variant-designs ${designsMs.toFixed(0)} ms`);
    for (const ms of [createMs, skuMs, versionMs, optionsMs, designsMs]) expect(ms).toBeLessThan(5000);
  });
});
