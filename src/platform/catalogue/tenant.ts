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
import { iso } from '../core/stored-json';
import * as store from './store/tenant';
import type { StorefrontRow } from './store/tenant';
import type { TenantSettingsChange } from './schemas';
import { findProfileByName } from '../colour-profiles/store';
import { seal, unseal } from '../../lib/sealed';

// --- storefronts ------------------------------------------------------------------------------------------

const storefrontDto = (r: StorefrontRow) => ({ ...r, created: iso(r.created) });
export type StorefrontDtoOut = ReturnType<typeof storefrontDto>;

export async function getStorefront(db: D1Database, tenantId: number, id: number): Promise<StorefrontDtoOut> {
  const row = await store.findStorefront(db, tenantId, id);
  if (!row) throw new NotFoundError(`No storefront ${id}.`);
  return storefrontDto(row);
}

export async function listStorefronts(
  db: D1Database,
  tenantId: number,
  f: { skip: number; take: number; sorting: SortKey<'id' | 'name' | 'created'>[]; search?: string },
): Promise<{ total: number; items: StorefrontDtoOut[] }> {
  const search = f.search ? likePattern(f.search) : null;
  const { total, rows } = await store.listStorefrontRows(db, tenantId, { ...f, search });
  return { total, items: rows.map(storefrontDto) };
}

/** POST /storefronts/custom (200): a Custom storefront. */
export async function createStorefront(t: TenantContext, v: { name: string; status?: 'Dev' | 'Prod' | null }): Promise<StorefrontDtoOut> {
  const id = await store.insertStorefront(t.env.DB, t.tenantId, v.name, v.status ?? 'Dev');
  return getStorefront(t.env.DB, t.tenantId, id);
}

/** DELETE /storefronts/{id} (200 with it): 409 while it has projects; its references and users go with it. */
export async function deleteStorefront(t: TenantContext, id: number): Promise<StorefrontDtoOut> {
  const db = t.env.DB;
  const dto = await getStorefront(db, t.tenantId, id);
  const conflict = () => new ConflictError('GeneralConflict', `Storefront ${id} has projects; delete them first.`, { storefrontId: id });
  if (await store.storefrontHasProjects(db, t.tenantId, id)) throw conflict();
  if (!(await store.deleteStorefrontRows(db, t.tenantId, id))) throw conflict();
  return dto;
}

// --- tenant settings --------------------------------------------------------------------------------------

export type TenantSettings = store.TenantSettings;

const PROFILE_SETTINGS = [
  ['defaultCmykColorProfile', 'Cmyk'],
  ['defaultRgbColorProfile', 'Rgb'],
  ['defaultGrayscaleColorProfile', 'Grayscale'],
] as const;

export const DEFAULT_TENANT_SETTINGS: TenantSettings = { startProcessingOnStatus: null, enableAssetsRetention: false, assetsRetentionPeriodInDays: 30, allowSelfCalls: false };

/** The tenant's settings (the defaults when none were saved). */
export async function getTenantSettings(db: D1Database, tenantId: number): Promise<TenantSettings> {
  const row = await store.tenantSettingsRow(db, tenantId);
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
    if (!(await store.projectStatusCodeExists(db, tenantId, next.startProcessingOnStatus))) throw new ValidationError({ startProcessingOnStatus: [`The tenant has no project status with code ${next.startProcessingOnStatus}.`] });
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
  await store.upsertTenantSettings(db, tenantId, next);
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
  await store.upsertTenantSecret(t.env.DB, t.tenantId, name, sealed);
}

/** DELETE /tenant-secrets/{name}: 204, or 404 when there is none. */
export async function deleteTenantSecret(t: TenantContext, name: string): Promise<void> {
  secretNameOr404(name);
  if (!(await store.deleteTenantSecretRow(t.env.DB, t.tenantId, name))) throw new NotFoundError(`No tenant secret ${name}.`);
}

/** The secret's value for the job runner (`{{secrets.<name>}}`), or null when there is none. */
export async function readTenantSecret(env: Pick<Env, 'DB' | 'KEY_ENCRYPTION_SECRET'>, tenantId: number, name: string): Promise<string | null> {
  if (!SECRET_NAME.test(name)) return null;
  const row = await store.sealedTenantSecret(env.DB, tenantId, name);
  if (!row) return null;
  return unseal(env.KEY_ENCRYPTION_SECRET, SEALED_AS, aad(tenantId, name), row);
}

export { statusChoices, tenantSecretNames } from './store/tenant';
