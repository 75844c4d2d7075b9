// export-to-order-desk and change-group-in-order-desk against the Order Desk stand-in
// (test/helpers/stand-ins.ts, built from the API v2 docs), run by the ProjectJobs runner through
// stand-alone rendering jobs: the documented headers, the lookup by source id, the item metadata
// merge, move-orders by folder name, 429 with Retry-After, and missing orders.
import { beforeAll, describe, expect, it } from 'vitest';
import { metadataValues, pickItem, retryAfterMs } from '../../../src/platform/pipelines/tasks/order-desk';
import { TaskFailure } from '../../../src/platform/pipelines/tasks/errors';
import { fixtureServer } from '../../helpers/fixtures';
import { apiJson, seedPlatform } from '../../helpers/platform';
import { runStandaloneJob } from '../jobs/helpers';

const JOBS = '/api/rendering/v1/jobs';
const project = { id: 'p-od', orderId: '1042', name: 'A-2001-X', items: [{ itemId: '7', name: 'card', quantity: 3 }] };
const store = (name: string) => ({ storeUrl: `${fixtureServer()}/order-desk/${name}/api/v2/`, storeId: 12345, storeApiKey: 'od-test-key' });

interface Call { method: string; path: string; headers: Record<string, string>; body: string; at: number }
const callsOf = async (name: string) => (await (await fetch(`${fixtureServer()}/order-desk/${name}/__calls`)).json()) as Call[];

const runJob = (id: string, tasks: unknown[]) => runStandaloneJob(id, project, tasks, 40_000);

beforeAll(async () => {
  await seedPlatform();
});

describe('export-to-order-desk', () => {
  it('finds the order by the project order id (source_id) and merges data into the chosen item metadata', async () => {
    const { status, job } = await runJob('od-export', [
      {
        name: 'od', type: 'export-to-order-desk',
        parameters: { ...store('export'), orderItemLookupName: 'project_item', orderItemLookupValue: '7', data: { hiResUrl: 'https://files.example.com/{{projectId}}.pdf', print_sku: 'card-new' } },
      },
      { name: 'finalize', type: 'finalize' },
    ]);
    expect(job.statusDescription ?? null).toBeNull();
    expect(status).toBe('Completed');
    const calls = await callsOf('export');
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual(['GET /api/v2/orders?source_id=1042&limit=2', 'PUT /api/v2/orders/1001/order-items/501']);
    expect(calls[0]!.headers).toMatchObject({ 'orderdesk-store-id': '12345', 'orderdesk-api-key': 'od-test-key', 'content-type': 'application/json' });
    // Order Desk's PUT replaces the item: the whole item goes back, metadata merged.
    expect(JSON.parse(calls[1]!.body)).toEqual({
      id: '501', name: 'Business card', code: 'CARD', price: 10, quantity: 3,
      metadata: { project_item: '7', print_sku: 'card-new', hiResUrl: 'https://files.example.com/p-od.pdf' },
    });
  });

  it('ProjectName looks the order up by the project name; an item is matched by its own field (code)', async () => {
    const { status } = await runJob('od-export-name', [
      { name: 'od', type: 'export-to-order-desk', parameters: { ...store('by-name'), orderLookupType: 'ProjectName', orderItemLookupName: 'code', orderItemLookupValue: 'POSTER', data: { proof: 'ok' } } },
      { name: 'finalize', type: 'finalize' },
    ]);
    expect(status).toBe('Completed');
    const calls = await callsOf('by-name');
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual(['GET /api/v2/orders?source_id=A-2001-X&limit=2', 'PUT /api/v2/orders/1002/order-items/601']);
  });

  it('fails the task when the order is missing, and completes doing nothing with skipMissingOrders', async () => {
    const failed = await runJob('od-missing', [
      { name: 'od', type: 'export-to-order-desk', parameters: { ...store('missing'), orderLookupId: '9999', data: { a: 'b' } } },
      { name: 'finalize', type: 'finalize' },
    ]);
    expect(failed.status).toBe('Failed');
    expect(failed.job.statusDescription).toMatch(/^od: Order Desk has no order "9999" \(SourceId\); set skipMissingOrders/);
    const skipped = await runJob('od-skip', [
      { name: 'od', type: 'export-to-order-desk', parameters: { ...store('skip'), orderLookupId: '9999', skipMissingOrders: true, data: { a: 'b' } } },
      { name: 'finalize', type: 'finalize' },
    ]);
    expect(skipped.status).toBe('Completed');
    expect((await callsOf('skip')).map((c) => c.method)).toEqual(['GET']);
  });

  it('OrderDeskId reads orders/{id}; a 404 there is a missing order', async () => {
    const { status, job } = await runJob('od-internal-id', [
      { name: 'od', type: 'export-to-order-desk', parameters: { ...store('internal'), orderLookupType: 'OrderDeskId', orderLookupId: '4040', data: { a: 'b' } } },
      { name: 'finalize', type: 'finalize' },
    ]);
    expect(status).toBe('Failed');
    expect(job.statusDescription).toMatch(/no order "4040" \(OrderDeskId\)/);
    expect((await callsOf('internal')).map((c) => c.path)).toEqual(['/api/v2/orders/4040']);
  });

  it('a wrong API key fails the task at once, saying so (no retries)', async () => {
    const { status, job } = await runJob('od-key', [
      { name: 'od', type: 'export-to-order-desk', parameters: { ...store('bad-key'), storeApiKey: 'nope', data: { a: 'b' } }, maxAutoRetryCount: 3 },
      { name: 'finalize', type: 'finalize' },
    ]);
    expect(status).toBe('Failed');
    expect(job.statusDescription).toMatch(/refused the store id or API key \(HTTP 401\): Invalid Store ID or API Key/);
    expect(await callsOf('bad-key')).toHaveLength(1);
  });

  it('an order with several items and no item lookup fails, naming the parameters', async () => {
    const { status, job } = await runJob('od-which-item', [
      { name: 'od', type: 'export-to-order-desk', parameters: { ...store('which'), data: { a: 'b' } } },
      { name: 'finalize', type: 'finalize' },
    ]);
    expect(status).toBe('Failed');
    expect(job.statusDescription).toMatch(/the order has 2 items; say which one \(orderItemLookupName and orderItemLookupValue\)/);
  });
});

