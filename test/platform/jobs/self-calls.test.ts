// A pipeline calling the platform itself (security issue 18 item 4, docs/security.md): job calls
// to the platform's own origin are refused; every call a job makes carries X-Platform-Hop, and
// project creation past depth 3 answers 409 saying why.
import { beforeAll, describe, expect, it } from 'vitest';
import { HOP_HEADER, MAX_HOP_DEPTH } from '../../../src/http/outbound';
import { api, apiJson, call, seedPlatform, tenantToken } from '../../helpers/platform';
import { fixtureServer } from '../../helpers/fixtures';
import { drive, driveProject, stubOfJob } from './helpers';
import { keepTenantSettings } from '../../helpers/tenant-state';

keepTenantSettings(2); // vitest.shared.config.ts: later files find the tenant's settings as this one did

const JOBS = '/api/rendering/v1/jobs';
type Call = { headers: Record<string, string> };
const calls = async (key: string) => (await (await fetch(`${fixtureServer()}/calls/${key}`)).json()) as Call[];

beforeAll(async () => {
  await seedPlatform();
});

describe('self calls', () => {
  it('a job created through the platform at origin X may not call X (other ports stay reachable)', async () => {
    const own = new URL(fixtureServer());
    // The platform as reached at the fixture server's origin: that origin is the platform's own.
    const token = await tenantToken(1);
    const tasks = [
      { name: 'loop', type: 'invoke-url', parameters: { url: `${own.origin}/flaky/self-loop/0`, retryCount: 0 } },
      { name: 'finalize', type: 'finalize' },
    ];
    const res = await call(`${own.origin}${JOBS}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ id: 'job-self-loop', tasks }) });
    expect(res.status).toBe(201);
    const { status } = await drive(stubOfJob('job-self-loop'), 'job-self-loop');
    const job = await apiJson('GET', `${JOBS}/job-self-loop`, undefined, { token: 1 });
    expect(status).toBe('Failed');
    expect(job.statusDescription).toMatch(/^loop: url: .*the platform's own origin/);
    expect(await calls('self-loop')).toHaveLength(0);
  });

  it('a tenant that allows self calls may call its own origin; the hop header still goes out', async () => {
    const own = new URL(fixtureServer());
    const settings = '/api/backoffice/v1/tenant-settings';
    expect((await apiJson('GET', settings, undefined, { token: 2 })).allowSelfCalls).toBe(false);
    expect((await apiJson('PUT', settings, { allowSelfCalls: true }, { token: 2 }, 200)).allowSelfCalls).toBe(true);
    try {
      const token = await tenantToken(2);
      const tasks = [
        { name: 'loop', type: 'invoke-url', parameters: { url: `${own.origin}/flaky/self-allowed/0`, retryCount: 0 } },
        { name: 'finalize', type: 'finalize' },
      ];
      const res = await call(`${own.origin}${JOBS}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ id: 'job-self-allowed', tasks }) });
      expect(res.status).toBe(201);
      expect((await drive(stubOfJob('job-self-allowed', 2), 'job-self-allowed')).status).toBe('Completed');
      const [made] = await calls('self-allowed');
      expect(made!.headers[HOP_HEADER.toLowerCase()]).toBe('1');
    } finally {
      await apiJson('PUT', settings, { allowSelfCalls: false }, { token: 2 }, 200);
    }
  });

  it('every call of a stand-alone job carries the hop header (1: made by a job)', async () => {
    await apiJson('POST', JOBS, { id: 'job-hop-1', tasks: [{ name: 'hook', type: 'invoke-url', parameters: { url: `${fixtureServer()}/flaky/hop-one/0`, queryHeaders: { [HOP_HEADER]: '0' } } }, { name: 'finalize', type: 'finalize' }] }, { token: 1 }, 201);
    expect((await drive(stubOfJob('job-hop-1'), 'job-hop-1')).status).toBe('Completed');
    const [made] = await calls('hop-one');
    // The pipeline cannot lower it.
    expect(made!.headers[HOP_HEADER.toLowerCase()]).toBe('1');
  });

  it('a project created by a call at hop n runs jobs whose calls carry n + 1; past depth 3 creation is refused with 409', async () => {
    const rawContent = JSON.stringify({ tasks: [{ name: 'hook', type: 'invoke-url', parameters: { url: `${fixtureServer()}/flaky/hop-project/0` } }, { name: 'finalize', type: 'finalize' }] });
    const pipeline = await apiJson('POST', '/api/backoffice/v1/processing-pipelines', { name: 'hop', rawContent }, { token: 1 }, 201);
    const body = (n: number) => ({ ownerId: 'hop-owner', orderDetails: { orderId: `hop-${n}`, orderNumber: n }, items: [{ name: 'a' }], scenario: { pipelineId: pipeline.id } });
    const path = '/api/storefront/v1/projects/by-scenario/specific-pipeline?storefrontId=1';
    const p = await apiJson('POST', path, body(2), { token: 1, headers: { [HOP_HEADER]: '2' } }, 201);
    expect(await driveProject(1, p.id)).toEqual(['Completed']);
    const [made] = await calls('hop-project');
    expect(made!.headers[HOP_HEADER.toLowerCase()]).toBe('3');
    const refused = await api('POST', path, body(MAX_HOP_DEPTH + 1), { token: 1, headers: { [HOP_HEADER]: String(MAX_HOP_DEPTH + 1) } });
    expect(refused.status).toBe(409);
    expect(JSON.stringify(await refused.json())).toMatch(/X-Platform-Hop.*depth/i);
    expect((await api('POST', path, body(MAX_HOP_DEPTH), { token: 1, headers: { [HOP_HEADER]: String(MAX_HOP_DEPTH) } })).status).toBe(201);
  });
});
