// Issue 23 "Done when", end to end: a storefront project whose product link carries the pipeline
// render → upload-to-ftp (Sftp, private key from {{secrets.…}}, pinned host key) →
// export-to-order-desk → change-group-in-order-desk → finalize completes against the real
// OpenSSH server (test/helpers/delivery-servers.ts) and the Order Desk stand-in
// (test/helpers/stand-ins.ts), and the tenant's webhook endpoint receives
// project.processing.completed signed as Standard Webhooks says (checked by `standardwebhooks`).
import { runDurableObjectAlarm } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { Webhook } from 'standardwebhooks';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { outboxStub } from '../../src/platform/webhooks/events';
import type { WebhookOutbox } from '../../src/platform/webhooks/outbox';
import { fixtureServer } from '../helpers/fixtures';
import { api, apiJson, call, seedPlatform } from '../helpers/platform';
import { driveProject } from './jobs/helpers';

const BO = '/api/backoffice/v1';
const d = inject('delivery');
const suite = d.available ? describe : describe.skip;
// Stand-in state lives in the Node fixture server, shared by every test file: our own names.
const STORE = 'delivery-flow';
const RECEIVER = 'delivery-flow';

type Files = Record<string, { size: number; sha256: string }>;
interface OdCall { method: string; path: string; body: string; headers: Record<string, string> }
type Event = { type: string; data: Record<string, unknown> };

const digest = async (bytes: Uint8Array) => [...new Uint8Array(await crypto.subtle.digest('SHA-256', bytes))].map((b) => b.toString(16).padStart(2, '0')).join('');

beforeAll(async () => {
  await seedPlatform();
  if (!d.available) return;
  for (const [name, value] of [['deliveryFlowSshKey', d.keys.ed25519], ['deliveryFlowOrderDesk', 'od-test-key']]) {
    expect((await api('PUT', `${BO}/tenant-secrets/${name}`, { value }, { token: 1 })).status).toBe(204);
  }
});

