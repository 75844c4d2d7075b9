/**
 * BORROWED: the jobs domain's queries on other domains' tables. Each section belongs in that
 * domain's store (projects → src/platform/projects/store.ts; artifacts and anonymous_tokens →
 * the assets store; processing_pipelines → the pipelines store) and moves there as it is; until
 * then the runner keeps them here, in one marked place, instead of inline in its logic.
 */

// --- projects, project_items (→ projects store) -----------------------------------------------

/** The runner's processingStatus of a project (only when it changed). */
export function projectStatusStatement(db: D1Database, tenantId: number, projectId: number, status: string): D1PreparedStatement {
  return db
    .prepare(`UPDATE projects SET processing_status = ?3, last_modified = ?4 WHERE tenant_id = ?1 AND id = ?2 AND processing_status <> ?3`)
    .bind(tenantId, projectId, status, Date.now());
}

/** A project's processing trigger and status; null when it does not exist or `ownerId` is given and does not own it. */
export async function projectProcessingState(
  db: D1Database,
  tenantId: number,
  projectId: number,
  ownerId: string | null,
): Promise<{ triggered: number | null; status: string } | null> {
  return db
    .prepare(
      `SELECT processing_triggered_at AS triggered, processing_status AS status FROM projects
       WHERE tenant_id = ?1 AND id = ?2 AND (?3 IS NULL OR owner_id = ?3)`,
    )
    .bind(tenantId, projectId, ownerId)
    .first<{ triggered: number | null; status: string }>();
}

/** Projects triggered before `before`, still InProgress, with no job row: their trigger's call to the runner was lost. */
export async function projectsWithoutJobs(db: D1Database, before: number): Promise<Array<{ tenantId: number; id: number; processing: string }>> {
  const { results } = await db
    .prepare(
      `SELECT p.tenant_id AS tenantId, p.id, p.processing FROM tenants t JOIN projects p ON p.tenant_id = t.id
     WHERE p.processing_triggered_at IS NOT NULL AND p.processing_triggered_at < ?1 AND p.processing_status = 'InProgress'
       AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.tenant_id = p.tenant_id AND j.project_id = p.id)
     LIMIT 100`,
    )
    .bind(before)
    .all<{ tenantId: number; id: number; processing: string }>();
  return results;
}

export async function projectItemOrder(db: D1Database, tenantId: number, projectId: number): Promise<Array<{ id: number; sort_index: number }>> {
  const { results } = await db
    .prepare(`SELECT id, sort_index FROM project_items WHERE tenant_id = ?1 AND project_id = ?2`)
    .bind(tenantId, projectId)
    .all<{ id: number; sort_index: number }>();
  return results;
}

// --- processing_pipelines (→ pipelines store) ---------------------------------------------------

/** The stored text of each pipeline of `ids` that exists. */
export async function pipelineTexts(db: D1Database, tenantId: number, ids: number[]): Promise<Map<number, string>> {
  const { results } = await db
    .prepare(`SELECT id, raw_content AS raw FROM processing_pipelines WHERE tenant_id = ?1 AND id IN (SELECT value FROM json_each(?2))`)
    .bind(tenantId, JSON.stringify(ids))
    .all<{ id: number; raw: string }>();
  return new Map(results.map((r) => [r.id, r.raw]));
}

// --- artifacts, anonymous_tokens (→ assets store) -------------------------------------------------

export interface FinalArtifactRow {
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

/** Deletes artifact rows and their anonymous URLs. */
export async function deleteArtifactRows(db: D1Database, tenantId: number, ids: string[]): Promise<void> {
  const list = JSON.stringify(ids);
  await db.batch([
    db.prepare(`DELETE FROM anonymous_tokens WHERE tenant_id = ?1 AND kind = 'artifact' AND target_id IN (SELECT value FROM json_each(?2))`).bind(tenantId, list),
    db.prepare(`DELETE FROM artifacts WHERE tenant_id = ?1 AND id IN (SELECT value FROM json_each(?2))`).bind(tenantId, list),
  ]);
}

export interface TemporaryArtifactRow {
  tenantId: number;
  id: string;
  ownerId: string;
  jobId: string;
  projectId: number | null;
  itemId: number | null;
  alias: string;
  type: 'Final' | 'Temporary';
  name: string;
  format: string | null;
  size: number;
  key: string;
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
