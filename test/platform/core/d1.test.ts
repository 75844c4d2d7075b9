import { env } from 'cloudflare:workers';
import { and, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../../src/db/client';
import { customFieldsMatch, guardIds, inJsonList, missingIds, newId, NotFoundError, runGuarded } from '../../../src/platform/core';
import { batchUnlessGuardFails, existsAll, guardThat } from '../../../src/platform/core/d1';

const T = 1;
const ids = [newId(), newId(), newId()];
// Names of this file's own (other files of the runtime may name their designs Card too).
const CARD = `Card-${ids[0]}`;
const FLYER = `Flyer-${ids[1]}`;

beforeAll(async () => {
  const db = getDb(env.DB);
  await db.insert(schema.assets).values([
    { tenantId: T, id: ids[0]!, type: 'design', name: CARD, customFields: { color: 'red', n: 1, ok: true } },
    { tenantId: T, id: ids[1]!, type: 'design', name: FLYER, customFields: { color: 'blue', n: 1 } },
    { tenantId: 2, id: ids[2]!, type: 'design', name: `Other tenant-${ids[2]}`, customFields: { color: 'red' } },
  ]);
});

describe('D1 helpers (contract, Reliability)', () => {
  it('the migration gives timestamps in ms and the case-insensitive name rule', async () => {
    const row = await env.DB.prepare('SELECT created FROM assets WHERE tenant_id = 1 AND id = ?1').bind(ids[0]).first<{ created: number }>();
    expect(Math.abs(row!.created - Date.now())).toBeLessThan(60_000);
    await expect(env.DB.prepare("INSERT INTO assets (tenant_id, id, type, name) VALUES (1, ?1, 'design', ?2)").bind(newId(), CARD.toUpperCase()).run()).rejects.toThrow(/UNIQUE/);
    // Resources are not named uniquely; other folders and other types may reuse a name.
    await getDb(env.DB).insert(schema.assets).values([
      { tenantId: T, id: newId(), type: 'resource', name: 'same' },
      { tenantId: T, id: newId(), type: 'resource', name: 'same' },
      { tenantId: T, id: newId(), type: 'image', name: CARD },
    ]);
  });

  it('an id list is one JSON parameter', async () => {
    const db = getDb(env.DB);
    const many = [...ids, ...Array.from({ length: 500 }, () => newId())];
    const rows = await db.select({ id: schema.assets.id }).from(schema.assets).where(and(eq(schema.assets.tenantId, T), inJsonList(schema.assets.id, many)));
    expect(rows.map((r) => r.id).sort()).toEqual([ids[0], ids[1]].sort());
  });

  it('customFieldsMatch needs every pair equal, with its JSON type', async () => {
    const db = getDb(env.DB);
    const find = async (fields: Record<string, unknown>) =>
      (
        await db
          .select({ name: schema.assets.name })
          .from(schema.assets)
          // This file's designs only: other files' designs of tenant 1 may carry such fields too.
          .where(and(eq(schema.assets.tenantId, T), eq(schema.assets.type, 'design'), inJsonList(schema.assets.id, ids), customFieldsMatch(schema.assets.customFields, fields)))
      )
        .map((r) => r.name)
        .sort();
    expect(await find({ color: 'red' })).toEqual([CARD]);
    expect(await find({ n: 1 })).toEqual([CARD, FLYER]);
    expect(await find({ n: '1' })).toEqual([]);
    expect(await find({ ok: true })).toEqual([CARD]);
    expect(await find({ ok: 1 })).toEqual([]);
    expect(await find({ color: 'red', n: 2 })).toEqual([]);
    expect(await find({})).toEqual([CARD, FLYER]);
  });

  it('a guarded batch changes nothing when one id is missing (or another tenant\'s)', async () => {
    const rename = (id: string) => env.DB.prepare("UPDATE assets SET name = name || '!' WHERE tenant_id = 1 AND id = ?1").bind(id);
    const spec = { table: 'assets', tenantId: T, ids: [ids[0]!, ids[2]!] };
    const err = await runGuarded(env.DB, guardIds(env.DB, spec), [rename(ids[0]!)], () => missingIds(env.DB, spec)).catch((e) => e);
    expect(err).toBeInstanceOf(NotFoundError);
    expect(err.errors).toEqual({ 'ids[1]': [`No such item: ${ids[2]}.`] });
    const row = await env.DB.prepare('SELECT name FROM assets WHERE tenant_id = 1 AND id = ?1').bind(ids[0]).first<{ name: string }>();
    expect(row!.name).toBe(CARD);

    // Duplicates in the list still count as found; then the batch applies.
    await runGuarded(env.DB, guardIds(env.DB, { table: 'assets', tenantId: T, ids: [ids[0]!, ids[0]!, ids[1]!], where: "type = 'design'" }), [rename(ids[0]!)]);
    const after = await env.DB.prepare('SELECT name FROM assets WHERE tenant_id = 1 AND id = ?1').bind(ids[0]).first<{ name: string }>();
    expect(after!.name).toBe(`${CARD}!`);
  });

  it('a batch behind a false guardThat writes nothing and answers null; a true one runs', async () => {
    const rename = (id: string, to: string) => env.DB.prepare('UPDATE assets SET name = ?2 WHERE tenant_id = 1 AND id = ?1').bind(id, to);
    const nameOf = async (id: string) => (await env.DB.prepare('SELECT name FROM assets WHERE tenant_id = 1 AND id = ?1').bind(id).first<{ name: string }>())!.name;
    const before = await nameOf(ids[1]!);
    // Asset ids are hex text: id 1 names nothing, so "every (table, id) exists" is false (the null id is skipped).
    const missing = guardThat(env.DB, `SELECT ${existsAll([['assets', 1], ['assets', null]])}`, T);
    expect(await batchUnlessGuardFails(env.DB, [missing, rename(ids[1]!, 'Renamed')])).toBeNull();
    expect(await nameOf(ids[1]!)).toBe(before);
    // No ids at all: the condition is true (it still binds ?1).
    const results = await batchUnlessGuardFails(env.DB, [guardThat(env.DB, `SELECT ${existsAll([])}`, T), rename(ids[1]!, 'Renamed')]);
    expect(results).toHaveLength(2);
    expect(await nameOf(ids[1]!)).toBe('Renamed');
  });
});
