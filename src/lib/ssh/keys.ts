/**
 * Client private keys in the OpenSSH format (`-----BEGIN OPENSSH PRIVATE KEY-----`, OpenSSH's
 * PROTOCOL.key): ssh-ed25519, ecdsa-sha2-nistp256 and ssh-rsa, unencrypted or protected by a
 * passphrase (kdf `bcrypt`, cipher `aes256-ctr` or `aes128-ctr`, the ssh-keygen defaults).
 * Signing uses WebCrypto; RSA keys sign as `rsa-sha2-256` (RFC 8332), never SHA-1.
 */
import { pbkdf } from 'bcrypt-pbkdf';
import { SshError } from './errors';
import { Reader, Writer, base64url, concat, fromBase64, mpintBody, text, unsignedFixed, utf8 } from './wire';

export interface PrivateKey {
  /** The public key blob (RFC 4253 §6.6). */
  publicKey: Uint8Array;
  /** The public key algorithm named in userauth (`rsa-sha2-256` for RSA keys). */
  algorithm: string;
  /** An SSH signature blob (string algorithm, string signature) over `data`. */
  sign(data: Uint8Array): Promise<Uint8Array>;
}

const MAGIC = 'openssh-key-v1\0';
// PKCS#8 wrapper of a 32-byte Ed25519 seed (RFC 8410 §7).
const ED25519_PKCS8 = new Uint8Array([0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20]);

const strip = (mp: Uint8Array) => (mp.length > 1 && mp[0] === 0 ? mp.subarray(1) : mp);

function bigint(b: Uint8Array): bigint {
  let v = 0n;
  for (const x of b) v = (v << 8n) | BigInt(x);
  return v;
}

/** Minimal big-endian bytes (JWK Base64urlUInt, RFC 7518 §2). */
function bytesOf(v: bigint): Uint8Array {
  const out: number[] = [];
  do {
    out.unshift(Number(v & 0xffn));
    v >>= 8n;
  } while (v > 0n);
  return new Uint8Array(out);
}

async function aesCtr(key: Uint8Array, iv: Uint8Array, data: Uint8Array): Promise<Uint8Array> {
  const k = await crypto.subtle.importKey('raw', key, 'AES-CTR', false, ['decrypt']);
  return new Uint8Array(await crypto.subtle.decrypt({ name: 'AES-CTR', counter: iv, length: 128 }, k, data));
}

/**
 * Reads an OpenSSH private key. Throws `SshError('key')` saying what is wrong: not the OpenSSH
 * format (PEM `BEGIN RSA PRIVATE KEY` keys are converted with `ssh-keygen -p -f key`), a missing
 * or wrong passphrase, an unsupported type.
 */
