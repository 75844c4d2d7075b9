// Webhooks (docs/webhooks.md): endpoints through the back-office API, Standard Webhooks delivery
// from the tenant's WebhookOutbox (signatures checked with the `standardwebhooks` package, not our
// own code), retries after 500s and timeouts with one webhook-id, rotation with two valid secrets,
// no event lost when the object restarts, the delivery log and "send again".
import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { Webhook } from 'standardwebhooks';
import { beforeAll, describe, expect, it } from 'vitest';
import { ValidationError, type TenantContext } from '../../../src/platform/core';
import { emit, outboxStub } from '../../../src/platform/webhooks/events';
import { createWebhook, deleteWebhook } from '../../../src/platform/webhooks/service';
import { BACKOFF_MS, DELIVERY_TIMEOUT_MS, MAX_ATTEMPTS, type WebhookOutbox } from '../../../src/platform/webhooks/outbox';
import { fixtureServer } from '../../helpers/fixtures';
import { api, apiJson, seedPlatform, tenantToken } from '../../helpers/platform';

const HOOKS = '/api/backoffice/v1/webhooks';

interface Received { headers: Record<string, string>; body: string; at: number; answered: number }
/** What the receiver `key` got for the event `id` (other test files' events reach tenant 1's endpoints too). */
const received = async (key: string, id: string | null) =>
  ((await (await fetch(`${fixtureServer()}/webhook-receiver/${key}/__deliveries`)).json()) as Received[]).filter((r) => r.headers['webhook-id'] === id);
const receiver = (key: string, query = '') => `${fixtureServer()}/webhook-receiver/${key}${query}`;

async function createHook(key: string, events: string[], query = ''): Promise<{ id: string; secret: string }> {
  return apiJson('POST', HOOKS, { url: receiver(key, query), events }, { token: 1 }, 201);
}

const outbox = () => outboxStub(env, 1) as unknown as DurableObjectStub<WebhookOutbox>;
const sql = <T>(query: string, ...params: unknown[]) =>
  runInDurableObject(outbox(), (_i, state) => state.storage.sql.exec(query, ...params).toArray() as unknown as T[]);
type DeliveryRow = { status: string; attempts: number; next_at: number | null; last_status: number | null; last_error: string | null };
const rowOf = async (eventId: string | null, endpointId: string) =>
  (await sql<DeliveryRow>(`SELECT status, attempts, next_at, last_status, last_error FROM deliveries WHERE event_id = ? AND endpoint_id = ?`, eventId, endpointId))[0];
const loggedAttempts = async (eventId: string | null, endpointId: string) =>
  (await sql<{ n: number }>(`SELECT COUNT(*) AS n FROM attempts a JOIN deliveries d ON d.id = a.delivery_id WHERE d.event_id = ? AND d.endpoint_id = ?`, eventId, endpointId))[0]!.n;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Waits for attempt `n` of a delivery to be over (logged), making it due now when it is still
 * waiting for its backoff (the backoff itself is checked separately). Alarms also fire by
 * themselves in the test runtime, so this waits for the state, not for one alarm call.
 */
async function attempt(eventId: string | null, endpointId: string, n: number, done?: (row: DeliveryRow) => boolean, timeoutMs = 20_000): Promise<DeliveryRow> {
  const until = Date.now() + timeoutMs;
  let row: DeliveryRow | undefined;
  while (Date.now() < until) {
    row = (await rowOf(eventId, endpointId))!;
    if (done ? done(row) : (await loggedAttempts(eventId, endpointId)) >= n) {
      // Read again: the object's own alarm may have run between the two reads above, and the
      // attempt is logged in the same transaction that updates the row.
      return done ? row : (await rowOf(eventId, endpointId))!;
    }
    if (row.status === 'Pending' && row.attempts < n && row.next_at! > Date.now()) {
      await sql(`UPDATE deliveries SET next_at = ? WHERE event_id = ? AND endpoint_id = ?`, Date.now() - 1, eventId, endpointId);
      await runInDurableObject(outbox(), (_i, state) => state.storage.setAlarm(Date.now()));
    }
    await runDurableObjectAlarm(outbox()).catch(() => {});
    await sleep(25);
  }
  throw new Error(`attempt ${n} of ${eventId} to ${endpointId} not over within ${timeoutMs} ms: ${JSON.stringify(row)}, ${await loggedAttempts(eventId, endpointId)} logged`);
}

