/**
 * The runner's API for the rest of the platform (projects, rendering jobs, the watchdog). Jobs run
 * in the ProjectJobs Durable Object (`project:<t>:<id>` per project, `job:<t>:<id>` per
 * stand-alone job); D1 `jobs` mirrors them for lists.
 *
 *   enqueueProjectJobs(env, tenantId, projectId, jobs)   project processing (registered as the
 *                                                        ProjectRunner of projects/processing.ts)
 *   stopProjectJobs(env, tenantId, projectId)            project deleted: jobs and files go
 *   projectProcessingResults(t, projectId, itemId?)      {status, statusDescription, outputFileDetails}
 *   resumeProject(t, projectId, itemId?)                 409 while running / nothing failed
 *   restartProject(t, projectId, itemId?)                409 while running
 *   jobStub(env, doName), projectDoName, jobDoName
 *   runWatchdog(env)                                     the 5-minute cron
 */
import type { Env } from '../../env';
import { anonymousUrlOf } from '../assets';
import { ConflictError, NotFoundError, newId, type TenantContext } from '../core';
import { canonicalJson, pipelineDefinition, validatePipeline } from '../pipelines/language';
import { type ProcessingJob, type RenderHiresScenario, setProjectRunner } from '../projects/processing';
import { loadProject, projectDto } from '../projects/store';
import { jobsOf, plannedJobs } from '../projects/service';
import { processingStatusOf } from './d1';
import type { JobView, Outcome } from './project-jobs';
import type { NewJob } from './store';

export { ProjectJobs } from './project-jobs';
export type { JobView, Outcome } from './project-jobs';
export { unavailableTasks } from '../pipelines/tasks/registry';

export const projectDoName = (tenantId: number, projectId: number) => `project:${tenantId}:${projectId}`;
export const jobDoName = (tenantId: number, jobId: string) => `job:${tenantId}:${jobId}`;
export const jobStub = (env: Env, doName: string) => env.PROJECT_JOBS.get(env.PROJECT_JOBS.idFromName(doName));

/** Where the runner's anonymous URLs point when no request gave an origin. */
export const runnerBaseUrl = (env: Env) => (env.PUBLIC_BASE_URL || env.ISSUER || '').replace(/\/+$/, '');

/** The built-in render-hires scenario: extract → render-hires (name "result") → finalize. */
export function renderHiresPipeline(s: RenderHiresScenario): string {
  const params: Record<string, unknown> = { hiResOutputDpi: s.dpi, hiResOutputFileFormat: s.format };
  if (s.colorSpace) params.hiResOutputColorSpace = s.colorSpace;
  if (s.flipMode) params.hiResOutputFlipMode = s.flipMode;
  if (s.rotateMode) params.hiResOutputRotateMode = s.rotateMode;
  return JSON.stringify({
    tasks: [
      { name: 'extract', type: 'extract-project-design', outputArtifacts: ['design*'] },
      { name: 'render-hires', type: 'render-hires', inputArtifacts: ['design*'], outputArtifacts: ['result*'], parameters: params },
      { name: 'finalize', type: 'finalize', inputArtifacts: ['result*'], finalArtifacts: ['result*'], parameters: { anonymousAccess: s.anonymousAccess } },
    ],
  });
}

/** The stored form of a pipeline (validated), or the reason it cannot run. */
function storedPipeline(raw: string): string {
  const r = validatePipeline(raw);
  if (!r.ok) throw new Error(`pipeline is not valid: ${JSON.stringify(r.errors)}`);
  return canonicalJson(pipelineDefinition(r.pipeline));
}

/**
 * Creates a project's jobs in its object and starts them (ProjectRunner.start). Pipelines are read
 * now and kept as snapshots, with the project as it is now. A pipeline that no longer validates
 * becomes a job that fails at once, saying why.
 */
export async function enqueueProjectJobs(env: Env, tenantId: number, projectId: number, jobs: ProcessingJob[]): Promise<void> {
  const loaded = await loadProject(env.DB, tenantId, projectId);
  if (!loaded) return;
  const dto = projectDto(loaded.project, loaded.items) as Record<string, unknown> & { items: Array<Record<string, unknown>> };
  const ids = jobs.flatMap((j) => ('pipelineId' in j ? [j.pipelineId] : []));
  const { results } = await env.DB.prepare(
    `SELECT id, raw_content AS raw FROM processing_pipelines WHERE tenant_id = ?1 AND id IN (SELECT value FROM json_each(?2))`,
  )
    .bind(tenantId, JSON.stringify(ids))
    .all<{ id: number; raw: string }>();
  const raw = new Map(results.map((r) => [r.id, r.raw]));
  const newJobs: Array<Omit<NewJob, 'taskNames'>> = [];
  for (const j of jobs) {
    let pipeline: string;
    let snapshot = dto;
    if (j.kind === 'render-hires') {
      pipeline = storedPipeline(renderHiresPipeline(j.scenario));
      snapshot = { ...dto, items: dto.items.map((i) => ({ ...i, designIds: [j.scenario.designId] })) };
    } else {
      const text = raw.get(j.pipelineId);
      if (text === undefined) continue;
      try {
        pipeline = storedPipeline(text);
      } catch {
        continue;
      }
    }
    newJobs.push({
      id: newId(),
      tenantId,
      projectId,
      itemId: j.kind === 'item' ? j.itemId : null,
      kind: j.kind,
      pipeline,
      project: JSON.stringify(snapshot),
      ownerId: loaded.project.owner_id,
      orderId: loaded.project.order_id,
      baseUrl: runnerBaseUrl(env),
      pipelineId: 'pipelineId' in j ? j.pipelineId : null,
      secretsAllowed: true,
      startRequested: true,
    });
  }
  const name = projectDoName(tenantId, projectId);
  await jobStub(env, name).enqueue(name, newJobs, hopOfProcessing(loaded.project.processing));
}