export async function readPrivateKey(pem: string, passphrase?: string): Promise<PrivateKey> {
  // A key pasted into a one-line secret often carries its line breaks as `\n` (base64 has no `\`).
  pem = pem.replace(/\\n/g, '\n');
  const m = /-----BEGIN OPENSSH PRIVATE KEY-----([\s\S]*?)-----END OPENSSH PRIVATE KEY-----/.exec(pem);
  if (!m) {
    if (/BEGIN (RSA|EC|DSA|ENCRYPTED)? ?PRIVATE KEY/.test(pem)) throw new SshError('key', 'the private key is in PEM format; convert it to the OpenSSH format with `ssh-keygen -p -f <file>`');
    throw new SshError('key', 'the private key is not an OpenSSH private key (-----BEGIN OPENSSH PRIVATE KEY-----)');
  }
  let blob: Uint8Array;
  try {
    blob = fromBase64(m[1]!);
  } catch {
    throw new SshError('key', 'the private key is not valid base64');
  }
  if (text(blob.subarray(0, MAGIC.length)) !== MAGIC) throw new SshError('key', 'the private key is not an openssh-key-v1 key');
  try {
    const r = new Reader(blob.subarray(MAGIC.length));
    const cipher = r.text();
    const kdf = r.text();
    const kdfOptions = r.string();
    if (r.uint32() !== 1) throw new SshError('key', 'the private key file holds more than one key');
    r.string(); // public key, repeated inside
    let secret = r.string();
    if (cipher !== 'none') {
      if (kdf !== 'bcrypt') throw new SshError('key', `unsupported key derivation ${kdf}`);
      const keyLength = cipher === 'aes256-ctr' ? 32 : cipher === 'aes128-ctr' ? 16 : 0;
      if (!keyLength) throw new SshError('key', `unsupported private key cipher ${cipher} (aes256-ctr and aes128-ctr are supported)`);
      if (!passphrase) throw new SshError('key', 'the private key is protected by a passphrase; give it as passphrase');
      const o = new Reader(kdfOptions);
      const salt = o.string();
      const rounds = o.uint32();
      if (rounds > 1024) throw new SshError('key', 'the private key asks for too many bcrypt rounds');
      const pass = utf8(passphrase);
      const derived = new Uint8Array(keyLength + 16);
      if (pbkdf(pass, pass.length, salt, salt.length, derived, derived.length, rounds) !== 0) throw new SshError('key', 'bcrypt_pbkdf failed');
      secret = await aesCtr(derived.subarray(0, keyLength), derived.subarray(keyLength), secret);
    }
    const s = new Reader(secret);
    if (s.uint32() !== s.uint32()) throw new SshError('key', cipher === 'none' ? 'the private key is corrupt' : 'the passphrase of the private key is wrong');
    const type = s.text();
    if (type === 'ssh-ed25519') {
      const pub = s.string();
      const priv = s.string();
      const key = await crypto.subtle.importKey('pkcs8', concat(ED25519_PKCS8, priv.subarray(0, 32)), { name: 'Ed25519' }, false, ['sign']);
      return {
        publicKey: new Writer().string(type).string(pub).bytes(),
        algorithm: type,
        sign: async (data) => new Writer().string(type).string(new Uint8Array(await crypto.subtle.sign({ name: 'Ed25519' }, key, data))).bytes(),
      };
    }
    if (type === 'ecdsa-sha2-nistp256') {
      const curve = s.text();
      const q = s.string();
      const d = s.string();
      if (curve !== 'nistp256' || q.length !== 65 || q[0] !== 4) throw new SshError('key', 'only uncompressed P-256 ECDSA keys are supported');
      const jwk = { kty: 'EC', crv: 'P-256', x: base64url(q.subarray(1, 33)), y: base64url(q.subarray(33)), d: base64url(unsignedFixed(d, 32)) };
      const key = await crypto.subtle.importKey('jwk', jwk, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign']);
      return {
        publicKey: new Writer().string(type).string(curve).string(q).bytes(),
        algorithm: type,
        sign: async (data) => {
          const raw = new Uint8Array(await crypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, key, data));
          const rs = new Writer().mpint(raw.subarray(0, 32)).mpint(raw.subarray(32)).bytes();
          return new Writer().string(type).string(rs).bytes();
        },
      };
    }
    if (type === 'ssh-rsa') {
      const [n, e, d, iqmp, p, q] = [s.string(), s.string(), s.string(), s.string(), s.string(), s.string()].map(strip) as [Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array];
      const dv = bigint(d);
      const jwk = {
        kty: 'RSA',
        n: base64url(n),
        e: base64url(e),
        d: base64url(d),
        p: base64url(p),
        q: base64url(q),
        dp: base64url(bytesOf(dv % (bigint(p) - 1n))),
        dq: base64url(bytesOf(dv % (bigint(q) - 1n))),
        qi: base64url(iqmp),
      };
      const key = await crypto.subtle.importKey('jwk', jwk, { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, false, ['sign']);
      return {
        publicKey: new Writer().string(type).string(mpintBody(e)).string(mpintBody(n)).bytes(),
        algorithm: 'rsa-sha2-256',
        sign: async (data) => new Writer().string('rsa-sha2-256').string(new Uint8Array(await crypto.subtle.sign('RSASSA-PKCS1-v1_5', key, data))).bytes(),
      };
    }
    throw new SshError('key', `unsupported private key type ${type} (ssh-ed25519, ecdsa-sha2-nistp256 and ssh-rsa are)`);
  } catch (e) {
    if (e instanceof SshError) throw e;
    throw new SshError('key', `the private key cannot be read (${(e as Error).message})`);
  }
}