const verify = (secret: string, r: Received) => new Webhook(secret).verify(r.body, r.headers);

beforeAll(async () => {
  await seedPlatform();
});

describe('webhook endpoints (back office)', () => {
  it('creates an endpoint and shows its whsec_ secret only once; lists, reads, changes and deletes it', async () => {
    const created = await apiJson('POST', HOOKS, { url: receiver('crud'), events: ['job.completed', 'project.created'], description: 'ERP' }, { token: 1 }, 201);
    expect(created).toMatchObject({ id: expect.stringMatching(/^ep_[0-9a-f]{24}$/), url: receiver('crud'), events: ['job.completed', 'project.created'], description: 'ERP' });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    const list = await apiJson('GET', HOOKS, undefined, { token: 1 });
    expect(list.items.find((h: { id: string }) => h.id === created.id)).toBeDefined();
    expect(JSON.stringify(list)).not.toContain(created.secret);
    const one = await apiJson('GET', `${HOOKS}/${created.id}`, undefined, { token: 1 });
    expect(one).not.toHaveProperty('secret');
    const changed = await apiJson('PUT', `${HOOKS}/${created.id}`, { events: ['job.failed'] }, { token: 1 });
    expect(changed).toMatchObject({ events: ['job.failed'], url: receiver('crud'), description: 'ERP' });
    await apiJson('DELETE', `${HOOKS}/${created.id}`, undefined, { token: 1 });
    expect((await api('GET', `${HOOKS}/${created.id}`, undefined, { token: 1 })).status).toBe(404);
  });

  it('refuses URLs the outbound policy refuses, unknown events and repeated events (400, naming the field)', async () => {
    const bad = async (body: unknown) => {
      const res = await api('POST', HOOKS, body, { token: 1 });
      expect(res.status).toBe(400);
      return JSON.stringify(await res.json());
    };
    expect(await bad({ url: 'ftp://example.com/x', events: ['job.failed'] })).toMatch(/url/);
    expect(await bad({ url: 'https://10.0.0.7/hook', events: ['job.failed'] })).toMatch(/internal/);
    expect(await bad({ url: 'https://example.com/hook', events: ['job.exploded'] })).toMatch(/events/);
    expect(await bad({ url: 'https://example.com/hook', events: [] })).toMatch(/events/);
    expect(await bad({ url: 'https://example.com/hook', events: ['job.failed', 'job.failed'] })).toMatch(/once/);
  });

  it("refuses the platform's own origin (an endpoint creating projects would feed its own events back)", async () => {
    const own = new URL(fixtureServer()).origin;
    const t = { tenantId: 1, env: { ...env, PUBLIC_BASE_URL: own }, baseUrl: own } as unknown as TenantContext;
    await expect(createWebhook(t, { url: `${own}/webhook-receiver/self`, events: ['project.created'] })).rejects.toThrow(ValidationError);
    // Another port of the same host stays allowed.
    const other = await createWebhook(t, { url: receiver('other-port').replace(own, 'http://127.0.0.1:9'), events: ['project.created'] });
    await deleteWebhook(t, other.id);
  });

  it('needs the tenant settings scopes: Storefronts_read to read, Storefronts_full to change', async () => {
    const projects = await tenantToken(1, 'Projects_full');
    expect((await api('GET', HOOKS, undefined, { token: projects })).status).toBe(403);
    const reader = await tenantToken(1, 'Storefronts_read');
    expect((await api('GET', HOOKS, undefined, { token: reader })).status).toBe(200);
    expect((await api('POST', HOOKS, { url: 'https://example.com/h', events: ['job.failed'] }, { token: reader })).status).toBe(403);
  });

  it('answers 404 for ids that name nothing', async () => {
    expect((await api('GET', `${HOOKS}/ep_000000000000000000000000`, undefined, { token: 1 })).status).toBe(404);
    expect((await api('GET', `${HOOKS}/nope/deliveries`, undefined, { token: 1 })).status).toBe(404);
    const h = await createHook('404', ['job.failed']);
    expect((await api('POST', `${HOOKS}/${h.id}/deliveries/dlv_x/resend`, undefined, { token: 1 })).status).toBe(404);
  });
});

