// upload-to-ftp with protocol Sftp against a real OpenSSH sshd on loopback
// (test/helpers/delivery-servers.ts), through the ProjectJobs runner: key and password
// authentication, the key from {{secrets.…}}, host key pinning and trust on first use, folders
// made, temporary name then rename, a redo overwriting.
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { normaliseParameters } from '../../../src/platform/pipelines/language/tasks';
import { api, apiJson, seedPlatform } from '../../helpers/platform';
import { createDesign, drive, stubOfJob } from '../jobs/helpers';
import { csvDigest, runCsvUploadJob } from './upload-jobs';

const JOBS = '/api/rendering/v1/jobs';
const d = inject('delivery');
const suite = d.available ? describe : describe.skip;
const project = { id: 'p-sftp', orderNumber: 2042, customerName: 'Ada', items: [{ itemId: '7', name: 'card', quantity: 3 }] };

type Files = Record<string, { size: number; sha256: string }>;
const stored = async (): Promise<Files> => (await (await fetch(`${d.inspector}/files/sftp`)).json()) as Files;

function runJob(id: string, upload: Record<string, unknown>, p: Record<string, unknown> = project) {
  return runCsvUploadJob(id, p, { host: '127.0.0.1', port: d.sshPort, protocol: 'Sftp', userName: d.user, ...upload });
}

beforeAll(async () => {
  await seedPlatform();
  if (!d.available) return;
  for (const [name, value] of [['sftpKey', d.keys.ed25519], ['sftpKeyEcdsa', d.keys.ecdsa], ['sftpKeyRsa', d.keys.rsa], ['sftpKeyProtected', d.keys.rsaPassphrase], ['sftpPassphrase', d.keyPassphrase], ['sftpOtherKey', d.keys.other]]) {
    expect((await api('PUT', `/api/backoffice/v1/tenant-secrets/${name}`, { value }, { token: 1 })).status).toBe(204);
  }
});

describe('upload-to-ftp parameters for Sftp', () => {
  it('defaults the port to 22 and takes the SSH-key aliases', () => {
    expect(normaliseParameters('upload-to-ftp', { host: 'h', protocol: 'sftp', sshPrivateKey: 'k', privateKeyPassphrase: 'p' })).toMatchObject({ port: 22, protocol: 'Sftp', privateKey: 'k', passphrase: 'p' });
  });
});

