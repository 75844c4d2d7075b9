/**
 * D1 `jobs`: one row per job, for lists and for finding a job's object (`do_name`). Project jobs'
 * rows mirror their ProjectJobs object (./object.ts holds the truth); a stand-alone job's row is
 * written first, by the create call, so the same id twice is caught here (`body_hash`).
 */
import type { SortKey } from '../../core';
import { finalsOwnerStatement } from '../../assets/store/artifacts';
import type { JobRow } from './object';

/** Upserts the D1 `jobs` row of an object's job (lists read it; GET finds `do_name` there). */
export function mirrorJobStatement(db: D1Database, doName: string, j: JobRow): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO jobs (tenant_id, id, project_id, project_item_id, kind, do_name, status, status_description, owner_id, project_order_id,
       pipeline_id, created, started, finished, last_activity, last_modified)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)
     ON CONFLICT (tenant_id, id) DO UPDATE SET status = excluded.status, status_description = excluded.status_description,
       started = excluded.started, finished = excluded.finished, last_activity = excluded.last_activity, last_modified = excluded.last_modified,
       do_name = excluded.do_name`,
    )
    .bind(
      j.tenantId, j.id, j.projectId, j.itemId, j.kind, doName, j.status, j.statusDescription, j.ownerId, j.orderId, j.pipelineId, j.created,
      j.started, j.finished, j.lastActivity ?? j.created, Date.now(),
    );
}

export async function deleteJobRow(db: D1Database, tenantId: number, id: string): Promise<void> {
  await db.prepare(`DELETE FROM jobs WHERE tenant_id = ?1 AND id = ?2`).bind(tenantId, id).run();
}

/** Objects with a running job that did nothing since `before` (the watchdog re-arms them). */
export async function idleJobObjects(db: D1Database, before: number): Promise<string[]> {
  const { results } = await db
    .prepare(
      `SELECT DISTINCT j.do_name AS doName FROM tenants t JOIN jobs j ON j.tenant_id = t.id
     WHERE j.status IN ('New', 'InProgress', 'Recovered') AND coalesce(j.last_activity, j.created) < ?1 LIMIT 500`,
    )
    .bind(before)
    .all<{ doName: string }>();
  return results.map((r) => r.doName);
}

// --- rendering jobs (/api/rendering/v1/jobs) ---------------------------------------------------

export type JobListStatus = 'New' | 'InProgress' | 'Completed' | 'Failed' | 'Recovered' | 'Discarded';

/** A D1 `jobs` row as the rendering-jobs routes show it. */
export interface JobListRow {
  id: string;
  projectId: number | null;
  doName: string;
  status: JobListStatus;
  statusDescription: string | null;
  ownerId: string | null;
  projectOrderId: string | null;
  bodyHash: string | null;
  created: number;
  started: number | null;
  finished: number | null;
  lastModified: number;
}

const COLUMNS = `id, project_id AS projectId, do_name AS doName, status, status_description AS statusDescription, owner_id AS ownerId,
  project_order_id AS projectOrderId, body_hash AS bodyHash, created, started, finished, last_modified AS lastModified`;

export async function jobRow(db: D1Database, tenantId: number, id: string): Promise<JobListRow | null> {
  return db.prepare(`SELECT ${COLUMNS} FROM jobs WHERE tenant_id = ?1 AND id = ?2`).bind(tenantId, id).first<JobListRow>();
}

export interface NewStandaloneJob {
  tenantId: number;
  id: string;
  doName: string;
  ownerId: string | null;
  orderId: string | null;
  bodyHash: string;
}

/** Inserts a stand-alone job's row; false when that id exists already (the caller compares hashes). */
export async function insertStandaloneJob(db: D1Database, j: NewStandaloneJob): Promise<boolean> {
  const inserted = await db
    .prepare(
      `INSERT INTO jobs (tenant_id, id, kind, do_name, status, owner_id, project_order_id, body_hash, created, last_activity, last_modified)
     VALUES (?1, ?2, 'standalone', ?3, 'New', ?4, ?5, ?6, ?7, ?7, ?7) ON CONFLICT (tenant_id, id) DO NOTHING`,
    )
    .bind(j.tenantId, j.id, j.doName, j.ownerId, j.orderId, j.bodyHash, Date.now())
    .run();
  return inserted.meta.changes > 0;
}

export interface JobListFilter {
  status: string | null;
  /** -1 matches nothing (a project id that is not a number). */
  projectId: number | null;
  projectOrderId: string | null;
  sorting: SortKey<'created' | 'lastModified' | 'status' | 'id'>[];
  skip: number;
  take: number;
}

const SORT_COLUMNS: Record<JobListFilter['sorting'][number]['field'], string> = {
  created: 'created',
  lastModified: 'last_modified',
  status: 'status',
  id: 'id',
};

export async function listJobRows(db: D1Database, tenantId: number, f: JobListFilter): Promise<{ total: number; rows: JobListRow[] }> {
  const where = `tenant_id = ?1 AND (?2 IS NULL OR status = ?2) AND (?3 IS NULL OR project_id = ?3) AND (?4 IS NULL OR project_order_id = ?4)`;
  const params = [tenantId, f.status, f.projectId, f.projectOrderId];
  const order = f.sorting.length ? f.sorting.map((s) => `${SORT_COLUMNS[s.field]} ${s.direction}`).join(', ') : 'created DESC';
  const [count, rows] = await db.batch([
    db.prepare(`SELECT count(*) AS n FROM jobs WHERE ${where}`).bind(...params),
    db.prepare(`SELECT ${COLUMNS} FROM jobs WHERE ${where} ORDER BY ${order}, id LIMIT ?5 OFFSET ?6`).bind(...params, f.take, f.skip),
  ]);
  return { total: (count!.results[0] as { n: number }).n, rows: rows!.results as unknown as JobListRow[] };
}

/**
 * Moves jobs of `ownerId` (those of `jobIds`, or all when null) and their final artifacts to
 * `newOwnerId`, in one batch.
 */
export async function moveJobsOwner(db: D1Database, tenantId: number, ownerId: string, newOwnerId: string, jobIds: string[] | null): Promise<void> {
  const { results } = await db
    .prepare(`SELECT id FROM jobs WHERE tenant_id = ?1 AND coalesce(owner_id, '') = ?2 AND (?3 IS NULL OR id IN (SELECT value FROM json_each(?3)))`)
    .bind(tenantId, ownerId, jobIds ? JSON.stringify(jobIds) : null)
    .all<{ id: string }>();
  const moved = results.map((r) => r.id);
  const now = Date.now();
  await db.batch([
    finalsOwnerStatement(db, tenantId, moved, newOwnerId, now),
    db
      .prepare(`UPDATE jobs SET owner_id = ?2, last_modified = ?4 WHERE tenant_id = ?1 AND id IN (SELECT value FROM json_each(?3))`)
      .bind(tenantId, newOwnerId, JSON.stringify(moved), now),
  ]);
}
