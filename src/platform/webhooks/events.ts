/**
 * The events a tenant's webhook endpoints can subscribe to, and `emit`, the one call the code
 * that produces an event makes (docs/webhooks.md).
 *
 * `emit` looks up the subscribed endpoints (one D1 query; nothing more when there are none) and
 * writes the event into the tenant's WebhookOutbox before it returns: once awaited, the event is
 * durable and will be delivered even if this Worker stops right after. Callers await it before
 * they answer or commit the step that produced the event. An event with a `key` (e.g. a job and
 * its run) gets an id derived from it, so a step redone after a crash emits the same event id
 * and the outbox keeps one copy.
 *
 * @example
 * await emit(env, tenantId, 'project.created', { projectId: 42 }, `project.created:42`);
 */
import type { Env } from '../../env';
import type { NewEvent } from './outbox';
import { subscribedEndpoints } from './store/endpoints';

export const EVENT_TYPES = [
  'project.created',
  'project.status-changed',
  'project.processing.completed',
  'project.processing.failed',
  'job.completed',
  'job.failed',
  'asset.import.failed',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const outboxStub = (env: Env, tenantId: number) => env.WEBHOOK_OUTBOX.get(env.WEBHOOK_OUTBOX.idFromName(`webhooks:${tenantId}`));

async function idFor(key: string | undefined): Promise<string> {
  if (!key) return `msg_${crypto.randomUUID().replace(/-/g, '')}`;
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(key)));
  return `msg_${[...digest.subarray(0, 16)].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
}

/**
 * Records `type` with `data` for every endpoint of the tenant subscribed to it. The body is the
 * Standard Webhooks shape `{type, timestamp, data}`; `key` makes the event id deterministic.
 */
export async function emit(env: Env, tenantId: number, type: EventType, data: Record<string, unknown>, key?: string): Promise<string | null> {
  const endpointIds = await subscribedEndpoints(env.DB, tenantId, type);
  if (!endpointIds.length) return null;
  const id = await idFor(key ? `${tenantId}:${type}:${key}` : undefined);
  const event: NewEvent = { id, type, body: JSON.stringify({ type, timestamp: new Date().toISOString(), data: { tenantId, ...data } }), endpointIds };
  await outboxStub(env, tenantId).enqueue(tenantId, event);
  return id;
}

/** The job statuses the runner settles on (a subset of JobStatus). */
type Settled = 'Completed' | 'Failed';

/**
 * The events of a job that has just settled: `job.completed` / `job.failed`, and for project
 * jobs, when every current job of the project has settled, `project.processing.completed` /
 * `.failed`. `others` are the statuses of the object's other jobs. Keys carry the job and run,
 * so the runner may call this again when it redoes the step.
 */
export async function emitJobSettled(
  env: Env,
  job: { id: string; tenantId: number; projectId: number | null; itemId?: number | null; run: number; kind?: string },
  status: Settled,
  others: string[],
  description?: string | null,
): Promise<void> {
  const data = { jobId: job.id, projectId: job.projectId, itemId: job.itemId ?? null, status, ...(description ? { statusDescription: description } : {}) };
  await emit(env, job.tenantId, status === 'Completed' ? 'job.completed' : 'job.failed', data, `${job.id}:${job.run}`);
  if (job.projectId == null || job.kind === 'standalone') return;
  const current = [...others.filter((s) => s !== 'Discarded'), status];
  const processing = current.includes('Failed') ? 'Failed' : current.every((s) => s === 'Completed') ? 'Completed' : null;
  if (!processing) return;
  await emit(
    env,
    job.tenantId,
    processing === 'Completed' ? 'project.processing.completed' : 'project.processing.failed',
    { projectId: job.projectId, processingStatus: processing, jobId: job.id },
    `${job.projectId}:${job.id}:${job.run}`,
  );
}
