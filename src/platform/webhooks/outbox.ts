/**
 * WebhookOutbox: one Durable Object per tenant (`webhooks:<tenantId>`) that owns the tenant's
 * deliveries in its SQLite storage and sends them from alarms (docs/webhooks.md).
 *
 * - `enqueue` writes one row per (event, endpoint) before it returns, so an event the caller has
 *   awaited is durable; the same event id enqueued again is ignored (a step redone after a crash).
 * - Each alarm is a small re-runnable unit: it takes at most BATCH due deliveries, counts the
 *   attempt and moves `next_at` to the next backoff step in storage *before* sending, so a restart
 *   mid-send retries later (at least once) instead of losing or spinning; then records the answer.
 * - Backoff: BACKOFF_MS after attempts 1, 2, … (5 s growing to 8 h; the last attempt a little
 *   over a day after the first); then the delivery is Failed. Every attempt of a delivery sends
 *   the same `webhook-id` (the event id) and body, with a fresh timestamp and signature.
 * - Sending goes through the outbound policy (`outboundFetch`: https, public hosts, no redirects,
 *   10 s); any 2xx is success.
 */
import { DurableObject } from 'cloudflare:workers';
import type { Env } from '../../env';
import { OutboundError, outboundFetch, platformOrigins } from '../../http/outbound';
import { signatures } from './signature';
import { DeliveryStore, type DeliveryRow, type DeliveryStatus } from './store/deliveries';
import { deliveryTarget } from './store/endpoints';

/** Waits after attempt n (index n-1); attempts = length + 1, the last ≈ 24.7 h after the first. */
export const BACKOFF_MS = [5e3, 30e3, 120e3, 600e3, 1800e3, 3600e3, 2 * 3600e3, 4 * 3600e3, 8 * 3600e3, 9 * 3600e3];
export const MAX_ATTEMPTS = BACKOFF_MS.length + 1;
/** The wait after attempt `n` (1-based). */
const backoff = (n: number) => BACKOFF_MS[Math.min(n - 1, BACKOFF_MS.length - 1)]!;
const BATCH = 10;
export const DELIVERY_TIMEOUT_MS = 10_000;
/** Deliveries kept in the log per endpoint (older finished ones are dropped). */
const LOG_KEEP = 500;

export type { DeliveryStatus };

export interface NewEvent {
  id: string;
  type: string;
  /** The exact JSON body every attempt sends. */
  body: string;
  endpointIds: string[];
}

export interface AttemptView {
  attempt: number;
  at: string;
  responseStatus: number | null;
  error: string | null;
  durationMs: number;
}

export interface DeliveryView {
  id: string;
  eventId: string;
  eventType: string;
  endpointId: string;
  status: DeliveryStatus;
  attempts: number;
  lastResponseStatus: number | null;
  lastError: string | null;
  nextAttempt: string | null;
  created: string;
  /** The JSON body every attempt sends. */
  body: string;
  attemptLog: AttemptView[];
}

