// The print-file flow of issue 23 without the SFTP leg: render → export-to-order-desk (the print
// file's link written into the order item) → change-group-in-order-desk → finalize, against the
// Order Desk stand-in, with the tenant's webhook receiving job.completed, signed.
import { runDurableObjectAlarm } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { Webhook } from 'standardwebhooks';
import { beforeAll, expect, it } from 'vitest';
import { outboxStub } from '../../../src/platform/webhooks/events';
import type { WebhookOutbox } from '../../../src/platform/webhooks/outbox';
import { fixtureServer } from '../../helpers/fixtures';
import { api, apiJson, seedPlatform } from '../../helpers/platform';
import { createDesign, drive, stubOfJob } from '../jobs/helpers';

beforeAll(async () => {
  await seedPlatform();
  await createDesign('od-flow-design');
});

it('render → export-to-order-desk → change-group-in-order-desk → finalize, and a signed job.completed', async () => {
  const hook = await apiJson('POST', '/api/backoffice/v1/webhooks', { url: `${fixtureServer()}/webhook-receiver/od-flow`, events: ['job.completed'] }, { token: 1 }, 201);
  expect((await api('PUT', '/api/backoffice/v1/tenant-secrets/orderDeskKey', { value: 'od-test-key' }, { token: 1 })).status).toBe(204);
  const store = { storeUrl: `${fixtureServer()}/order-desk/flow/api/v2/`, storeId: '12345', storeApiKey: '{{secrets.orderDeskKey}}' };
  const project = { id: 'p-flow', orderId: '1042', items: [{ itemId: '7', name: 'card', quantity: 3, designIds: ['od-flow-design'] }] };
  await apiJson(
    'POST',
    '/api/rendering/v1/jobs',
    {
      id: 'od-flow',
      project,
      tasks: [
        { name: 'extract', type: 'extract-project-design', outputArtifacts: ['design*'] },
        { name: 'render', type: 'render-hires', inputArtifacts: ['design*'], outputArtifacts: ['result*'] },
        { name: 'links', type: 'export-to-order-desk', inputArtifacts: ['result*'], parameters: { ...store, orderItemLookupName: 'project_item', orderItemLookupValue: '7', data: { hiResUrl: '{{result:url}}' } } },
        { name: 'prepared', type: 'change-group-in-order-desk', inputArtifacts: ['result*'], parameters: store },
        { name: 'finalize', type: 'finalize', finalArtifacts: ['result*'] },
      ],
    },
    { token: 1 },
    201,
  );
  const run = await drive(stubOfJob('od-flow'), 'od-flow', 60_000);
  const job = await apiJson('GET', '/api/rendering/v1/jobs/od-flow', undefined, { token: 1 });
  expect(job.statusDescription ?? null).toBeNull();
  expect(run.status).toBe('Completed');

  const calls = (await (await fetch(`${fixtureServer()}/order-desk/flow/__calls`)).json()) as Array<{ method: string; path: string; body: string; headers: Record<string, string> }>;
  expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual([
    'GET /api/v2/orders?source_id=1042&limit=2',
    'PUT /api/v2/orders/1001/order-items/501',
    'GET /api/v2/orders?source_id=1042&limit=2',
    'POST /api/v2/move-orders',
  ]);
  expect(calls[0]!.headers['orderdesk-api-key']).toBe('od-test-key');
  const link = JSON.parse(calls[1]!.body).metadata.hiResUrl as string;
  expect(link).toMatch(/^https?:\/\/.+/);
  expect(JSON.parse(calls[3]!.body)).toEqual({ order_id: '1001', destination_folder_name: 'Prepared' });

  const outbox = outboxStub(env, 1) as unknown as DurableObjectStub<WebhookOutbox>;
  const mine = async () =>
    ((await (await fetch(`${fixtureServer()}/webhook-receiver/od-flow/__deliveries`)).json()) as Array<{ headers: Record<string, string>; body: string }>)
      .map((r) => new Webhook(hook.secret).verify(r.body, r.headers) as { type: string; data: { jobId: string } })
      .filter((e) => e.data.jobId === 'od-flow');
  for (let i = 0; i < 200 && (await mine()).length === 0; i++) {
    await runDurableObjectAlarm(outbox).catch(() => {});
    await new Promise((r) => setTimeout(r, 25));
  }
  expect(await mine()).toEqual([expect.objectContaining({ type: 'job.completed', data: expect.objectContaining({ jobId: 'od-flow', status: 'Completed' }) })]);
}, 90_000);
