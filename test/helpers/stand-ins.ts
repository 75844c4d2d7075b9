// Stand-ins for external systems at the fetch boundary, served by the fixture server
// (test/global-setup.ts) under their own first path segment. Each is built from the system's
// public API documentation. Answers true when it handled the request.
import type { IncomingMessage, ServerResponse } from 'node:http';

export async function handleStandIn(kind: string, rest: string[], url: URL, req: IncomingMessage, res: ServerResponse): Promise<boolean> {
  if (kind === 'order-desk') return orderDesk(rest, url, req, res);
  if (kind === 'webhook-receiver') return webhookReceiver(rest, url, req, res);
  return false;
}

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString();
}

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));

// ---------------------------------------------------------------------------------------------
// Order Desk API v2 (apidocs.orderdesk.com): /order-desk/<store>/api/v2/<endpoint>. Each <store>
// is its own store, seeded on first use with the orders below, its calls recorded:
// GET /order-desk/<store>/__calls lists them (method, path, headers, body). Store names ending in
// `-429` answer the first API call 429 with `Retry-After: 1`; `-429long` with `Retry-After: 120`.
// Headers ORDERDESK-STORE-ID `12345` and ORDERDESK-API-KEY `od-test-key` are required (401
// otherwise, as Order Desk answers). Answers follow the documented shapes: `{status, execution_time,
// ...}` with `orders`/`order`/`order_item`, and `{status: "error", message}` on errors.

interface OdItem { id: string; name: string; code: string; price: number; quantity: number; metadata: Record<string, unknown> }
interface OdOrder { id: string; source_id: string; source_name: string; email: string; folder_id: number; order_items: OdItem[] }
interface OdStore { orders: OdOrder[]; folders: Record<number, string>; calls: Array<Record<string, unknown>>; limited: boolean }

const ORDER_DESK_STORE_ID = '12345';
const ORDER_DESK_API_KEY = 'od-test-key';
const stores = new Map<string, OdStore>();

function seedStore(name: string): OdStore {
  return {
    folders: { 1: 'New', 2: 'Prepared', 3: 'Rendered' },
    orders: [
      {
        id: '1001', source_id: '1042', source_name: 'Shopify', email: 'ada@example.com', folder_id: 1,
        order_items: [
          { id: '501', name: 'Business card', code: 'CARD', price: 10, quantity: 3, metadata: { project_item: '7', print_sku: 'card-85x55' } },
          { id: '502', name: 'Flyer', code: 'FLYER', price: 4, quantity: 100, metadata: { project_item: '8' } },
        ],
      },
      {
        id: '1002', source_id: 'A-2001-X', source_name: 'WooCommerce', email: 'bob@example.com', folder_id: 1,
        order_items: [{ id: '601', name: 'Poster', code: 'POSTER', price: 20, quantity: 1, metadata: {} }],
      },
    ],
    calls: [],
    limited: name.endsWith('-429') || name.endsWith('-429long'),
  };
}

