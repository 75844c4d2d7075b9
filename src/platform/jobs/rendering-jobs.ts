/**
 * Rendering jobs (`/api/rendering/v1/jobs`): stand-alone jobs in their own ProjectJobs object
 * (`job:<t>:<id>`), and project jobs seen through the same routes. Lists read D1 `jobs` (through
 * ./store); one job's tasks come from its object. Logic free of HTTP: throws the core's errors.
 */
import type { z } from '@hono/zod-openapi';
import {
  ConflictError,
  ForbiddenError,
  NotFoundError,
  ValidationError,
  isClientId,
  newId,
  type SortKey,
  type TenantContext,
} from '../core';
import { sha256Hex } from '../../engine/hash';
import { canonicalJson, pipelineDefinition, secretNames, validatePipeline, type Pipeline } from '../pipelines/language';
import { unavailableTasks } from '../pipelines/tasks/registry';
import { checkHopDepth, hopOfContext } from './hops';
import { outcomeOrThrow } from './index';
import type { JobView } from './project-jobs';
import { viewPreflight } from './preflight';
import { jobDoName, jobStub } from './runner';
import type { CreateRenderingJobDto, RenderingJob, UpdateProjectOwnerDto } from './schemas';
import { type JobListRow, insertStandaloneJob, jobRow, listJobRows, moveJobsOwner } from './store';

const iso = (ms: number | null | undefined) => (ms == null ? null : new Date(ms).toISOString());

async function rowOr404(t: TenantContext, id: string): Promise<JobListRow> {
  const row = isClientId(id) ? await jobRow(t.env.DB, t.tenantId, id) : null;
  if (!row) throw new NotFoundError(`No job ${id}.`);
  return row;
}

/** ProjectInfo of a job's snapshot (ProjectDto of project jobs is shown the same way). */
function projectInfo(snapshot: string | null): Record<string, unknown> | null {
  if (!snapshot) return null;
  const p = JSON.parse(snapshot) as Record<string, unknown>;
  if (!('storefrontId' in p)) return p;
  const items = (p.items as Array<Record<string, unknown>>) ?? [];
  return {
    id: p.id, ownerId: p.ownerId, name: p.name, orderId: p.orderId, orderNumber: p.orderNumber, customerId: p.customerId,
    customerName: p.customerName,
    items: items.map((i) => ({ itemId: i.id, name: i.name, quantity: i.quantity, fields: i.fields, designIds: i.designIds })),
  };
}

function dtoOf(t: TenantContext, row: JobListRow, view: JobView | null): RenderingJob {
  const job = view?.job;
  const preflight = viewPreflight(view?.problems ?? []);
  const pipeline = job ? (JSON.parse(job.pipeline) as ReturnType<typeof pipelineDefinition>) : null;
  return {
    id: row.id,
    project: job ? projectInfo(job.project) : null,
    tasks: view && pipeline
      ? view.tasks.map((task) => ({
          ...pipeline.tasks[task.idx],
          id: `${row.id}-${task.idx}`,
          name: task.name,
          type: pipeline.tasks[task.idx]!.type,
          status: task.status,
          requested: iso(task.requested),
          started: iso(task.started),
          finished: iso(task.finished),
          autoRetryCount: task.autoRetries,
          longExecution: !!task.longExecution,
          statusDescription: task.description,
          preflight: preflight.tasks.get(task.idx) ?? null,
        }))
      : [],
    status: job?.status ?? row.status,
    statusDescription: job ? job.statusDescription : row.statusDescription,
    created: iso(row.created)!,
    started: iso(job ? job.started : row.started),
    finished: iso(job ? job.finished : row.finished),
    tenantId: t.tenantId,
    ownerId: row.ownerId,
    lastModified: iso(row.lastModified)!,
    // Every task's problems in one summary (a job read; lists leave it out).
    ...(view ? { preflight: preflight.job } : {}),
  };
}

export async function getJob(t: TenantContext, id: string): Promise<RenderingJob> {
  const row = await rowOr404(t, id);
  return dtoOf(t, row, await jobStub(t.env, row.doName).view(row.id));
}

/** The pipeline of a create body, or every problem by path (400); tasks not built yet → 400. */
function pipelineOf(tasks: unknown[]): Pipeline {
  const r = validatePipeline({ tasks });
  if (!r.ok) throw new ValidationError(r.errors, 'The pipeline is not valid.');
  const unavailable = unavailableTasks(r.pipeline);
  if (Object.keys(unavailable).length) throw new ValidationError(unavailable, 'The pipeline uses tasks that are not available yet.');
  return r.pipeline;
}

