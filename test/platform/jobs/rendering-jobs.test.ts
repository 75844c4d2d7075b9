// Rendering jobs' D1 side (src/platform/jobs/rendering-jobs.ts over jobs/store): lists filter and
// sort the `jobs` rows, and update-project-owner moves the chosen jobs and their final artifacts
// (only those) from one owner to another. Jobs are created with startImmediately=false, so they
// stay New and nothing runs.
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, apiJson, seedPlatform } from '../../helpers/platform';

const JOBS = '/api/rendering/v1/jobs';
const tasks = [{ name: 'finalize', type: 'finalize' }];

async function createJob(id: string, ownerId: string, orderId: string) {
  return apiJson('POST', `${JOBS}?startImmediately=false`, { id, project: { ownerId, orderId }, tasks }, { token: 1 }, 201);
}

/** A Final artifact row of a job, as finalize writes it. */
async function finalOf(jobId: string, ownerId: string) {
  const now = Date.now();
  await env.DB.prepare(
    `INSERT INTO artifacts (tenant_id, id, owner_id, job_id, project_id, project_item_id, group_name, alias, type, name, format, size, r2_key,
       anonymous_access, expires_at, created, last_modified)
     VALUES (1, ?1, ?2, ?3, NULL, NULL, ?3, 'result', 'Final', 'result.pdf', 'pdf', 1, ?4, 0, NULL, ?5, ?5)`,
  )
    .bind(`final-${jobId}`, ownerId, jobId, `p/1/jobs/${jobId}/result.pdf`, now)
    .run();
}

const ownerOfFinal = async (jobId: string) =>
  (await env.DB.prepare(`SELECT owner_id AS o FROM artifacts WHERE tenant_id = 1 AND id = ?1`).bind(`final-${jobId}`).first<{ o: string }>())?.o;

describe('rendering jobs: lists and owners', () => {
  beforeAll(async () => {
    await seedPlatform();
    await createJob('owner-a1', 'alice', 'order-owner-1');
    await createJob('owner-a2', 'alice', 'order-owner-1');
    await createJob('owner-c1', 'carol', 'order-owner-2');
    for (const id of ['owner-a1', 'owner-a2', 'owner-c1']) await finalOf(id, id.startsWith('owner-a') ? 'alice' : 'carol');
  });

  it('lists by order id and status, sorted by the given key, with the total', async () => {
    const page = await apiJson('GET', `${JOBS}?projectOrderId=order-owner-1&status=New&sorting=id DESC`, undefined, { token: 1 });
    expect(page.total).toBe(2);
    expect(page.items.map((j: { id: string }) => j.id)).toEqual(['owner-a2', 'owner-a1']);
    expect(page.items[0]).toMatchObject({ status: 'New', ownerId: 'alice', project: { id: null, orderId: 'order-owner-1' } });
    const none = await apiJson('GET', `${JOBS}?projectOrderId=order-owner-1&status=Completed`, undefined, { token: 1 });
    expect(none).toMatchObject({ total: 0, items: [] });
    // A project id that is not a number matches nothing (it is not a 400).
    expect((await apiJson('GET', `${JOBS}?projectId=abc`, undefined, { token: 1 })).total).toBe(0);
  });

  it('update-project-owner moves the listed jobs of that owner and their finals, and nothing else', async () => {
    const res = await api('POST', `${JOBS}/update-project-owner`, { ownerId: 'alice', newOwnerId: 'bob', jobIds: ['owner-a1', 'owner-c1'] }, { token: 1 });
    expect(res.status).toBe(204);
    expect((await apiJson('GET', `${JOBS}/owner-a1`, undefined, { token: 1 })).ownerId).toBe('bob');
    expect((await apiJson('GET', `${JOBS}/owner-a2`, undefined, { token: 1 })).ownerId).toBe('alice');
    // owner-c1 is carol's: not moved although listed.
    expect((await apiJson('GET', `${JOBS}/owner-c1`, undefined, { token: 1 })).ownerId).toBe('carol');
    expect([await ownerOfFinal('owner-a1'), await ownerOfFinal('owner-a2'), await ownerOfFinal('owner-c1')]).toEqual(['bob', 'alice', 'carol']);
  });

  it('update-project-owner with updateAll moves every job of the owner; no ids and no updateAll is a 400', async () => {
    expect((await api('POST', `${JOBS}/update-project-owner`, { ownerId: 'alice', newOwnerId: 'dave', updateAll: true }, { token: 1 })).status).toBe(204);
    expect((await apiJson('GET', `${JOBS}/owner-a2`, undefined, { token: 1 })).ownerId).toBe('dave');
    expect(await ownerOfFinal('owner-a2')).toBe('dave');
    expect((await apiJson('GET', `${JOBS}/owner-a1`, undefined, { token: 1 })).ownerId).toBe('bob');
    const bad = await api('POST', `${JOBS}/update-project-owner`, { ownerId: 'bob', newOwnerId: 'erin', jobIds: [] }, { token: 1 });
    expect(bad.status).toBe(400);
  });
});
