/**
 * D1 of the tenant's own configuration: storefronts, tenant settings and tenant secrets (stored
 * sealed; tenant.ts seals and opens them).
 */
import { all, batchUnlessGuardFails, first, guardThat } from '../../core/d1';
import type { SortKey } from '../../core';
import type { storefronts } from '../../../db/schema/platform';

// --- storefronts ------------------------------------------------------------------------------------------

/** A storefront as the queries below select it: the drizzle schema's row. */
export type StorefrontRow = typeof storefronts.$inferSelect;
const STOREFRONT_COLUMNS = `id, tenant_id AS tenantId, name, type, status, created`;

export async function storefrontExists(db: D1Database, tenantId: number, id: number): Promise<boolean> {
  return (await first(db, `SELECT 1 FROM storefronts WHERE tenant_id = ?1 AND id = ?2`, tenantId, id)) !== null;
}

export async function findStorefront(db: D1Database, tenantId: number, id: number): Promise<StorefrontRow | null> {
  return first<StorefrontRow>(db, `SELECT ${STOREFRONT_COLUMNS} FROM storefronts WHERE tenant_id = ?1 AND id = ?2`, tenantId, id);
}

const STOREFRONT_SORT = { id: 'id', name: 'name COLLATE NOCASE', created: 'created' } as const;

/** One page of the tenant's storefronts (`search`: a LIKE pattern, or null) and the count of all that match. */
export async function listStorefrontRows(
  db: D1Database,
  tenantId: number,
  f: { skip: number; take: number; sorting: SortKey<'id' | 'name' | 'created'>[]; search: string | null },
): Promise<{ total: number; rows: StorefrontRow[] }> {
  const cond = `tenant_id = ?1 AND (?2 IS NULL OR name LIKE ?2 ESCAPE '\\')`;
  const order = f.sorting.length ? f.sorting.map((k) => `${STOREFRONT_SORT[k.field]} ${k.direction}`).join(', ') + ', id' : 'id';
  const [count, page] = await db.batch<Record<string, unknown>>([
    db.prepare(`SELECT count(*) AS n FROM storefronts WHERE ${cond}`).bind(tenantId, f.search),
    db.prepare(`SELECT ${STOREFRONT_COLUMNS} FROM storefronts WHERE ${cond} ORDER BY ${order} LIMIT ?3 OFFSET ?4`).bind(tenantId, f.search, f.take, f.skip),
  ]);
  return { total: Number(count!.results[0]?.n ?? 0), rows: page!.results as unknown as StorefrontRow[] };
}

/** A Custom storefront; its id. */
export async function insertStorefront(db: D1Database, tenantId: number, name: string, status: 'Dev' | 'Prod'): Promise<number> {
  const res = await db.prepare(`INSERT INTO storefronts (tenant_id, name, type, status, created) VALUES (?1, ?2, 'Custom', ?3, ?4)`).bind(tenantId, name, status, Date.now()).run();
  return Number(res.meta.last_row_id);
}

const HAS_PROJECTS = `EXISTS (SELECT 1 FROM projects WHERE tenant_id = ?1 AND storefront_id = ?2)`;

export async function storefrontHasProjects(db: D1Database, tenantId: number, id: number): Promise<boolean> {
  return (await first(db, `SELECT 1 WHERE ${HAS_PROJECTS}`, tenantId, id)) !== null;
}

/** The storefront with its references and users, unless it has projects (checked inside the batch); false then. */
export async function deleteStorefrontRows(db: D1Database, tenantId: number, id: number): Promise<boolean> {
  const results = await batchUnlessGuardFails(db, [
    guardThat(db, `SELECT NOT ${HAS_PROJECTS}`, tenantId, id),
    db.prepare(`DELETE FROM product_references WHERE tenant_id = ?1 AND storefront_id = ?2`).bind(tenantId, id),
    db.prepare(`DELETE FROM storefront_users WHERE tenant_id = ?1 AND storefront_id = ?2`).bind(tenantId, id),
    db.prepare(`DELETE FROM storefronts WHERE tenant_id = ?1 AND id = ?2`).bind(tenantId, id),
  ]);
  return results !== null;
}

// --- tenant settings --------------------------------------------------------------------------------------

export interface TenantSettingsRow {
  s: number | null;
  e: number;
  d: number;
  self: number;
  cmyk: string | null;
  rgb: string | null;
  grey: string | null;
}

export async function tenantSettingsRow(db: D1Database, tenantId: number): Promise<TenantSettingsRow | null> {
  return first<TenantSettingsRow>(
    db,
    `SELECT start_processing_on_status AS s, enable_assets_retention AS e, assets_retention_period_in_days AS d, allow_self_calls AS self,
       default_cmyk_color_profile AS cmyk, default_rgb_color_profile AS rgb, default_grayscale_color_profile AS grey FROM tenant_settings WHERE tenant_id = ?1`,
    tenantId,
  );
}

