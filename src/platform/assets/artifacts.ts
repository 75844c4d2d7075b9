/**
 * Artifacts (contract, "Asset storage"): files uploaded to `/artifacts` (content in a blob) or
 * produced by jobs (`r2_key` under `p/<t>/jobs/…`). Temporary ones expire 24 h after creation.
 */
import { z } from '@hono/zod-openapi';
import { sql, type SQL } from 'drizzle-orm';
import { customFieldsMatch, isHexId, likePattern, newId, NotFoundError, ValidationError, type Paging, type TenantContext } from '../core';
import { anonymousUrlOf, dropAnonymous, issueAnonymous } from './anonymous';
import { addBlobRef, blobKey, commitStaged, dropStaged, shiftBlobRefs, type Staged } from './blobs';
import { checkName } from './folders';
import { checkCustomFields, nameFromFile, stmt, type StorageInfo } from './service';

export const ARTIFACT_TYPES = ['Temporary', 'Final', 'Service'] as const;
export type ArtifactType = (typeof ARTIFACT_TYPES)[number];
export const TEMPORARY_TTL_MS = 24 * 60 * 60 * 1000;

export interface ArtifactRow {
  tenantId: number;
  id: string;
  ownerId: string;
  jobId: string | null;
  groupName: string | null;
  alias: string | null;
  type: ArtifactType;
  name: string;
  format: string | null;
  size: number;
  description: string | null;
  blobSha: string | null;
  r2Key: string | null;
  customFields: Record<string, unknown>;
  anonymousAccess: boolean;
  expiresAt: number | null;
  lastModified: number;
}

const COLUMNS = `tenant_id AS tenantId, id, owner_id AS ownerId, job_id AS jobId, group_name AS groupName, alias, type, name, format, size,
  description, blob_sha AS blobSha, r2_key AS r2Key, custom_fields AS customFields, anonymous_access AS anonymousAccess,
  expires_at AS expiresAt, last_modified AS lastModified`;

const rowOf = (r: Record<string, unknown>): ArtifactRow => ({
  ...(r as unknown as ArtifactRow),
  customFields: typeof r.customFields === 'string' ? JSON.parse(r.customFields) : {},
  anonymousAccess: Boolean(r.anonymousAccess),
});

export const ArtifactDto = z
  .object({
    id: z.string(),
    name: z.string(),
    ownerId: z.string().nullable(),
    tenantId: z.number().int(),
    customFields: z.record(z.string(), z.unknown()),
    lastModified: z.string(),
    group: z.string().nullable(),
    alias: z.string().nullable(),
    type: z.enum(ARTIFACT_TYPES),
    format: z.string().nullable(),
    size: z.number().int(),
    description: z.string().nullable(),
    anonymousAccess: z.boolean(),
    url: z.string(),
    jobId: z.string().nullable(),
  })
  .openapi('ArtifactDto');

export const artifactFileKey = (r: ArtifactRow) => (r.blobSha ? blobKey(r.tenantId, r.blobSha) : r.r2Key);

export async function artifactDto(t: TenantContext, r: ArtifactRow): Promise<z.infer<typeof ArtifactDto>> {
  const anon = r.anonymousAccess ? await anonymousUrlOf(t, 'artifact', r.id) : undefined;
  return {
    id: r.id,
    name: r.name,
    ownerId: r.ownerId || null,
    tenantId: r.tenantId,
    customFields: r.customFields,
    lastModified: new Date(r.lastModified).toISOString(),
    group: r.groupName,
    alias: r.alias,
    type: r.type,
    format: r.format,
    size: r.size,
    description: r.description,
    anonymousAccess: r.anonymousAccess,
    url: anon ?? `${t.baseUrl}/api/storage/v1/artifacts/${r.id}/file`,
    jobId: r.jobId,
  };
}

export async function findArtifact(t: TenantContext, id: string): Promise<ArtifactRow | null> {
  if (!isHexId(id)) return null;
  const r = await t.env.DB.prepare(`SELECT ${COLUMNS} FROM artifacts WHERE tenant_id = ?1 AND id = ?2`).bind(t.tenantId, id).first<Record<string, unknown>>();
  return r ? rowOf(r) : null;
}

export async function getArtifact(t: TenantContext, id: string): Promise<ArtifactRow> {
  const r = await findArtifact(t, id);
  if (!r) throw new NotFoundError(`No artifact ${id}.`);
  return r;
}

export interface ArtifactFilter extends Paging<'name' | 'lastModified' | 'size' | 'id'> {
  group?: string;
  jobId?: string;
  type?: ArtifactType;
}