describe('delivery (Standard Webhooks)', () => {
  it('signs with the whsec_ secret: the standardwebhooks package verifies id, timestamp and body', async () => {
    const h = await createHook('signed', ['asset.import.failed']);
    const id = await emit(env, 1, 'asset.import.failed', { sourceUrl: 'https://example.com/a.psd', reason: 'HTTP 404' });
    expect(id).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(await attempt(id, h.id, 1)).toMatchObject({ status: 'Delivered', attempts: 1, last_status: 204 });
    const [r] = await received('signed', id);
    expect(r!.headers['webhook-id']).toBe(id);
    expect(r!.headers['webhook-timestamp']).toMatch(/^\d{10}$/);
    expect(r!.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(r!.headers['content-type']).toBe('application/json');
    expect(verify(h.secret, r!)).toMatchObject({ type: 'asset.import.failed', data: { tenantId: 1, reason: 'HTTP 404' } });
    expect(() => verify(`whsec_${btoa('x'.repeat(24))}`, r!)).toThrow();
  });

  it('sends only to endpoints subscribed to the event; none subscribed → nothing recorded', async () => {
    await createHook('other-event', ['project.created']);
    expect(await emit(env, 2, 'job.completed', { jobId: 'x' })).toBeNull();
  });

  it('retries after 500s with backoff, the same webhook-id every time, and logs each attempt', async () => {
    const h = await createHook('flaky', ['job.failed'], '?fail=2');
    const id = await emit(env, 1, 'job.failed', { jobId: 'j-flaky' });
    let row = await attempt(id, h.id, 1);
    // After attempt 1 the delivery waits BACKOFF_MS[0] (5 s), after attempt 2 BACKOFF_MS[1] (30 s).
    expect(row).toMatchObject({ attempts: 1, status: 'Pending', last_status: 500, last_error: 'HTTP 500' });
    expect(row.next_at! - Date.now()).toBeGreaterThan(BACKOFF_MS[0]! - 3000);
    expect(row.next_at! - Date.now()).toBeLessThanOrEqual(BACKOFF_MS[0]!);
    row = await attempt(id, h.id, 2);
    expect(row).toMatchObject({ attempts: 2, status: 'Pending', last_status: 500 });
    expect(row.next_at! - Date.now()).toBeGreaterThan(BACKOFF_MS[1]! - 3000);
    expect(await attempt(id, h.id, 3)).toMatchObject({ attempts: 3, status: 'Delivered', last_status: 204 });
    const got = await received('flaky', id);
    expect(got.map((r) => r.answered)).toEqual([500, 500, 204]);
    expect(new Set(got.map((r) => r.headers['webhook-id']))).toEqual(new Set([id]));
    for (const r of got) expect(verify(h.secret, r)).toMatchObject({ type: 'job.failed' });
    const log = await apiJson('GET', `${HOOKS}/${h.id}/deliveries`, undefined, { token: 1 });
    expect(log.items[0]).toMatchObject({ eventId: id, eventType: 'job.failed', status: 'Delivered', attempts: 3, lastResponseStatus: 204, payload: { type: 'job.failed' } });
    expect(log.items[0].attemptLog.map((a: { responseStatus: number }) => a.responseStatus)).toEqual([500, 500, 204]);
  });

  it('a receiver that does not answer in time counts as a failed attempt, retried later', async () => {
    // An event no other test file raises for tenant 1: the receiver's first call must be ours.
    const h = await createHook('slow', ['project.processing.failed'], '?hang=1&hangMs=15000');
    const id = await emit(env, 1, 'project.processing.failed', { projectId: 0, jobId: 'j-slow' });
    const started = Date.now();
    const row = await attempt(id, h.id, 1);
    expect(Date.now() - started).toBeLessThan(14_000);
    expect(row).toMatchObject({ status: 'Pending', attempts: 1, last_status: null, last_error: expect.stringMatching(/no complete answer within 10 s/) });
    expect(await attempt(id, h.id, 2)).toMatchObject({ status: 'Delivered', attempts: 2 });
    const got = await received('slow', id);
    expect(got.map((r) => r.answered)).toEqual([0, 204]);
    expect(got[1]!.headers['webhook-id']).toBe(id);
  }, 40_000);

  it('gives up after the last attempt of the schedule (a little over a day): Failed', async () => {
    expect(MAX_ATTEMPTS).toBe(BACKOFF_MS.length + 1);
    const total = BACKOFF_MS.reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThanOrEqual(24 * 3600e3);
    expect(total).toBeLessThan(26 * 3600e3);
    // Exponential: each wait at least the one before.
    BACKOFF_MS.slice(1).forEach((w, i) => expect(w).toBeGreaterThanOrEqual(BACKOFF_MS[i]!));
    const h = await createHook('dead', ['project.status-changed'], '?fail=1000');
    const id = await emit(env, 1, 'project.status-changed', { projectId: 1, status: 2 });
    let row: DeliveryRow | undefined;
    for (let i = 1; i <= MAX_ATTEMPTS; i++) row = await attempt(id, h.id, i);
    expect(row).toMatchObject({ status: 'Failed', attempts: MAX_ATTEMPTS, next_at: null });
    expect(await received('dead', id)).toHaveLength(MAX_ATTEMPTS);
  });

  it('after a rotation signs with both secrets for a while; each verifies on its own', async () => {
    const h = await createHook('rotate', ['job.completed']);
    const rotated = await apiJson('POST', `${HOOKS}/${h.id}/rotate-secret`, undefined, { token: 1 });
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(h.secret);
    expect(Date.parse(rotated.previousSecretValidUntil) - Date.now()).toBeGreaterThan(23.9 * 3600e3);
    const first = await emit(env, 1, 'job.completed', { jobId: 'j-rot' });
    await attempt(first, h.id, 1);
    const [r] = await received('rotate', first);
    expect(r!.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(verify(rotated.secret, r!)).toMatchObject({ type: 'job.completed' });
    expect(verify(h.secret, r!)).toMatchObject({ type: 'job.completed' });
    // Once the overlap is over, only the new secret signs.
    await env.DB.prepare(`UPDATE webhook_endpoints SET previous_expires = 1 WHERE tenant_id = 1 AND id = ?1`).bind(h.id).run();
    const second = await emit(env, 1, 'job.completed', { jobId: 'j-rot2' });
    await attempt(second, h.id, 1);
    const r2 = (await received('rotate', second))[0]!;
    expect(r2.headers['webhook-signature']!.split(' ')).toHaveLength(1);
    expect(verify(rotated.secret, r2)).toMatchObject({ data: { jobId: 'j-rot2' } });
    expect(() => verify(h.secret, r2)).toThrow();
  });

  it('no event is lost when the object restarts between the event and its delivery', async () => {
    const h = await createHook('restart', ['job.completed']);
    const id = await emit(env, 1, 'job.completed', { jobId: 'j-restart' });
    // The object is reset before its alarm runs: its storage keeps the event.
    await runInDurableObject(outbox(), (_i, state) => state.abort('test restart')).catch(() => {});
    expect(await rowOf(id, h.id)).toMatchObject({ status: expect.stringMatching(/Pending|Delivered/) });
    await attempt(id, h.id, 1);
    const got = await received('restart', id);
    expect(got).toHaveLength(1);
    expect(verify(h.secret, got[0]!)).toMatchObject({ data: { jobId: 'j-restart' } });
    expect(got[0]!.headers['webhook-id']).toBe(id);
  });

  it('a restart in the middle of a send retries later with the same webhook-id (at least once)', async () => {
    const h = await createHook('mid-send', ['project.processing.failed'], '?hang=1&hangMs=4000');
    const id = await emit(env, 1, 'project.processing.failed', { projectId: 0, jobId: 'j-mid' });
    // Wait until the first request is at the receiver (and hangs there), then reset the object.
    for (let i = 0; i < 200 && (await received('mid-send', id)).length === 0; i++) {
      await runDurableObjectAlarm(outbox()).catch(() => {});
      await sleep(25);
    }
    await runInDurableObject(outbox(), (_i, state) => state.abort('test restart')).catch(() => {});
    const row = (await rowOf(id, h.id))!;
    // The attempt was counted before the send, its next one scheduled: nothing is lost or redone at once.
    expect(row).toMatchObject({ status: 'Pending', attempts: 1 });
    expect(row.next_at! - Date.now()).toBeGreaterThan(DELIVERY_TIMEOUT_MS);
    expect(await attempt(id, h.id, 2, (r) => r.status === 'Delivered')).toMatchObject({ status: 'Delivered', attempts: 2 });
    const got = await received('mid-send', id);
    expect(got.map((r) => r.headers['webhook-id'])).toEqual([id, id]);
  });

  it('the same event id emitted twice (a redone step) is delivered once', async () => {
    const h = await createHook('dedupe', ['project.created']);
    const a = await emit(env, 1, 'project.created', { projectId: 77 }, '77');
    const b = await emit(env, 1, 'project.created', { projectId: 77 }, '77');
    expect(a).toBe(b);
    await attempt(a, h.id, 1);
    expect(await sql(`SELECT id FROM deliveries WHERE event_id = ? AND endpoint_id = ?`, a, h.id)).toHaveLength(1);
    expect(await received('dedupe', a)).toHaveLength(1);
  });

  it('"send again" delivers a delivered event once more with its webhook-id', async () => {
    const h = await createHook('resend', ['job.failed']);
    const id = await emit(env, 1, 'job.failed', { jobId: 'j-resend' });
    await attempt(id, h.id, 1);
    const log = await apiJson('GET', `${HOOKS}/${h.id}/deliveries`, undefined, { token: 1 });
    const again = await apiJson('POST', `${HOOKS}/${h.id}/deliveries/${log.items[0].id}/resend`, undefined, { token: 1 });
    expect(again).toMatchObject({ status: 'Pending', eventId: id });
    expect(await attempt(id, h.id, 2)).toMatchObject({ status: 'Delivered', attempts: 2 });
    const got = await received('resend', id);
    expect(got.map((r) => r.headers['webhook-id'])).toEqual([id, id]);
    expect(verify(h.secret, got[1]!)).toMatchObject({ data: { jobId: 'j-resend' } });
  });

  it('deleting an endpoint drops its pending deliveries', async () => {
    const h = await createHook('deleted', ['job.failed'], '?fail=5');
    const id = await emit(env, 1, 'job.failed', { jobId: 'j-del' });
    await attempt(id, h.id, 1);
    await apiJson('DELETE', `${HOOKS}/${h.id}`, undefined, { token: 1 });
    expect(await sql(`SELECT id FROM deliveries WHERE endpoint_id = ?`, h.id)).toEqual([]);
  });
});
