/**
 * The one seam between projects and the job runner (contract, "Storefront": "Creating a project
 * starts its processing"). Projects call `startProjectProcessing` once, from the call that
 * triggered processing (the inserting create, or the first entry into the tenant's
 * `startProcessingOnStatus`), after that batch committed; `stopProjectProcessing` when a project
 * is deleted. Both call the jobs domain (src/platform/jobs/runner.ts) directly, with the project
 * as it is now.
 *
 * The runner (the ProjectJobs Durable Object, one per `project:<tenantId>:<projectId>`) keeps
 * `projects.processing_status` true to the contract's rule: Failed if a current job failed, else
 * InProgress while a job is New or InProgress, else Completed. A project with no job (no
 * pipeline applies) is Completed from its trigger on, with no outputs.
 */
import type { Env } from '../../env';
import { enqueueProjectJobs, stopProjectJobs, type ProcessingJob } from '../jobs/runner';
import { loadProject, projectDto, type ProcessingStatus } from './store';

export type { ProcessingJob, RenderHiresScenario } from '../jobs/runner';
export type { ProcessingStatus };

/** The processing status a project has just after its processing was triggered. */
export function initialProcessingStatus(jobs: ReadonlyArray<unknown>): ProcessingStatus {
  return jobs.length ? 'InProgress' : 'Completed';
}

/**
 * Starts processing of a project whose trigger this call won. With no jobs the project is
 * already Completed (written by the triggering batch) and nothing runs.
 */
export async function startProjectProcessing(env: Env, tenantId: number, projectId: number, jobs: ProcessingJob[]): Promise<void> {
  if (!jobs.length) return;
  await enqueueProjectProcessing(env, tenantId, projectId, jobs);
}

/**
 * Hands a project's jobs to the runner, with the project as it is now (the jobs keep it as their
 * snapshot); a project deleted meanwhile gets none. The watchdog calls it for a trigger whose
 * call was lost.
 */
export async function enqueueProjectProcessing(env: Env, tenantId: number, projectId: number, jobs: ProcessingJob[]): Promise<void> {
  const loaded = await loadProject(env.DB, tenantId, projectId);
  if (!loaded) return;
  const dto = projectDto(loaded.project, loaded.items) as Record<string, unknown> & { items: Array<Record<string, unknown>> };
  await enqueueProjectJobs(
    env,
    { tenantId, projectId, dto, ownerId: loaded.project.owner_id, orderId: loaded.project.order_id, hop: hopOfProcessing(loaded.project.processing) },
    jobs,
  );
}

/** The hop the project was created at (service.ts keeps it in `processing`; jobs/hops.ts). */
function hopOfProcessing(processing: string): number {
  try {
    const hop = (JSON.parse(processing) as { hop?: unknown }).hop;
    return typeof hop === 'number' && Number.isInteger(hop) && hop >= 0 ? hop : 0;
  } catch {
    return 0;
  }
}

/** Stops a deleted project's processing (its rows are already gone): its jobs and files go. */
export async function stopProjectProcessing(env: Env, tenantId: number, projectId: number): Promise<void> {
  await stopProjectJobs(env, tenantId, projectId);
}