export interface TenantSettings {
  startProcessingOnStatus: number | null;
  enableAssetsRetention: boolean;
  assetsRetentionPeriodInDays: number;
  /** Pipelines may call the platform's own origins (docs/security.md); the hop limit still holds. */
  allowSelfCalls: boolean;
  /** Default output profiles by colour-profile name (issue 20); present only when set. */
  defaultCmykColorProfile?: string;
  defaultRgbColorProfile?: string;
  defaultGrayscaleColorProfile?: string;
}

/** Creates or replaces the tenant's settings row. */
export async function upsertTenantSettings(db: D1Database, tenantId: number, next: TenantSettings): Promise<void> {
  await db
    .prepare(
      `INSERT INTO tenant_settings (tenant_id, start_processing_on_status, enable_assets_retention, assets_retention_period_in_days, last_modified,
         default_cmyk_color_profile, default_rgb_color_profile, default_grayscale_color_profile, allow_self_calls)
       VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
       ON CONFLICT (tenant_id) DO UPDATE SET start_processing_on_status = excluded.start_processing_on_status,
         enable_assets_retention = excluded.enable_assets_retention, assets_retention_period_in_days = excluded.assets_retention_period_in_days,
         last_modified = excluded.last_modified, default_cmyk_color_profile = excluded.default_cmyk_color_profile,
         default_rgb_color_profile = excluded.default_rgb_color_profile, default_grayscale_color_profile = excluded.default_grayscale_color_profile,
         allow_self_calls = excluded.allow_self_calls`,
    )
    .bind(
      tenantId,
      next.startProcessingOnStatus,
      next.enableAssetsRetention ? 1 : 0,
      next.assetsRetentionPeriodInDays,
      Date.now(),
      next.defaultCmykColorProfile ?? null,
      next.defaultRgbColorProfile ?? null,
      next.defaultGrayscaleColorProfile ?? null,
      next.allowSelfCalls ? 1 : 0,
    )
    .run();
}

/** Is `code` one of the tenant's project status codes? */
export async function projectStatusCodeExists(db: D1Database, tenantId: number, code: number): Promise<boolean> {
  return (await first(db, `SELECT 1 FROM project_statuses WHERE tenant_id = ?1 AND code = ?2`, tenantId, code)) !== null;
}

/** The tenant's project statuses as choices for `startProcessingOnStatus` (admin Tenant page). */
export async function statusChoices(db: D1Database, tenantId: number): Promise<Array<{ code: number; displayName: string }>> {
  return all(db, `SELECT code, display_name AS displayName FROM project_statuses WHERE tenant_id = ?1 ORDER BY code`, tenantId);
}

// --- tenant secrets ----------------------------------------------------------------------------------------

/** A secret by its case-insensitive key (the name in lower case), sealed. */
export interface SealedSecretRow {
  iv: string;
  ciphertext: string;
}

export async function upsertTenantSecret(db: D1Database, tenantId: number, name: string, sealed: SealedSecretRow): Promise<void> {
  await db
    .prepare(
      `INSERT INTO tenant_secrets (tenant_id, name_key, name, iv, ciphertext, created, last_modified) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6)
     ON CONFLICT (tenant_id, name_key) DO UPDATE SET name = excluded.name, iv = excluded.iv, ciphertext = excluded.ciphertext, last_modified = excluded.last_modified`,
    )
    .bind(tenantId, name.toLowerCase(), name, sealed.iv, sealed.ciphertext, Date.now())
    .run();
}

/** False when there was none. */
export async function deleteTenantSecretRow(db: D1Database, tenantId: number, name: string): Promise<boolean> {
  const res = await db.prepare(`DELETE FROM tenant_secrets WHERE tenant_id = ?1 AND name_key = ?2`).bind(tenantId, name.toLowerCase()).run();
  return res.meta.changes > 0;
}

export async function sealedTenantSecret(db: D1Database, tenantId: number, name: string): Promise<SealedSecretRow | null> {
  return first<SealedSecretRow>(db, `SELECT iv, ciphertext FROM tenant_secrets WHERE tenant_id = ?1 AND name_key = ?2`, tenantId, name.toLowerCase());
}

/** Names of the tenant's secrets (never their values). */
export async function tenantSecretNames(db: D1Database, tenantId: number): Promise<string[]> {
  return (await all<{ name: string }>(db, `SELECT name FROM tenant_secrets WHERE tenant_id = ?1 ORDER BY name_key`, tenantId)).map((r) => r.name);
}

// --- for the assets domain (retention) ---------------------------------------------------------------------

/** The tenant's retention switch and period (null: no settings saved). */
export async function assetsRetentionOf(db: D1Database, tenantId: number): Promise<{ on_: number; days: number } | null> {
  return first(db, `SELECT enable_assets_retention AS on_, assets_retention_period_in_days AS days FROM tenant_settings WHERE tenant_id = ?1`, tenantId);
}

/** Every tenant with retention on, and its period in days (the hourly sweep). */
export async function tenantsWithAssetsRetention(db: D1Database): Promise<Array<{ tenantId: number; days: number }>> {
  return all(db, `SELECT tenant_id AS tenantId, assets_retention_period_in_days AS days FROM tenant_settings WHERE enable_assets_retention = 1`);
}
