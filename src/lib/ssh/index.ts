/**
 * A small SSH client for Workers: transport (RFC 4253) with curve25519/P-256 ECDH and AES-GCM or
 * AES-CTR + HMAC-SHA-256 from WebCrypto, authentication by password or OpenSSH private key
 * (RFC 4252), one session channel (RFC 4254) running SFTP v3 (draft-ietf-secsh-filexfer-02).
 * Written here because the maintained SSH libraries for JavaScript (ssh2, and node-ssh on top of
 * it) need Node's `net` and `crypto` (createDiffieHellman, createCipheriv, streams) that workerd
 * does not provide; the bytes travel over any ReadableStream/WritableStream pair, in production
 * a `cloudflare:sockets` socket.
 *
 * ```ts
 * const socket = connect({ hostname, port: 22 });
 * const session = await openSftp(socket, { username: 'print', privateKey: await readPrivateKey(pem) });
 * const handle = await session.sftp.open('/in/a.pdf', OPEN.WRITE | OPEN.CREAT | OPEN.TRUNC);
 * await session.sftp.upload(handle, body);
 * await session.sftp.close(handle);
 * await session.close();
 * ```
 */
import { authenticate, type Credentials } from './auth';
import { Channel } from './channel';
import { Sftp } from './sftp';
import { Transport, type TransportOptions } from './transport';

export { SshError, type SshErrorCode } from './errors';
export { fingerprint, sameFingerprint } from './hostkey';
export { readPrivateKey, type PrivateKey } from './keys';
export { OPEN, STATUS, Sftp } from './sftp';

export interface SftpSession {
  sftp: Sftp;
  /** The server's host key blob (verified) and its `SHA256:` fingerprint. */
  hostKey: Uint8Array;
  serverVersion: string;
  close(): Promise<void>;
}

export async function openSftp(
  socket: { readable: ReadableStream<Uint8Array>; writable: WritableStream<Uint8Array> },
  options: Credentials & TransportOptions,
): Promise<SftpSession> {
  const t = new Transport(socket.readable, socket.writable, options);
  try {
    await t.start();
    await authenticate(t, options);
    const channel = await Channel.subsystem(t, 'sftp');
    const sftp = await Sftp.start(channel);
    return {
      sftp,
      hostKey: t.hostKey,
      serverVersion: t.serverVersion,
      async close() {
        await channel.close();
        await t.close();
      },
    };
  } catch (e) {
    await t.close();
    throw e;
  }
}
