/**
 * Stored JSON is bound at write time (issue 18, items 5 and 8): custom fields, project fields and
 * order data nest at most 32 levels; any request body at most 64 (before recursive code or
 * SQLite's JSON functions, which give up at 1,000, meet it). Past either: 400 naming the path.
 * A value that got in would make every customFields-filtered list of the tenant answer 500.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, seedPlatform } from '../../helpers/platform';
import { FX, seedProjectFixtures } from '../projects/fixtures';

/** `{"a":{"a":…1}}` with `depth` objects. */
const nested = (depth: number): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
};
const pathOf = (prefix: string, depth: number) => prefix + '.a'.repeat(depth);

async function errorsOf(res: Response): Promise<Record<string, string[]>> {
  const text = await res.text();
  expect(res.status, text).toBe(400);
  return JSON.parse(text).errors;
}

beforeAll(async () => {
  await seedPlatform();
  await seedProjectFixtures();
});

describe('at the edge: no body nests deeper than 64', () => {
  it('custom fields 1,100 deep are a 400 with the path, and the tenant’s filtered lists keep answering', async () => {
    const res = await api('PUT', `/api/storage/v1/designs/${FX.design}`, { customFields: { deep: nested(1100) } }, { token: 1 });
    const errors = await errorsOf(res);
    expect(Object.keys(errors)).toEqual([pathOf('customFields.deep', 62)]);
    expect(errors[pathOf('customFields.deep', 62)]![0]).toMatch(/deeper than 64/);
    const list = await api('GET', `/api/storage/v1/designs?customFields=${encodeURIComponent('{"deep":1}')}`, undefined, { token: 1 });
    expect(list.status).toBe(200);
  });

  it('project fields 2,000 deep are a 400 with the path, not a D1 error', async () => {
    const res = await api('POST', '/api/storefront/v1/projects/with-single-item?storefrontId=1', { ownerId: FX.owner, productReference: FX.reference, item: { fields: { x: nested(2000) } } }, { token: 1 });
    const errors = await errorsOf(res);
    expect(Object.keys(errors)[0]).toMatch(/^item\.fields\.x(\.a)+$/);
  });
});

describe('where stored: at most 32 levels', () => {
  it('asset custom fields (JSON and batch)', async () => {
    const put = await errorsOf(await api('PUT', `/api/storage/v1/designs/${FX.design}`, { customFields: { deep: nested(40) } }, { token: 1 }));
    expect(Object.keys(put)).toEqual([pathOf('customFields.deep', 31)]);
    expect(put[pathOf('customFields.deep', 31)]![0]).toMatch(/deeper than 32/);
    const batch = await api('POST', '/api/storage/v1/designs/batch-update-custom-fields', { ids: [FX.design], customFields: { deep: nested(40) } }, { token: 1 });
    expect(batch.status).toBe(400);
    const fine = await api('PUT', `/api/storage/v1/designs/${FX.design}`, { customFields: { deep: nested(30) } }, { token: 1 });
    expect(fine.status).toBe(200);
  });

  it('a private design’s custom fields sent as a multipart field', async () => {
    const form = new FormData();
    form.set('file', new File([new Uint8Array([1, 2, 3])], 'x.psd'));
    form.set('customFields', JSON.stringify({ deep: nested(40) }));
    const res = await api('POST', `/api/storage/v1/private-designs?ownerId=${FX.owner}`, undefined, { token: 1, raw: form });
    expect(Object.keys(await errorsOf(res))).toEqual([pathOf('customFields.deep', 31)]);
  });

  it('product custom fields', async () => {
    const res = await api('POST', '/api/backoffice/v1/products', { name: `deep-${Date.now()}`, customFields: { deep: nested(40) } }, { token: 1 });
    expect(Object.keys(await errorsOf(res))).toEqual([pathOf('customFields.deep', 31)]);
  });

  it('project fields and hidden fields', async () => {
    const res = await api('POST', '/api/storefront/v1/projects/with-single-item?storefrontId=1', { ownerId: FX.owner, productReference: FX.reference, item: { fields: { x: nested(40) }, hidden: { y: nested(40) } } }, { token: 1 });
    expect(Object.keys(await errorsOf(res)).sort()).toEqual([pathOf('item.fields.x', 31), pathOf('item.hidden.y', 31)]);
  });

  it('order data of type SerializedJson', async () => {
    const created = await api('POST', '/api/storefront/v1/projects/with-single-item?storefrontId=1', { ownerId: FX.owner, productReference: FX.reference, item: {} }, { token: 1 });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: number };
    const res = await api('POST', `/api/storefront/v1/projects/${id}/order-data`, [{ key: 'k', type: 'SerializedJson', value: JSON.stringify({ deep: nested(40) }) }], { token: 1 });
    expect(Object.keys(await errorsOf(res))).toEqual([pathOf('[0].value.deep', 31)]);
  });
});

describe('catalogue values stored as JSON', () => {
  it('option traits and specification attribute values: at most 32 levels', async () => {
    const product = await api('POST', '/api/backoffice/v1/products', { name: `traits-${Date.now()}`, options: [{ title: 'Side', traits: [nested(40)], values: [{ title: 'One' }] }] }, { token: 1 });
    expect(Object.keys(await errorsOf(product))).toEqual([pathOf('options[0].traits[0]', 31)]);
    const spec = await api('POST', '/api/backoffice/v1/product-specifications', { name: `spec-${Date.now()}`, productAttributes: [{ name: 'a', value: nested(40) }] }, { token: 1 });
    expect(Object.keys(await errorsOf(spec))).toEqual([pathOf('productAttributes[0].value', 32)]);
  });
});
