/**
 * SQL on the `artifacts` table (uploaded files and what jobs produce). The only code that names it.
 */
import { sql, type SQL } from 'drizzle-orm';
import { customFieldsMatch } from '../../core/d1';
import { likePattern, type Paging } from '../../core/paging';
import { deleteTokensStatement } from './anonymous-tokens';
import { addBlobRef, shiftBlobRefs } from './blobs';
import { stmt } from './statement';

/** A final artifact of an earlier job, as extract-project-artifacts borrows it. */
export interface EarlierFinalArtifact {
  id: string;
  name: string;
  alias: string | null;
  format: string | null;
  size: number;
  key: string | null;
  itemId: number | null;
}

/**
 * The final artifacts of a project's completed jobs other than `exceptJobId`, oldest first. It
 * joins `jobs` for the status: one statement keeps the read consistent (a job store call per
 * artifact would not).
 */
export async function finalArtifactsOfCompletedJobs(db: D1Database, tenantId: number, projectId: number, exceptJobId: string): Promise<EarlierFinalArtifact[]> {
  const { results } = await db
    .prepare(
      `SELECT a.id, a.name, a.alias, a.format, a.size, a.r2_key AS key, a.project_item_id AS itemId FROM artifacts a
       JOIN jobs j ON j.tenant_id = a.tenant_id AND j.id = a.job_id
       WHERE a.tenant_id = ?1 AND a.project_id = ?2 AND a.type = 'Final' AND a.job_id <> ?3 AND j.status = 'Completed'
       ORDER BY a.created, a.alias`,
    )
    .bind(tenantId, projectId, exceptJobId)
    .all<EarlierFinalArtifact>();
  return results;
}

export const ARTIFACT_TYPES = ['Temporary', 'Final', 'Service'] as const;
export type ArtifactType = (typeof ARTIFACT_TYPES)[number];

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

export async function selectArtifact(db: D1Database, tenantId: number, id: string): Promise<ArtifactRow | null> {
  const r = await db.prepare(`SELECT ${COLUMNS} FROM artifacts WHERE tenant_id = ?1 AND id = ?2`).bind(tenantId, id).first<Record<string, unknown>>();
  return r ? rowOf(r) : null;
}

export interface ArtifactQuery extends Paging<'name' | 'lastModified' | 'size' | 'id'> {
  group?: string;
  jobId?: string;
  type?: ArtifactType;
}

/** A page of a tenant's artifacts and the count of all that match, in one round trip. */
export async function selectArtifactPage(db: D1Database, tenantId: number, f: ArtifactQuery): Promise<{ total: number; items: ArtifactRow[] }> {
  const where: SQL[] = [sql`tenant_id = ${tenantId}`];
  if (f.group !== undefined) where.push(sql`group_name = ${f.group}`);
  if (f.jobId !== undefined) where.push(sql`job_id = ${f.jobId}`);
  if (f.type) where.push(sql`type = ${f.type}`);
  if (f.search) where.push(sql`name LIKE ${likePattern(f.search)} ESCAPE '\\'`);
  if (f.customFields && Object.keys(f.customFields).length) where.push(customFieldsMatch(sql.raw('custom_fields'), f.customFields));
  const cond = sql.join(where, sql` AND `);
  const col = { name: 'name COLLATE NOCASE', lastModified: 'last_modified', size: 'size', id: 'id' } as const;
  const order = f.sorting.length ? f.sorting.map((k) => `${col[k.field]} ${k.direction}`).join(', ') : 'id';
  const [count, page] = await db.batch<Record<string, unknown>>([
    stmt(db, sql`SELECT count(*) AS n FROM artifacts WHERE ${cond}`),
    stmt(db, sql`SELECT ${sql.raw(COLUMNS)} FROM artifacts WHERE ${cond} ORDER BY ${sql.raw(order)} LIMIT ${f.take} OFFSET ${f.skip}`),
  ]);
  return { total: Number(count!.results[0]?.n ?? 0), items: page!.results.map(rowOf) };
}