export async function listArtifacts(t: TenantContext, f: ArtifactFilter): Promise<{ total: number; items: ArtifactRow[] }> {
  const where: SQL[] = [sql`tenant_id = ${t.tenantId}`];
  if (f.group !== undefined) where.push(sql`group_name = ${f.group}`);
  if (f.jobId !== undefined) where.push(sql`job_id = ${f.jobId}`);
  if (f.type) where.push(sql`type = ${f.type}`);
  if (f.search) where.push(sql`name LIKE ${likePattern(f.search)} ESCAPE '\\'`);
  if (f.customFields && Object.keys(f.customFields).length) where.push(customFieldsMatch(sql.raw('custom_fields'), f.customFields));
  const cond = sql.join(where, sql` AND `);
  const col = { name: 'name COLLATE NOCASE', lastModified: 'last_modified', size: 'size', id: 'id' } as const;
  const order = f.sorting.length ? f.sorting.map((k) => `${col[k.field]} ${k.direction}`).join(', ') : 'id';
  const [count, page] = await t.env.DB.batch<Record<string, unknown>>([
    stmt(t.env.DB, sql`SELECT count(*) AS n FROM artifacts WHERE ${cond}`),
    stmt(t.env.DB, sql`SELECT ${sql.raw(COLUMNS)} FROM artifacts WHERE ${cond} ORDER BY ${sql.raw(order)} LIMIT ${f.take} OFFSET ${f.skip}`),
  ]);
  return { total: Number(count!.results[0]?.n ?? 0), items: page!.results.map(rowOf) };
}

/** A new artifact: what a change may set, and its file. */
export interface NewArtifact extends ArtifactChange {
  staged: Staged;
  filename?: string;
  format?: string | null;
  contentType?: string;
}

export async function createArtifact(t: TenantContext, a: NewArtifact): Promise<ArtifactRow> {
  try {
    const name = checkName(a.name ?? (a.filename || 'artifact'), 'name');
    const customFields = checkCustomFields(a.customFields);
    const type = a.type ?? 'Final';
    const id = newId();
    const format = a.format ?? (/\.([A-Za-z0-9]{1,8})$/.exec(a.filename ?? name)?.[1]?.toLowerCase() ?? null);
    const db = t.env.DB;
    const known = await db.prepare(`SELECT 1 FROM blobs WHERE tenant_id = ?1 AND sha256 = ?2`).bind(t.tenantId, a.staged.sha256).first();
    await commitStaged(t.env.FILES, a.staged, a.contentType);
    try {
      await db.batch([
        addBlobRef(db, t.tenantId, a.staged.sha256, a.staged.size, a.contentType ?? null),
        db
          .prepare(
            `INSERT INTO artifacts (tenant_id, id, type, name, group_name, alias, format, size, description, blob_sha, custom_fields, expires_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)`,
          )
          .bind(t.tenantId, id, type, name, a.group ?? null, a.alias ?? null, format, a.staged.size, a.description ?? null, a.staged.sha256,
            JSON.stringify(customFields), type === 'Temporary' ? Date.now() + TEMPORARY_TTL_MS : null),
      ]);
    } catch (e) {
      if (!known) await t.env.FILES.delete(blobKey(t.tenantId, a.staged.sha256)).catch(() => {});
      throw e;
    }
    if (a.anonymousAccess) await setArtifactAnonymous(t, id, true);
    return getArtifact(t, id);
  } finally {
    await dropStaged(t.env.FILES, a.staged);
  }
}

export interface ArtifactChange {
  name?: string;
  group?: string | null;
  alias?: string | null;
  type?: ArtifactType;
  description?: string | null;
  customFields?: Record<string, unknown>;
  anonymousAccess?: boolean;
}

export async function updateArtifact(t: TenantContext, id: string, c: ArtifactChange): Promise<ArtifactRow> {
  const r = await getArtifact(t, id);
  const type = c.type ?? r.type;
  const expires = type === 'Temporary' ? (r.expiresAt ?? Date.now() + TEMPORARY_TTL_MS) : null;
  await t.env.DB.prepare(
    `UPDATE artifacts SET name = ?3, group_name = ?4, alias = ?5, type = ?6, description = ?7, custom_fields = ?8, expires_at = ?9,
       last_modified = CAST(unixepoch('subsec') * 1000 AS INTEGER) WHERE tenant_id = ?1 AND id = ?2`,
  )
    .bind(t.tenantId, r.id, c.name !== undefined ? checkName(c.name, 'name') : r.name, c.group !== undefined ? c.group : r.groupName,
      c.alias !== undefined ? c.alias : r.alias, type, c.description !== undefined ? c.description : r.description,
      JSON.stringify(c.customFields !== undefined ? checkCustomFields(c.customFields) : r.customFields), expires)
    .run();
  if (c.anonymousAccess !== undefined && c.anonymousAccess !== r.anonymousAccess) await setArtifactAnonymous(t, r.id, c.anonymousAccess);
  return getArtifact(t, r.id);
}