/** The hop the project was created at (projects/service.ts keeps it in `processing`; hops.ts). */
function hopOfProcessing(processing: string): number {
  try {
    const hop = (JSON.parse(processing) as { hop?: unknown }).hop;
    return typeof hop === 'number' && Number.isInteger(hop) && hop >= 0 ? hop : 0;
  } catch {
    return 0;
  }
}

export async function stopProjectJobs(env: Env, tenantId: number, projectId: number): Promise<void> {
  await jobStub(env, projectDoName(tenantId, projectId)).removeAll();
  // Finals of the project's jobs live in D1 under the project id: they go with it.
  await env.DB.prepare(`DELETE FROM artifacts WHERE tenant_id = ?1 AND project_id = ?2 AND job_id IS NOT NULL`).bind(tenantId, projectId).run();
}

setProjectRunner({ start: enqueueProjectJobs, stop: stopProjectJobs });

/** Turns an object's refusal into the platform's errors. */
export function outcomeOrThrow(o: Outcome): void {
  if (o.ok) return;
  if (o.reason === 'conflict') throw new ConflictError('GeneralConflict', o.message);
  throw new NotFoundError(o.message);
}

async function projectExists(t: TenantContext, projectId: number) {
  const p = await t.env.DB.prepare(`SELECT processing_triggered_at AS triggered, processing_status AS status FROM projects WHERE tenant_id = ?1 AND id = ?2`)
    .bind(t.tenantId, projectId)
    .first<{ triggered: number | null; status: string }>();
  if (!p || (t.storefrontUserId && !(await t.env.DB.prepare(`SELECT 1 FROM projects WHERE tenant_id = ?1 AND id = ?2 AND owner_id = ?3`).bind(t.tenantId, projectId, t.storefrontUserId).first()))) {
    throw new NotFoundError(`No project ${projectId}.`);
  }
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
  const { results } = await t.env.DB.prepare(
    `SELECT a.id, a.name, a.format, a.size, a.anonymous_access AS anon, a.project_item_id AS itemId, i.order_line_item_id AS lineId,
       i.order_line_item_index AS lineIndex
     FROM artifacts a LEFT JOIN project_items i ON i.tenant_id = a.tenant_id AND i.id = a.project_item_id
     WHERE a.tenant_id = ?1 AND a.project_id = ?2 AND a.type = 'Final' AND a.job_id IN (SELECT value FROM json_each(?3))
       AND (?4 IS NULL OR a.project_item_id = ?4)
     ORDER BY a.created, a.alias`,
  )
    .bind(t.tenantId, projectId, JSON.stringify(current.map((v) => v.job.id)), itemId ?? null)
    .all<{ id: string; name: string; format: string | null; size: number; anon: number; itemId: number | null; lineId: string | null; lineIndex: number | null }>();
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

// --- the 5-minute watchdog --------------------------------------------------------------------

const TRIGGER_GRACE_MS = 2 * 60_000;
const IDLE_MS = 10 * 60_000;

/**
 * Projects triggered more than 2 minutes ago that have no job yet get their jobs (the trigger's
 * call to the runner was lost); jobs InProgress with no unit for 10 minutes are re-armed.
 */
export async function runWatchdog(env: Env, now = Date.now()): Promise<{ started: number; rearmed: number }> {
  const { results: orphans } = await env.DB.prepare(
    `SELECT p.tenant_id AS tenantId, p.id, p.processing FROM tenants t JOIN projects p ON p.tenant_id = t.id
     WHERE p.processing_triggered_at IS NOT NULL AND p.processing_triggered_at < ?1 AND p.processing_status = 'InProgress'
       AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.tenant_id = p.tenant_id AND j.project_id = p.id)
     LIMIT 100`,
  )
    .bind(now - TRIGGER_GRACE_MS)
    .all<{ tenantId: number; id: number; processing: string }>();
  let started = 0;
  for (const o of orphans) {
    const planned = plannedJobs(o.processing);
    const { results: items } = await env.DB.prepare(`SELECT id, sort_index FROM project_items WHERE tenant_id = ?1 AND project_id = ?2`)
      .bind(o.tenantId, o.id)
      .all<{ id: number; sort_index: number }>();
    try {
      await enqueueProjectJobs(env, o.tenantId, o.id, jobsOf(planned, items));
      started++;
    } catch (e) {
      console.error('watchdog: project', o.tenantId, o.id, e);
    }
  }
  const { results: idle } = await env.DB.prepare(
    `SELECT DISTINCT j.do_name AS doName FROM tenants t JOIN jobs j ON j.tenant_id = t.id
     WHERE j.status IN ('New', 'InProgress', 'Recovered') AND coalesce(j.last_activity, j.created) < ?1 LIMIT 500`,
  )
    .bind(now - IDLE_MS)
    .all<{ doName: string }>();
  let rearmed = 0;
  for (const { doName } of idle) {
    try {
      if (await jobStub(env, doName).ensureStarted()) {
        await jobStub(env, doName).rearm();
        rearmed++;
      }
    } catch (e) {
      console.error('watchdog: object', doName, e);
    }
  }
  return { started, rearmed };
}