suite('upload-to-ftp over SFTP (real OpenSSH)', () => {
  it('a key from {{secrets.…}} and a pinned host key: folders made, the file under its name, no .part left', async () => {
    const folder = `${d.sftpRoot}/orders/{{project.orderNumber}}/new`;
    const { status, job } = await runJob('job-sftp-key', { privateKey: '{{secrets.sftpKey}}', hostKeyFingerprint: d.hostKeys.ed25519, folder, fileName: 'order.csv' });
    expect(status, JSON.stringify(job.statusDescription)).toBe('Completed');
    const files = await stored();
    expect(files['orders/2042/new/order.csv']).toEqual(await csvDigest('job-sftp-key'));
    expect(Object.keys(files).filter((f) => f.endsWith('.part'))).toEqual([]);
    // Pinned: nothing to note.
    expect(job.tasks[1].statusDescription).toBeNull();
  });

  for (const [secret, label] of [['sftpKeyEcdsa', 'ECDSA P-256'], ['sftpKeyRsa', 'RSA (rsa-sha2-256)']]) {
    it(`authenticates with an ${label} key`, async () => {
      const id = `job-sftp-${secret.toLowerCase()}`;
      const { status, job } = await runJob(id, { privateKey: `{{secrets.${secret}}}`, folder: `${d.sftpRoot}/keys`, fileName: `${secret}.csv` });
      expect(status, JSON.stringify(job.statusDescription)).toBe('Completed');
      expect((await stored())[`keys/${secret}.csv`]).toEqual(await csvDigest(id));
    });
  }

  it('a passphrase-protected key with its passphrase from a secret', async () => {
    const { status, job } = await runJob('job-sftp-protected', { sshPrivateKey: '{{secrets.sftpKeyProtected}}', passphrase: '{{secrets.sftpPassphrase}}', folder: `${d.sftpRoot}/keys`, fileName: 'protected.csv' });
    expect(status, JSON.stringify(job.statusDescription)).toBe('Completed');
  });

  it('a protected key without its passphrase fails at once, saying so', async () => {
    const { status, job } = await runJob('job-sftp-nopass', { privateKey: '{{secrets.sftpKeyProtected}}', folder: `${d.sftpRoot}/keys` });
    expect(status).toBe('Failed');
    expect(job.tasks[1]).toMatchObject({ status: 'Failed', autoRetryCount: 0 });
    expect(job.statusDescription).toBe('upload: privateKey: the private key is protected by a passphrase; give it as passphrase');
  });

  it.skipIf(!d.password)('password authentication; without a pinned key the fingerprint is noted on the task (trust on first use)', async () => {
    const { status, job } = await runJob('job-sftp-password', { password: d.password, folder: `${d.sftpRoot}/pw/{{project.orderNumber}}`, fileName: 'pw.csv' });
    expect(status, JSON.stringify(job.statusDescription)).toBe('Completed');
    expect((await stored())['pw/2042/pw.csv']).toEqual(await csvDigest('job-sftp-password'));
    expect(job.tasks[1].statusDescription).toBe(`host key ${d.hostKeys.ed25519} accepted unpinned (trust on first use): set hostKeyFingerprint to pin it`);
  });

  it('a key the server does not know fails the task at once', async () => {
    const { status, job } = await runJob('job-sftp-wrongkey', { privateKey: '{{secrets.sftpOtherKey}}', folder: `${d.sftpRoot}/never` });
    expect(status).toBe('Failed');
    expect(job.tasks[1]).toMatchObject({ status: 'Failed', autoRetryCount: 0 });
    expect(job.statusDescription).toBe(`upload: SFTP: the server refused publickey (ssh-ed25519) for ${d.user}`);
    expect(Object.keys(await stored()).filter((f) => f.startsWith('never'))).toEqual([]);
  });

  it('a host key other than the pinned one fails the task naming both fingerprints, before logging in', async () => {
    const wrong = 'SHA256:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU';
    const { status, job } = await runJob('job-sftp-hostkey', { privateKey: '{{secrets.sftpKey}}', hostKeyFingerprint: wrong, folder: `${d.sftpRoot}/never` });
    expect(status).toBe('Failed');
    expect(job.tasks[1]).toMatchObject({ status: 'Failed', autoRetryCount: 0 });
    expect(job.statusDescription).toBe(`upload: hostKeyFingerprint: the server presented host key ${d.hostKeys.ed25519}, not the pinned ${wrong}`);
  });

  it('a redo overwrites the file (posix-rename over the old one)', async () => {
    const folder = `${d.sftpRoot}/redo`;
    await runJob('job-sftp-redo-1', { privateKey: '{{secrets.sftpKey}}', folder, fileName: 'order.csv' });
    const second = { ...project, id: 'p-sftp-2', customerName: 'Grace Hopper and a longer name' };
    const { status } = await runJob('job-sftp-redo-2', { privateKey: '{{secrets.sftpKey}}', folder, fileName: 'order.csv' }, second);
    expect(status).toBe('Completed');
    const files = await stored();
    expect(files['redo/order.csv']).toEqual(await csvDigest('job-sftp-redo-2'));
    expect(Object.keys(files).filter((f) => f.startsWith('redo/'))).toEqual(['redo/order.csv']);
  });

  it('a connection cut mid-upload is retried by the runner after its delay: one complete file, no .part', async () => {
    await createDesign('sftp-cut-design');
    const id = 'job-sftp-cut';
    const p = { ...project, id: 'p-sftp-cut', items: [{ itemId: '7', name: 'card', quantity: 1, designIds: ['sftp-cut-design'] }] };
    const tasks = [
      { name: 'extract', type: 'extract-project-design', outputArtifacts: ['design*'] },
      { name: 'upload', type: 'upload-to-ftp', inputArtifacts: ['design*'], parameters: { host: '127.0.0.1', port: d.sshCutSmallPort, protocol: 'Sftp', userName: d.user, privateKey: '{{secrets.sftpKey}}', folder: `${d.sftpRoot}/cut-runner`, fileName: 'design.psd' } },
      { name: 'finalize', type: 'finalize', finalArtifacts: ['design*'] },
    ];
    await apiJson('POST', JOBS, { id, project: p, tasks }, { token: 1 }, 201);
    const started = Date.now();
    const { status } = await drive(stubOfJob(id), id, 50_000);
    const job = await apiJson('GET', `${JOBS}/${id}`, undefined, { token: 1 });
    expect(status, JSON.stringify(job.statusDescription)).toBe('Completed');
    // Two connections, the first cut; the retry waited retryDelayMs(0) = 10 s.
    expect(((await (await fetch(`${d.inspector}/proxies`)).json()) as Record<string, unknown>).cutSmall).toEqual({ connections: 2, cut: 1 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(9_500);
    const row = await env.DB.prepare(`SELECT r2_key AS key FROM artifacts WHERE tenant_id = 1 AND job_id = ? AND type = 'Final'`).bind(id).first<{ key: string }>();
    const bytes = new Uint8Array(await (await env.FILES.get(row!.key))!.arrayBuffer());
    expect(bytes.length).toBeGreaterThan(24 * 1024);
    const files = await stored();
    expect(files['cut-runner/design.psd']?.size).toBe(bytes.length);
    expect(Object.keys(files).filter((f) => f.startsWith('cut-runner/'))).toEqual(['cut-runner/design.psd']);
  }, 70_000);

  it('CR/LF in an interpolated folder fails the task naming the parameter, before connecting', async () => {
    const evil = { ...project, id: 'p-sftp-evil', customerName: 'x\nrm -rf /' };
    const { status, job } = await runJob('job-sftp-crlf', { privateKey: '{{secrets.sftpKey}}', folder: `${d.sftpRoot}/{{project.customerName}}` }, evil);
    expect(status).toBe('Failed');
    expect(job.statusDescription).toMatch(/^upload: folder: contains a line break or NUL/);
  });

  it('.. in an interpolated folder stays inside the configured folder', async () => {
    const evil = { ...project, id: 'p-sftp-dots', customerName: '../../../../tmp' };
    const { status, job } = await runJob('job-sftp-dots', { privateKey: '{{secrets.sftpKey}}', folder: `${d.sftpRoot}/dots/{{project.customerName}}`, fileName: '../x.csv' }, evil);
    expect(status, JSON.stringify(job.statusDescription)).toBe('Completed');
    expect((await stored())['dots/tmp/x.csv']).toBeDefined();
  });
});