export class WebhookOutbox extends DurableObject<Env> {
  private readonly store: DeliveryStore;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.store = new DeliveryStore(ctx.storage.sql);
  }

  /** Records the event for each endpoint (durably, before returning) and arms the alarm. */
  async enqueue(tenantId: number, event: NewEvent): Promise<number> {
    this.store.setTenant(tenantId);
    const now = Date.now();
    let added = 0;
    this.ctx.storage.transactionSync(() => {
      for (const endpointId of event.endpointIds) {
        const inserted = this.store.insertPending({ eventId: event.id, eventType: event.type, endpointId, body: event.body, maxAttempts: MAX_ATTEMPTS, now });
        added += inserted ? 1 : 0;
      }
    });
    if (added) await this.arm(now);
    return added;
  }

  override async alarm(): Promise<void> {
    const tenantId = Number(this.store.meta('tenantId'));
    const now = Date.now();
    const due = this.store.due(now, BATCH);
    // Count the attempt and schedule the next one first: a crash while sending retries later
    // (after the send's time limit, so an attempt in flight never overlaps the next one).
    this.ctx.storage.transactionSync(() => {
      for (const d of due) {
        const attempts = d.attempts + 1;
        this.store.countAttempt(d.id, attempts, now + DELIVERY_TIMEOUT_MS + backoff(attempts));
        d.attempts = attempts;
      }
    });
    await this.ctx.storage.sync();
    await Promise.all(due.map((d) => this.send(tenantId, d)));
    this.store.trim(LOG_KEEP);
    await this.arm();
  }

  /** The endpoint's deliveries, newest first, each with its attempts. */
  async deliveries(endpointId: string, limit = 50): Promise<DeliveryView[]> {
    return this.store.ofEndpoint(endpointId, limit).map((r) => this.view(r));
  }

  async delivery(endpointId: string, id: string): Promise<DeliveryView | null> {
    const r = this.store.find(endpointId, id);
    return r ? this.view(r) : null;
  }

  /** "Send again": the delivery becomes Pending now, with a fresh budget of attempts (same webhook-id). */
  async resend(endpointId: string, id: string): Promise<DeliveryView | null> {
    const r = this.store.find(endpointId, id);
    if (!r) return null;
    const now = Date.now();
    this.store.makePending(id, now, r.attempts + MAX_ATTEMPTS);
    await this.arm(now);
    return this.delivery(endpointId, id);
  }

  /** A deleted endpoint's pending deliveries are cancelled (kept in no log: the endpoint is gone). */
  async dropEndpoint(endpointId: string): Promise<void> {
    this.ctx.storage.transactionSync(() => this.store.deleteOfEndpoint(endpointId));
  }

  private async send(tenantId: number, d: DeliveryRow): Promise<void> {
    const started = Date.now();
    let status: number | null = null;
    let error: string | null = null;
    let result: DeliveryStatus | null = null;
    try {
      const target = await deliveryTarget(this.env, tenantId, d.endpoint_id);
      if (!target) {
        result = 'Cancelled';
        error = 'the endpoint was deleted';
      } else {
        const timestamp = Math.floor(Date.now() / 1000);
        const res = await outboundFetch(target.url, {
          env: this.env,
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'user-agent': 'personalisation-platform-webhooks/1',
            'webhook-id': d.event_id,
            'webhook-timestamp': String(timestamp),
            'webhook-signature': await signatures(target.secrets, d.event_id, timestamp, d.body),
          },
          body: d.body,
          timeoutMs: DELIVERY_TIMEOUT_MS,
          maxBytes: 64 * 1024,
          maxRedirects: 0,
          // Checked again at delivery: ISSUER or PUBLIC_BASE_URL may have changed since creation.
          refuseOrigins: platformOrigins(this.env),
        });
        status = res.status;
        result = 'Delivered';
      }
    } catch (e) {
      if (e instanceof OutboundError) {
        status = e.upstreamStatus ?? null;
        error = e.upstreamStatus ? `HTTP ${e.upstreamStatus}` : e.message;
        if (e.refused) result = 'Failed'; // the URL is not allowed: retrying cannot help
      } else error = e instanceof Error ? e.message : String(e);
    }
    const final = result ?? (d.attempts >= d.max_attempts ? 'Failed' : 'Pending');
    this.ctx.storage.transactionSync(() =>
      this.store.recordAttempt(
        { id: d.id, attempt: d.attempts },
        { started, status, error, durationMs: Date.now() - started },
        { status: final, nextAt: final === 'Pending' ? Date.now() + backoff(d.attempts) : null },
      ),
    );
  }

  /** The alarm at the earliest due delivery (or `at` when earlier); none when nothing is pending. */
  private async arm(at?: number): Promise<void> {
    const next = this.store.nextDue();
    const when = next === null ? at : Math.min(next, at ?? Infinity);
    if (when === undefined || when === null) return;
    const current = await this.ctx.storage.getAlarm();
    if (current === null || current > when) await this.ctx.storage.setAlarm(when);
  }

  private view(r: DeliveryRow): DeliveryView {
    const attempts = this.store.attemptsOf(r.id);
    return {
      id: r.id,
      eventId: r.event_id,
      eventType: r.event_type,
      endpointId: r.endpoint_id,
      status: r.status,
      attempts: r.attempts,
      lastResponseStatus: r.last_status,
      lastError: r.last_error,
      nextAttempt: r.status === 'Pending' && r.next_at !== null ? new Date(r.next_at).toISOString() : null,
      created: new Date(r.created).toISOString(),
      body: r.body,
      attemptLog: attempts.map((a) => ({ attempt: a.n, at: new Date(a.at).toISOString(), responseStatus: a.status, error: a.error, durationMs: a.duration })),
    };
  }
}
