/**
 * The tenant's own configuration: storefronts (new ones are Custom; one with projects cannot be
 * deleted), tenant settings (defaults null, false, 30) and write-only tenant secrets.
 *
 * Secrets are sealed with AES-256-GCM under a key derived by HKDF-SHA-256 from
 * KEY_ENCRYPTION_SECRET (info `tenant-secrets/v1`), with `<tenantId>/<name>` (the name in lower
 * case: names are case-insensitive) as additional data, so a sealed value moved to another row
 * or tenant does not open. Only the job runner reads them back (`readTenantSecret`).
 */
import { ConflictError, likePattern, NotFoundError, ValidationError, type SortKey, type TenantContext } from '../core';
import type { Env } from '../../env';
import { all, first, guardThat, isGuardFailure, iso } from './db';
import type { TenantSettingsChange } from './schemas';
import { findProfileByName } from '../colour-profiles/store';
import { seal, unseal } from '../../lib/sealed';

// --- storefronts ------------------------------------------------------------------------------------------

interface StorefrontRow {
  id: number;
  tenantId: number;
  name: string;
  type: string;
  status: 'Dev' | 'Prod';
  created: number;
}
const STOREFRONT_COLUMNS = `id, tenant_id AS tenantId, name, type, status, created`;
const storefrontDto = (r: StorefrontRow) => ({ ...r, created: iso(r.created) });
export type StorefrontDtoOut = ReturnType<typeof storefrontDto>;

export async function getStorefront(db: D1Database, tenantId: number, id: number): Promise<StorefrontDtoOut> {
  const row = await first<StorefrontRow>(db, `SELECT ${STOREFRONT_COLUMNS} FROM storefronts WHERE tenant_id = ?1 AND id = ?2`, tenantId, id);
  if (!row) throw new NotFoundError(`No storefront ${id}.`);
  return storefrontDto(row);
}

const STOREFRONT_SORT = { id: 'id', name: 'name COLLATE NOCASE', created: 'created' } as const;

export async function listStorefronts(
  db: D1Database,
  tenantId: number,
  f: { skip: number; take: number; sorting: SortKey<'id' | 'name' | 'created'>[]; search?: string },
): Promise<{ total: number; items: StorefrontDtoOut[] }> {
  const search = f.search ? likePattern(f.search) : null;
  const cond = `tenant_id = ?1 AND (?2 IS NULL OR name LIKE ?2 ESCAPE '\\')`;
  const order = f.sorting.length ? f.sorting.map((k) => `${STOREFRONT_SORT[k.field]} ${k.direction}`).join(', ') + ', id' : 'id';
  const [count, page] = await db.batch<Record<string, unknown>>([
    db.prepare(`SELECT count(*) AS n FROM storefronts WHERE ${cond}`).bind(tenantId, search),
    db.prepare(`SELECT ${STOREFRONT_COLUMNS} FROM storefronts WHERE ${cond} ORDER BY ${order} LIMIT ?3 OFFSET ?4`).bind(tenantId, search, f.take, f.skip),
  ]);
  return { total: Number(count!.results[0]?.n ?? 0), items: (page!.results as unknown as StorefrontRow[]).map(storefrontDto) };
}

/** POST /storefronts/custom (200): a Custom storefront. */
export async function createStorefront(t: TenantContext, v: { name: string; status?: 'Dev' | 'Prod' | null }): Promise<StorefrontDtoOut> {
  const res = await t.env.DB.prepare(`INSERT INTO storefronts (tenant_id, name, type, status, created) VALUES (?1, ?2, 'Custom', ?3, ?4)`)
    .bind(t.tenantId, v.name, v.status ?? 'Dev', Date.now())
    .run();
  return getStorefront(t.env.DB, t.tenantId, Number(res.meta.last_row_id));
}