suite('a storefront project delivered to production (issue 23)', () => {
  it('render → SFTP upload → export-to-order-desk → change-group → finalize, and a signed project.processing.completed', async () => {
    const hook = await apiJson('POST', `${BO}/webhooks`, { url: `${fixtureServer()}/webhook-receiver/${RECEIVER}`, events: ['project.processing.completed'] }, { token: 1 }, 201);
    expect(hook.secret).toMatch(/^whsec_/);

    const store = { storeUrl: `${fixtureServer()}/order-desk/${STORE}/api/v2/`, storeId: '12345', storeApiKey: '{{secrets.deliveryFlowOrderDesk}}' };
    const pipeline = {
      tasks: [
        { name: 'extract', type: 'extract-project-design', outputArtifacts: ['design*'] },
        { name: 'render', type: 'render-hires', inputArtifacts: ['design*'], outputArtifacts: ['result*'], parameters: { hiResOutputDpi: 300, hiResOutputFileFormat: 'Pdf' } },
        {
          name: 'upload',
          type: 'upload-to-ftp',
          inputArtifacts: ['result*'],
          parameters: {
            host: '127.0.0.1',
            port: d.sshPort,
            protocol: 'Sftp',
            userName: d.user,
            privateKey: '{{secrets.deliveryFlowSshKey}}',
            hostKeyFingerprint: d.hostKeys.ed25519,
            folder: `${d.sftpRoot}/delivery-flow/{{project.orderNumber}}`,
          },
        },
        { name: 'links', type: 'export-to-order-desk', inputArtifacts: ['result*'], parameters: { ...store, orderItemLookupName: 'project_item', orderItemLookupValue: '7', data: { hiResUrl: '{{result:url}}' } } },
        { name: 'prepared', type: 'change-group-in-order-desk', inputArtifacts: ['result*'], parameters: store },
        { name: 'finalize', type: 'finalize', finalArtifacts: ['result*'] },
      ],
    };
    // The back office's way to give a storefront product its own pipeline: a product link of the
    // demo card with the pipeline, and a reference to that link.
    const pl = await apiJson('POST', `${BO}/processing-pipelines`, { name: 'Delivery flow', rawContent: JSON.stringify(pipeline) }, { token: 1 }, 201);
    const link = await apiJson('POST', `${BO}/product-links`, { name: 'Delivery flow card', productId: 1, processingPipelineId: pl.id }, { token: 1 }, 201);
    await apiJson('POST', `${BO}/product-references?storefrontId=1`, { productReference: 'delivery-flow-card', productReferenceType: 'ProductLink', productReferenceName: 'Delivery flow card', productLinkId: link.id }, { token: 1 }, 201);

    const project = await apiJson(
      'POST',
      '/api/storefront/v1/projects/with-single-item?storefrontId=1',
      { ownerId: 'demo-customer', productReference: 'delivery-flow-card', orderId: '1042', orderNumber: 1042, item: {} },
      { token: 1 },
      201,
    );
    expect(await driveProject(1, project.id, 90_000)).toEqual(['Completed']);
    const jobs = await apiJson('GET', `/api/rendering/v1/jobs?projectId=${project.id}`, undefined, { token: 1 });
    const job = await apiJson('GET', `/api/rendering/v1/jobs/${jobs.items[0].id}`, undefined, { token: 1 });
    expect(job.statusDescription ?? null).toBeNull();
    expect(job.tasks.map((t: { name: string; status: string }) => `${t.name} ${t.status}`)).toEqual(pipeline.tasks.map((t) => `${t.name} Completed`));
    // Pinned host key: no trust-on-first-use note on the upload task.
    expect(job.tasks[2].statusDescription).toBeNull();

    // The print file on the SSH server, byte for byte the job's final PDF, no temporary name left.
    const results = await apiJson('GET', `/api/storefront/v1/projects/${project.id}/processing-results`, undefined, { token: 1 });
    expect(results.outputFileDetails).toHaveLength(1);
    const [file] = results.outputFileDetails;
    expect(file.format).toBe('pdf');
    const row = await env.DB.prepare(`SELECT r2_key AS key FROM artifacts WHERE tenant_id = 1 AND id = ?1`).bind(file.artifactId).first<{ key: string }>();
    const pdf = new Uint8Array(await (await env.FILES.get(row!.key))!.arrayBuffer());
    expect(new TextDecoder().decode(pdf.slice(0, 5))).toBe('%PDF-');
    const sha256 = await digest(pdf);
    const files = (await (await fetch(`${d.inspector}/files/sftp`)).json()) as Files;
    const mine = Object.keys(files).filter((f) => f.startsWith('delivery-flow/'));
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatch(/^delivery-flow\/1042\/[^/]+\.pdf$/);
    expect(files[mine[0]!]).toEqual({ size: pdf.length, sha256 });
    expect(mine.filter((f) => f.endsWith('.part'))).toEqual([]);

    // Order Desk: the item's metadata got the link (its other metadata kept), the order moved.
    const calls = (await (await fetch(`${fixtureServer()}/order-desk/${STORE}/__calls`)).json()) as OdCall[];
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual([
      'GET /api/v2/orders?source_id=1042&limit=2',
      'PUT /api/v2/orders/1001/order-items/501',
      'GET /api/v2/orders?source_id=1042&limit=2',
      'POST /api/v2/move-orders',
    ]);
    expect(calls.every((c) => c.headers['orderdesk-api-key'] === 'od-test-key' && c.headers['orderdesk-store-id'] === '12345')).toBe(true);
    const metadata = JSON.parse(calls[1]!.body).metadata as Record<string, string>;
    expect(metadata).toMatchObject({ project_item: '7', print_sku: 'card-85x55' });
    expect(metadata.hiResUrl).toMatch(/^https?:\/\/.+/);
    // The link serves the print file itself, without a token (production downloads it).
    const linked = await call(metadata.hiResUrl);
    expect(linked.status).toBe(200);
    expect(await digest(new Uint8Array(await linked.arrayBuffer()))).toBe(sha256);
    expect(JSON.parse(calls[3]!.body)).toEqual({ order_id: '1001', destination_folder_name: 'Prepared' });
    // The stand-in's own answer to a later read: the order is in folder 2 "Prepared" now.
    const order = await (await fetch(`${fixtureServer()}/order-desk/${STORE}/api/v2/orders/1001`, { headers: { 'orderdesk-store-id': '12345', 'orderdesk-api-key': 'od-test-key' } })).json() as { order: { folder_id: number; order_items: Array<{ id: string; metadata: Record<string, string> }> } };
    expect(order.order.folder_id).toBe(2);
    expect(order.order.order_items.find((i) => i.id === '501')!.metadata.hiResUrl).toBe(metadata.hiResUrl);

    // The webhook: the outbox's alarms push deliveries; every one must verify with the secret.
    const outbox = outboxStub(env, 1) as unknown as DurableObjectStub<WebhookOutbox>;
    const received = async () =>
      ((await (await fetch(`${fixtureServer()}/webhook-receiver/${RECEIVER}/__deliveries`)).json()) as Array<{ headers: Record<string, string>; body: string }>)
        .map((r) => new Webhook(hook.secret).verify(r.body, r.headers) as Event)
        .filter((e) => e.data.projectId === project.id);
    for (let i = 0; i < 400 && (await received()).length === 0; i++) {
      await runDurableObjectAlarm(outbox).catch(() => {});
      await new Promise((r) => setTimeout(r, 25));
    }
    const events = await received();
    expect(events).toEqual([expect.objectContaining({ type: 'project.processing.completed', data: expect.objectContaining({ projectId: project.id, processingStatus: 'Completed' }) })]);
    // A tampered body does not verify: the check above is a real one.
    const [raw] = (await (await fetch(`${fixtureServer()}/webhook-receiver/${RECEIVER}/__deliveries`)).json()) as Array<{ headers: Record<string, string>; body: string }>;
    expect(() => new Webhook(hook.secret).verify(raw!.body.replace('Completed', 'Failed'), raw!.headers)).toThrow();
  }, 120_000);
});