export async function createJob(
  t: TenantContext,
  body: z.infer<typeof CreateRenderingJobDto>,
  startImmediately: boolean,
): Promise<RenderingJob> {
  if (body.id !== undefined && !isClientId(body.id)) throw new ValidationError({ id: ['An id is 1–64 characters of A–Z, a–z, 0–9, _ and -.'] });
  const hop = hopOfContext(t);
  checkHopDepth(hop, 'job');
  const pipeline = pipelineOf(body.tasks);
  if (secretNames(pipeline).length && !t.auth.scopes.includes('ProcessingPipelines_full')) {
    throw new ForbiddenError('Jobs that use {{secrets.…}} need the ProcessingPipelines_full scope.');
  }
  const id = body.id ?? newId();
  const definition = pipelineDefinition(pipeline);
  const project = body.project ?? null;
  const hash = await sha256Hex(canonicalJson({ id, project, tasks: definition.tasks }));
  const doName = jobDoName(t.tenantId, id);
  const ownerId = typeof project?.ownerId === 'string' ? project.ownerId : null;
  const orderId = typeof project?.orderId === 'string' ? project.orderId : null;
  const inserted = await insertStandaloneJob(t.env.DB, { tenantId: t.tenantId, id, doName, ownerId, orderId, bodyHash: hash });
  if (!inserted) {
    // Idempotent by id: the same canonical body is the same job.
    const existing = (await jobRow(t.env.DB, t.tenantId, id))!;
    if (existing.bodyHash !== hash) throw new ConflictError('IdConflict', `A job with the id ${id} already exists with another body.`, { id });
    return getJob(t, id);
  }
  const row = (await jobRow(t.env.DB, t.tenantId, id))!;
  await jobStub(t.env, doName).enqueue(doName, [
    {
      id, tenantId: t.tenantId, projectId: null, itemId: null, kind: 'standalone', pipeline: canonicalJson(definition),
      project: project ? JSON.stringify(project) : null, ownerId, orderId, baseUrl: t.baseUrl, pipelineId: null, secretsAllowed: true,
      startRequested: startImmediately,
    },
  ], hop);
  return dtoOf(t, { ...row, status: 'New' }, await jobStub(t.env, doName).view(id));
}

export interface ListJobsInput {
  skip: number;
  take: number;
  sorting: SortKey<'created' | 'lastModified' | 'status' | 'id'>[];
  status?: string;
  projectId?: string;
  projectOrderId?: string;
}

export async function listJobs(t: TenantContext, q: ListJobsInput): Promise<{ total: number; items: RenderingJob[] }> {
  const projectId = q.projectId === undefined ? null : /^\d{1,15}$/.test(q.projectId) ? Number(q.projectId) : -1;
  const { total, rows } = await listJobRows(t.env.DB, t.tenantId, {
    status: q.status ?? null,
    projectId,
    projectOrderId: q.projectOrderId ?? null,
    sorting: q.sorting,
    skip: q.skip,
    take: q.take,
  });
  const items = rows.map((r) => {
    const { tasks: _tasks, ...dto } = dtoOf(t, r, null);
    return { ...dto, project: r.projectId != null || r.projectOrderId != null ? { id: r.projectId, orderId: r.projectOrderId } : null };
  });
  return { total, items };
}

export async function deleteJob(t: TenantContext, id: string): Promise<RenderingJob> {
  const dto = await getJob(t, id);
  const row = (await jobRow(t.env.DB, t.tenantId, dto.id))!;
  outcomeOrThrow(await jobStub(t.env, row.doName).remove(row.id));
  return dto;
}

export type JobAction = 'start' | 'restart' | 'recover' | 'discard';

export async function jobAction(t: TenantContext, id: string, action: JobAction): Promise<true> {
  const row = await rowOr404(t, id);
  const stub = jobStub(t.env, row.doName);
  const outcome =
    action === 'start' ? await stub.start(row.id) : action === 'restart' ? await stub.restartRun(row.id) : action === 'recover' ? await stub.recover(row.id) : await stub.discard(row.id);
  outcomeOrThrow(outcome);
  return true;
}

/** Moves jobs (and their final artifacts) from one owner to another. */
export async function updateProjectOwner(t: TenantContext, body: z.infer<typeof UpdateProjectOwnerDto>): Promise<void> {
  const ids = body.updateAll ? null : (body.jobIds ?? []);
  if (ids && !ids.length) throw new ValidationError({ jobIds: ['Give jobIds, or updateAll: true.'] });
  await moveJobsOwner(t.env.DB, t.tenantId, body.ownerId, body.newOwnerId, ids);
}
