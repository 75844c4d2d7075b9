// Preflight in pipelines (issue 21): the `preflight` task checks a design with its item's fields
// and fails the job on errors (or only records, `failOnErrors: false`); render tasks record what
// their render found; the job DTO shows the problems per task and for the job. Real D1, R2 and
// the ProjectJobs object, through stand-alone jobs on a print-product card whose Name box fits
// a short name only.
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { LONG_NAME as LONG, preflightCard, uploadCardFonts } from '../../projects/preflight-card';
import { apiJson, seedPlatform } from '../../../helpers/platform';
import { drive, runStandaloneJob, sqlOf, stubOfJob } from '../../jobs/helpers';

const JOBS = '/api/rendering/v1/jobs';

let designId: string;

interface TaskDto {
  name: string;
  status: string;
  statusDescription: string | null;
  preflight: { ok: boolean; errors: number; warnings: number; problems: Array<{ layer: string; code: string; severity: string; message: string; design: string | null }> } | null;
}

/** A stand-alone job on the card with the item's `fields`, driven to its end and read back. */
async function runJob(id: string, fields: Record<string, unknown>, tasks: unknown[]) {
  const project = { items: [{ itemId: '1', designIds: [designId], fields }] };
  const { status, job } = await runStandaloneJob(id, project, [{ name: 'extract', type: 'extract-project-design', outputArtifacts: ['design*'] }, ...tasks], 40_000);
  const task = (name: string) => (job.tasks as TaskDto[]).find((t) => t.name === name)!;
  return { status, job, task };
}

beforeAll(async () => {
  await seedPlatform();
  await uploadCardFonts();
  designId = (await apiJson('POST', '/api/atoms/v1/designs', { product: preflightCard(), name: 'Preflight card', path: '/preflight-cards/' }, { token: 1 }, 201)).id;
});

const check = (parameters: Record<string, unknown> = {}) => ({ name: 'check', type: 'preflight', inputArtifacts: ['design*'], parameters });
const render = { name: 'render', type: 'render-hires', inputArtifacts: ['design*'], outputArtifacts: ['result*'] };
const finalize = { name: 'finalize', type: 'finalize', finalArtifacts: ['result*'] };

describe('the preflight task', () => {
  it('fails the job on errors, before the render, and records the problems on the task and the job', async () => {
    const { status, job, task } = await runJob('pf-fails', { Name: LONG }, [check(), render, finalize]);
    expect(status).toBe('Failed');
    expect(task('check').status).toBe('Failed');
    expect(task('render').status).toBe('New');
    expect(job.statusDescription).toMatch(/^check: Preflight card: 1 preflight error: .*Name/);
    const pf = task('check').preflight!;
    expect(pf).toMatchObject({ ok: false, errors: 1 });
    expect(pf.problems[0]).toMatchObject({ layer: 'Name', code: 'textOverflow', severity: 'error', design: designId });
    expect(pf.problems[0]!.message).toContain(LONG);
    expect(job.preflight).toEqual(pf);
  });

  it('only records with failOnErrors: false; the render after it records the same problem; a report output carries it as JSON', async () => {
    const { status, job, task } = await runJob('pf-records', { Name: LONG }, [
      { ...check({ failOnErrors: false }), outputArtifacts: ['report*'] },
      render,
      { ...finalize, finalArtifacts: ['result*', 'report*'] },
    ]);
    expect(status, job.statusDescription).toBe('Completed');
    expect(task('check').preflight).toMatchObject({ ok: false, errors: 1, warnings: 0 });
    // The render's own checks (no second render) found the overflow too.
    expect(task('render').preflight?.problems.map((p) => [p.layer, p.code])).toEqual([['Name', 'textOverflow']]);
    // The job's summary holds each design's problem once.
    expect(job.preflight).toMatchObject({ ok: false, errors: 1, warnings: 0 });
    const row = await env.DB.prepare(`SELECT r2_key AS key FROM artifacts WHERE tenant_id = 1 AND job_id = 'pf-records' AND alias = 'report1'`).first<{ key: string }>();
    const report = JSON.parse(await (await env.FILES.get(row!.key))!.text());
    expect(report).toMatchObject({ design: designId, designName: 'Preflight card', ok: false, errors: 1 });
    expect(report.problems[0].code).toBe('textOverflow');
  });

  it('passes a name that fits: the task shows a clean check (ok, no problems) and the job completes', async () => {
    const { status, job, task } = await runJob('pf-clean', { Name: 'Ada' }, [check({ failOnWarnings: true }), render, finalize]);
    expect(status, job.statusDescription).toBe('Completed');
    expect(task('check').preflight).toEqual({ ok: true, errors: 0, warnings: 0, problems: [] });
    expect(task('extract').preflight).toBeNull();
  });

  it('keeps one record per unit in the object: a resumed job checks the failed member again instead of adding to it', async () => {
    await runJob('pf-resume', { Name: LONG }, [check(), render, finalize]);
    await apiJson('POST', `${JOBS}/pf-resume/recover`, undefined, { token: 1 }, 200);
    expect((await drive(stubOfJob('pf-resume'), 'pf-resume', 40_000)).status).toBe('Failed');
    const rows = await sqlOf<{ idx: number; member: number }>(stubOfJob('pf-resume'), `SELECT idx, member FROM task_problems WHERE job_id = 'pf-resume'`);
    expect(rows).toEqual([{ idx: 1, member: 0 }]);
    const job = await apiJson('GET', `${JOBS}/pf-resume`, undefined, { token: 1 });
    expect(job.preflight).toMatchObject({ errors: 1 });
  });
});

describe('render tasks on a PSD design', () => {
  it('record the engine\'s layer checks from the render itself and still complete', async () => {
    const layer = 'Line 1 Line 2 Line 3 and text';
    const project = { items: [{ itemId: '1', designIds: ['demo-card-design'], fields: { [layer]: `${LONG} ${LONG} ${LONG} ${LONG} ${LONG} ${LONG}` } }] };
    const tasks = [
      { name: 'extract', type: 'extract-project-design', outputArtifacts: ['design*'] },
      { name: 'preview', type: 'render-preview', inputArtifacts: ['design*'], outputArtifacts: ['preview*'] },
      { name: 'finalize', type: 'finalize', finalArtifacts: ['preview*'] },
    ];
    await apiJson('POST', JOBS, { id: 'pf-psd', project, tasks }, { token: 1 }, 201);
    expect((await drive(stubOfJob('pf-psd'), 'pf-psd', 40_000)).status).toBe('Completed');
    const job = await apiJson('GET', `${JOBS}/pf-psd`, undefined, { token: 1 });
    const preview = (job.tasks as TaskDto[]).find((t) => t.name === 'preview')!;
    // The render completes (it never fails for them) and the overflow is on the task, found while drawing.
    expect(preview.preflight).toMatchObject({ ok: false, errors: 1 });
    expect(preview.preflight!.problems[0]).toMatchObject({ layer, code: 'textOverflow', severity: 'error', design: 'demo-card-design' });
  });
});