export interface NewArtifactRow {
  id: string;
  type: ArtifactType;
  name: string;
  groupName: string | null;
  alias: string | null;
  format: string | null;
  size: number;
  description: string | null;
  blobSha: string;
  contentType: string | null;
  customFields: Record<string, unknown>;
  expiresAt: number | null;
}

/** An uploaded artifact and +1 on its blob, in one batch. */
export async function insertUploadedArtifact(db: D1Database, tenantId: number, a: NewArtifactRow): Promise<void> {
  await db.batch([
    addBlobRef(db, tenantId, a.blobSha, a.size, a.contentType),
    db
      .prepare(
        `INSERT INTO artifacts (tenant_id, id, type, name, group_name, alias, format, size, description, blob_sha, custom_fields, expires_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)`,
      )
      .bind(tenantId, a.id, a.type, a.name, a.groupName, a.alias, a.format, a.size, a.description, a.blobSha, JSON.stringify(a.customFields), a.expiresAt),
  ]);
}

export interface ArtifactFields {
  name: string;
  groupName: string | null;
  alias: string | null;
  type: ArtifactType;
  description: string | null;
  customFields: Record<string, unknown>;
  expiresAt: number | null;
}

export async function updateArtifactFields(db: D1Database, tenantId: number, id: string, f: ArtifactFields): Promise<void> {
  await db
    .prepare(
      `UPDATE artifacts SET name = ?3, group_name = ?4, alias = ?5, type = ?6, description = ?7, custom_fields = ?8, expires_at = ?9,
       last_modified = CAST(unixepoch('subsec') * 1000 AS INTEGER) WHERE tenant_id = ?1 AND id = ?2`,
    )
    .bind(tenantId, id, f.name, f.groupName, f.alias, f.type, f.description, JSON.stringify(f.customFields), f.expiresAt)
    .run();
}

export async function setArtifactAnonymousFlag(db: D1Database, tenantId: number, id: string, on: boolean): Promise<void> {
  await db.prepare(`UPDATE artifacts SET anonymous_access = ?3 WHERE tenant_id = ?1 AND id = ?2`).bind(tenantId, id, on ? 1 : 0).run();
}

/** Deletes artifacts with their anonymous tokens and blob refcounts, in one batch. */
export async function deleteArtifactRows(db: D1Database, tenantId: number, ids: string[]): Promise<void> {
  const list = JSON.stringify(ids);
  await db.batch([
    shiftBlobRefs(db, tenantId, 'artifacts', ids, -1),
    deleteTokensStatement(db, tenantId, 'artifact', ids),
    db.prepare(`DELETE FROM artifacts WHERE tenant_id = ?1 AND id IN (SELECT value FROM json_each(?2))`).bind(tenantId, list),
  ]);
}

/** Where an artifact's file lives: a job output's key or an uploaded blob. */
export interface ArtifactFileRef {
  id: string;
  r2Key: string | null;
  blobSha: string | null;
}

export async function artifactFilesInGroup(db: D1Database, tenantId: number, group: string): Promise<ArtifactFileRef[]> {
  const { results } = await db.prepare(`SELECT id, r2_key AS r2Key, blob_sha AS blobSha FROM artifacts WHERE tenant_id = ?1 AND group_name = ?2`)
    .bind(tenantId, group)
    .all<ArtifactFileRef>();
  return results;
}

/** Up to 1,000 Temporary artifacts that expired before `now`. */
export async function expiredTemporaryArtifacts(db: D1Database, tenantId: number, now: number): Promise<ArtifactFileRef[]> {
  const { results } = await db
    .prepare(`SELECT id, r2_key AS r2Key, blob_sha AS blobSha FROM artifacts WHERE tenant_id = ?1 AND type = 'Temporary' AND expires_at < ?2 LIMIT 1000`)
    .bind(tenantId, now)
    .all<ArtifactFileRef>();
  return results;
}

export interface ArtifactCounts {
  n: number;
  bytes: number;
  /** Temporary ones. */
  tn: number;
  tb: number;
}

