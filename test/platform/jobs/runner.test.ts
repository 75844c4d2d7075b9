// The ProjectJobs runner through stand-alone rendering jobs: a design rendered to a print PDF and
// finalized; a crash injected after a unit's outputs and before its commit (PIPELINE_FAULTS) redoes
// the unit with no duplicate final and nothing lost; resume keeps earlier outputs; restart
// discards them. Alarms are driven with runDurableObjectAlarm; the object's SQLite is read with
// runInDurableObject.
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { apiJson, api, seedPlatform } from '../../helpers/platform';
import { createDesign, drive, sqlOf, stubOfJob } from './helpers';

const JOBS = '/api/rendering/v1/jobs';

const pipeline = (renderName = 'render', finalizeName = 'finalize') => [
  { name: 'extract', type: 'extract-project-design', outputArtifacts: ['design*'] },
  { name: renderName, type: 'render-hires', inputArtifacts: ['design*'], outputArtifacts: ['result*'], parameters: { hiResOutputDpi: 300 } },
  { name: finalizeName, type: 'finalize', inputArtifacts: ['result*'], finalArtifacts: ['result*'] },
];

const project = (designIds: string[]) => ({ id: 'p-1', ownerId: 'demo-customer', orderId: 'order-1', items: [{ itemId: '1', name: 'card', designIds }] });

async function finals(jobId: string) {
  const { results } = await env.DB.prepare(`SELECT id, name, alias, r2_key AS key, size, type FROM artifacts WHERE tenant_id = 1 AND job_id = ?1 ORDER BY alias`)
    .bind(jobId)
    .all<{ id: string; name: string; alias: string; key: string; size: number; type: string }>();
  return results;
}

async function jobKeys(jobId: string): Promise<string[]> {
  const listed = await env.FILES.list({ prefix: `p/1/jobs/${jobId}/` });
  return listed.objects.map((o) => o.key).sort();
}

beforeAll(async () => {
  await seedPlatform();
  await createDesign('jobs-design');
});

describe('a stand-alone job', () => {
  it('renders the design to one PDF, finalizes it and keeps nothing temporary', async () => {
    const job = await apiJson('POST', JOBS, { id: 'job-render-1', project: project(['jobs-design']), tasks: pipeline() }, { token: 1 }, 201);
    expect(job).toMatchObject({ id: 'job-render-1', tenantId: 1, ownerId: 'demo-customer' });
    const stub = stubOfJob('job-render-1');
    expect((await drive(stub, 'job-render-1')).status).toBe('Completed');

    const got = await apiJson('GET', `${JOBS}/job-render-1`, undefined, { token: 1 });
    expect(got.status).toBe('Completed');
    expect(got.tasks.map((t: { name: string; status: string }) => `${t.name}:${t.status}`)).toEqual(['extract:Completed', 'render:Completed', 'finalize:Completed']);

    const rows = await finals('job-render-1');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ type: 'Final', alias: 'result1', name: 'psdtools-blend-multiply.pdf' });
    const pdf = await env.FILES.get(rows[0]!.key);
    expect(new TextDecoder().decode(new Uint8Array(await pdf!.arrayBuffer()).subarray(0, 5))).toBe('%PDF-');
    // Only the final is left under the job's prefix; the borrowed design blob is untouched.
    expect(await jobKeys('job-render-1')).toEqual([rows[0]!.key]);
    const design = await env.DB.prepare(`SELECT blob_sha AS sha FROM assets WHERE tenant_id = 1 AND id = 'jobs-design'`).first<{ sha: string }>();
    expect(await env.FILES.head(`p/1/blobs/${design!.sha}`)).not.toBeNull();
    // The D1 mirror: listed with its final status.
    const list = await apiJson('GET', `${JOBS}?projectOrderId=order-1`, undefined, { token: 1 });
    expect(list.items.find((j: { id: string }) => j.id === 'job-render-1')).toMatchObject({ status: 'Completed', project: { id: null, orderId: 'order-1' } });
  });

  it('is idempotent by id: the same body answers the same job, another body 409', async () => {
    const body = { id: 'job-idem', project: project(['jobs-design']), tasks: pipeline() };
    const a = await apiJson('POST', `${JOBS}?startImmediately=false`, body, { token: 1 }, 201);
    const b = await apiJson('POST', `${JOBS}?startImmediately=false`, { ...body, tasks: JSON.parse(JSON.stringify(body.tasks)) }, { token: 1 }, 201);
    expect(b.id).toBe(a.id);
    expect(b.status).toBe('New');
    const res = await api('POST', JOBS, { ...body, project: project([]) }, { token: 1 });
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({ type: 'IdConflict' });
    // Started later with /start.
    expect(await apiJson('POST', `${JOBS}/job-idem/start`, undefined, { token: 1 })).toBe(true);
    expect((await api('POST', `${JOBS}/job-idem/start`, undefined, { token: 1 })).status).toBe(409);
    expect((await drive(stubOfJob('job-idem'), 'job-idem')).status).toBe('Completed');
  });

  it('refuses an invalid pipeline with every error by path, and accepts the tasks that used to be not available yet', async () => {
    const res = await api('POST', JOBS, { tasks: [{ name: 'a', type: 'render-hires', inputArtifacts: ['x'] }] }, { token: 1 });
    expect(res.status).toBe(400);
    const problem = (await res.json()) as { errors: Record<string, string[]> };
    expect(Object.keys(problem.errors).length).toBeGreaterThan(0);
    // Every task type has a module now (extract-design-images was the last refused here).
    const ok = await api('POST', `${JOBS}?startImmediately=false`, { tasks: [{ name: 'x', type: 'extract-project-design', outputArtifacts: ['design'] }, { name: 'img', type: 'extract-design-images', inputArtifacts: ['design'], outputArtifacts: ['images*'] }, { name: 'f', type: 'finalize' }] }, { token: 1 });
    expect(ok.status).toBe(201);
  });
});

