/**
 * The one seam between projects and the job runner (contract, "Storefront": "Creating a project
 * starts its processing"). Projects call `startProjectProcessing` once, from the call that
 * triggered processing (the inserting create, or the first entry into the tenant's
 * `startProcessingOnStatus`), after that batch committed; `stopProjectProcessing` when a project
 * is deleted.
 *
 * What the runner (the ProjectJobs Durable Object, one per `project:<tenantId>:<projectId>`)
 * must provide: create the jobs below (rows in `jobs` with `project_id`, `project_item_id`,
 * `kind`), run them, and keep `projects.processing_status` true to the contract's rule
 * (`processingStatusOf` below: Failed if a current job failed, else InProgress while a job is New
 * or InProgress or still to be created, else Completed) — e.g. by calling
 * `refreshProcessingStatus` after every job status change.
 *
 * Until the runner exists (`PROJECT_RUNNER` below is null): a project with no job (no pipeline
 * applies) is Completed with no outputs; a project with jobs stays InProgress.
 */
import type { Env } from '../../env';

export type ProcessingStatus = 'Pending' | 'InProgress' | 'Completed' | 'Failed';

/** What renders in the built-in render-hires scenario (CreateProjectByRenderHiResScenarioDto). */
export interface RenderHiresScenario {
  designId: string;
  format: string;
  dpi: number;
  colorSpace: string | null;
  flipMode: string | null;
  rotateMode: string | null;
  anonymousAccess: boolean;
}

/**
 * A job to create for a project, in the order given (contract, "Jobs"):
 * - `project`: with-single-item, the item's pipeline over the whole project;
 * - `item`: with-multiple-items (an item job per item with a pipeline), and specific-pipeline's
 *   `itemPipelines`;
 * - `post-processing`: specific-pipeline's `postProcessingPipelineId`, after the others;
 * - `render-hires`: the built-in extract → render-hires (name "result") → finalize.
 * specific-pipeline's `pipelineId` is a `project` job.
 */
export type ProcessingJob =
  | { kind: 'project'; pipelineId: number }
  | { kind: 'item'; itemId: number; pipelineId: number }
  | { kind: 'post-processing'; pipelineId: number }
  | { kind: 'render-hires'; scenario: RenderHiresScenario };

export interface ProjectRunner {
  start(env: Env, tenantId: number, projectId: number, jobs: ProcessingJob[]): Promise<void>;
  stop?(env: Env, tenantId: number, projectId: number): Promise<void>;
}

let PROJECT_RUNNER: ProjectRunner | null = null;

/** The runner registers itself here at module load (e.g. in src/platform/jobs/). */
export function setProjectRunner(runner: ProjectRunner | null): void {
  PROJECT_RUNNER = runner;
}

/** The processing status a project has just after its processing was triggered. */
export function initialProcessingStatus(jobs: ReadonlyArray<unknown>): ProcessingStatus {
  return jobs.length ? 'InProgress' : 'Completed';
}

/**
 * Starts processing of a project whose trigger this call won. With no jobs the project is
 * already Completed (written by the triggering batch) and nothing runs.
 */
export async function startProjectProcessing(env: Env, tenantId: number, projectId: number, jobs: ProcessingJob[]): Promise<void> {
  if (!jobs.length || !PROJECT_RUNNER) return;
  await PROJECT_RUNNER.start(env, tenantId, projectId, jobs);
}

/** Stops a deleted project's processing (its rows are already gone). */
export async function stopProjectProcessing(env: Env, tenantId: number, projectId: number): Promise<void> {
  await PROJECT_RUNNER?.stop?.(env, tenantId, projectId);
}

/**
 * The contract's rule: Pending until triggered; then Failed if a current job failed, else
 * InProgress while a job is New or InProgress (or still to be created), else Completed.
 * `current` = the latest run of each job (Recovered/Discarded runs do not count).
 */
export function processingStatusOf(triggered: boolean, jobStatuses: string[], jobsStillToCreate: number): ProcessingStatus {
  if (!triggered) return 'Pending';
  if (jobStatuses.includes('Failed')) return 'Failed';
  if (jobsStillToCreate > 0 || jobStatuses.some((s) => s === 'New' || s === 'InProgress')) return 'InProgress';
  return 'Completed';
}

/**
 * Recomputes `processing_status` from the project's job rows; `expectedJobs` = how many jobs the
 * project will have (from `projects.processing.jobs`), so jobs not yet created count as running.
 */
export async function refreshProcessingStatus(db: D1Database, tenantId: number, projectId: number, expectedJobs: number): Promise<ProcessingStatus> {
  const { results } = await db
    .prepare(`SELECT status FROM jobs WHERE tenant_id = ?1 AND project_id = ?2 AND status NOT IN ('Recovered', 'Discarded')`)
    .bind(tenantId, projectId)
    .all<{ status: string }>();
  const project = await db
    .prepare(`SELECT processing_triggered_at AS t FROM projects WHERE tenant_id = ?1 AND id = ?2`)
    .bind(tenantId, projectId)
    .first<{ t: number | null }>();
  const status = processingStatusOf(project?.t != null, results.map((r) => r.status), Math.max(0, expectedJobs - results.length));
  await db
    .prepare(`UPDATE projects SET processing_status = ?3, last_modified = CAST(unixepoch('subsec') * 1000 AS INTEGER) WHERE tenant_id = ?1 AND id = ?2`)
    .bind(tenantId, projectId, status)
    .run();
  return status;
}
