/**
 * Storage of colour profiles: rows in D1 (`color_profiles`, migrations/0003), bytes in R2 at
 * `p/<tenant>/color-profiles/<id>.icc`. Every query starts from the tenant; the only file that
 * knows the table and key names.
 */
import { tenantKey, type TenantContext } from '../core';
import type { ColourSpace } from '../../engine/colour';

export interface ColourProfileRow {
  id: string;
  name: string;
  colorSpace: ColourSpace;
  description: string;
  size: number;
  created: number;
}

const COLUMNS = `id, name, color_space AS colorSpace, description, size, created`;
const key = (t: TenantContext, id: string) => tenantKey(t.tenantId, 'color-profiles', `${id}.icc`);

/** Writes the bytes, then the row; false (nothing kept) when the name is taken. */
export async function insertProfile(t: TenantContext, row: Omit<ColourProfileRow, 'created'>, bytes: Uint8Array): Promise<boolean> {
  await t.env.FILES.put(key(t, row.id), bytes, { httpMetadata: { contentType: 'application/vnd.iccprofile' } });
  const res = await t.env.DB.prepare(
    `INSERT INTO color_profiles (tenant_id, id, name, name_key, color_space, description, size, created) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
     ON CONFLICT (tenant_id, name_key) DO NOTHING`,
  )
    .bind(t.tenantId, row.id, row.name, row.name.toLowerCase(), row.colorSpace, row.description, row.size, Date.now())
    .run();
  if (res.meta.changes === 1) return true;
  await t.env.FILES.delete(key(t, row.id));
  return false;
}

export async function listProfiles(t: TenantContext): Promise<ColourProfileRow[]> {
  const { results } = await t.env.DB.prepare(`SELECT ${COLUMNS} FROM color_profiles WHERE tenant_id = ?1 ORDER BY name COLLATE NOCASE, id`).bind(t.tenantId).all<ColourProfileRow>();
  return results;
}

export async function getProfile(t: TenantContext, id: string): Promise<ColourProfileRow | null> {
  return t.env.DB.prepare(`SELECT ${COLUMNS} FROM color_profiles WHERE tenant_id = ?1 AND id = ?2`).bind(t.tenantId, id).first<ColourProfileRow>();
}

export async function findProfileByName(env: { DB: D1Database }, tenantId: number, name: string): Promise<ColourProfileRow | null> {
  return env.DB.prepare(`SELECT ${COLUMNS} FROM color_profiles WHERE tenant_id = ?1 AND name_key = ?2`).bind(tenantId, name.toLowerCase()).first<ColourProfileRow>();
}

export async function profileBytes(env: { FILES: R2Bucket }, tenantId: number, id: string): Promise<Uint8Array | null> {
  const obj = await env.FILES.get(tenantKey(tenantId, 'color-profiles', `${id}.icc`));
  return obj ? new Uint8Array(await obj.arrayBuffer()) : null;
}

/**
 * What names the profile: pipelines whose definition mentions it as a string (narrowed in the
 * service to the profile-name parameters) and the tenant's default-profile settings.
 */
export async function referencesTo(t: TenantContext, name: string): Promise<{ pipelines: Array<{ id: number; name: string; rawContent: string }>; settings: string[] }> {
  const quoted = `%${JSON.stringify(name).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const [pipelines, settings] = await t.env.DB.batch<Record<string, unknown>>([
    t.env.DB.prepare(`SELECT id, name, raw_content AS rawContent FROM processing_pipelines WHERE tenant_id = ?1 AND raw_content LIKE ?2 ESCAPE '\\' COLLATE NOCASE`).bind(t.tenantId, quoted),
    t.env.DB.prepare(
      `SELECT lower(default_cmyk_color_profile) = ?2 AS cmyk, lower(default_rgb_color_profile) = ?2 AS rgb, lower(default_grayscale_color_profile) = ?2 AS grey FROM tenant_settings WHERE tenant_id = ?1`,
    ).bind(t.tenantId, name.toLowerCase()),
  ]);
  const s = (settings!.results[0] ?? {}) as { cmyk?: number; rgb?: number; grey?: number };
  const named = [s.cmyk ? 'defaultCmykColorProfile' : '', s.rgb ? 'defaultRgbColorProfile' : '', s.grey ? 'defaultGrayscaleColorProfile' : ''].filter(Boolean);
  return { pipelines: pipelines!.results as Array<{ id: number; name: string; rawContent: string }>, settings: named };
}

/** Deletes the row, then the bytes. */
export async function deleteProfile(t: TenantContext, id: string): Promise<void> {
  await t.env.DB.prepare(`DELETE FROM color_profiles WHERE tenant_id = ?1 AND id = ?2`).bind(t.tenantId, id).run();
  await t.env.FILES.delete(key(t, id));
}

/** The tenant's default profile name for a colour space (tenant settings), or null. */
export async function tenantDefaultName(env: { DB: D1Database }, tenantId: number, space: ColourSpace): Promise<string | null> {
  const column = { Cmyk: 'default_cmyk_color_profile', Rgb: 'default_rgb_color_profile', Grayscale: 'default_grayscale_color_profile' }[space];
  const row = await env.DB.prepare(`SELECT ${column} AS name FROM tenant_settings WHERE tenant_id = ?1`).bind(tenantId).first<{ name: string | null }>();
  return row?.name ?? null;
}