/** DELETE /storefronts/{id} (200 with it): 409 while it has projects; its references and users go with it. */
export async function deleteStorefront(t: TenantContext, id: number): Promise<StorefrontDtoOut> {
  const db = t.env.DB;
  const dto = await getStorefront(db, t.tenantId, id);
  const hasProjects = `EXISTS (SELECT 1 FROM projects WHERE tenant_id = ?1 AND storefront_id = ?2)`;
  const conflict = () => new ConflictError('GeneralConflict', `Storefront ${id} has projects; delete them first.`, { storefrontId: id });
  if (await first(db, `SELECT 1 WHERE ${hasProjects}`, t.tenantId, id)) throw conflict();
  try {
    await db.batch([
      guardThat(db, `SELECT NOT ${hasProjects}`, t.tenantId, id),
      db.prepare(`DELETE FROM product_references WHERE tenant_id = ?1 AND storefront_id = ?2`).bind(t.tenantId, id),
      db.prepare(`DELETE FROM storefront_users WHERE tenant_id = ?1 AND storefront_id = ?2`).bind(t.tenantId, id),
      db.prepare(`DELETE FROM storefronts WHERE tenant_id = ?1 AND id = ?2`).bind(t.tenantId, id),
    ]);
  } catch (e) {
    if (isGuardFailure(e)) throw conflict();
    throw e;
  }
  return dto;
}

// --- tenant settings --------------------------------------------------------------------------------------

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

const PROFILE_SETTINGS = [
  ['defaultCmykColorProfile', 'Cmyk'],
  ['defaultRgbColorProfile', 'Rgb'],
  ['defaultGrayscaleColorProfile', 'Grayscale'],
] as const;

export const DEFAULT_TENANT_SETTINGS: TenantSettings = { startProcessingOnStatus: null, enableAssetsRetention: false, assetsRetentionPeriodInDays: 30, allowSelfCalls: false };

/** The tenant's settings (the defaults when none were saved). */
export async function getTenantSettings(db: D1Database, tenantId: number): Promise<TenantSettings> {
  const row = await first<{ s: number | null; e: number; d: number; self: number; cmyk: string | null; rgb: string | null; grey: string | null }>(
    db,
    `SELECT start_processing_on_status AS s, enable_assets_retention AS e, assets_retention_period_in_days AS d, allow_self_calls AS self,
       default_cmyk_color_profile AS cmyk, default_rgb_color_profile AS rgb, default_grayscale_color_profile AS grey FROM tenant_settings WHERE tenant_id = ?1`,
    tenantId,
  );
  if (!row) return { ...DEFAULT_TENANT_SETTINGS };
  return {
    startProcessingOnStatus: row.s,
    enableAssetsRetention: Boolean(row.e),
    assetsRetentionPeriodInDays: row.d,
    allowSelfCalls: Boolean(row.self),
    ...(row.cmyk ? { defaultCmykColorProfile: row.cmyk } : {}),
    ...(row.rgb ? { defaultRgbColorProfile: row.rgb } : {}),
    ...(row.grey ? { defaultGrayscaleColorProfile: row.grey } : {}),
  };
}

/**
 * PUT /tenant-settings: the fields given replace the saved ones. `startProcessingOnStatus` must be
 * one of the tenant's status codes (400 otherwise).
 */
export async function updateTenantSettings(db: D1Database, tenantId: number, change: TenantSettingsChange): Promise<TenantSettings> {
  const current = await getTenantSettings(db, tenantId);
  const next: TenantSettings = {
    startProcessingOnStatus: change.startProcessingOnStatus === undefined ? current.startProcessingOnStatus : change.startProcessingOnStatus,
    enableAssetsRetention: change.enableAssetsRetention ?? current.enableAssetsRetention,
    assetsRetentionPeriodInDays: change.assetsRetentionPeriodInDays ?? current.assetsRetentionPeriodInDays,
    allowSelfCalls: change.allowSelfCalls ?? current.allowSelfCalls,
  };
  if (next.startProcessingOnStatus !== null && change.startProcessingOnStatus !== undefined) {
    const known = await first(db, `SELECT 1 FROM project_statuses WHERE tenant_id = ?1 AND code = ?2`, tenantId, next.startProcessingOnStatus);
    if (!known) throw new ValidationError({ startProcessingOnStatus: [`The tenant has no project status with code ${next.startProcessingOnStatus}.`] });
  }
  // Default profiles: null clears; a name must be one of the tenant's colour profiles of that space.
  for (const [field, space] of PROFILE_SETTINGS) {
    const given = change[field];
    if (given === undefined) {
      if (current[field]) next[field] = current[field];
      continue;
    }
    if (given === null) continue;
    const profile = await findProfileByName({ DB: db }, tenantId, given);
    if (!profile || profile.colorSpace !== space) throw new ValidationError({ [field]: [profile ? `"${given}" is a ${profile.colorSpace} profile, not ${space}.` : `The tenant has no colour profile named "${given}".`] });
    next[field] = profile.name;
  }
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
  return next;
}

