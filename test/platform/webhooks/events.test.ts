// Where the platform raises webhook events (one call each in the code that produces them): a
// storefront project of the seeded demo card gives project.created, then its processing job
// job.completed and project.processing.completed; a failing stand-alone job job.failed; a status
// move project.status-changed; a refused URL import asset.import.failed. Every delivery carries a
// signature the standardwebhooks package accepts.
import { runDurableObjectAlarm } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { Webhook } from 'standardwebhooks';
import { beforeAll, describe, expect, it } from 'vitest';
import { outboxStub } from '../../../src/platform/webhooks/events';
import type { WebhookOutbox } from '../../../src/platform/webhooks/outbox';
import { fixtureServer } from '../../helpers/fixtures';
import { api, apiJson, seedPlatform } from '../../helpers/platform';
import { driveProject, drive, stubOfJob } from '../jobs/helpers';

interface Received { headers: Record<string, string>; body: string }
const received = async (key: string) => (await (await fetch(`${fixtureServer()}/webhook-receiver/${key}/__deliveries`)).json()) as Received[];
const outbox = () => outboxStub(env, 1) as unknown as DurableObjectStub<WebhookOutbox>;

/** Runs the outbox until `key` has received `types` (in any order), verifying each signature. */
type Event = { type: string; data: Record<string, unknown> };

/** Other test files' events reach tenant 1's endpoints too: `mine` keeps this test's. */
async function eventsAt(key: string, secret: string, types: string[], mine: (e: Event) => boolean, timeoutMs = 20_000): Promise<Event[]> {
  const until = Date.now() + timeoutMs;
  let events: Array<{ type: string; data: Record<string, unknown> }> = [];
  while (Date.now() < until) {
    await runDurableObjectAlarm(outbox()).catch(() => {});
    events = (await received(key)).map((r) => new Webhook(secret).verify(r.body, r.headers) as Event).filter(mine);
    if (types.every((t) => events.some((e) => e.type === t))) return events;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${key} got ${JSON.stringify(events.map((e) => e.type))}, expected ${JSON.stringify(types)}`);
}

let secret = '';

beforeAll(async () => {
  await seedPlatform();
  const h = await apiJson(
    'POST',
    '/api/backoffice/v1/webhooks',
    { url: `${fixtureServer()}/webhook-receiver/platform-events`, events: ['project.created', 'project.status-changed', 'project.processing.completed', 'project.processing.failed', 'job.completed', 'job.failed', 'asset.import.failed'] },
    { token: 1 },
    201,
  );
  secret = h.secret;
});

describe('events raised by the platform', () => {
  it('a storefront project: project.created, then job.completed and project.processing.completed', async () => {
    const p = await apiJson('POST', '/api/storefront/v1/projects/with-single-item?storefrontId=1', { ownerId: 'demo-customer', productReference: 'demo-card', item: {} }, { token: 1 }, 201);
    expect(await driveProject(1, p.id)).toEqual(['Completed']);
    const mine = await eventsAt('platform-events', secret, ['project.created', 'job.completed', 'project.processing.completed'], (e) => e.data.projectId === p.id);
    expect(mine.map((e) => e.type).sort()).toEqual(['job.completed', 'project.created', 'project.processing.completed']);
    expect(mine.find((e) => e.type === 'project.created')!.data).toMatchObject({ tenantId: 1, project: { id: p.id } });
    expect(mine.find((e) => e.type === 'project.processing.completed')!.data).toMatchObject({ processingStatus: 'Completed' });
  });

  it('a failing stand-alone job: job.failed with the reason', async () => {
    await apiJson('POST', '/api/rendering/v1/jobs', { id: 'wh-fail', tasks: [{ name: 'od', type: 'change-group-in-order-desk', parameters: { storeUrl: `${fixtureServer()}/order-desk/wh/api/v2/`, storeId: 1, storeApiKey: 'x', orderLookupId: '1' } }, { name: 'finalize', type: 'finalize' }] }, { token: 1 }, 201);
    expect((await drive(stubOfJob('wh-fail'), 'wh-fail')).status).toBe('Failed');
    const events = await eventsAt('platform-events', secret, ['job.failed'], (e) => e.data.jobId === 'wh-fail');
    expect(events.find((e) => e.type === 'job.failed')!.data).toMatchObject({ jobId: 'wh-fail', status: 'Failed', statusDescription: expect.stringMatching(/^od: Order Desk refused/) });
  });

  it('a refused URL import: asset.import.failed without the query string', async () => {
    const res = await api('POST', '/api/storage/v1/images/import/from-url', { sourceUrl: `${fixtureServer()}/status/404?token=secret` }, { token: 1 });
    expect(res.status).toBe(422);
    const events = await eventsAt('platform-events', secret, ['asset.import.failed'], (e) => String(e.data.sourceUrl).endsWith('/status/404'));
    const e = events.find((x) => x.type === 'asset.import.failed')!;
    expect(e.data.sourceUrl).toBe(`${fixtureServer()}/status/404`);
  });

  it('a status move: project.status-changed with the previous and the new status', async () => {
    const p = await apiJson('POST', '/api/storefront/v1/projects/with-single-item?storefrontId=1', { ownerId: 'demo-customer', productReference: 'demo-card', item: {} }, { token: 1 }, 201);
    const statuses = await apiJson('GET', '/api/backoffice/v1/projects-statuses', undefined, { token: 1 });
    const other = statuses.items.find((s: { code: number }) => s.code !== p.status);
    await apiJson('POST', `/api/storefront/v1/projects/${p.id}/statuses/${other.code}`, undefined, { token: 1 });
    const events = await eventsAt('platform-events', secret, ['project.status-changed'], (e) => e.data.projectId === p.id);
    expect(events.find((e) => e.type === 'project.status-changed' && e.data.projectId === p.id)!.data).toMatchObject({ previousStatus: p.status, status: other.code });
  });
});
