// The admin panel's Webhooks page (src/admin/backoffice/webhooks.tsx): create shows the
// secret once (it verifies the deliveries), the list never shows it, the delivery log lists the
// attempts' answers, "send again" re-queues, delete removes; every post needs the CSRF token.
import { runDurableObjectAlarm } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { Webhook } from 'standardwebhooks';
import { beforeAll, describe, expect, it } from 'vitest';
import { emit, outboxStub } from '../../../src/platform/webhooks/events';
import type { WebhookOutbox } from '../../../src/platform/webhooks/outbox';
import { fixtureServer } from '../../helpers/fixtures';
import { get, makeTenant, post, signIn, type Browser, type Tenant } from '../../identity/admin/helpers';

let tenant: Tenant;
let admin: Browser;
const received = async (key: string) => (await (await fetch(`${fixtureServer()}/webhook-receiver/${key}/__deliveries`)).json()) as Array<{ headers: Record<string, string>; body: string }>;

beforeAll(async () => {
  tenant = await makeTenant();
  admin = await signIn(tenant.admin);
});

describe('Settings > Webhooks', () => {
  it('creates a webhook showing its secret once, logs deliveries, sends again and deletes', async () => {
    const url = `${fixtureServer()}/webhook-receiver/admin-page`;
    const created = await post('/admin/webhooks', admin, { url, events: ['job.completed', 'job.failed'] });
    expect(created.status).toBe(200);
    const page = await created.text();
    const secret = /<code id="webhook-secret">(whsec_[A-Za-z0-9+/=]+)<\/code>/.exec(page)?.[1];
    expect(secret).toBeDefined();
    const list = await (await get('/admin/webhooks', admin)).text();
    expect(list).toContain(url);
    expect(list).not.toContain(secret!);
    const id = /href="\/admin\/webhooks\/(ep_[0-9a-f]{24})"/.exec(list)![1]!;

    await emit(env, tenant.id, 'job.completed', { jobId: 'admin-job' });
    const outbox = outboxStub(env, tenant.id) as unknown as DurableObjectStub<WebhookOutbox>;
    for (let i = 0; i < 100 && (await received('admin-page')).length === 0; i++) {
      await runDurableObjectAlarm(outbox).catch(() => {});
      await new Promise((r) => setTimeout(r, 25));
    }
    const [r] = await received('admin-page');
    expect(new Webhook(secret!).verify(r!.body, r!.headers)).toMatchObject({ type: 'job.completed', data: { jobId: 'admin-job' } });

    // The receiver answers before the outbox records the answer: wait for the log to show it.
    let detail = '';
    for (let i = 0; i < 100 && !detail.includes('Delivered'); i++) {
      detail = await (await get(`/admin/webhooks/${id}`, admin)).text();
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(detail).toContain('job.completed');
    expect(detail).toContain('Delivered');
    expect(detail).toMatch(/1: 204/);
    const deliveryId = /data-delivery="(dlv_[0-9a-f]{32})"/.exec(detail)![1]!;
    const again = await post(`/admin/webhooks/${id}/deliveries/${deliveryId}/resend`, admin, {});
    expect(again.status).toBe(303);
    for (let i = 0; i < 100 && (await received('admin-page')).length < 2; i++) {
      await runDurableObjectAlarm(outbox).catch(() => {});
      await new Promise((r) => setTimeout(r, 25));
    }
    expect((await received('admin-page')).map((x) => x.headers['webhook-id'])).toEqual([r!.headers['webhook-id'], r!.headers['webhook-id']]);

    const rotated = await (await post(`/admin/webhooks/${id}/rotate`, admin, {})).text();
    expect(/<code id="webhook-secret">(whsec_[^<]+)<\/code>/.exec(rotated)?.[1]).not.toBe(secret);

    expect((await post(`/admin/webhooks/${id}/delete`, admin, {}, null)).status).toBe(403);
    expect((await post(`/admin/webhooks/${id}/delete`, admin, {})).status).toBe(303);
    expect((await get(`/admin/webhooks/${id}`, admin)).status).toBe(404);
  });

  it('refuses an internal URL or no events with the reason by the field (400)', async () => {
    const res = await post('/admin/webhooks', admin, { url: 'https://192.168.1.10/hook', events: ['job.failed'] });
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/internal/);
    const none = await post('/admin/webhooks', admin, { url: 'https://example.com/hook' });
    expect(none.status).toBe(400);
    expect(await none.text()).toContain('Choose at least one event.');
  });
});
