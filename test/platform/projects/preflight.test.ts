// Storefront projects carry their items' preflight (issue 21): each item with a design is checked
// with its fields at creation (`preflight` on the item DTO, the worst verdict on the project),
// the list filters by it, errors never refuse the create, and a design the preflight cannot
// check leaves the item unchecked (null) instead of a 500. Real D1 and R2.
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { LONG_NAME as LONG, preflightCard, uploadCardFonts } from './preflight-card';
import { apiJson, seedPlatform } from '../../helpers/platform';

const SF = '/api/storefront/v1';

let strict: string;
let shrinking: string;
// Not an id another file uses (projects.test.ts makes its own bbbb…0001): INSERT OR IGNORE would keep theirs.
const BROKEN = 'bbbbbbbbbbbbbbbbbbbbf001';
const owner = 'preflight-owner';
let order = 0;

/** A multi-item project of `owner` in storefront 1 (each item its own line). */
const createProject = (items: unknown[]) =>
  apiJson('POST', `${SF}/projects/with-multiple-items?storefrontId=1`, { ownerId: owner, orderId: `pf-order-${Date.now()}-${++order}`, items }, { token: 1 }, 201);

const listIds = async (query: string) => ((await apiJson('GET', `${SF}/projects?ownerId=${owner}&take=100&${query}`, undefined, { token: 1 })).items as Array<{ id: number }>).map((p) => p.id);

beforeAll(async () => {
  await seedPlatform();
  await uploadCardFonts();
  strict = (await apiJson('POST', '/api/atoms/v1/designs', { product: preflightCard('None'), name: 'Strict card', path: '/preflight-projects/' }, { token: 1 }, 201)).id;
  shrinking = (await apiJson('POST', '/api/atoms/v1/designs', { product: preflightCard('Shrink'), name: 'Shrinking card', path: '/preflight-projects/' }, { token: 1 }, 201)).id;
  // A design row whose file is missing: nothing to check.
  await env.DB.prepare(`INSERT OR IGNORE INTO assets (tenant_id, id, type, name, design_type, blob_sha) VALUES (1, ?1, 'design', 'pf-broken', 'Psd', ?2)`).bind(BROKEN, 'e'.repeat(64)).run();
});

describe('preflight of project items at creation', () => {
  it('records each item\'s result and the project\'s worst verdict; errors do not refuse the create', async () => {
    const p = await createProject([
      { name: 'too long', designIds: [strict], fields: { Name: LONG } },
      { name: 'fits', designIds: [strict], fields: { Name: 'Ada' } },
      { name: 'no design', fields: { Note: 'x' } },
    ]);
    const [long, fits, none] = p.items;
    expect(long.preflight).toMatchObject({ ok: false, errors: 1, warnings: 0 });
    expect(long.preflight.problems[0]).toMatchObject({ layer: 'Name', code: 'textOverflow', severity: 'error', design: strict });
    expect(long.preflight.problems[0].message).toContain(LONG);
    expect(fits.preflight).toEqual({ ok: true, errors: 0, warnings: 0, problems: [] });
    expect(none.preflight).toBeNull();
    expect(p.preflight).toBe('errors');
    // The stored project reads back the same.
    const read = await apiJson('GET', `${SF}/projects/${p.id}`, undefined, { token: 1 });
    expect(read.preflight).toBe('errors');
    expect(read.items.map((i: { preflight: unknown }) => i.preflight)).toEqual(p.items.map((i: { preflight: unknown }) => i.preflight));
  });

  it('a shrunk name is a warning: ok stays true and the project\'s verdict is warnings', async () => {
    const p = await createProject([{ designIds: [shrinking], fields: { Name: LONG } }]);
    expect(p.items[0].preflight).toMatchObject({ ok: true, errors: 0, warnings: 1 });
    expect(p.items[0].preflight.problems[0]).toMatchObject({ layer: 'Name', code: 'textShrunk', severity: 'warning' });
    expect(p.preflight).toBe('warnings');
  });

  it('a design the preflight cannot check leaves the item unchecked (null), and the create answers 201', async () => {
    const p = await createProject([{ designIds: [BROKEN], fields: { Name: LONG } }]);
    expect(p.items[0].preflight).toBeNull();
    expect(p.preflight).toBeNull();
  });

  it('the list filters by the verdict (?preflight=ok|warnings|errors, repeatable); unchecked projects match none', async () => {
    const errors = (await createProject([{ designIds: [strict], fields: { Name: LONG } }])).id;
    const warnings = (await createProject([{ designIds: [shrinking], fields: { Name: LONG } }])).id;
    const ok = (await createProject([{ designIds: [strict], fields: { Name: 'Ada' } }])).id;
    const unchecked = (await createProject([{ fields: { Note: 'no design' } }])).id;
    const mine = [errors, warnings, ok, unchecked];
    const only = async (q: string) => (await listIds(q)).filter((id) => mine.includes(id)).sort();
    expect(await only('preflight=errors')).toEqual([errors]);
    expect(await only('preflight=warnings')).toEqual([warnings]);
    expect(await only('preflight=ok')).toEqual([ok]);
    expect(await only('preflight=ok&preflight=warnings')).toEqual([warnings, ok].sort());
    expect(await only('')).toEqual([...mine].sort());
    await apiJson('GET', `${SF}/projects?preflight=bad`, undefined, { token: 1 }, 400);
  });
});
