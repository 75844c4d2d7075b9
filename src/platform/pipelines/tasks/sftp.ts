/**
 * upload-to-ftp with `protocol: Sftp` (docs/delivery.md): the SSH client of src/lib/ssh over a
 * Workers TCP socket. Authentication by `privateKey` (OpenSSH format, `passphrase` if protected,
 * usually `{{secrets.<name>}}`) and/or `password`. The server's host key must match
 * `hostKeyFingerprint` (`SHA256:…` as `ssh-keygen -lf` prints it); without it the task trusts the
 * key on first use and notes its fingerprint on the task, so the back office can pin it.
 *
 * Each file is written to `.<name>.part` in the target folder (missing folders are made first),
 * then renamed over `<name>` (posix-rename@openssh.com where offered, else remove + rename): a
 * half-written file never carries the name production watches for, and a redo overwrites. The
 * file streams from R2 with a bounded number of writes in flight (memory flat). A dropped
 * connection is a TransientFailure: the runner retries and the retry rewrites `.part` from 0.
 */
import { connect } from 'cloudflare:sockets';
import { OPEN, SshError, STATUS, fingerprint, openSftp, readPrivateKey, sameFingerprint, type PrivateKey, type Sftp } from '../../../lib/ssh';
import { TaskFailure, TransientFailure } from './errors';
import { configured, joinRemote, protocolValues, remoteFolder, remoteHost, remoteName, safeSegments } from './remote-paths';
import type { TaskModule } from './types';

const FINGERPRINT = /^(SHA256:)?[A-Za-z0-9+/]{43}=?$/;

/** What a failure means for the runner: configuration problems fail now, network trouble retries. */
function classified(e: unknown): Error {
  if (e instanceof TaskFailure || e instanceof TransientFailure) return e;
  if (e instanceof SshError) {
    const message = `SFTP: ${e.message}`;
    if (e.code === 'connection' || e.code === 'disconnect') return new TransientFailure(message);
    if (e.code === 'sftp' && (e.status === STATUS.NO_CONNECTION || e.status === STATUS.CONNECTION_LOST)) return new TransientFailure(message);
    return new TaskFailure(message);
  }
  return new TransientFailure(`SFTP: ${(e as Error).message}`);
}

/** Makes each missing folder of `folder` (an existing one is fine). */
async function ensureFolder(sftp: Sftp, folder: string): Promise<void> {
  let path = folder.startsWith('/') ? '' : '.';
  for (const segment of safeSegments(folder)) {
    path = `${path}/${segment}`;
    const found = await sftp.stat(path);
    if (found?.isDirectory) continue;
    if (found) throw new TaskFailure(`folder: ${path} exists on the server and is not a folder`);
    await sftp.mkdir(path).catch(async (e) => {
      // Another upload may have made it in between.
      if (!(await sftp.stat(path))?.isDirectory) throw e;
    });
  }
}

/** upload-to-ftp with protocol Sftp (ftp.ts hands it over). */
export const uploadToSftp: TaskModule<'upload-to-ftp'> = {
  async run(ctx, p) {
    protocolValues(p, ['host', 'userName', 'folder', 'fileName', 'hostKeyFingerprint']);
    const host = remoteHost(p.host, p.port, ctx.env);
    const pinned = p.hostKeyFingerprint?.trim();
    if (pinned && !FINGERPRINT.test(pinned)) throw new TaskFailure('hostKeyFingerprint: expected SHA256:<43 base64 characters>, as ssh-keygen -lf prints it');
    const list = ctx.task.inputs.flatMap((r) => ctx.inputs(r.name));
    if (!list.length) throw new TaskFailure('there is nothing to upload');
    const folder = remoteFolder(p.folder, configured(ctx.task.parameters, 'folder') ?? '/');
    const given = p.fileName?.trim() ? remoteName(p.fileName, 'fileName') : undefined;
    const names = list.map((a) => (list.length === 1 && given ? given : remoteName(a.fileName, `the name of ${a.name}`)));
    let privateKey: PrivateKey | undefined;
    if (p.privateKey?.trim()) {
      try {
        privateKey = await readPrivateKey(p.privateKey, p.passphrase || undefined);
      } catch (e) {
        throw new TaskFailure(`privateKey: ${(e as Error).message}`);
      }
    }
    if (!privateKey && !p.password) throw new TaskFailure('SFTP needs a password or a privateKey');

    const socket = connect({ hostname: host, port: p.port }, { allowHalfOpen: false });
    const abort = () => void socket.close().catch(() => undefined);
    ctx.signal.addEventListener('abort', abort);
    let seen = '';
    try {
      const session = await openSftp(socket, {
        username: p.userName,
        password: p.password || undefined,
        privateKey,
        async verifyHostKey(blob) {
          seen = await fingerprint(blob);
          if (pinned && !sameFingerprint(pinned, seen)) {
            throw new TaskFailure(`hostKeyFingerprint: the server presented host key ${seen}, not the pinned ${pinned}`);
          }
        },
      });
      // Trust on first use: say which key was accepted so it can be pinned (docs/delivery.md).
      if (!pinned) ctx.note?.(`host key ${seen} accepted unpinned (trust on first use): set hostKeyFingerprint to pin it`);
      const { sftp } = session;
      if (folder) await ensureFolder(sftp, folder);
      for (const [i, a] of list.entries()) {
        const target = joinRemote(folder, names[i]!);
        const part = joinRemote(folder, `.${names[i]!}.part`);
        const obj = await ctx.env.FILES.get(a.key);
        if (!obj) throw new TaskFailure(`the artifact ${a.fileName} has no content`);
        const handle = await sftp.open(part, OPEN.WRITE | OPEN.CREAT | OPEN.TRUNC);
        const size = await sftp.upload(handle, obj.body);
        await sftp.close(handle);
        if (size !== obj.size) throw new TransientFailure(`SFTP: ${a.fileName}: ${size} of ${obj.size} bytes read from storage`);
        await sftp.rename(part, target, true);
      }
      await session.close();
    } catch (e) {
      if (ctx.signal.aborted) throw new TransientFailure('the SFTP upload did not finish within processingTimeout');
      throw classified(e);
    } finally {
      ctx.signal.removeEventListener('abort', abort);
      await socket.close().catch(() => undefined);
    }
  },
};