describe('a crash after the outputs and before the commit (PIPELINE_FAULTS)', () => {
  it('redoes the render unit onto the same key: one final, nothing lost', async () => {
    await apiJson('POST', JOBS, { id: 'job-crash-render', project: project(['jobs-design']), tasks: pipeline('fault-render') }, { token: 1 }, 201);
    const run = await drive(stubOfJob('job-crash-render'), 'job-crash-render');
    expect(run.status).toBe('Completed');
    const stub = stubOfJob('job-crash-render');
    // The fault fired (the object was aborted once, by an automatic or a driven alarm).
    expect(await sqlOf(stub, `SELECT name FROM faults`)).toEqual([{ name: 'fault-render:after-outputs' }]);
    const rows = await finals('job-crash-render');
    expect(rows).toHaveLength(1);
    expect(await jobKeys('job-crash-render')).toEqual([rows[0]!.key]);
    const artifacts = await sqlOf<{ name: string; n: number }>(stub, `SELECT name, n FROM artifacts WHERE job_id = ? ORDER BY name, n`, 'job-crash-render');
    // One row per member: the borrowed design and the one result (no duplicate from the redo).
    expect(artifacts).toEqual([{ name: 'design', n: 0 }, { name: 'result', n: 0 }]);
    const [task] = await sqlOf<{ status: string; attempts: number }>(stub, `SELECT status, attempts FROM tasks WHERE job_id = ? AND name = 'fault-render'`, 'job-crash-render');
    expect(task).toEqual({ status: 'Completed', attempts: 0 });
  });

  it('redoes finalize: the final row is written once (same id)', async () => {
    await apiJson('POST', JOBS, { id: 'job-crash-final', project: project(['jobs-design']), tasks: pipeline('render', 'fault-finalize') }, { token: 1 }, 201);
    const run = await drive(stubOfJob('job-crash-final'), 'job-crash-final');
    expect(run.status).toBe('Completed');
    expect(await sqlOf(stubOfJob('job-crash-final'), `SELECT name FROM faults`)).toEqual([{ name: 'fault-finalize:after-outputs' }]);
    expect(await finals('job-crash-final')).toHaveLength(1);
  });

  it('fails the task "interrupted 3 times" on the fourth start of one unit', async () => {
    await apiJson('POST', `${JOBS}?startImmediately=false`, { id: 'job-interrupted', project: project(['jobs-design']), tasks: pipeline() }, { token: 1 }, 201);
    const stub = stubOfJob('job-interrupted');
    // Three starts of the extract unit that never ended (as a crash leaves them).
    await sqlOf(stub, `UPDATE tasks SET attempts = 3, status = 'InProgress' WHERE job_id = ? AND idx = 0`, 'job-interrupted');
    await apiJson('POST', `${JOBS}/job-interrupted/start`, undefined, { token: 1 });
    expect((await drive(stub, 'job-interrupted')).status).toBe('Failed');
    const got = await apiJson('GET', `${JOBS}/job-interrupted`, undefined, { token: 1 });
    expect(got.statusDescription).toBe('extract: interrupted 3 times');
  });
});

