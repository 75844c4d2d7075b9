/**
 * What the ProjectJobs object writes to D1, as the runner sees it: the `jobs` row lists read, the
 * project's `processingStatus`, and artifact rows (Final rows at finalize; Temporary rows only for
 * temporaries a parameter references, so their anonymous URL exists). The SQL is in ./store.
 */
import type { Env } from '../../env';
import { anonymousUrlOf, issueAnonymous } from '../assets/anonymous';
import { TEMPORARY_TTL_MS } from '../assets/lifetimes';
import type { TenantContext } from '../core';
import { type ArtifactRecord, type JobRow, type JobStatus } from './store';
import { artifactsOfJobs, deleteJobArtifactRows, deleteTemporaryArtifactRows, insertTemporaryArtifact, upsertFinalArtifacts } from '../assets/store/artifacts';

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
 * Final rows: a redone finalize writes the same ids. Anonymous URLs are issued once (an existing
 * token is kept).
 */
export async function writeFinals(env: Env, job: JobRow, finals: FinalRow[], anonymousAccess: boolean): Promise<string[]> {
  const rows = await Promise.all(
    finals.map(async ({ record: a, alias }) => ({
      tenantId: job.tenantId, id: await artifactId(a), ownerId: job.ownerId ?? '', jobId: job.id, projectId: job.projectId, itemId: a.itemId,
      alias, name: a.fileName, format: a.format, size: a.size, key: a.key, anonymousAccess,
    })),
  );
  await upsertFinalArtifacts(env.DB, rows);
  const ids = rows.map((r) => r.id);
  if (anonymousAccess) {
    const t = runnerTenant(env, job.tenantId, job.baseUrl);
    for (const id of ids) if (!(await anonymousUrlOf(t, 'artifact', id))) await issueAnonymous(t, 'artifact', id);
  }
  return ids;
}

/** Finals of `jobIds` (replaced jobs), except `keep`; returns their R2 keys for deletion. */
export async function dropFinals(env: Env, tenantId: number, jobIds: string[], keep: string[] = []): Promise<string[]> {
  if (!jobIds.length) return [];
  const rows = await artifactsOfJobs(env.DB, tenantId, jobIds, keep);
  if (!rows.length) return [];
  await deleteJobArtifactRows(env.DB, tenantId, rows.map((r) => r.id));
  return rows.flatMap((r) => (r.key ? [r.key] : []));
}

/** A Temporary D1 row for a temporary a parameter references, so it has an anonymous URL. */
export async function temporaryUrl(env: Env, job: JobRow, a: ArtifactRecord): Promise<string> {
  const id = await artifactId(a);
  await insertTemporaryArtifact(env.DB, {
    tenantId: job.tenantId, id, ownerId: job.ownerId ?? '', jobId: job.id, projectId: job.projectId, itemId: a.itemId, alias: a.name,
    type: a.final ? 'Final' : 'Temporary', name: a.fileName, format: a.format, size: a.size, key: a.key, expiresAt: Date.now() + TEMPORARY_TTL_MS,
  });
  const t = runnerTenant(env, job.tenantId, job.baseUrl);
  return (await anonymousUrlOf(t, 'artifact', id)) ?? (await issueAnonymous(t, 'artifact', id));
}

/** Temporary D1 rows of a job (made by temporaryUrl): dropped with the job's temporaries. */
export async function dropTemporaryRows(env: Env, tenantId: number, jobId: string): Promise<void> {
  await deleteTemporaryArtifactRows(env.DB, tenantId, jobId);
}

/** Deletes R2 keys in batches of 1,000. */
export async function deleteKeys(bucket: R2Bucket, keys: string[]): Promise<void> {
  for (let i = 0; i < keys.length; i += 1000) await bucket.delete(keys.slice(i, i + 1000));
}