describe('change-group-in-order-desk', () => {
  it('moves the order to the Prepared folder by default (move-orders by folder name)', async () => {
    const { status } = await runJob('od-move', [
      { name: 'move', type: 'change-group-in-order-desk', parameters: store('move') },
      { name: 'finalize', type: 'finalize' },
    ]);
    expect(status).toBe('Completed');
    const calls = await callsOf('move');
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual(['GET /api/v2/orders?source_id=1042&limit=2', 'POST /api/v2/move-orders']);
    expect(JSON.parse(calls[1]!.body)).toEqual({ order_id: '1001', destination_folder_name: 'Prepared' });
  });

  it('a folder Order Desk does not have fails the task with Order Desk\'s message', async () => {
    const { status, job } = await runJob('od-move-bad', [
      { name: 'move', type: 'change-group-in-order-desk', parameters: { ...store('move-bad'), destinationGroupName: 'Nowhere' } },
      { name: 'finalize', type: 'finalize' },
    ]);
    expect(status).toBe('Failed');
    expect(job.statusDescription).toMatch(/moving the order to "Nowhere" \(HTTP 400\): Destination Folder Not Found/);
  });

  it('waits the server\'s Retry-After on a 429 inside the unit, then goes on', async () => {
    const { status } = await runJob('od-429', [
      { name: 'move', type: 'change-group-in-order-desk', parameters: { ...store('limited-429'), destinationGroupName: 'Rendered' } },
      { name: 'finalize', type: 'finalize' },
    ]);
    expect(status).toBe('Completed');
    const calls = await callsOf('limited-429');
    expect(calls.map((c) => c.method)).toEqual(['GET', 'GET', 'POST']);
    expect(calls[1]!.at - calls[0]!.at).toBeGreaterThanOrEqual(950);
  });

  it('a long Retry-After becomes a transient failure: the runner retries later (the task waits, Pending)', async () => {
    const { api } = await import('../../helpers/platform');
    await apiJson('POST', JOBS, { id: 'od-429-long', project, tasks: [{ name: 'move', type: 'change-group-in-order-desk', parameters: store('limited-429long') }, { name: 'finalize', type: 'finalize' }] }, { token: 1 }, 201);
    let job: { tasks: Array<{ status: string; autoRetryCount: number }> } | undefined;
    for (let i = 0; i < 100; i++) {
      job = await apiJson('GET', `${JOBS}/od-429-long`, undefined, { token: 1 });
      if (job!.tasks[0]!.autoRetryCount > 0) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(job!.tasks[0]).toMatchObject({ autoRetryCount: 1 });
    expect(await callsOf('limited-429long')).toHaveLength(1);
    expect((await api('POST', `${JOBS}/od-429-long/discard`, undefined, { token: 1 })).status).toBe(200);
  });
});

describe('parameters and helpers', () => {
  it('validates: storeId and storeApiKey are required; the order-management parameters are no longer reserved here', async () => {
    const { api } = await import('../../helpers/platform');
    const res = await api('POST', JOBS, { id: 'od-invalid', tasks: [{ name: 'od', type: 'export-to-order-desk', parameters: { skipMissingOrders: true, orderLookupType: 'ProjectName', data: {} } }] }, { token: 1 });
    expect(res.status).toBe(400);
    const text = await res.text();
    expect(text).toMatch(/storeId/);
    expect(text).toMatch(/storeApiKey/);
    expect(text).not.toMatch(/not available yet/);
  });

  it('Retry-After is read as seconds or as an HTTP date', () => {
    expect(retryAfterMs('3')).toBe(3000);
    expect(retryAfterMs(new Date(61_000).toUTCString(), 1_000)).toBe(60_000);
    expect(retryAfterMs(null)).toBe(10_000);
  });

  it('data values: text as is, numbers as text, a collection\'s list comma-separated; objects refused', () => {
    expect(metadataValues({ a: 'x', n: 3, list: ['https://f/1.pdf', 'https://f/2.pdf'], one: ['https://f/1.pdf'], none: null })).toEqual({
      a: 'x', n: '3', list: 'https://f/1.pdf, https://f/2.pdf', one: 'https://f/1.pdf', none: '',
    });
    expect(() => metadataValues({ a: { b: 1 } })).toThrow(/data: "a" must be a string or a list of strings/);
    expect(() => metadataValues(['x'])).toThrow(/data: must be an object/);
  });

  it('an item lookup matching two items is refused', () => {
    const items = [{ id: 1, metadata: { k: 'v' } }, { id: 2, metadata: { k: 'v' } }];
    expect(() => pickItem(items, 'k', 'v')).toThrow(TaskFailure);
    expect(() => pickItem(items, 'k', 'v')).toThrow(/2 items of the order have k = "v"/);
  });
});
