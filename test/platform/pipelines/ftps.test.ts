// upload-to-ftp with Ftps (explicit, AUTH TLS) and FtpsImplicit against a real vsftpd on loopback
// (test/helpers/delivery-servers.ts) with a self-signed certificate the test run's workerd
// trusts (SSL_CERT_FILE; Workers cannot pin a certificate: docs/delivery.md): the upload under a
// temporary name then renamed, a redo overwriting, a server insisting on TLS session reuse, and a
// certificate nobody trusts.
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { apiJson, seedPlatform } from '../../helpers/platform';
import { csvDigest, runCsvUploadJob } from './upload-jobs';

const JOBS = '/api/rendering/v1/jobs';
const d = inject('delivery');
const suite = d.available && d.password ? describe : describe.skip;
const project = { id: 'p-ftps', orderNumber: 3042, customerName: 'Ada', items: [{ itemId: '7', name: 'card', quantity: 3 }] };

type Files = Record<string, { size: number; sha256: string }>;
const stored = async (): Promise<Files> => (await (await fetch(`${d.inspector}/files/ftp`)).json()) as Files;

function runJob(id: string, upload: Record<string, unknown>, p: Record<string, unknown> = project) {
  return runCsvUploadJob(id, p, { host: '127.0.0.1', userName: d.user, password: d.password, ...upload });
}

beforeAll(async () => {
  await seedPlatform();
});

suite('upload-to-ftp over FTPS (real vsftpd)', () => {
  it('explicit FTPS (AUTH TLS, PROT P): folders made, stored under a temporary name then renamed', async () => {
    const { status, job } = await runJob('job-ftps-explicit', { protocol: 'Ftps', port: d.ftpsPort, folder: 'orders/{{project.orderNumber}}', fileName: 'order.csv' });
    expect(status, JSON.stringify(job.statusDescription)).toBe('Completed');
    const files = await stored();
    expect(files['orders/3042/order.csv']).toEqual(await csvDigest('job-ftps-explicit'));
    expect(Object.keys(files).filter((f) => f.endsWith('.part'))).toEqual([]);
  });

  it('implicit FTPS (TLS from the first byte)', async () => {
    const { status, job } = await runJob('job-ftps-implicit', { protocol: 'FtpsImplicit', port: d.ftpsImplicitPort, folder: 'implicit', fileName: 'order.csv' });
    expect(status, JSON.stringify(job.statusDescription)).toBe('Completed');
    expect((await stored())['implicit/order.csv']).toEqual(await csvDigest('job-ftps-implicit'));
  });

  it('a redo overwrites the file', async () => {
    await runJob('job-ftps-redo-1', { protocol: 'Ftps', port: d.ftpsPort, folder: 'redo', fileName: 'order.csv' });
    const second = { ...project, id: 'p-ftps-2', customerName: 'Grace Hopper and a longer name' };
    const { status, job } = await runJob('job-ftps-redo-2', { protocol: 'Ftps', port: d.ftpsPort, folder: 'redo', fileName: 'order.csv' }, second);
    expect(status, JSON.stringify(job.statusDescription)).toBe('Completed');
    const files = await stored();
    expect(files['redo/order.csv']).toEqual(await csvDigest('job-ftps-redo-2'));
    expect(Object.keys(files).filter((f) => f.startsWith('redo/'))).toEqual(['redo/order.csv']);
  });

  it('a server requiring TLS session reuse (vsftpd require_ssl_reuse=YES) is satisfied: workerd resumes the control session on the data connection', async () => {
    const { status, job } = await runJob('job-ftps-reuse', { protocol: 'Ftps', port: d.ftpsReusePort, folder: 'reuse', fileName: 'order.csv' });
    expect(status, JSON.stringify(job.statusDescription)).toBe('Completed');
    expect((await stored())['reuse/order.csv']).toEqual(await csvDigest('job-ftps-reuse'));
  });

  it('a certificate the runtime does not trust fails the task at once, saying so', async () => {
    const { status, job } = await runJob('job-ftps-untrusted', { protocol: 'Ftps', port: d.ftpsUntrustedPort, folder: 'untrusted' });
    expect(status).toBe('Failed');
    expect(job.tasks[1]).toMatchObject({ status: 'Failed', autoRetryCount: 0 });
    expect(job.statusDescription).toMatch(/certificate/);
  });

  it('tlsCertificateFingerprint is refused with 400 at job creation: Workers sockets cannot pin a certificate', async () => {
    const tasks = [
      { name: 'csv', type: 'sn-export-order-details-to-csv', outputArtifacts: ['order'] },
      { name: 'upload', type: 'upload-to-ftp', inputArtifacts: ['order'], parameters: { host: '127.0.0.1', protocol: 'Ftps', port: d.ftpsPort, tlsCertificateFingerprint: d.tlsFingerprint } },
      { name: 'finalize', type: 'finalize' },
    ];
    const body = await apiJson('POST', JOBS, { id: 'job-ftps-pin', project, tasks }, { token: 1 }, 400);
    expect(JSON.stringify(body)).toContain('Workers TLS sockets cannot pin a certificate');
  });
});
