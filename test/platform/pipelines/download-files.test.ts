// download-files: URLs → output members through the outbound policy, with request headers;
// names from Content-Disposition or the URL; refused URLs and header injection fail the task.
import { beforeAll, describe, expect, it } from 'vitest';
import { dispositionName } from '../../../src/platform/pipelines/tasks/download-files';
import { fixtureServer, testAsset } from '../../helpers/fixtures';
import { seedPlatform } from '../../helpers/platform';
import { finalFiles, runStandaloneJob } from '../jobs/helpers';


const runJob = (id: string, tasks: unknown[]) => runStandaloneJob(id, { id: 'p-dl', orderNumber: 7 }, tasks, 40_000);

const finals = async (jobId: string): Promise<Map<string, Uint8Array>> => new Map((await finalFiles(jobId)).map((f) => [f.name, f.bytes]));

beforeAll(async () => {
  await seedPlatform();
});

describe('download-files', () => {
  it('downloads each URL, in order, into the collection, named after the URL', async () => {
    const { status, job } = await runJob('job-dl-two', [
      { name: 'dl', type: 'download-files', parameters: { urls: [`${fixtureServer()}/assets/marker-40x20.jpg`, '{{project.customerName?}}', `${fixtureServer()}/assets/marker-40x20-alpha.png`] }, outputArtifacts: ['file*'] },
      { name: 'finalize', type: 'finalize', finalArtifacts: ['file*'] },
    ]);
    expect(status, JSON.stringify(job.statusDescription)).toBe('Completed');
    const files = await finals('job-dl-two');
    expect([...files.keys()]).toEqual(['marker-40x20.jpg', 'marker-40x20-alpha.png']);
    expect(files.get('marker-40x20.jpg')).toEqual(await testAsset('marker-40x20.jpg'));
  });

  it('sends the headers given', async () => {
    const { status } = await runJob('job-dl-headers', [
      { name: 'dl', type: 'download-files', parameters: { urls: `${fixtureServer()}/flaky/dl-headers/0`, headers: { Authorization: 'Bearer s3cret', 'X-Api-Key': '{{project.orderNumber}}' } }, outputArtifacts: ['answer'] },
      { name: 'finalize', type: 'finalize', finalArtifacts: ['answer'] },
    ]);
    expect(status).toBe('Completed');
    const [call] = (await (await fetch(`${fixtureServer()}/calls/dl-headers`)).json()) as Array<{ authorization: string; headers: Record<string, string> }>;
    expect(call!.authorization).toBe('Bearer s3cret');
    expect(call!.headers['x-api-key']).toBe('7');
    expect([...(await finals('job-dl-headers')).keys()]).toEqual(['0.json']);
  });

  it('fails the task at once for a URL the outbound policy refuses, naming it', async () => {
    const { status, job } = await runJob('job-dl-refused', [
      { name: 'dl', type: 'download-files', parameters: { urls: ['http://169.254.169.254/latest/meta-data'] }, outputArtifacts: ['file*'], maxAutoRetryCount: 3 },
      { name: 'finalize', type: 'finalize' },
    ]);
    expect(status).toBe('Failed');
    expect(job.statusDescription).toMatch(/^dl: urls\[0\]: /);
    expect(job.tasks[0].autoRetryCount).toBe(0);
  });

  it('refuses header values with line breaks, and several URLs for a single output', async () => {
    const a = await runJob('job-dl-crlf', [
      { name: 'dl', type: 'download-files', parameters: { urls: [`${fixtureServer()}/assets/marker-40x20.jpg`], headers: { 'X-A': 'a\r\nX-Injected: 1' } }, outputArtifacts: ['file'] },
      { name: 'finalize', type: 'finalize' },
    ]);
    expect(a.status).toBe('Failed');
    expect(a.job.statusDescription).toMatch(/headers: "X-A" contains a line break/);
    const b = await runJob('job-dl-single', [
      { name: 'dl', type: 'download-files', parameters: { urls: [`${fixtureServer()}/assets/marker-40x20.jpg`, `${fixtureServer()}/assets/marker-40x20.jpg`] }, outputArtifacts: ['file'] },
      { name: 'finalize', type: 'finalize' },
    ]);
    expect(b.status).toBe('Failed');
    expect(b.job.statusDescription).toMatch(/use file\*/);
  });

  it('reads file names from Content-Disposition, keeping only a safe last segment', () => {
    expect(dispositionName('attachment; filename="card.pdf"')).toBe('card.pdf');
    expect(dispositionName("attachment; filename*=UTF-8''caf%C3%A9.pdf; filename=\"cafe.pdf\"")).toBe('café.pdf');
    expect(dispositionName('attachment; filename="../../etc/passwd"')).toBe('passwd');
    expect(dispositionName('inline')).toBeNull();
  });
});
