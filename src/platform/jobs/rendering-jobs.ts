/**
 * Rendering jobs (`/api/rendering/v1/jobs`): stand-alone jobs in their own ProjectJobs object
 * (`job:<t>:<id>`), and project jobs seen through the same routes. Lists read D1 `jobs`; one
 * job's tasks come from its object. Logic free of HTTP: throws the core's errors.
 */
import { z } from '@hono/zod-openapi';
import {
  ConflictError,
  ForbiddenError,
  NotFoundError,
  ValidationError,
  isClientId,
  newId,
  type SortKey,
  type TenantContext,
} from '../../core';
import { sha256Hex } from '../../../engine/hash';
import { jobDoName, jobStub, outcomeOrThrow, unavailableTasks, type JobView } from '../../jobs';
import { canonicalJson, pipelineDefinition, secretNames, validatePipeline, type Pipeline } from '../../pipelines/language';
import { checkHopDepth, hopOfContext } from '../../jobs/hops';

const iso = (ms: number | null | undefined) => (ms == null ? null : new Date(ms).toISOString());

const ProjectItemInfo = z
  .object({
    itemId: z.union([z.string(), z.number()]).nullable(),
    name: z.string().nullable(),
    jobId: z.string().nullable(),
    quantity: z.number().int().nullable(),
    fields: z.record(z.string(), z.unknown()).nullable(),
    designIds: z.array(z.string()).max(20).nullable(),
  })
  .partial();

export const ProjectInfoDto = z
  .object({
    id: z.union([z.string(), z.number()]).nullable(),
    ownerId: z.string().nullable(),
    name: z.string().nullable(),
    orderId: z.string().nullable(),
    orderNumber: z.union([z.string(), z.number()]).nullable(),
    customerId: z.string().nullable(),
    customerName: z.string().nullable(),
    items: z.array(ProjectItemInfo).max(100).nullable(),
  })
  .partial()
  .openapi('ProjectInfoDto');

export const CreateRenderingJobDto = z
  .object({
    id: z.string().optional(),
    project: ProjectInfoDto.optional(),
    tasks: z.array(z.unknown()).openapi({ description: 'The pipeline tasks (docs/pipelines.md).' }),
  })
  .openapi('CreateRenderingJobDto');

const RenderingJobTaskDto = z
  .object({
    id: z.string(),
    name: z.string(),
    type: z.string(),
    status: z.string(),
    requested: z.string().nullable(),
    started: z.string().nullable(),
    finished: z.string().nullable(),
    autoRetryCount: z.number().int(),
    longExecution: z.boolean(),
    statusDescription: z.string().nullable(),
  })
  .passthrough()
  .openapi('RenderingJobTaskDto');

export const RenderingJobDto = z
  .object({
    id: z.string(),
    project: z.record(z.string(), z.unknown()).nullable(),
    tasks: z.array(RenderingJobTaskDto).optional(),
    status: z.enum(['New', 'InProgress', 'Completed', 'Failed', 'Recovered', 'Discarded']),
    statusDescription: z.string().nullable(),
    created: z.string(),
    started: z.string().nullable(),
    finished: z.string().nullable(),
    tenantId: z.number().int(),
    ownerId: z.string().nullable(),
    lastModified: z.string(),
  })
  .openapi('RenderingJobDto');
export type RenderingJob = z.infer<typeof RenderingJobDto>;

export const UpdateProjectOwnerDto = z
  .object({
    jobIds: z.array(z.string()).max(1000).optional(),
    ownerId: z.string().max(255),
    newOwnerId: z.string().min(1).max(255),
    updateAll: z.boolean().optional(),
  })
  .openapi('UpdateJobsProjectOwnerDto');