/** Counts and sizes of a tenant's artifacts (only the Temporary ones when `temporaryOnly`). */
export async function artifactCounts(db: D1Database, tenantId: number, temporaryOnly: boolean): Promise<ArtifactCounts | null> {
  return db
    .prepare(
      `SELECT count(*) AS n, coalesce(sum(size), 0) AS bytes,
       coalesce(sum(CASE WHEN type = 'Temporary' THEN 1 ELSE 0 END), 0) AS tn, coalesce(sum(CASE WHEN type = 'Temporary' THEN size ELSE 0 END), 0) AS tb
     FROM artifacts WHERE tenant_id = ?1 ${temporaryOnly ? `AND type = 'Temporary'` : ''}`,
    )
    .bind(tenantId)
    .first<ArtifactCounts>();
}

// --- for the job runner (src/platform/jobs): finals, temporaries and their rows ------------

/** What the runner writes of every artifact row it makes. */
interface JobArtifactRow {
  tenantId: number;
  id: string;
  ownerId: string;
  jobId: string;
  projectId: number | null;
  itemId: number | null;
  alias: string;
  name: string;
  format: string | null;
  size: number;
  key: string;
}

export interface FinalArtifactRow extends JobArtifactRow {
  anonymousAccess: boolean;
}

/** Final rows, `INSERT … ON CONFLICT(tenant_id, id) DO UPDATE` (a redone finalize writes the same ids), 50 a batch. */
export async function upsertFinalArtifacts(db: D1Database, rows: FinalArtifactRow[]): Promise<void> {
  const now = Date.now();
  const statements = rows.map((r) =>
    db
      .prepare(
        `INSERT INTO artifacts (tenant_id, id, owner_id, job_id, project_id, project_item_id, group_name, alias, type, name, format, size, r2_key,
           anonymous_access, expires_at, created, last_modified)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?4, ?7, 'Final', ?8, ?9, ?10, ?11, ?12, NULL, ?13, ?13)
         ON CONFLICT (tenant_id, id) DO UPDATE SET type = 'Final', owner_id = excluded.owner_id, alias = excluded.alias, name = excluded.name,
           format = excluded.format, size = excluded.size, r2_key = excluded.r2_key, anonymous_access = excluded.anonymous_access,
           project_item_id = excluded.project_item_id, expires_at = NULL, last_modified = excluded.last_modified`,
      )
      .bind(r.tenantId, r.id, r.ownerId, r.jobId, r.projectId, r.itemId, r.alias, r.name, r.format, r.size, r.key, r.anonymousAccess ? 1 : 0, now),
  );
  for (let i = 0; i < statements.length; i += 50) await db.batch(statements.slice(i, i + 50));
}

/** Artifact rows of `jobIds`, except the ids of `keep`. */
export async function artifactsOfJobs(db: D1Database, tenantId: number, jobIds: string[], keep: string[]): Promise<Array<{ id: string; key: string | null }>> {
  const { results } = await db
    .prepare(
      `SELECT id, r2_key AS key FROM artifacts WHERE tenant_id = ?1 AND job_id IN (SELECT value FROM json_each(?2))
       AND id NOT IN (SELECT value FROM json_each(?3))`,
    )
    .bind(tenantId, JSON.stringify(jobIds), JSON.stringify(keep))
    .all<{ id: string; key: string | null }>();
  return results;
}

/** Deletes a job's artifact rows and their anonymous URLs (the runner's files are not blob-counted). */
export async function deleteJobArtifactRows(db: D1Database, tenantId: number, ids: string[]): Promise<void> {
  const list = JSON.stringify(ids);
  await db.batch([
    db.prepare(`DELETE FROM anonymous_tokens WHERE tenant_id = ?1 AND kind = 'artifact' AND target_id IN (SELECT value FROM json_each(?2))`).bind(tenantId, list),
    db.prepare(`DELETE FROM artifacts WHERE tenant_id = ?1 AND id IN (SELECT value FROM json_each(?2))`).bind(tenantId, list),
  ]);
}