async function orderDesk(rest: string[], url: URL, req: IncomingMessage, res: ServerResponse): Promise<boolean> {
  const [storeName = '', ...path] = rest;
  let store = stores.get(storeName);
  if (!store) stores.set(storeName, (store = seedStore(storeName)));
  if (path[0] === '__calls') {
    json(res, 200, store.calls);
    return true;
  }
  const body = await bodyOf(req);
  store.calls.push({ method: req.method, path: `/${path.join('/')}${url.search}`, headers: req.headers, body, at: Date.now() });
  if (path[0] !== 'api' || path[1] !== 'v2') {
    json(res, 404, { status: 'error', message: 'Not Found' });
    return true;
  }
  if (store.limited) {
    store.limited = false;
    json(res, 429, { status: 'error', message: 'Too Many Requests' }, { 'retry-after': storeName.endsWith('-429long') ? '120' : '1' });
    return true;
  }
  if (req.headers['orderdesk-store-id'] !== ORDER_DESK_STORE_ID || req.headers['orderdesk-api-key'] !== ORDER_DESK_API_KEY) {
    json(res, 401, { status: 'error', message: 'Invalid Store ID or API Key' });
    return true;
  }
  const ep = path.slice(2);
  const t = { execution_time: '0.0123 seconds' };
  const byId = (id: string) => store!.orders.find((o) => o.id === id);
  if (req.method === 'GET' && ep[0] === 'test') return json(res, 200, { status: 'success', message: 'Connection Successful', current_date_time: new Date().toISOString() }), true;
  if (req.method === 'GET' && ep[0] === 'orders' && ep.length === 1) {
    const sourceId = url.searchParams.get('source_id');
    const orders = store.orders.filter((o) => sourceId === null || o.source_id === sourceId);
    json(res, 200, { status: 'success', ...t, records_returned: orders.length, total_records: orders.length, orders });
    return true;
  }
  if (req.method === 'GET' && ep[0] === 'orders' && ep.length === 2) {
    const order = byId(ep[1]!);
    if (!order) json(res, 404, { status: 'error', message: 'Order not found' });
    else json(res, 200, { status: 'success', ...t, order });
    return true;
  }
  if (req.method === 'PUT' && ep[0] === 'orders' && ep[2] === 'order-items' && ep.length === 4) {
    const order = byId(ep[1]!);
    const index = order?.order_items.findIndex((i) => i.id === ep[3]) ?? -1;
    if (!order || index < 0) return json(res, 404, { status: 'error', message: 'Order item not found' }), true;
    // PUT replaces the item with what is sent (fields left out are gone).
    const item = { ...(JSON.parse(body) as OdItem), id: ep[3]! };
    order.order_items[index] = item;
    json(res, 200, { status: 'success', ...t, message: 'Order Item Updated', order_item: item });
    return true;
  }
  if (req.method === 'POST' && ep[0] === 'move-orders') {
    const input = JSON.parse(body || '{}') as { order_id?: string | string[]; destination_folder_name?: string; destination_folder_id?: number };
    const folder = Object.entries(store.folders).find(([id, name]) => name === input.destination_folder_name || Number(id) === input.destination_folder_id);
    if (!folder) return json(res, 400, { status: 'error', message: 'Destination Folder Not Found' }), true;
    const ids = Array.isArray(input.order_id) ? input.order_id : String(input.order_id ?? '').split(',');
    const moved = ids.map(byId).filter((o): o is OdOrder => !!o);
    for (const o of moved) o.folder_id = Number(folder[0]);
    json(res, 200, { status: 'success', ...t, message: `${moved.length} Order${moved.length === 1 ? '' : 's'} Moved to ${folder[1]}` });
    return true;
  }
  json(res, 404, { status: 'error', message: 'Not Found' });
  return true;
}

/** The Order Desk stand-in's state of one store (for tests through the fixture server). */
export function orderDeskStore(name: string): OdStore | undefined {
  return stores.get(name);
}

// ---------------------------------------------------------------------------------------------
// A webhook receiver: POST /webhook-receiver/<key>[?fail=N][&hang=N][&hangMs=M] records each
// delivery (headers and raw body) and answers 204; the first `fail` calls answer 500, the first
// `hang` calls (after the failing ones) answer only after `hangMs` (default 20 s), so the sender
// times out. GET /webhook-receiver/<key>/__deliveries lists what arrived.

const deliveries = new Map<string, Array<{ headers: Record<string, string | string[] | undefined>; body: string; at: number; answered: number }>>();

async function webhookReceiver(rest: string[], url: URL, req: IncomingMessage, res: ServerResponse): Promise<boolean> {
  const key = rest[0] ?? '';
  const list = deliveries.get(key) ?? [];
  deliveries.set(key, list);
  if (rest[1] === '__deliveries') {
    json(res, 200, list);
    return true;
  }
  const body = await bodyOf(req);
  const fail = Number(url.searchParams.get('fail') ?? 0);
  const hang = Number(url.searchParams.get('hang') ?? 0);
  const n = list.length;
  const answered = n < fail ? 500 : n < fail + hang ? 0 : 204;
  list.push({ headers: req.headers, body, at: Date.now(), answered });
  if (answered === 0) {
    setTimeout(() => res.writeHead(204).end(), Number(url.searchParams.get('hangMs') ?? 20_000));
    return true;
  }
  res.writeHead(answered, answered === 500 ? { 'content-type': 'text/plain' } : {}).end(answered === 500 ? 'boom' : undefined);
  return true;
}
