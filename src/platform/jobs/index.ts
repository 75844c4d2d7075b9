/**
 * The jobs domain's API for the rest of the platform (projects, rendering jobs, the watchdog).
 * Jobs run in the ProjectJobs Durable Object (`project:<t>:<id>` per project, `job:<t>:<id>` per
 * stand-alone job); D1 `jobs` mirrors them for lists.
 *
 *   runner.ts: enqueueProjectJobs, stopProjectJobs       project processing (projects/processing.ts calls them)
 *   projectProcessingResults(t, projectId, itemId?)      {status, statusDescription, outputFileDetails}
 *   resumeProject(t, projectId, itemId?)                 409 while running / nothing failed
 *   restartProject(t, projectId, itemId?)                409 while running
 *   jobStub(env, doName), projectDoName, jobDoName
 *   runWatchdog(env)                                     the 5-minute cron (watchdog.ts)
 *   viewPreflight(view.problems)                         a job view's preflight: per task and for the job (preflight.ts)
 *   rendering-jobs.ts                                    stand-alone jobs (/api/rendering/v1/jobs)
 */
import { anonymousUrlOf } from '../assets';
import { ConflictError, NotFoundError, newId, type TenantContext } from '../core';
import { processingStatusOf } from './d1';
import type { JobView, Outcome } from './project-jobs';
import { jobStub, projectDoName } from './runner';
import { projectProcessingState } from '../projects/store';
import { projectFinals } from '../assets/store/artifacts';

export { ProjectJobs } from './project-jobs';
export type { JobView, Outcome } from './project-jobs';
export { jobDoName, jobStub, projectDoName, stopProjectJobs, type ProcessingJob, type RenderHiresScenario } from './runner';
export { runWatchdog } from './watchdog';
export { viewPreflight, type PreflightSummary, type RecordedProblem } from './preflight';

/** Turns an object's refusal into the platform's errors. */
export function outcomeOrThrow(o: Outcome): void {
  if (o.ok) return;
  if (o.reason === 'conflict') throw new ConflictError('GeneralConflict', o.message);
  throw new NotFoundError(o.message);
}

/** The project's processing state; a storefront-user token sees only its own projects. */
async function projectExists(t: TenantContext, projectId: number) {
  const p = await projectProcessingState(t.env.DB, t.tenantId, projectId, t.storefrontUserId || null);
  if (!p) throw new NotFoundError(`No project ${projectId}.`);
  return p;
}

export async function resumeProject(t: TenantContext, projectId: number, itemId?: number | null): Promise<void> {
  await projectExists(t, projectId);
  outcomeOrThrow(await jobStub(t.env, projectDoName(t.tenantId, projectId)).resumeJobs(itemId ?? null));
}

export async function restartProject(t: TenantContext, projectId: number, itemId?: number | null): Promise<void> {
  await projectExists(t, projectId);
  const stub = jobStub(t.env, projectDoName(t.tenantId, projectId));
  const current = (await stub.views()).filter((v) => v.job.status !== 'Discarded' && (itemId == null || v.job.itemId === itemId));
  outcomeOrThrow(await stub.restartJobs(itemId ?? null, current.map(() => newId())));
}

export interface OutputFileDetail {
  projectItemId: number | null;
  orderLineItemId: string | null;
  orderLineItemIndex: number | null;
  url: string;
  name: string;
  format: string | null;
  artifactId: string;
  anonymousAccess: boolean;
  size: number;
}

/** processing-results: the status from the project's jobs, and the current jobs' finals. */
export async function projectProcessingResults(
  t: TenantContext,
  projectId: number,
  itemId?: number | null,
): Promise<{ status: string; statusDescription: string | null; outputFileDetails: OutputFileDetail[] }> {
  const p = await projectExists(t, projectId);
  const views: JobView[] = p.triggered == null ? [] : await jobStub(t.env, projectDoName(t.tenantId, projectId)).views();
  const current = views.filter((v) => v.job.status !== 'Discarded' && (itemId == null || v.job.itemId == null || v.job.itemId === itemId));
  const status = p.triggered == null ? 'Pending' : current.length ? processingStatusOf(current.map((v) => v.job.status)) : p.status;
  const failed = current.find((v) => v.job.status === 'Failed');
  const results = await projectFinals(t.env.DB, t.tenantId, projectId, current.map((v) => v.job.id), itemId ?? null);
  const outputFileDetails: OutputFileDetail[] = [];
  for (const r of results) {
    const anon = r.anon ? await anonymousUrlOf(t, 'artifact', r.id) : undefined;
    outputFileDetails.push({
      projectItemId: r.itemId,
      orderLineItemId: r.lineId,
      orderLineItemIndex: r.lineIndex,
      url: anon ?? `${t.baseUrl}/api/storage/v1/artifacts/${r.id}/file`,
      name: r.name,
      format: r.format,
      artifactId: r.id,
      anonymousAccess: !!r.anon,
      size: r.size,
    });
  }
  return { status: status === 'New' ? 'InProgress' : status, statusDescription: failed?.job.statusDescription ?? null, outputFileDetails };
}
