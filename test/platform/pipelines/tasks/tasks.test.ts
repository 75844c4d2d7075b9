// Task modules run by the ProjectJobs runner through stand-alone rendering jobs: invoke-url's
// retryCount / retryDelaySeconds through alarms with one Idempotency-Key, render-preview,
// draw-crop-marks + merge-separate-pages, the order CSV, and how failures are classified.
import { PDFDocument } from 'pdf-lib';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { decodeImage } from '../../../../src/engine/raster';
import { classify, CallFailure, retryDelayMs, TaskFailure, TransientFailure } from '../../../../src/platform/pipelines/tasks/errors';
import { fixtureServer } from '../../../helpers/fixtures';
import { api, apiJson, seedPlatform, tenantToken } from '../../../helpers/platform';
import { createDesign, drive, finalFiles, runStandaloneJob, sqlOf, stubOfJob } from '../../jobs/helpers';

const JOBS = '/api/rendering/v1/jobs';
const project = { id: 'p-2', orderNumber: 1042, customerName: 'Ada, Inc.', items: [{ itemId: '7', name: 'card', quantity: 3, designIds: ['tasks-design'] }] };

const runJob = (id: string, tasks: unknown[], body: Record<string, unknown> = {}) => runStandaloneJob(id, project, tasks, 40_000, body);

const calls = async (key: string) => (await (await fetch(`${fixtureServer()}/calls/${key}`)).json()) as Array<{ idempotencyKey: string; body: string; at: number }>;

beforeAll(async () => {
  await seedPlatform();
  await createDesign('tasks-design');
});

