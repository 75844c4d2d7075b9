/**
 * export-to-order-desk and change-group-in-order-desk: the Order Desk API v2
 * (apidocs.orderdesk.com) with the store's `ORDERDESK-STORE-ID` / `ORDERDESK-API-KEY` headers.
 *
 * - The order: `orderLookupType` SourceId (default) and ProjectName search `GET orders?source_id=`
 *   (the cart's order number, or its alphanumeric order name, is what Order Desk keeps as
 *   `source_id`); OrderDeskId reads `GET orders/{id}`. The value is `orderLookupId`, else the
 *   project's order id (SourceId) or name (ProjectName). No order fails the task, unless
 *   `skipMissingOrders`, which completes it doing nothing.
 * - export: the item whose metadata (or own field: id, code, name) `orderItemLookupName` equals
 *   `orderItemLookupValue` (the only item when neither is given) gets `data` merged into its
 *   metadata through `PUT orders/{id}/order-items/{itemId}`; Order Desk's PUT replaces the item, so
 *   the whole item is sent back. Writing the same keys again is harmless: a redone unit is safe.
 * - change-group: `POST move-orders {order_id, destination_folder_name}`.
 * - 429: waits the server's Retry-After in the unit when short (≤ 10 s, 3 times), else a
 *   TransientFailure (the runner retries with backoff). 5xx and network errors are transient too;
 *   other answers fail the task with Order Desk's own `message`.
 *
 * Calls pass the outbound policy's URL check (`checkOutboundUrl`: https, public hosts) and never
 * follow redirects (an API answer that redirects is an error), with a time and size limit; the
 * shared `outboundFetch` is not used because it hides non-2xx answers, and Order Desk's 404, 429
 * (Retry-After) and error messages are what this task acts on.
 */
import { HOP_HEADER, checkOutboundUrl } from '../../../http/outbound';
import { readAll } from '../../../http/read-limited';
import { TaskFailure, TransientFailure } from './errors';
import type { TaskModule, UnitContext } from './types';

interface OrderDeskItem {
  id: string | number;
  name?: string;
  code?: string;
  metadata?: Record<string, unknown> | unknown[];
  [field: string]: unknown;
}
interface OrderDeskOrder {
  id: string | number;
  source_id?: string;
  folder_id?: number;
  order_items?: OrderDeskItem[];
}

interface Lookup {
  storeUrl: string;
  storeId: string;
  storeApiKey: string;
  orderLookupId?: string;
  orderLookupType: 'SourceId' | 'ProjectName' | 'OrderDeskId';
  skipMissingOrders: boolean;
}

const MAX_ANSWER = 5 << 20;
const CALL_TIMEOUT_MS = 30_000;
/** Longest Retry-After waited inside the unit, and how often. */
const IN_UNIT_WAIT_MS = 10_000;
const IN_UNIT_WAITS = 3;

export class OrderDeskClient {
  private readonly base: URL;
  constructor(
    private readonly ctx: Pick<UnitContext, 'env' | 'signal' | 'outbound'>,
    private readonly p: Pick<Lookup, 'storeUrl' | 'storeId' | 'storeApiKey'>,
  ) {
    const base = p.storeUrl.endsWith('/') ? p.storeUrl : `${p.storeUrl}/`;
    try {
      this.base = checkOutboundUrl(base, ctx.env, undefined, ctx.outbound.refuseOrigins);
    } catch (e) {
      throw new TaskFailure(`storeUrl: ${(e as Error).message}`);
    }
    if (/[\r\n\0]/.test(p.storeId) || /[\r\n\0]/.test(p.storeApiKey)) throw new TaskFailure('storeId and storeApiKey must not contain line breaks');
  }

