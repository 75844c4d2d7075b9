// Helpers of the runner tests: a design asset from a PSD fixture, and driving a job's
// ProjectJobs object alarm by alarm (runDurableObjectAlarm) until the job settles.
import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { assetKind, createAsset, scopeFor, stageBytes } from '../../../src/platform/assets';
import { runnerTenant } from '../../../src/platform/jobs/d1';
import { jobDoName, jobStub, projectDoName } from '../../../src/platform/jobs';
import type { ProjectJobs } from '../../../src/platform/jobs/project-jobs';
import { psdFixture } from '../../helpers/fixtures';
import { apiJson } from '../../helpers/platform';

/**
 * A design asset `id` named after its fixture (outputs are named after it), in a folder of its own
 * (`/<id>/`): files that run in one runtime (vitest.shared.config.ts) each make their designs from
 * the same fixtures, and names are unique per folder.
 */
export async function createDesign(id: string, fixture = 'psdtools-blend-multiply.psd', tenantId = 1): Promise<void> {
  const t = runnerTenant(env, tenantId, 'http://localhost');
  if (await env.DB.prepare(`SELECT 1 FROM assets WHERE tenant_id = ?1 AND id = ?2`).bind(tenantId, id).first()) return;
  const staged = await stageBytes(env.FILES, tenantId, await psdFixture(fixture));
  await createAsset(scopeFor(t, assetKind('design', false), null), { staged, filename: fixture, id, path: designFolder(id) });
}

/** The folder createDesign puts design `id` in. */
export const designFolder = (id: string) => `/${id}/`;

export const stubOfJob = (id: string, tenantId = 1) => jobStub(env, jobDoName(tenantId, id)) as unknown as DurableObjectStub<ProjectJobs>;

const TERMINAL = ['Completed', 'Failed', 'Discarded'];

/**
 * Runs the object's alarms until the job is Completed, Failed or Discarded (automatic alarms
 * may run too; the object runs one step at a time). Aborts (injected faults) are counted.
 */
export async function drive(first: DurableObjectStub<ProjectJobs>, jobId: string, timeoutMs = 25_000): Promise<{ status: string; aborts: number }> {
  const until = Date.now() + timeoutMs;
  let aborts = 0;
  let stub = first;
  // A stub of an aborted object stays broken: a new stub reaches the object's next instance.
  const fresh = () => (stub = stubOfJob(jobId));
  while (Date.now() < until) {
    const view = await stub.view(jobId).catch(() => (fresh(), null));
    if (view && TERMINAL.includes(view.job.status)) return { status: view.job.status, aborts };
    try {
      await runDurableObjectAlarm(stub);
    } catch {
      aborts++;
      fresh();
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  const view = await fresh().view(jobId);
  return { status: view?.job.status ?? 'missing', aborts };
}

/** Reads the object's own SQLite. */
export function sqlOf<T>(stub: DurableObjectStub<ProjectJobs>, query: string, ...params: unknown[]): Promise<T[]> {
  return runInDurableObject(stub, (_i, state) => state.storage.sql.exec(query, ...params).toArray() as unknown as T[]);
}

/** Runs a project's object until every job is Completed, Failed or Discarded. */
export async function driveProject(tenantId: number, projectId: number, timeoutMs = 25_000): Promise<string[]> {
  const name = projectDoName(tenantId, projectId);
  let stub = jobStub(env, name) as unknown as DurableObjectStub<ProjectJobs>;
  const until = Date.now() + timeoutMs;
  let statuses: string[] = [];
  while (Date.now() < until) {
    const views = await stub.views().catch(() => null);
    if (!views) {
      stub = jobStub(env, name) as unknown as DurableObjectStub<ProjectJobs>;
      continue;
    }
    statuses = views.map((v) => v.job.status);
    if (statuses.length && statuses.every((s) => TERMINAL.includes(s))) return statuses;
    await runDurableObjectAlarm(stub).catch(() => (stub = jobStub(env, name) as unknown as DurableObjectStub<ProjectJobs>));
    await new Promise((r) => setTimeout(r, 20));
  }
  return statuses;
}

/**
 * A stand-alone rendering job of tenant 1 for `project` with `tasks` (and any `more` fields of the
 * job request): created through the API, driven to its end, and read back (its settled status,
 * aborts, and the job DTO).
 */
export async function runStandaloneJob(id: string, project: Record<string, unknown>, tasks: unknown[], timeoutMs = 60_000, more: Record<string, unknown> = {}) {
  await apiJson('POST', '/api/rendering/v1/jobs', { id, project, tasks, ...more }, { token: 1 }, 201);
  const run = await drive(stubOfJob(id), id, timeoutMs);
  const job = await apiJson('GET', `/api/rendering/v1/jobs/${id}`, undefined, { token: 1 });
  return { ...run, job };
}

/** A job's Final artifacts of tenant 1 with their bytes, in alias order. */
export async function finalFiles(jobId: string): Promise<Array<{ name: string; key: string; bytes: Uint8Array }>> {
  const { results } = await env.DB.prepare(`SELECT name, r2_key AS key FROM artifacts WHERE tenant_id = 1 AND job_id = ?1 AND type = 'Final' ORDER BY alias`)
    .bind(jobId)
    .all<{ name: string; key: string }>();
  return Promise.all(results.map(async (r) => ({ name: r.name, key: r.key, bytes: new Uint8Array(await (await env.FILES.get(r.key))!.arrayBuffer()) })));
}