async function setArtifactAnonymous(t: TenantContext, id: string, on: boolean): Promise<void> {
  if (on) await issueAnonymous(t, 'artifact', id);
  else await dropAnonymous(t, 'artifact', [id]);
  await t.env.DB.prepare(`UPDATE artifacts SET anonymous_access = ?3 WHERE tenant_id = ?1 AND id = ?2`).bind(t.tenantId, id, on ? 1 : 0).run();
}

function deleteStatements(db: D1Database, tenantId: number, ids: string[]): D1PreparedStatement[] {
  const list = JSON.stringify(ids);
  return [
    shiftBlobRefs(db, tenantId, 'artifacts', ids, -1),
    db.prepare(`DELETE FROM anonymous_tokens WHERE tenant_id = ?1 AND kind = 'artifact' AND target_id IN (SELECT value FROM json_each(?2))`).bind(tenantId, list),
    db.prepare(`DELETE FROM artifacts WHERE tenant_id = ?1 AND id IN (SELECT value FROM json_each(?2))`).bind(tenantId, list),
  ];
}

/** Job outputs (`r2_key`) are deleted from R2 with the row; uploaded content goes with its blob. */
async function dropJobFiles(bucket: R2Bucket, rows: Array<{ r2Key: string | null; blobSha: string | null }>): Promise<void> {
  const keys = rows.filter((r) => !r.blobSha && r.r2Key).map((r) => r.r2Key!);
  for (let i = 0; i < keys.length; i += 1000) await bucket.delete(keys.slice(i, i + 1000));
}

export async function deleteArtifact(t: TenantContext, id: string): Promise<void> {
  const r = await getArtifact(t, id);
  await t.env.DB.batch(deleteStatements(t.env.DB, t.tenantId, [r.id]));
  await dropJobFiles(t.env.FILES, [r]);
}

export async function deleteArtifactGroup(t: TenantContext, group: string): Promise<number> {
  const { results } = await t.env.DB.prepare(`SELECT id, r2_key AS r2Key, blob_sha AS blobSha FROM artifacts WHERE tenant_id = ?1 AND group_name = ?2`)
    .bind(t.tenantId, group)
    .all<{ id: string; r2Key: string | null; blobSha: string | null }>();
  if (!results.length) throw new NotFoundError('No artifacts in this group.');
  for (let i = 0; i < results.length; i += 1000) {
    await t.env.DB.batch(deleteStatements(t.env.DB, t.tenantId, results.slice(i, i + 1000).map((r) => r.id)));
  }
  await dropJobFiles(t.env.FILES, results);
  return results.length;
}

/** Temporary artifacts are the temporary data; retainable = what expiry deletes. */
export async function artifactStorageInfo(t: TenantContext, retainable: boolean): Promise<StorageInfo> {
  const r = await t.env.DB.prepare(
    `SELECT count(*) AS n, coalesce(sum(size), 0) AS bytes,
       coalesce(sum(CASE WHEN type = 'Temporary' THEN 1 ELSE 0 END), 0) AS tn, coalesce(sum(CASE WHEN type = 'Temporary' THEN size ELSE 0 END), 0) AS tb
     FROM artifacts WHERE tenant_id = ?1 ${retainable ? `AND type = 'Temporary'` : ''}`,
  )
    .bind(t.tenantId)
    .first<{ n: number; bytes: number; tn: number; tb: number }>();
  return { fileCount: r?.n ?? 0, fileSizeInBytes: r?.bytes ?? 0, temporaryFileCount: r?.tn ?? 0, temporaryFileSizeInBytes: r?.tb ?? 0 };
}

/** Hourly: Temporary artifacts past their 24 h. */
export async function sweepTemporaryArtifacts(env: { DB: D1Database; FILES: R2Bucket }, now = Date.now()): Promise<number> {
  const { results: tenants } = await env.DB.prepare(`SELECT id FROM tenants`).all<{ id: number }>();
  let n = 0;
  for (const { id: tenantId } of tenants) {
    const { results } = await env.DB.prepare(
      `SELECT id, r2_key AS r2Key, blob_sha AS blobSha FROM artifacts WHERE tenant_id = ?1 AND type = 'Temporary' AND expires_at < ?2 LIMIT 1000`,
    )
      .bind(tenantId, now)
      .all<{ id: string; r2Key: string | null; blobSha: string | null }>();
    if (!results.length) continue;
    await env.DB.batch(deleteStatements(env.DB, tenantId, results.map((r) => r.id)));
    await dropJobFiles(env.FILES, results);
    n += results.length;
  }
  return n;
}

export { nameFromFile, ValidationError };