describe('resume and restart', () => {
  it('resume continues at the failed member and keeps the earlier outputs; restart discards them', async () => {
    // A second design whose file is not a PSD: its render fails (a data error: at once).
    const good = await env.DB.prepare(`SELECT blob_sha AS sha FROM assets WHERE tenant_id = 1 AND id = 'jobs-design'`).first<{ sha: string }>();
    await env.FILES.put('p/1/blobs/not-a-psd', 'not a psd');
    await env.DB.prepare(
      `INSERT OR REPLACE INTO assets (tenant_id, id, type, name, blob_sha, size, design_type, format) VALUES (1, 'jobs-broken', 'design', 'broken', 'not-a-psd', 9, 'Psd', 'psd')`,
    ).run();
    await apiJson('POST', JOBS, { id: 'job-resume', project: project(['jobs-design', 'jobs-broken']), tasks: pipeline() }, { token: 1 }, 201);
    const stub = stubOfJob('job-resume');
    expect((await drive(stub, 'job-resume')).status).toBe('Failed');
    let got = await apiJson('GET', `${JOBS}/job-resume`, undefined, { token: 1 });
    expect(got.statusDescription).toMatch(/^render: /);
    expect(got.tasks[1]).toMatchObject({ status: 'Failed', autoRetryCount: 0 });
    const [first] = await sqlOf<{ key: string }>(stub, `SELECT key FROM artifacts WHERE job_id = ? AND name = 'result'`, 'job-resume');
    const before = await env.FILES.head(first!.key);
    expect(before).not.toBeNull();
    // A Failed job cannot be restarted or started while... it is fine to restart; but not while running:
    // fix the design, then resume.
    await env.DB.prepare(`UPDATE assets SET blob_sha = ?1 WHERE tenant_id = 1 AND id = 'jobs-broken'`).bind(good!.sha).run();
    expect(await apiJson('POST', `${JOBS}/job-resume/recover`, undefined, { token: 1 })).toBe(true);
    expect((await api('POST', `${JOBS}/job-resume/recover`, undefined, { token: 1 })).status).toBe(409);
    expect((await drive(stub, 'job-resume')).status).toBe('Completed');
    const after = await env.FILES.head(first!.key);
    // Member 0 was not rendered again: the same object.
    expect(after!.uploaded.getTime()).toBe(before!.uploaded.getTime());
    const rows1 = await finals('job-resume');
    expect(rows1.map((r) => r.alias)).toEqual(['result1', 'result2']);

    // Restart: a fresh run; its finalize replaces the old finals.
    expect(await apiJson('POST', `${JOBS}/job-resume/restart`, undefined, { token: 1 })).toBe(true);
    expect((await drive(stub, 'job-resume')).status).toBe('Completed');
    const rows2 = await finals('job-resume');
    expect(rows2).toHaveLength(2);
    expect(rows2.every((r) => r.key.includes('/r2/'))).toBe(true);
    expect(rows2.map((r) => r.id).some((id) => rows1.some((o) => o.id === id))).toBe(false);
    expect(await env.FILES.head(first!.key)).toBeNull();
    expect(await jobKeys('job-resume')).toEqual(rows2.map((r) => r.key).sort());
    got = await apiJson('GET', `${JOBS}/job-resume`, undefined, { token: 1 });
    expect(got.status).toBe('Completed');
  });

  it('discard and delete', async () => {
    await apiJson('POST', `${JOBS}?startImmediately=false`, { id: 'job-discard', tasks: pipeline() }, { token: 1 }, 201);
    expect(await apiJson('POST', `${JOBS}/job-discard/discard`, undefined, { token: 1 })).toBe(true);
    expect((await api('POST', `${JOBS}/job-discard/discard`, undefined, { token: 1 })).status).toBe(409);
    const deleted = await apiJson('DELETE', `${JOBS}/job-discard`, undefined, { token: 1 });
    expect(deleted).toMatchObject({ id: 'job-discard', status: 'Discarded' });
    expect((await api('GET', `${JOBS}/job-discard`, undefined, { token: 1 })).status).toBe(404);
    expect((await api('GET', `${JOBS}/job-discard`, undefined, { token: 2 })).status).toBe(404);
  });
});
