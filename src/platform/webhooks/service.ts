/**
 * Webhook endpoints of a tenant (back office): create (the secret is shown once), read, change,
 * delete, rotate the secret (the old one stays valid for ROTATION_OVERLAP_MS), the delivery log
 * and "send again". No HTTP here: takes the tenant context, throws the core's errors.
 */
import { checkOutboundUrl, OutboundError, platformOrigins } from '../../http/outbound';
import { NotFoundError, UnprocessableError, ValidationError, type TenantContext } from '../core';
import { outboxStub } from './events';
import type { DeliveryView } from './outbox';
import { newSecret } from './signature';
import * as store from './store/endpoints';

/** How long the secret before a rotation still signs deliveries. */
export const ROTATION_OVERLAP_MS = 24 * 3600_000;
/** Endpoints per tenant. */
export const MAX_ENDPOINTS = 20;

const ID = /^ep_[0-9a-f]{24}$/;

export function webhookDto(r: store.EndpointRow) {
  return { id: r.id, url: r.url, events: r.events, description: r.description, created: new Date(r.created).toISOString(), lastModified: new Date(r.lastModified).toISOString() };
}

/**
 * The URL as the outbound policy accepts it (https, a public host, not the platform's own origin:
 * an endpoint that creates projects would otherwise feed its own events back), or 400 naming why.
 */
function checkedUrl(t: TenantContext, url: string): string {
  try {
    return checkOutboundUrl(url, t.env, undefined, platformOrigins(t.env)).href;
  } catch (e) {
    throw new ValidationError({ url: [e instanceof OutboundError ? e.message : 'not a valid URL.'] });
  }
}

async function endpointOr404(t: TenantContext, id: string): Promise<store.EndpointRow> {
  const row = ID.test(id) ? await store.getEndpoint(t.env.DB, t.tenantId, id) : null;
  if (!row) throw new NotFoundError(`No webhook ${id}.`);
  return row;
}

export async function createWebhook(t: TenantContext, input: { url: string; events: string[]; description?: string | null }) {
  const url = checkedUrl(t, input.url);
  if ((await store.countEndpoints(t.env.DB, t.tenantId)) >= MAX_ENDPOINTS) throw new UnprocessableError(`A tenant has at most ${MAX_ENDPOINTS} webhooks.`);
  const secret = newSecret();
  const id = `ep_${[...crypto.getRandomValues(new Uint8Array(12))].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
  const row = await store.insertEndpoint(t.env, { tenantId: t.tenantId, id, url, events: input.events, description: input.description ?? null }, secret);
  return { ...webhookDto(row), secret };
}

export async function listWebhooks(t: TenantContext) {
  const items = (await store.listEndpoints(t.env.DB, t.tenantId)).map(webhookDto);
  return { total: items.length, items };
}

export async function getWebhook(t: TenantContext, id: string) {
  return webhookDto(await endpointOr404(t, id));
}

export async function updateWebhook(t: TenantContext, id: string, input: { url?: string; events?: string[]; description?: string | null }) {
  const row = await endpointOr404(t, id);
  const change = {
    url: input.url === undefined ? row.url : checkedUrl(t, input.url),
    events: input.events ?? row.events,
    description: input.description === undefined ? row.description : input.description,
  };
  if (!(await store.updateEndpoint(t.env.DB, t.tenantId, id, change))) throw new NotFoundError(`No webhook ${id}.`);
  return webhookDto((await store.getEndpoint(t.env.DB, t.tenantId, id))!);
}

/** Deletes the endpoint and its delivery log (pending deliveries are not sent). */
export async function deleteWebhook(t: TenantContext, id: string) {
  const row = await endpointOr404(t, id);
  await store.deleteEndpoint(t.env.DB, t.tenantId, id);
  await outboxStub(t.env, t.tenantId).dropEndpoint(id);
  return webhookDto(row);
}

export async function rotateWebhookSecret(t: TenantContext, id: string) {
  await endpointOr404(t, id);
  const secret = newSecret();
  const until = Date.now() + ROTATION_OVERLAP_MS;
  if (!(await store.rotateSecret(t.env, t.tenantId, id, secret, until))) throw new NotFoundError(`No webhook ${id}.`);
  return { secret, previousSecretValidUntil: new Date(until).toISOString() };
}

/** A delivery as the API shows it: the body parsed back into `payload`. */
export function deliveryDto({ body, ...d }: DeliveryView) {
  let payload: unknown = body;
  try {
    payload = JSON.parse(body);
  } catch {
    // kept as text
  }
  return { ...d, payload };
}

export async function listDeliveries(t: TenantContext, id: string, take = 50) {
  await endpointOr404(t, id);
  const items: DeliveryView[] = await outboxStub(t.env, t.tenantId).deliveries(id, take);
  return { total: items.length, items: items.map(deliveryDto) };
}

export async function resendDelivery(t: TenantContext, id: string, deliveryId: string) {
  await endpointOr404(t, id);
  const d: DeliveryView | null = /^dlv_[0-9a-f]{32}$/.test(deliveryId) ? await outboxStub(t.env, t.tenantId).resend(id, deliveryId) : null;
  if (!d) throw new NotFoundError(`No delivery ${deliveryId} of webhook ${id}.`);
  return deliveryDto(d);
}