export interface TemporaryArtifactRow extends JobArtifactRow {
  type: 'Final' | 'Temporary';
  expiresAt: number;
}

/** A Temporary row (anonymous access) for a temporary a parameter references; an existing row stays. */
export async function insertTemporaryArtifact(db: D1Database, r: TemporaryArtifactRow): Promise<void> {
  await db
    .prepare(
      `INSERT INTO artifacts (tenant_id, id, owner_id, job_id, project_id, project_item_id, group_name, alias, type, name, format, size, r2_key,
       anonymous_access, expires_at, created, last_modified)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, NULL, ?7, ?8, ?9, ?10, ?11, ?12, 1, ?13, ?14, ?14)
     ON CONFLICT (tenant_id, id) DO NOTHING`,
    )
    .bind(r.tenantId, r.id, r.ownerId, r.jobId, r.projectId, r.itemId, r.alias, r.type, r.name, r.format, r.size, r.key, r.expiresAt, Date.now())
    .run();
}

/** Temporary rows of a job and their anonymous URLs. */
export async function deleteTemporaryArtifactRows(db: D1Database, tenantId: number, jobId: string): Promise<void> {
  await db.batch([
    db
      .prepare(
        `DELETE FROM anonymous_tokens WHERE tenant_id = ?1 AND kind = 'artifact'
         AND target_id IN (SELECT id FROM artifacts WHERE tenant_id = ?1 AND job_id = ?2 AND type = 'Temporary')`,
      )
      .bind(tenantId, jobId),
    db.prepare(`DELETE FROM artifacts WHERE tenant_id = ?1 AND job_id = ?2 AND type = 'Temporary'`).bind(tenantId, jobId),
  ]);
}

/** A deleted project's job artifacts (finals of its jobs live in D1 under the project id). */
export async function deleteProjectJobArtifacts(db: D1Database, tenantId: number, projectId: number): Promise<void> {
  await db.prepare(`DELETE FROM artifacts WHERE tenant_id = ?1 AND project_id = ?2 AND job_id IS NOT NULL`).bind(tenantId, projectId).run();
}

export interface ProjectFinalRow {
  id: string;
  name: string;
  format: string | null;
  size: number;
  anon: number;
  itemId: number | null;
  lineId: string | null;
  lineIndex: number | null;
}

/** Finals of a project's `jobIds` (of one item, or all), with their item's order line. */
export async function projectFinals(db: D1Database, tenantId: number, projectId: number, jobIds: string[], itemId: number | null): Promise<ProjectFinalRow[]> {
  const { results } = await db
    .prepare(
      `SELECT a.id, a.name, a.format, a.size, a.anonymous_access AS anon, a.project_item_id AS itemId, i.order_line_item_id AS lineId,
       i.order_line_item_index AS lineIndex
     FROM artifacts a LEFT JOIN project_items i ON i.tenant_id = a.tenant_id AND i.id = a.project_item_id
     WHERE a.tenant_id = ?1 AND a.project_id = ?2 AND a.type = 'Final' AND a.job_id IN (SELECT value FROM json_each(?3))
       AND (?4 IS NULL OR a.project_item_id = ?4)
     ORDER BY a.created, a.alias`,
    )
    .bind(tenantId, projectId, JSON.stringify(jobIds), itemId)
    .all<ProjectFinalRow>();
  return results;
}

/** Final artifacts of `jobIds` to a new owner (batched with the jobs' own rows by ./jobs.ts). */
export function finalsOwnerStatement(db: D1Database, tenantId: number, jobIds: string[], newOwnerId: string, now: number): D1PreparedStatement {
  return db
    .prepare(`UPDATE artifacts SET owner_id = ?2, last_modified = ?4 WHERE tenant_id = ?1 AND type = 'Final' AND job_id IN (SELECT value FROM json_each(?3))`)
    .bind(tenantId, newOwnerId, JSON.stringify(jobIds), now);
}
