/**
 * User authentication (RFC 4252): the ssh-userauth service (§10 of RFC 4253), then `publickey`
 * (§7, signed at once without the query round trip) and/or `password` (§8). A private key is
 * tried first when both are given, as OpenSSH's client does.
 */
import { SshError } from './errors';
import type { PrivateKey } from './keys';
import { MSG, type Transport } from './transport';
import { Reader, Writer } from './wire';

export interface Credentials {
  username: string;
  password?: string;
  privateKey?: PrivateKey;
}

const SERVICE = 'ssh-connection';

async function outcome(t: Transport): Promise<{ ok: true } | { ok: false; methods: string[] }> {
  for (;;) {
    const m = await t.receive();
    if (m[0] === MSG.USERAUTH_BANNER) continue;
    if (m[0] === MSG.USERAUTH_SUCCESS) return { ok: true };
    if (m[0] === MSG.USERAUTH_FAILURE) return { ok: false, methods: new Reader(m.subarray(1)).nameList() };
    if (m[0] === MSG.USERAUTH_60) throw new SshError('auth', 'the server asks for a password change');
    throw new SshError('protocol', `the server sent message ${m[0]} during authentication`);
  }
}

export async function authenticate(t: Transport, c: Credentials): Promise<void> {
  await t.send(new Writer().byte(MSG.SERVICE_REQUEST).string('ssh-userauth').bytes());
  const accept = await t.receive();
  if (accept[0] !== MSG.SERVICE_ACCEPT) throw new SshError('protocol', 'the server refused the ssh-userauth service');
  const tried: string[] = [];
  if (c.privateKey) {
    const k = c.privateKey;
    // §7: the signature covers session id, then the request up to the public key.
    const body = new Writer().byte(MSG.USERAUTH_REQUEST).string(c.username).string(SERVICE).string('publickey').bool(true).string(k.algorithm).string(k.publicKey).bytes();
    const signature = await k.sign(new Writer().string(t.sessionId).raw(body).bytes());
    await t.send(new Writer().raw(body).string(signature).bytes());
    const r = await outcome(t);
    if (r.ok) return;
    tried.push(`publickey (${k.algorithm})`);
  }
  if (c.password !== undefined && c.password !== '') {
    await t.send(new Writer().byte(MSG.USERAUTH_REQUEST).string(c.username).string(SERVICE).string('password').bool(false).string(c.password).bytes());
    const r = await outcome(t);
    if (r.ok) return;
    tried.push('password');
  }
  if (!tried.length) throw new SshError('auth', 'give a password or a private key');
  throw new SshError('auth', `the server refused ${tried.join(' and ')} for ${c.username}`);
}
