/**
 * What the ProjectJobs object writes to D1: the `jobs` row lists read, the project's
 * `processingStatus`, and artifact rows (Final rows at finalize; Temporary rows only for
 * temporaries a parameter references, so their anonymous URL exists). The only file of the
 * runner that knows D1 table names.
 */
import type { Env } from '../../env';
import { anonymousUrlOf, issueAnonymous, TEMPORARY_TTL_MS } from '../assets';
import type { TenantContext } from '../core';
import type { ArtifactRecord, JobRow, JobStatus } from './store';

/** The runner has no request: a tenant context for the asset store's anonymous-URL helpers. */
export const runnerTenant = (env: Env, tenantId: number, baseUrl: string): TenantContext =>
  ({ tenantId, env, baseUrl, auth: { tenantId, sub: 'pipeline', clientId: 'pipeline', scopes: [], jti: '', iat: 0, exp: 0 } }) as TenantContext;

/** id = first 24 hex of SHA-256(`<job>/<run>/<task>/<artifact>/<n>`) (contract). */
export async function artifactId(a: Pick<ArtifactRecord, 'jobId' | 'run' | 'task' | 'name' | 'n'>): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(`${a.jobId}/${a.run}/${a.task}/${a.name}/${a.n}`));
  return [...new Uint8Array(digest).subarray(0, 12)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** The member name of an artifact: `result1`, `result2`… for collections, the name alone otherwise. */
export const aliasOf = (a: ArtifactRecord, collection: boolean) => (collection ? `${a.name}${a.n + 1}` : a.name);

/** Upserts the D1 `jobs` row (lists read it; GET finds `do_name` there). */
export function mirrorJobStatement(env: Env, doName: string, j: JobRow): D1PreparedStatement {
  return env.DB.prepare(
    `INSERT INTO jobs (tenant_id, id, project_id, project_item_id, kind, do_name, status, status_description, owner_id, project_order_id,
       pipeline_id, created, started, finished, last_activity, last_modified)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)
     ON CONFLICT (tenant_id, id) DO UPDATE SET status = excluded.status, status_description = excluded.status_description,
       started = excluded.started, finished = excluded.finished, last_activity = excluded.last_activity, last_modified = excluded.last_modified,
       do_name = excluded.do_name`,
  ).bind(
    j.tenantId, j.id, j.projectId, j.itemId, j.kind, doName, j.status, j.statusDescription, j.ownerId, j.orderId, j.pipelineId, j.created,
    j.started, j.finished, j.lastActivity ?? j.created, Date.now(),
  );
}

export function projectStatusStatement(env: Env, tenantId: number, projectId: number, status: string): D1PreparedStatement {
  return env.DB.prepare(
    `UPDATE projects SET processing_status = ?3, last_modified = ?4 WHERE tenant_id = ?1 AND id = ?2 AND processing_status <> ?3`,
  ).bind(tenantId, projectId, status, Date.now());
}

/** processingStatus from the current (not Discarded) jobs: Failed, else InProgress, else Completed. */
export function processingStatusOf(statuses: JobStatus[]): 'InProgress' | 'Completed' | 'Failed' {
  const current = statuses.filter((s) => s !== 'Discarded');
  if (current.includes('Failed')) return 'Failed';
  if (current.some((s) => s === 'New' || s === 'InProgress' || s === 'Recovered')) return 'InProgress';
  return 'Completed';
}

export interface FinalRow {
  record: ArtifactRecord;
  alias: string;
}

/**
 * Final rows, `INSERT … ON CONFLICT(tenant_id, id) DO UPDATE`: a redone finalize writes the same
 * ids. Anonymous URLs are issued once (an existing token is kept).
 */
export async function writeFinals(env: Env, job: JobRow, finals: FinalRow[], anonymousAccess: boolean): Promise<string[]> {
  const ids: string[] = [];
  const statements: D1PreparedStatement[] = [];
  for (const f of finals) {
    const a = f.record;
    const id = await artifactId(a);
    ids.push(id);
    statements.push(
      env.DB.prepare(
        `INSERT INTO artifacts (tenant_id, id, owner_id, job_id, project_id, project_item_id, group_name, alias, type, name, format, size, r2_key,
           anonymous_access, expires_at, created, last_modified)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?4, ?7, 'Final', ?8, ?9, ?10, ?11, ?12, NULL, ?13, ?13)
         ON CONFLICT (tenant_id, id) DO UPDATE SET type = 'Final', owner_id = excluded.owner_id, alias = excluded.alias, name = excluded.name,
           format = excluded.format, size = excluded.size, r2_key = excluded.r2_key, anonymous_access = excluded.anonymous_access,
           project_item_id = excluded.project_item_id, expires_at = NULL, last_modified = excluded.last_modified`,
      ).bind(
        job.tenantId, id, job.ownerId ?? '', job.id, job.projectId, a.itemId, f.alias, a.fileName, a.format, a.size, a.key,
        anonymousAccess ? 1 : 0, Date.now(),
      ),
    );
  }
  for (let i = 0; i < statements.length; i += 50) await env.DB.batch(statements.slice(i, i + 50));
  if (anonymousAccess) {
    const t = runnerTenant(env, job.tenantId, job.baseUrl);
    for (const id of ids) if (!(await anonymousUrlOf(t, 'artifact', id))) await issueAnonymous(t, 'artifact', id);
  }
  return ids;
}

/** Finals of `jobIds` (replaced jobs), except `keep`; returns their R2 keys for deletion. */
export async function dropFinals(env: Env, tenantId: number, jobIds: string[], keep: string[] = []): Promise<string[]> {
  if (!jobIds.length) return [];
  const { results } = await env.DB.prepare(
    `SELECT id, r2_key AS key FROM artifacts WHERE tenant_id = ?1 AND job_id IN (SELECT value FROM json_each(?2))
       AND id NOT IN (SELECT value FROM json_each(?3))`,
  )
    .bind(tenantId, JSON.stringify(jobIds), JSON.stringify(keep))
    .all<{ id: string; key: string | null }>();
  if (!results.length) return [];
  const ids = JSON.stringify(results.map((r) => r.id));
  await env.DB.batch([
    env.DB.prepare(`DELETE FROM anonymous_tokens WHERE tenant_id = ?1 AND kind = 'artifact' AND target_id IN (SELECT value FROM json_each(?2))`).bind(tenantId, ids),
    env.DB.prepare(`DELETE FROM artifacts WHERE tenant_id = ?1 AND id IN (SELECT value FROM json_each(?2))`).bind(tenantId, ids),
  ]);
  return results.flatMap((r) => (r.key ? [r.key] : []));
}

/** A Temporary D1 row for a temporary a parameter references, so it has an anonymous URL. */
export async function temporaryUrl(env: Env, job: JobRow, a: ArtifactRecord): Promise<string> {
  const id = await artifactId(a);
  const now = Date.now();
  await env.DB.prepare(
    `INSERT INTO artifacts (tenant_id, id, owner_id, job_id, project_id, project_item_id, group_name, alias, type, name, format, size, r2_key,
       anonymous_access, expires_at, created, last_modified)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, NULL, ?7, ?8, ?9, ?10, ?11, ?12, 1, ?13, ?14, ?14)
     ON CONFLICT (tenant_id, id) DO NOTHING`,
  )
    .bind(job.tenantId, id, job.ownerId ?? '', job.id, job.projectId, a.itemId, a.name, a.final ? 'Final' : 'Temporary', a.fileName, a.format, a.size, a.key, now + TEMPORARY_TTL_MS, now)
    .run();
  const t = runnerTenant(env, job.tenantId, job.baseUrl);
  return (await anonymousUrlOf(t, 'artifact', id)) ?? (await issueAnonymous(t, 'artifact', id));
}

/** Temporary D1 rows of a job (made by temporaryUrl): dropped with the job's temporaries. */
export async function dropTemporaryRows(env: Env, tenantId: number, jobId: string): Promise<void> {
  await env.DB.batch([
    env.DB.prepare(
      `DELETE FROM anonymous_tokens WHERE tenant_id = ?1 AND kind = 'artifact'
         AND target_id IN (SELECT id FROM artifacts WHERE tenant_id = ?1 AND job_id = ?2 AND type = 'Temporary')`,
    ).bind(tenantId, jobId),
    env.DB.prepare(`DELETE FROM artifacts WHERE tenant_id = ?1 AND job_id = ?2 AND type = 'Temporary'`).bind(tenantId, jobId),
  ]);
}

/** Deletes R2 keys in batches of 1,000. */
export async function deleteKeys(bucket: R2Bucket, keys: string[]): Promise<void> {
  for (let i = 0; i < keys.length; i += 1000) await bucket.delete(keys.slice(i, i + 1000));
}