  /** One API call: the parsed JSON answer and its status; 429/5xx/network handled as above. */
  async call(method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
    const url = new URL(path, this.base);
    for (let waits = 0; ; waits++) {
      let res: Response;
      try {
        res = await fetch(url, {
          method,
          redirect: 'manual',
          signal: AbortSignal.any([this.ctx.signal, AbortSignal.timeout(CALL_TIMEOUT_MS)]),
          headers: {
            'ORDERDESK-STORE-ID': this.p.storeId,
            'ORDERDESK-API-KEY': this.p.storeApiKey,
            'content-type': 'application/json',
            accept: 'application/json',
            [HOP_HEADER]: String(this.ctx.outbound.hop),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      } catch (e) {
        if (this.ctx.signal.aborted) throw e;
        throw new TransientFailure(`Order Desk (${url.host}) did not answer: ${(e as Error).name === 'TimeoutError' ? 'timed out' : 'connection failed'}`);
      }
      if (res.status === 429) {
        await res.body?.cancel().catch(() => {});
        const delay = retryAfterMs(res.headers.get('retry-after'));
        if (delay <= IN_UNIT_WAIT_MS && waits < IN_UNIT_WAITS) {
          await sleep(delay, this.ctx.signal);
          continue;
        }
        throw new TransientFailure(`Order Desk rate limit (429): retry after ${Math.ceil(delay / 1000)} s`);
      }
      if (res.status >= 300 && res.status < 400) {
        await res.body?.cancel().catch(() => {});
        throw new TaskFailure(`Order Desk answered a redirect (HTTP ${res.status}); storeUrl must be the API address, e.g. https://app.orderdesk.me/api/v2/`);
      }
      const bytes = await readAll(res.body ?? new Response('').body!, MAX_ANSWER, () => new TransientFailure('Order Desk answer too large'), 'cancel', Number(res.headers.get('content-length') ?? 0));
      let json: Record<string, unknown> = {};
      try {
        const parsed = bytes.length ? JSON.parse(new TextDecoder().decode(bytes)) : {};
        if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) json = parsed;
      } catch {
        if (res.ok) throw new TransientFailure(`Order Desk answered HTTP ${res.status} with no JSON`);
      }
      if (res.status >= 500) throw new TransientFailure(`Order Desk answered HTTP ${res.status}`);
      return { status: res.status, json };
    }
  }

  /** The order, or null when Order Desk has none by that id. */
  async findOrder(type: Lookup['orderLookupType'], id: string): Promise<OrderDeskOrder | null> {
    if (type === 'OrderDeskId') {
      if (!/^\d+$/.test(id)) throw new TaskFailure(`orderLookupId: an Order Desk order id is a number, got ${JSON.stringify(id)}`);
      const { status, json } = await this.call('GET', `orders/${id}`);
      if (status === 404) return null;
      failUnlessOk(status, json, 'reading the order');
      return (json.order as OrderDeskOrder) ?? null;
    }
    const { status, json } = await this.call('GET', `orders?${new URLSearchParams({ source_id: id, limit: '2' })}`);
    if (status === 404) return null;
    failUnlessOk(status, json, 'searching the order');
    const orders = Array.isArray(json.orders) ? (json.orders as OrderDeskOrder[]) : [];
    // The search may match loosely: keep exact source ids only.
    const exact = orders.filter((o) => String(o.source_id ?? '') === id);
    if (exact.length > 1) throw new TaskFailure(`Order Desk has ${exact.length} orders with source id ${JSON.stringify(id)}`);
    return exact[0] ?? null;
  }
}

function failUnlessOk(status: number, json: Record<string, unknown>, doing: string): void {
  if (status >= 200 && status < 300 && json.status !== 'error') return;
  const said = typeof json.message === 'string' ? `: ${json.message.slice(0, 300)}` : '';
  if (status === 401 || status === 403) throw new TaskFailure(`Order Desk refused the store id or API key (HTTP ${status})${said}`);
  throw new TaskFailure(`Order Desk failed ${doing} (HTTP ${status})${said}`);
}

/** Retry-After as seconds or an HTTP date; 10 s when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number {
  if (header && /^\s*\d+\s*$/.test(header)) return Number(header) * 1000;
  const at = header ? Date.parse(header) : NaN;
  return Number.isFinite(at) ? Math.max(0, at - now) : 10_000;
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(t), reject(signal.reason)), { once: true });
  });

/** The value to look the order up by: the parameter, else the project's order id or name. */
function lookupValue(ctx: UnitContext, p: Lookup): string {
  const given = p.orderLookupId?.trim();
  if (given) return given;
  const project = ctx.project ?? {};
  const fallback = p.orderLookupType === 'ProjectName' ? project.name : (project.orderId ?? project.orderNumber);
  if (fallback === null || fallback === undefined || String(fallback).trim() === '') {
    throw new TaskFailure(`orderLookupId: not given and the project has no ${p.orderLookupType === 'ProjectName' ? 'name' : 'order id'}`);
  }
  return String(fallback).trim();
}

/** The order, or null when it is missing and `skipMissingOrders` says to go on. */
async function order(ctx: UnitContext, client: OrderDeskClient, p: Lookup): Promise<OrderDeskOrder | null> {
  const id = lookupValue(ctx, p);
  const found = await client.findOrder(p.orderLookupType, id);
  if (found) return found;
  if (p.skipMissingOrders) return null;
  throw new TaskFailure(`Order Desk has no order ${JSON.stringify(id)} (${p.orderLookupType}); set skipMissingOrders to go on without it`);
}

const metadataOf = (item: OrderDeskItem): Record<string, unknown> =>
  item.metadata && typeof item.metadata === 'object' && !Array.isArray(item.metadata) ? item.metadata : {};

/** The item `orderItemLookupName` = `orderItemLookupValue` picks (metadata first, then the item's own field). */
export function pickItem(items: OrderDeskItem[], name: string | undefined, value: string | undefined): OrderDeskItem {
  if (name === undefined) {
    if (items.length === 1) return items[0]!;
    throw new TaskFailure(`orderItemLookupName: the order has ${items.length} items; say which one (orderItemLookupName and orderItemLookupValue)`);
  }
  const want = value ?? '';
  const matches = items.filter((i) => {
    const meta = metadataOf(i);
    const v = Object.hasOwn(meta, name) ? meta[name] : i[name];
    return v !== undefined && v !== null && String(v) === want;
  });
  if (matches.length === 1) return matches[0]!;
  throw new TaskFailure(
    matches.length
      ? `${matches.length} items of the order have ${name} = ${JSON.stringify(want)}`
      : `no item of the order has ${name} = ${JSON.stringify(want)}`,
  );
}

/**
 * `data` as metadata values: strings as they are, numbers and booleans as text, a list (what
 * `{{result:url}}` gives for a collection) its members comma-separated, one member alone.
 */
export function metadataValues(data: unknown): Record<string, string> {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) throw new TaskFailure('data: must be an object of keys and values');
  const out: Record<string, string> = {};
  const text = (v: unknown) => (typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : null);
  for (const [k, v] of Object.entries(data)) {
    const value = Array.isArray(v) ? (v.every((x) => text(x) !== null) ? v.map(text).join(', ') : null) : v === null ? '' : text(v);
    if (value === null) throw new TaskFailure(`data: ${JSON.stringify(k)} must be a string or a list of strings`);
    out[k] = value;
  }
  return out;
}

export const exportToOrderDesk: TaskModule<'export-to-order-desk'> = {
  async run(ctx, p) {
    const data = metadataValues(p.data);
    const client = new OrderDeskClient(ctx, p);
    const found = await order(ctx, client, p);
    if (!found) return;
    const item = pickItem(found.order_items ?? [], p.orderItemLookupName, p.orderItemLookupValue);
    const updated = { ...item, metadata: { ...metadataOf(item), ...data } };
    const { status, json } = await client.call('PUT', `orders/${encodeURIComponent(String(found.id))}/order-items/${encodeURIComponent(String(item.id))}`, updated);
    failUnlessOk(status, json, 'updating the order item');
  },
};

export const changeGroupInOrderDesk: TaskModule<'change-group-in-order-desk'> = {
  async run(ctx, p) {
    const client = new OrderDeskClient(ctx, p);
    const found = await order(ctx, client, p);
    if (!found) return;
    const { status, json } = await client.call('POST', 'move-orders', { order_id: String(found.id), destination_folder_name: p.destinationGroupName });
    failUnlessOk(status, json, `moving the order to ${JSON.stringify(p.destinationGroupName)}`);
  },
};
