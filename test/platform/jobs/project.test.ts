// Project processing through the runner: the seeded demo card (with-single-item on `demo-card`)
// reaches Completed with one 300 dpi PDF in processing-results; restart discards the job and its
// final once the new job's finalize commits; resume and restart answer 409 in the wrong state;
// deleting the project's jobs deletes their finals.
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  ConflictError,
} from '../../../src/platform/core';
import {
  jobStub,
  projectDoName,
  projectProcessingResults,
  restartProject,
  resumeProject,
  runWatchdog,
  stopProjectJobs,
} from '../../../src/platform/jobs';
import { runnerTenant } from '../../../src/platform/jobs/d1';
import { apiJson, seedPlatform } from '../../helpers/platform';
import { fixtureServer } from '../../helpers/fixtures';
import { driveProject } from './helpers';

const t = () => runnerTenant(env, 1, 'http://localhost');

async function createDemoProject(): Promise<number> {
  const p = await apiJson(
    'POST',
    '/api/storefront/v1/projects/with-single-item?storefrontId=1',
    { ownerId: 'demo-customer', productReference: 'demo-card', item: {} },
    { token: 1 },
    201,
  );
  return p.id as number;
}

beforeAll(async () => {
  await seedPlatform();
});

describe('the seeded demo card', () => {
  it('reaches Completed with one 300 dpi PDF', async () => {
    const started = Date.now();
    const id = await createDemoProject();
    expect(await driveProject(1, id)).toEqual(['Completed']);
    console.log(`demo card: creation → Completed in ${Date.now() - started} ms`);
    const results = await projectProcessingResults(t(), id);
    expect(results.status).toBe('Completed');
    // The same through the storefront route.
    expect(await apiJson('GET', `/api/storefront/v1/projects/${id}/processing-results`, undefined, { token: 1 })).toEqual(results);
    expect(results.statusDescription).toBeNull();
    expect(results.outputFileDetails).toHaveLength(1);
    const [file] = results.outputFileDetails;
    expect(file).toMatchObject({ format: 'pdf', anonymousAccess: false, url: `http://localhost/api/storage/v1/artifacts/${file!.artifactId}/file` });
    expect(file!.projectItemId).toEqual(expect.any(Number));
    const row = await env.DB.prepare(`SELECT r2_key AS key FROM artifacts WHERE tenant_id = 1 AND id = ?1`).bind(file!.artifactId).first<{ key: string }>();
    const pdf = new Uint8Array(await (await env.FILES.get(row!.key))!.arrayBuffer());
    expect(pdf.length).toBe(file!.size);
    // pdfinfo (poppler) reads it as one page.
    const info = await (await fetch(`${fixtureServer()}/tools/pdfinfo`, { method: 'POST', body: pdf })).text();
    expect(info).toMatch(/Pages:\s+1\b/);
    const project = await env.DB.prepare(`SELECT processing_status AS s FROM projects WHERE tenant_id = 1 AND id = ?1`).bind(id).first<{ s: string }>();
    expect(project!.s).toBe('Completed');
    const jobs = await apiJson('GET', `/api/rendering/v1/jobs?projectId=${id}`, undefined, { token: 1 });
    expect(jobs.items).toHaveLength(1);
    expect(jobs.items[0]).toMatchObject({ status: 'Completed', project: { id } });
    // The job's detail comes from the project's object.
    const job = await apiJson('GET', `/api/rendering/v1/jobs/${jobs.items[0].id}`, undefined, { token: 1 });
    expect(job.tasks.map((x: { status: string }) => x.status)).toEqual(['Completed', 'Completed', 'Completed']);
  });

  it('restart discards the job; the new final replaces the old; resume of a job that did not fail is 409', async () => {
    const id = await createDemoProject();
    await driveProject(1, id);
    const before = await projectProcessingResults(t(), id);
    await expect(resumeProject(t(), id)).rejects.toBeInstanceOf(ConflictError);
    await restartProject(t(), id);
    // While the new job runs, neither resume nor restart is accepted.
    await expect(restartProject(t(), id)).rejects.toBeInstanceOf(ConflictError);
    expect((await driveProject(1, id)).sort()).toEqual(['Completed', 'Discarded']);
    const after = await projectProcessingResults(t(), id);
    expect(after.status).toBe('Completed');
    expect(after.outputFileDetails).toHaveLength(1);
    expect(after.outputFileDetails[0]!.artifactId).not.toBe(before.outputFileDetails[0]!.artifactId);
    const old = await env.DB.prepare(`SELECT count(*) AS n FROM artifacts WHERE tenant_id = 1 AND id = ?1`).bind(before.outputFileDetails[0]!.artifactId).first<{ n: number }>();
    expect(old!.n).toBe(0);

    // Deleting the project's processing deletes its finals and files.
    const key = (await env.DB.prepare(`SELECT r2_key AS key FROM artifacts WHERE tenant_id = 1 AND id = ?1`).bind(after.outputFileDetails[0]!.artifactId).first<{ key: string }>())!.key;
    await stopProjectJobs(env, 1, id);
    expect(await env.FILES.head(key)).toBeNull();
    expect((await jobStub(env, projectDoName(1, id)).views()).length).toBe(0);
  });

  it('the watchdog creates the jobs of a project triggered > 2 min ago that has none', async () => {
    const id = await createDemoProject();
    await driveProject(1, id);
    await stopProjectJobs(env, 1, id);
    await env.DB.prepare(`UPDATE projects SET processing_status = 'InProgress', processing_triggered_at = ?2 WHERE tenant_id = 1 AND id = ?1`)
      .bind(id, Date.now() - 3 * 60_000)
      .run();
    const r = await runWatchdog(env);
    expect(r.started).toBeGreaterThanOrEqual(1);
    expect(await driveProject(1, id)).toEqual(['Completed']);
    expect((await projectProcessingResults(t(), id)).outputFileDetails).toHaveLength(1);
  });
});