interface JobRowD1 {
  id: string;
  projectId: number | null;
  doName: string;
  status: RenderingJob['status'];
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

async function rowOf(t: TenantContext, id: string): Promise<JobRowD1 | null> {
  return t.env.DB.prepare(`SELECT ${COLUMNS} FROM jobs WHERE tenant_id = ?1 AND id = ?2`).bind(t.tenantId, id).first<JobRowD1>();
}

async function rowOr404(t: TenantContext, id: string): Promise<JobRowD1> {
  const row = isClientId(id) ? await rowOf(t, id) : null;
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

function dtoOf(t: TenantContext, row: JobRowD1, view: JobView | null): RenderingJob {
  const job = view?.job;
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
  const inserted = await t.env.DB.prepare(
    `INSERT INTO jobs (tenant_id, id, kind, do_name, status, owner_id, project_order_id, body_hash, created, last_activity, last_modified)
     VALUES (?1, ?2, 'standalone', ?3, 'New', ?4, ?5, ?6, ?7, ?7, ?7) ON CONFLICT (tenant_id, id) DO NOTHING`,
  )
    .bind(t.tenantId, id, doName, ownerId, orderId, hash, Date.now())
    .run();
  if (!inserted.meta.changes) {
    // Idempotent by id: the same canonical body is the same job.
    const existing = (await rowOf(t, id))!;
    if (existing.bodyHash !== hash) throw new ConflictError('IdConflict', `A job with the id ${id} already exists with another body.`, { id });
    return getJob(t, id);
  }
  const row = (await rowOf(t, id))!;
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

const SORT: Record<string, string> = { created: 'created', lastModified: 'last_modified', status: 'status', id: 'id' };

export async function listJobs(t: TenantContext, q: ListJobsInput): Promise<{ total: number; items: RenderingJob[] }> {
  const where = `tenant_id = ?1 AND (?2 IS NULL OR status = ?2) AND (?3 IS NULL OR project_id = ?3) AND (?4 IS NULL OR project_order_id = ?4)`;
  const projectId = q.projectId === undefined ? null : /^\d{1,15}$/.test(q.projectId) ? Number(q.projectId) : -1;
  const params = [t.tenantId, q.status ?? null, projectId, q.projectOrderId ?? null];
  const order = q.sorting.length ? q.sorting.map((s) => `${SORT[s.field]} ${s.direction}`).join(', ') : 'created DESC';
  const [count, rows] = await t.env.DB.batch([
    t.env.DB.prepare(`SELECT count(*) AS n FROM jobs WHERE ${where}`).bind(...params),
    t.env.DB.prepare(`SELECT ${COLUMNS} FROM jobs WHERE ${where} ORDER BY ${order}, id LIMIT ?5 OFFSET ?6`).bind(...params, q.take, q.skip),
  ]);
  const total = (count!.results[0] as { n: number }).n;
  const items = (rows!.results as unknown as JobRowD1[]).map((r) => {
    const { tasks: _tasks, ...dto } = dtoOf(t, r, null);
    return { ...dto, project: r.projectId != null || r.projectOrderId != null ? { id: r.projectId, orderId: r.projectOrderId } : null };
  });
  return { total, items };
}

export async function deleteJob(t: TenantContext, id: string): Promise<RenderingJob> {
  const dto = await getJob(t, id);
  const row = (await rowOf(t, dto.id))!;
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
  const select = `SELECT id FROM jobs WHERE tenant_id = ?1 AND coalesce(owner_id, '') = ?2 AND (?3 IS NULL OR id IN (SELECT value FROM json_each(?3)))`;
  const idList = ids ? JSON.stringify(ids) : null;
  const { results } = await t.env.DB.prepare(`${select}`).bind(t.tenantId, body.ownerId, idList).all<{ id: string }>();
  const moved = JSON.stringify(results.map((r) => r.id));
  await t.env.DB.batch([
    t.env.DB.prepare(
      `UPDATE artifacts SET owner_id = ?2, last_modified = ?4 WHERE tenant_id = ?1 AND type = 'Final' AND job_id IN (SELECT value FROM json_each(?3))`,
    ).bind(t.tenantId, body.newOwnerId, moved, Date.now()),
    t.env.DB.prepare(`UPDATE jobs SET owner_id = ?2, last_modified = ?4 WHERE tenant_id = ?1 AND id IN (SELECT value FROM json_each(?3))`).bind(
      t.tenantId, body.newOwnerId, moved, Date.now(),
    ),
  ]);
}
