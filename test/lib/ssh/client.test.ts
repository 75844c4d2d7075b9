// The SSH/SFTP client (src/lib/ssh) against a real OpenSSH sshd on loopback
// (test/helpers/delivery-servers.ts): each key exchange, host key type, cipher and
// authentication method, with the RFC section each one checks.
import { connect } from 'cloudflare:sockets';
import { describe, expect, inject, it } from 'vitest';
import { OPEN, SshError, openSftp, readPrivateKey, type SftpSession } from '../../../src/lib/ssh';
import { fingerprint } from '../../../src/lib/ssh/hostkey';

const d = inject('delivery');
const suite = d.available ? describe : describe.skip;

async function session(options: Partial<Parameters<typeof openSftp>[1]> = {}, port = d.sshPort): Promise<SftpSession> {
  const socket = connect({ hostname: '127.0.0.1', port });
  return openSftp(socket, { username: d.user, privateKey: await readPrivateKey(d.keys.ed25519), verifyHostKey: () => {}, ...options });
}

async function stored(): Promise<Record<string, { size: number; sha256: string }>> {
  return (await (await fetch(`${d.inspector}/files/sftp`)).json()) as Record<string, { size: number; sha256: string }>;
}

function random(n: number): Uint8Array {
  const b = new Uint8Array(n);
  for (let o = 0; o < n; o += 65536) crypto.getRandomValues(b.subarray(o, Math.min(n, o + 65536)));
  return b;
}

function body(bytes: Uint8Array): ReadableStream<Uint8Array> {
  return new Blob([bytes]).stream();
}

async function sha256(b: Uint8Array) {
  return [...new Uint8Array(await crypto.subtle.digest('SHA-256', b))].map((x) => x.toString(16).padStart(2, '0')).join('');
}

async function roundTrip(s: SftpSession, name: string, bytes: Uint8Array) {
  const file = `${d.sftpRoot}/${name}`;
  const h = await s.sftp.open(file, OPEN.WRITE | OPEN.CREAT | OPEN.TRUNC);
  expect(await s.sftp.upload(h, body(bytes))).toBe(bytes.length);
  await s.sftp.close(h);
  expect(await s.sftp.stat(file)).toMatchObject({ size: bytes.length });
  await s.close();
  expect((await stored())[name]).toEqual({ size: bytes.length, sha256: await sha256(bytes) });
}

suite('SSH transport (RFC 4253) against OpenSSH', () => {
  for (const kex of ['curve25519-sha256', 'ecdh-sha2-nistp256']) {
    for (const cipher of ['aes128-gcm@openssh.com', 'aes256-gcm@openssh.com', 'aes128-ctr', 'aes256-ctr']) {
      it(`${kex} with ${cipher} moves a file byte-exact`, async () => {
        const bytes = random(300_000);
        await roundTrip(await session({ kex: [kex], ciphers: [cipher] }), `t-${kex}-${cipher}.bin`, bytes);
      });
    }
  }

  for (const [type, algorithm] of [['ed25519', 'ssh-ed25519'], ['ecdsa', 'ecdsa-sha2-nistp256'], ['rsa', 'rsa-sha2-256'], ['rsa', 'rsa-sha2-512']] as const) {
    it(`verifies a ${algorithm} host key signature (§8) and reports the fingerprint ssh-keygen prints`, async () => {
      let seen = '';
      const s = await session({ hostKeyAlgorithms: [algorithm], verifyHostKey: async (blob) => void (seen = await fingerprint(blob)) });
      expect(seen).toBe(d.hostKeys[type]);
      expect(await fingerprint(s.hostKey)).toBe(d.hostKeys[type]);
      await s.close();
    });
  }

  it('a refused host key ends the connection before authentication', async () => {
    await expect(session({ verifyHostKey: () => { throw new SshError('host-key', 'pinned elsewhere'); } })).rejects.toMatchObject({ code: 'host-key' });
  });
});

suite('user authentication (RFC 4252)', () => {
  for (const k of ['ed25519', 'ecdsa', 'rsa'] as const) {
    it(`publickey with an ${k} key (§7)`, async () => {
      const key = await readPrivateKey(d.keys[k]);
      expect(key.algorithm).toBe(k === 'rsa' ? 'rsa-sha2-256' : k === 'ecdsa' ? 'ecdsa-sha2-nistp256' : 'ssh-ed25519');
      const s = await session({ privateKey: key });
      expect(await s.sftp.realpath('.')).toMatch(/^\//);
      await s.close();
    });
  }

  for (const k of ['ed25519Passphrase', 'rsaPassphrase'] as const) {
    it(`publickey with a passphrase-protected key (bcrypt_pbkdf + aes256-ctr): ${k}`, async () => {
      const s = await session({ privateKey: await readPrivateKey(d.keys[k], d.keyPassphrase) });
      await s.close();
    });
  }

  it('a protected key without its passphrase, or with a wrong one, is refused with a reason', async () => {
    await expect(readPrivateKey(d.keys.ed25519Passphrase)).rejects.toThrow(/protected by a passphrase/);
    await expect(readPrivateKey(d.keys.ed25519Passphrase, 'wrong')).rejects.toThrow(/passphrase of the private key is wrong/);
    await expect(readPrivateKey('-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----')).rejects.toThrow(/PEM format/);
  });

  it('a key pasted on one line with \\n for its line breaks reads the same', async () => {
    const key = await readPrivateKey(d.keys.ecdsa.replace(/\n/g, '\\n'));
    expect(key.publicKey).toEqual((await readPrivateKey(d.keys.ecdsa)).publicKey);
  });

  it('a key the server does not know is refused (code auth)', async () => {
    await expect(session({ privateKey: await readPrivateKey(d.keys.other) })).rejects.toMatchObject({ code: 'auth', message: expect.stringMatching(/refused publickey/) });
  });

  it.skipIf(!d.password)('password (§8), and a wrong password refused', async () => {
    const s = await session({ privateKey: undefined, password: d.password });
    await s.close();
    await expect(session({ privateKey: undefined, password: 'wrong' })).rejects.toMatchObject({ code: 'auth' });
  });
});

suite('SFTP v3 (draft-ietf-secsh-filexfer-02)', () => {
  it('mkdir, stat, rename over an existing file (posix-rename), remove', async () => {
    const s = await session();
    const dir = `${d.sftpRoot}/ops`;
    await s.sftp.mkdir(dir);
    expect(await s.sftp.stat(dir)).toMatchObject({ isDirectory: true });
    await expect(s.sftp.mkdir(dir)).rejects.toMatchObject({ code: 'sftp' });
    for (const [name, text] of [['a', 'first'], ['b', 'second']]) {
      const h = await s.sftp.open(`${dir}/${name}`, OPEN.WRITE | OPEN.CREAT | OPEN.TRUNC);
      await s.sftp.upload(h, body(new TextEncoder().encode(text!)));
      await s.sftp.close(h);
    }
    await s.sftp.rename(`${dir}/b`, `${dir}/a`, true);
    expect(await s.sftp.stat(`${dir}/b`)).toBeNull();
    expect(await s.sftp.stat(`${dir}/a`)).toMatchObject({ size: 6 });
    await s.sftp.remove(`${dir}/a`);
    expect(await s.sftp.stat(`${dir}/a`)).toBeNull();
    await s.close();
  });
});