describe('invoke-url', () => {
  it('retries a failing URL retryCount times, retryDelaySeconds apart, with one Idempotency-Key', async () => {
    const url = `${fixtureServer()}/flaky/retry-ok/2`;
    const { status, job } = await runJob('job-invoke-ok', [
      { name: 'notify', type: 'invoke-url', outputArtifacts: ['answer'], parameters: { url, body: { project: '{{projectId}}' }, retryCount: 3, retryDelaySeconds: 1 } },
      { name: 'finalize', type: 'finalize', inputArtifacts: ['answer'] },
    ]);
    expect(status).toBe('Completed');
    const made = await calls('retry-ok');
    expect(made).toHaveLength(3);
    expect(new Set(made.map((c) => c.idempotencyKey))).toEqual(new Set(['job-invoke-ok-1-notify-0']));
    expect(JSON.parse(made[0]!.body)).toEqual({ project: 'p-2' });
    // Each retry waited its delay (alarms; never earlier).
    expect(made[1]!.at - made[0]!.at).toBeGreaterThanOrEqual(950);
    expect(made[2]!.at - made[1]!.at).toBeGreaterThanOrEqual(950);
    expect(job.tasks[0]).toMatchObject({ status: 'Completed', autoRetryCount: 0 });
    const [answer] = await finalFiles('job-invoke-ok');
    expect(JSON.parse(new TextDecoder().decode(answer!.bytes))).toEqual({ ok: true, calls: 3 });
  });

  it('fails the task RequestFailed after retryCount retries (maxAutoRetryCount does not apply)', async () => {
    const url = `${fixtureServer()}/flaky/retry-fail/100`;
    const { status, job } = await runJob('job-invoke-fail', [
      { name: 'notify', type: 'invoke-url', parameters: { url, retryCount: 1, retryDelaySeconds: 0 }, maxAutoRetryCount: 5 },
      { name: 'finalize', type: 'finalize' },
    ]);
    expect(status).toBe('Failed');
    expect(await calls('retry-fail')).toHaveLength(2);
    expect(job.tasks[0].status).toBe('RequestFailed');
    expect(job.statusDescription).toMatch(/^notify: the call to 127\.0\.0\.1:\d+ failed \(HTTP 503\)/);
  });

  it('records the retry schedule in the object: not before the failure + the delay', async () => {
    const url = `${fixtureServer()}/flaky/retry-later/100`;
    await apiJson('POST', JOBS, { id: 'job-invoke-later', tasks: [{ name: 'notify', type: 'invoke-url', parameters: { url, retryCount: 2, retryDelaySeconds: 600 } }, { name: 'finalize', type: 'finalize' }] }, { token: 1 }, 201);
    const stub = stubOfJob('job-invoke-later');
    for (let i = 0; i < 50 && (await calls('retry-later')).length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    let task: { status: string; callRetries: number; notBefore: number } | undefined;
    for (let i = 0; i < 50; i++) {
      [task] = await sqlOf<{ status: string; callRetries: number; notBefore: number }>(stub, `SELECT status, call_retries AS callRetries, not_before AS notBefore FROM tasks WHERE job_id = ? AND idx = 0`, 'job-invoke-later');
      if (task?.status === 'Pending') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const [first] = await calls('retry-later');
    expect(task).toMatchObject({ status: 'Pending', callRetries: 1 });
    expect(task!.notBefore - first!.at).toBeGreaterThanOrEqual(599_000);
    expect(task!.notBefore - first!.at).toBeLessThan(605_000);
    expect(await apiJson('POST', `${JOBS}/job-invoke-later/discard`, undefined, { token: 1 })).toBe(true);
  });
});

describe('upload-to-s3', () => {
  it('PUTs each file path-style with a SigV4 signature (aws4fetch)', async () => {
    const endpoint = `${fixtureServer()}/flaky/s3-up/0`;
    const { status } = await runJob('job-s3', [
      { name: 'extract', type: 'extract-project-design', outputArtifacts: ['design*'] },
      { name: 'csv', type: 'sn-export-order-details-to-csv', outputArtifacts: ['order'] },
      { name: 'upload', type: 'upload-to-s3', inputArtifacts: ['order'], parameters: { endpoint, bucket: 'print', key: 'orders/1042.csv', accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret', region: 'eu-west-1' } },
      { name: 'finalize', type: 'finalize' },
    ]);
    expect(status).toBe('Completed');
    const [put] = (await calls('s3-up')) as unknown as Array<{ method: string; path: string; authorization: string; headers: Record<string, string>; body: string }>;
    expect(put).toMatchObject({ method: 'PUT', path: '/flaky/s3-up/0/print/orders/1042.csv' });
    expect(put!.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/s3\/aws4_request, SignedHeaders=[a-z0-9;-]+, Signature=[0-9a-f]{64}$/);
    const digest = [...new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(put!.body)))].map((b) => b.toString(16).padStart(2, '0')).join('');
    // aws4fetch signs S3 bodies as UNSIGNED-PAYLOAD (allowed by S3 over TLS) or by their digest.
    expect(['UNSIGNED-PAYLOAD', digest]).toContain(put!.headers['x-amz-content-sha256']);
    expect(put!.body).toMatch(/^OrderNumber,Item,Quantity,CustomerName,Cost\r\n1042,card,3,/);
  });

  it('keeps the key inside the bucket: .. and leading / are dropped from key and file names', async () => {
    const endpoint = `${fixtureServer()}/flaky/s3-dots/0`;
    const { status, job } = await runJob('job-s3-dots', [
      { name: 'csv', type: 'sn-export-order-details-to-csv', outputArtifacts: ['order'] },
      { name: 'upload', type: 'upload-to-s3', inputArtifacts: ['order'], parameters: { endpoint, bucket: 'print', key: '../other-bucket/{{project.orderNumber}}.csv', accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' } },
      { name: 'finalize', type: 'finalize' },
    ]);
    expect(status, JSON.stringify(job.statusDescription)).toBe('Completed');
    const [put] = (await calls('s3-dots')) as unknown as Array<{ path: string }>;
    expect(put!.path).toBe('/flaky/s3-dots/0/print/other-bucket/1042.csv');
  });
});

describe('upload-to-ftp', () => {
  it('stores each file in the folder over a Workers TCP socket (EPSV, binary)', async () => {
    const port = inject('ftpPort' as never) as number;
    const { status, job } = await runJob('job-ftp', [
      { name: 'extract', type: 'extract-project-design', outputArtifacts: ['design*'] },
      { name: 'render', type: 'render-hires', inputArtifacts: ['design*'], outputArtifacts: ['pdf*'] },
      { name: 'upload', type: 'upload-to-ftp', inputArtifacts: ['pdf*'], parameters: { host: '127.0.0.1', port, userName: 'bench', password: 'secret', folder: '/orders/1042', fileName: 'card.pdf' } },
      { name: 'finalize', type: 'finalize', finalArtifacts: ['pdf*'] },
    ]);
    expect(status, JSON.stringify(job.statusDescription)).toBe('Completed');
    const stored = (await (await fetch(`${fixtureServer()}/ftp-files`)).json()) as Record<string, number>;
    const [pdf] = await finalFiles('job-ftp');
    expect(stored['/orders/1042/card.pdf']).toBe(pdf!.bytes.length);
  });

  it('a refused login fails the task at once', async () => {
    const port = inject('ftpPort' as never) as number;
    const { status, job } = await runJob('job-ftp-login', [
      { name: 'csv', type: 'sn-export-order-details-to-csv', outputArtifacts: ['order'] },
      { name: 'upload', type: 'upload-to-ftp', inputArtifacts: ['order'], parameters: { host: '127.0.0.1', port, userName: 'bench', password: 'wrong' } },
      { name: 'finalize', type: 'finalize' },
    ]);
    expect(status).toBe('Failed');
    expect(job.tasks[1]).toMatchObject({ status: 'Failed', autoRetryCount: 0 });
    expect(job.statusDescription).toMatch(/^upload: FTP PASS: 530 login incorrect \(login refused\)$/);
  });

  it('refuses CR/LF/NUL from an interpolated project field in folder, naming the parameter, before any command', async () => {
    const port = inject('ftpPort' as never) as number;
    const evil = { ...project, id: 'p-ftp-evil', customerName: 'x\r\nDELE /orders/other/invoice.pdf\r\nSITE CHMOD 777 /' };
    await apiJson('POST', JOBS, { id: 'job-ftp-crlf', project: evil, tasks: [
      { name: 'csv', type: 'sn-export-order-details-to-csv', outputArtifacts: ['order'] },
      { name: 'upload', type: 'upload-to-ftp', inputArtifacts: ['order'], parameters: { host: '127.0.0.1', port, userName: 'bench', password: 'secret', folder: '/crlf/{{project.customerName}}' } },
      { name: 'finalize', type: 'finalize' },
    ] }, { token: 1 }, 201);
    const { status } = await drive(stubOfJob('job-ftp-crlf'), 'job-ftp-crlf', 40_000);
    const job = await apiJson('GET', `${JOBS}/job-ftp-crlf`, undefined, { token: 1 });
    expect(status).toBe('Failed');
    expect(job.tasks[1]).toMatchObject({ status: 'Failed', autoRetryCount: 0 });
    expect(job.statusDescription).toMatch(/^upload: folder: contains a line break or NUL/);
    const stored = (await (await fetch(`${fixtureServer()}/ftp-files`)).json()) as Record<string, number>;
    expect(Object.keys(stored).filter((k) => k.startsWith('/crlf'))).toEqual([]);
  });

  it('reduces remote file and folder names to safe segments (no .., no control characters)', async () => {
    const port = inject('ftpPort' as never) as number;
    const { status, job } = await runJob('job-ftp-traversal', [
      { name: 'csv', type: 'sn-export-order-details-to-csv', outputArtifacts: ['order'] },
      { name: 'upload', type: 'upload-to-ftp', inputArtifacts: ['order'], parameters: { host: '127.0.0.1', port, userName: 'bench', password: 'secret', folder: '/safe/../../{{project.orderNumber}}/.', fileName: '../../../../var/www/html/index\u0007.html' } },
      { name: 'finalize', type: 'finalize' },
    ]);
    expect(status, JSON.stringify(job.statusDescription)).toBe('Completed');
    const stored = (await (await fetch(`${fixtureServer()}/ftp-files`)).json()) as Record<string, number>;
    expect(stored['/safe/1042/index.html']).toBeGreaterThan(0);
    expect(Object.keys(stored).filter((k) => k.includes('..') || k.includes('var/www'))).toEqual([]);
  });
});

describe('secrets', () => {
  it('resolve at run time for creators with ProcessingPipelines_full; others get 403 at create', async () => {
    const put = await api('PUT', '/api/backoffice/v1/tenant-secrets/hookKey', { value: 'sekret-hook-key' }, { token: 1 });
    expect(put.status).toBe(204);
    const tasks = [
      { name: 'notify', type: 'invoke-url', parameters: { url: `${fixtureServer()}/flaky/secret-hook/0`, queryHeaders: { 'X-Hook-Key': '{{secrets.HookKey}}' }, body: { key: '{{secrets.hookKey}}' } } },
      { name: 'finalize', type: 'finalize' },
    ];
    const narrow = await tenantToken(1, 'Projects_full');
    const refused = await api('POST', JOBS, { id: 'job-secret-refused', tasks }, { token: narrow });
    expect(refused.status).toBe(403);
    const { status, job } = await runJob('job-secret', tasks);
    expect(status).toBe('Completed');
    const made = (await calls('secret-hook')) as unknown as Array<{ body: string; headers: Record<string, string> }>;
    expect(made).toHaveLength(1);
    expect(made[0]!.headers['x-hook-key']).toBe('sekret-hook-key');
    expect(JSON.parse(made[0]!.body)).toEqual({ key: 'sekret-hook-key' });
    // The DTO returns parameters as written.
    expect(JSON.stringify(job)).not.toContain('sekret-hook-key');
  });
});

describe('secrets: write-only', () => {
  const PIPELINES = '/api/backoffice/v1/processing-pipelines';
  const withSecret = JSON.stringify({ tasks: [{ name: 'attach', type: 'export-to-ecommerce', parameters: { orderData: [{ key: 'k', value: 'x' }] } }, { name: 'hook', type: 'invoke-url', parameters: { url: 'https://example.com/h', queryHeaders: { Authorization: 'Bearer {{secrets.ftpPassword}}' } } }, { name: 'finalize', type: 'finalize' }] });
  const without = JSON.stringify({ tasks: [{ name: 'finalize', type: 'finalize' }] });

  it('saving a pipeline that uses {{secrets.…}} needs ProcessingPipelines_full, on PUT as on POST', async () => {
    const created = await apiJson('POST', PIPELINES, { name: 'plain', rawContent: without }, { token: 1 }, 201);
    const update = await tenantToken(1, 'ProcessingPipelines_update ProcessingPipelines_read');
    const put = await api('PUT', `${PIPELINES}/${created.id}`, { name: 'plain', rawContent: withSecret }, { token: update });
    expect(put.status).toBe(403);
    expect(await put.text()).toMatch(/ProcessingPipelines_full/);
    expect((await api('PUT', `${PIPELINES}/${created.id}`, { name: 'renamed', rawContent: without }, { token: update })).status).toBe(200);
    expect((await api('PUT', `${PIPELINES}/${created.id}`, { name: 'plain', rawContent: withSecret }, { token: 1 })).status).toBe(200);
  });

  it('refuses a pipeline that would copy a secret into order data (400 naming the path)', async () => {
    const leak = JSON.stringify({ tasks: [{ name: 'attach', type: 'export-to-ecommerce', parameters: { orderData: [{ key: 'k', value: '{{secrets.ftpPassword}}' }] } }, { name: 'finalize', type: 'finalize' }] });
    const res = await api('POST', PIPELINES, { name: 'leak', rawContent: leak }, { token: 1 });
    expect(res.status).toBe(400);
    expect(JSON.stringify(await res.json())).toContain('tasks[0].parameters.orderData[0].value');
  });

  it('a secret in URL user info goes as basic auth, and a failure never shows it in any form', async () => {
    expect((await api('PUT', '/api/backoffice/v1/tenant-secrets/hookUser', { value: 'Hook-User' }, { token: 1 })).status).toBe(204);
    expect((await api('PUT', '/api/backoffice/v1/tenant-secrets/hookPass', { value: 'p@ss w0rd!' }, { token: 1 })).status).toBe(204);
    const base = new URL(fixtureServer());
    const url = `${base.protocol}//{{secrets.hookUser}}:{{secrets.hookPass}}@${base.host}/flaky/basic-auth/100`;
    const { status, job } = await runJob('job-secret-basic', [
      { name: 'notify', type: 'invoke-url', parameters: { url, retryCount: 0 } },
      { name: 'finalize', type: 'finalize' },
    ]);
    expect(status).toBe('Failed');
    const [made] = (await calls('basic-auth')) as unknown as Array<{ authorization: string; path: string }>;
    expect(made!.authorization).toBe(`Basic ${btoa('Hook-User:p@ss w0rd!')}`);
    const shown = JSON.stringify(job);
    for (const form of ['Hook-User', 'hook-user', 'p@ss w0rd!', encodeURIComponent('p@ss w0rd!'), btoa('Hook-User:p@ss w0rd!')]) expect(shown).not.toContain(form);
  });
});

describe('render, crop marks, merge and CSV', () => {
  it('render-preview fits the box; draw-crop-marks grows the page; merge puts pages in order', async () => {
    const { status, job } = await runJob('job-pdf-chain', [
      { name: 'extract', type: 'extract-project-design', outputArtifacts: ['design*'] },
      { name: 'hires', type: 'render-hires', inputArtifacts: ['design*'], outputArtifacts: ['pdf*'] },
      { name: 'crop', type: 'draw-crop-marks', inputArtifacts: ['pdf*'], outputArtifacts: ['cropped*'] },
      { name: 'preview', type: 'render-preview', inputArtifacts: ['design*'], outputArtifacts: ['preview*'], parameters: { previewOutputWidth: 200, previewOutputHeight: 200 } },
      { name: 'merge', type: 'merge-separate-pages', inputArtifacts: ['cropped*', 'preview*'], outputArtifacts: ['merged'], parameters: { outputName: 'proof-sheet' } },
      { name: 'csv', type: 'sn-export-order-details-to-csv', outputArtifacts: ['order'] },
      { name: 'finalize', type: 'finalize', inputArtifacts: ['merged', 'order', 'pdf*'], finalArtifacts: ['merged', 'order', 'pdf*'] },
    ]);
    expect(status, JSON.stringify(job)).toBe('Completed');
    const files = await finalFiles('job-pdf-chain');
    const byName = new Map(files.map((f) => [f.name, f.bytes]));
    const original = await PDFDocument.load(byName.get('psdtools-blend-multiply.pdf')!);
    const merged = await PDFDocument.load(byName.get('proof-sheet.pdf')!);
    expect(merged.getPageCount()).toBe(2);
    const [o] = original.getPages();
    const [cropped, preview] = merged.getPages();
    expect(cropped!.getWidth()).toBeCloseTo(o!.getWidth() + 2 * 18, 3);
    expect(cropped!.getHeight()).toBeCloseTo(o!.getHeight() + 2 * 18, 3);
    expect(Math.max(preview!.getWidth(), preview!.getHeight())).toBeCloseTo(200, 0);
    expect(new TextDecoder().decode(byName.get('order-details.csv'))).toBe('OrderNumber,Item,Quantity,CustomerName,Cost\r\n1042,card,3,"Ada, Inc.",\r\n');
  });

  it('render-image-preview fits (Fit) or covers (Fill) the box', async () => {
    const { status, job } = await runJob('job-image-preview', [
      { name: 'extract', type: 'extract-project-design', outputArtifacts: ['design*'] },
      { name: 'preview', type: 'render-preview', inputArtifacts: ['design*'], outputArtifacts: ['preview*'] },
      { name: 'fill', type: 'render-image-preview', inputArtifacts: ['preview*'], outputArtifacts: ['filled*'], parameters: { fitMode: 'Fill', previewOutputWidth: 100, previewOutputHeight: 50, outputName: 'filled' } },
      { name: 'fit', type: 'render-image-preview', inputArtifacts: ['preview*'], outputArtifacts: ['fitted*'], parameters: { fitMode: 'Fit', previewOutputWidth: 100, previewOutputHeight: 50, previewOutputFileFormat: 'Png', outputName: 'fitted' } },
      { name: 'finalize', type: 'finalize', finalArtifacts: ['filled*', 'fitted*'] },
    ]);
    expect(status, JSON.stringify(job.statusDescription)).toBe('Completed');
    const files = new Map((await finalFiles('job-image-preview')).map((f) => [f.name, f.bytes]));
    const filled = await decodeImage(files.get('filled.jpg')!);
    expect([filled.width, filled.height]).toEqual([100, 50]);
    const fitted = await decodeImage(files.get('fitted.png')!);
    expect(fitted.width <= 100 && fitted.height <= 50 && (fitted.width === 100 || fitted.height === 50)).toBe(true);
  });

  it('previews on a 2D mockup: the design, and an image, placed into its artwork layer', async () => {
    const { status, job } = await runJob('job-mockup', [
      { name: 'extract', type: 'extract-project-design', outputArtifacts: ['design*'] },
      { name: 'onMockup', type: 'render-design-preview-with-mockup', inputArtifacts: ['design*'], outputArtifacts: ['mocked*'], parameters: { mockups: ['demo-mockup'], previewOutputWidth: 400, previewOutputHeight: 400 } },
      { name: 'preview', type: 'render-preview', inputArtifacts: ['design*'], outputArtifacts: ['preview*'] },
      { name: 'imageOnMockup', type: 'render-image-preview-with-mockup', inputArtifacts: ['preview*'], outputArtifacts: ['imageMocked*'], parameters: { mockups: ['demo-mockup'], previewOutputFileFormat: 'Png', outputName: 'image-on-mockup' } },
      { name: 'finalize', type: 'finalize', finalArtifacts: ['mocked*', 'imageMocked*'] },
    ]);
    expect(status, JSON.stringify(job.statusDescription)).toBe('Completed');
    const files = new Map((await finalFiles('job-mockup')).map((f) => [f.name, f.bytes]));
    const mocked = await decodeImage(files.get('psdtools-blend-multiply.jpg')!);
    expect(Math.max(mocked.width, mocked.height)).toBe(400);
    const image = await decodeImage(files.get('image-on-mockup.png')!);
    expect(Math.max(image.width, image.height)).toBe(800);
  });

  it('a data error fails at once: export-to-ecommerce without a project', async () => {
    const { status, job } = await runJob('job-no-project', [
      { name: 'attach', type: 'attach-data-to-order', parameters: { orderData: [{ key: 'a', value: 'b' }] } },
      { name: 'finalize', type: 'finalize' },
    ]);
    expect(status).toBe('Failed');
    expect(job.tasks[0]).toMatchObject({ status: 'Failed', autoRetryCount: 0 });
    expect(job.statusDescription).toBe('attach: the job has no project to attach order data to');
  });
});

describe('failure classes', () => {
  it('input, parameter and data errors fail; network, 5xx and storage errors retry after 10·2ⁿ s', () => {
    expect(classify(new TaskFailure('x')).kind).toBe('fail');
    expect(classify(new TransientFailure('x')).kind).toBe('retry');
    expect(classify(new Error('D1_ERROR: network connection lost')).kind).toBe('retry');
    expect(classify(new CallFailure('x', 2, 5))).toEqual({ kind: 'call', message: 'x', retryCount: 2, retryDelaySeconds: 5 });
    expect([0, 1, 2].map(retryDelayMs)).toEqual([10_000, 20_000, 40_000]);
  });
});