// --- tenant secrets ----------------------------------------------------------------------------------------

export const SECRET_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const SEALED_AS = 'tenant-secrets/v1';

const aad = (tenantId: number, name: string) => `${tenantId}/${name.toLowerCase()}`;

/** A secret's path name, or 404 (a malformed name names nothing). */
export function secretNameOr404(name: string): string {
  if (!SECRET_NAME.test(name)) throw new NotFoundError(`No tenant secret ${name}.`);
  return name;
}

/** PUT /tenant-secrets/{name}: creates or replaces (204). */
export async function putTenantSecret(t: TenantContext, name: string, value: string): Promise<void> {
  if (!SECRET_NAME.test(name)) throw new ValidationError({ name: ['A secret name is 1–64 characters of A–Z, a–z, 0–9, _ and -.'] });
  const sealed = await seal(t.env.KEY_ENCRYPTION_SECRET, SEALED_AS, aad(t.tenantId, name), value);
  const now = Date.now();
  await t.env.DB.prepare(
    `INSERT INTO tenant_secrets (tenant_id, name_key, name, iv, ciphertext, created, last_modified) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6)
     ON CONFLICT (tenant_id, name_key) DO UPDATE SET name = excluded.name, iv = excluded.iv, ciphertext = excluded.ciphertext, last_modified = excluded.last_modified`,
  )
    .bind(t.tenantId, name.toLowerCase(), name, sealed.iv, sealed.ciphertext, now)
    .run();
}

/** DELETE /tenant-secrets/{name}: 204, or 404 when there is none. */
export async function deleteTenantSecret(t: TenantContext, name: string): Promise<void> {
  secretNameOr404(name);
  const res = await t.env.DB.prepare(`DELETE FROM tenant_secrets WHERE tenant_id = ?1 AND name_key = ?2`).bind(t.tenantId, name.toLowerCase()).run();
  if (!res.meta.changes) throw new NotFoundError(`No tenant secret ${name}.`);
}

/** The secret's value for the job runner (`{{secrets.<name>}}`), or null when there is none. */
export async function readTenantSecret(env: Pick<Env, 'DB' | 'KEY_ENCRYPTION_SECRET'>, tenantId: number, name: string): Promise<string | null> {
  if (!SECRET_NAME.test(name)) return null;
  const row = await first<{ iv: string; ciphertext: string }>(env.DB, `SELECT iv, ciphertext FROM tenant_secrets WHERE tenant_id = ?1 AND name_key = ?2`, tenantId, name.toLowerCase());
  if (!row) return null;
  return unseal(env.KEY_ENCRYPTION_SECRET, SEALED_AS, aad(tenantId, name), row);
}

/** Names of the tenant's secrets (never their values). */
export async function tenantSecretNames(db: D1Database, tenantId: number): Promise<string[]> {
  return (await all<{ name: string }>(db, `SELECT name FROM tenant_secrets WHERE tenant_id = ?1 ORDER BY name_key`, tenantId)).map((r) => r.name);
}

/** The tenant's project statuses as choices for `startProcessingOnStatus` (admin Tenant page). */
export async function statusChoices(db: D1Database, tenantId: number): Promise<Array<{ code: number; displayName: string }>> {
  return all(db, `SELECT code, display_name AS displayName FROM project_statuses WHERE tenant_id = ?1 ORDER BY code`, tenantId);
}
