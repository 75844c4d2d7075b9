// Tenant-wide rows that many files change: a tenant's settings (processing start status,
// retention, default profiles, self calls), its project status model, its secrets. Files that run
// in one runtime (vitest.shared.config.ts) must leave them as they found them: `keepTenantRows`
// at the top of a file reads the tenant's rows of those tables before its tests and puts exactly
// those back after them.
import { env } from 'cloudflare:workers';
import { afterAll, beforeAll } from 'vitest';

export function keepTenantRows(tenantId: number, tables: string[]): void {
  const kept = new Map<string, Array<Record<string, unknown>>>();
  beforeAll(async () => {
    for (const table of tables) kept.set(table, (await env.DB.prepare(`SELECT * FROM ${table} WHERE tenant_id = ?1`).bind(tenantId).all()).results);
  });
  afterAll(async () => {
    const put = tables.map((table) => env.DB.prepare(`DELETE FROM ${table} WHERE tenant_id = ?1`).bind(tenantId));
    for (const [table, rows] of kept) {
      for (const row of rows) {
        const columns = Object.keys(row);
        put.push(env.DB.prepare(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map((_, i) => `?${i + 1}`).join(', ')})`).bind(...columns.map((c) => row[c])));
      }
    }
    await env.DB.batch(put);
  });
}

/** keepTenantRows for the tenant's settings row. */
export const keepTenantSettings = (tenantId: number) => keepTenantRows(tenantId, ['tenant_settings']);

/** Takes away a tenant's settings row: the tenant then answers the defaults. */
export async function clearTenantSettings(tenantId: number): Promise<void> {
  await env.DB.prepare(`DELETE FROM tenant_settings WHERE tenant_id = ?1`).bind(tenantId).run();
}
