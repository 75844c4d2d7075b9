// The SFTP upload task module (src/platform/pipelines/tasks/sftp.ts) on large files against the
// real sshd: a LARGE_UPLOAD file streamed from R2 with the Worker's memory flat, and a connection
// cut mid-upload (test/helpers/delivery-servers.ts's proxy) that fails the unit as transient, so
// the runner retries, and the retry leaves one complete file.
import { env } from 'cloudflare:workers';
import { describe, expect, inject, it } from 'vitest';
import { classify, TransientFailure } from '../../../src/platform/pipelines/tasks/errors';
import { uploadToFtp } from '../../../src/platform/pipelines/tasks/ftp';
import type { ArtifactRecord, UnitContext } from '../../../src/platform/pipelines/tasks/types';
import { normaliseParameters } from '../../../src/platform/pipelines/language';

const d = inject('delivery');
const suite = d.available ? describe : describe.skip;

/** 64 MiB in the suite; docs/delivery.md gives the 1 GiB figure measured by hand with this test (set 1 << 30). */
// 128 MiB: the bound below is the file's size, and other test files running in the same workerd
// process have added up to 67 MiB to its RSS during a 64 MiB upload (CI, 2026-11-29).
const LARGE_UPLOAD = 128 * 1024 * 1024;
const CHUNK = 1024 * 1024;

type Files = Record<string, { size: number; sha256: string }>;
const stored = async (): Promise<Files> => (await (await fetch(`${d.inspector}/files/sftp`)).json()) as Files;
const rss = async (): Promise<number> => ((await (await fetch(`${d.inspector}/rss`)).json()) as { rss: number }).rss;

/** Puts `size` bytes of a repeating pattern into R2 without holding them; returns the SHA-256 hex. */
async function putLarge(key: string, size: number): Promise<string> {
  const chunk = new Uint8Array(CHUNK);
  for (let i = 0; i < CHUNK; i++) chunk[i] = (i * 2654435761) >>> 24;
  const digest = new crypto.DigestStream('SHA-256');
  const fixed = new FixedLengthStream(size);
  let sent = 0;
  const source = new ReadableStream<Uint8Array>({
    pull(controller) {
      const n = Math.min(CHUNK, size - sent);
      if (n <= 0) return controller.close();
      const part = chunk.slice(0, n);
      part[0] = sent / CHUNK; // each MiB differs
      sent += n;
      controller.enqueue(part);
    },
  });
  const [a, b] = source.tee();
  const put = env.FILES.put(key, fixed.readable);
  await Promise.all([a.pipeTo(fixed.writable), b.pipeTo(digest), put]);
  return [...new Uint8Array(await digest.digest)].map((x) => x.toString(16).padStart(2, '0')).join('');
}

/** Runs the task on one unit, its parameters normalised as the runner does. */
function unit(key: string, size: number, params: Record<string, unknown>) {
  const artifact = { jobId: 'j', run: 1, task: 't', name: 'big', n: 0, key, fileName: 'big.bin', format: null, size, itemId: null, source: null } as unknown as ArtifactRecord;
  const p = normaliseParameters('upload-to-ftp', { host: '127.0.0.1', port: d.sshPort, userName: d.user, password: '', folder: '/', protocol: 'Sftp', privateKey: d.keys.ed25519, hostKeyFingerprint: d.hostKeys.ed25519, ...params });
  const ctx = {
    env,
    task: { name: 'upload', type: 'upload-to-ftp', inputs: [{ name: 'big' }], parameters: { folder: '/' } },
    inputs: (name: string) => (name === 'big' ? [artifact] : []),
    signal: new AbortController().signal,
    note: () => {},
  } as unknown as UnitContext;
  return () => uploadToFtp.run(ctx, p);
}

suite('SFTP uploads of large files', () => {
  it(`streams ${LARGE_UPLOAD >> 20} MiB from R2 with flat memory, byte-exact`, async () => {
    const sha256 = await putLarge('sftp-large', LARGE_UPLOAD);
    const before = await rss();
    let peak = before;
    let running = true;
    const sampler = (async () => {
      while (running) {
        peak = Math.max(peak, await rss());
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const started = Date.now();
    try {
      await unit('sftp-large', LARGE_UPLOAD, { folder: `${d.sftpRoot}/large`, fileName: 'large.bin' })();
    } finally {
      running = false;
      await sampler;
    }
    const seconds = (Date.now() - started) / 1000;
    console.log(`SFTP ${LARGE_UPLOAD >> 20} MiB in ${seconds.toFixed(1)} s (${((LARGE_UPLOAD >> 20) / seconds).toFixed(1)} MiB/s); workerd RSS ${before >> 20} → peak ${peak >> 20} MiB`);
    expect((await stored())['large/large.bin']).toEqual({ size: LARGE_UPLOAD, sha256 });
    // Flat: holding the file would add at least its size; the writes in flight are 2 MiB. Alone the
    // growth is 6–24 MiB; other test files share this workerd process, hence the margin.
    expect(peak - before).toBeLessThan(LARGE_UPLOAD);
  }, 600_000);

  it('a connection cut mid-upload is a transient failure; the retry leaves one complete file', async () => {
    const size = 8 * 1024 * 1024;
    const sha256 = await putLarge('sftp-cut', size);
    const upload = unit('sftp-cut', size, { port: d.sshCutPort, folder: `${d.sftpRoot}/cut`, fileName: 'cut.bin' });
    const first = await upload().then(() => null, (e: unknown) => e);
    expect(first).toBeInstanceOf(TransientFailure);
    expect(classify(first).kind).toBe('retry');
    expect((await stored())['cut/cut.bin']).toBeUndefined();
    await upload();
    const files = await stored();
    expect(files['cut/cut.bin']).toEqual({ size, sha256 });
    expect(Object.keys(files).filter((f) => f.startsWith('cut/'))).toEqual(['cut/cut.bin']);
  }, 120_000);
});
