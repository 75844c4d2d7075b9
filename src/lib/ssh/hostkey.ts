/**
 * Server host keys (RFC 4253 §6.6): verifying the exchange-hash signature with WebCrypto, and the
 * `SHA256:<base64 without padding>` fingerprint that `ssh-keygen -lf` prints.
 * - ssh-ed25519 (RFC 8709): 32-byte public key, 64-byte signature.
 * - ecdsa-sha2-nistp256 (RFC 5656 §3.1): SEC1 point; signature mpint r, mpint s over SHA-256.
 * - rsa-sha2-256 / rsa-sha2-512 (RFC 8332) on an `ssh-rsa` key: PKCS#1 v1.5; never SHA-1 `ssh-rsa`.
 */
import { SshError } from './errors';
import { Reader, base64, base64url, concat, unsignedFixed } from './wire';

export const HOST_KEY_ALGORITHMS = ['ssh-ed25519', 'ecdsa-sha2-nistp256', 'rsa-sha2-512', 'rsa-sha2-256'] as const;

export async function fingerprint(blob: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', blob));
  return `SHA256:${base64(digest).replace(/=+$/, '')}`;
}

/** Compares a pinned fingerprint as people paste it (prefix optional, padding optional). */
export function sameFingerprint(pinned: string, actual: string): boolean {
  const norm = (s: string) => s.trim().replace(/^SHA256:/i, '').replace(/=+$/, '');
  return norm(pinned) === norm(actual);
}

/** The key type named inside a public key blob. */
export function keyType(blob: Uint8Array): string {
  return new Reader(blob).text();
}

/** A WebCrypto public key and algorithm for a key blob. */
async function importPublic(blob: Uint8Array, hash: 'SHA-256' | 'SHA-512' = 'SHA-256'): Promise<{ key: CryptoKey; type: string; verify: SubtleCryptoSignAlgorithm }> {
  const r = new Reader(blob);
  const type = r.text();
  if (type === 'ssh-ed25519') {
    const key = await crypto.subtle.importKey('raw', r.string(), { name: 'Ed25519' }, false, ['verify']);
    return { key, type, verify: { name: 'Ed25519' } };
  }
  if (type === 'ecdsa-sha2-nistp256') {
    if (r.text() !== 'nistp256') throw new SshError('protocol', 'an ECDSA key names another curve');
    const key = await crypto.subtle.importKey('raw', r.string(), { name: 'ECDSA', namedCurve: 'P-256' }, false, ['verify']);
    return { key, type, verify: { name: 'ECDSA', hash: 'SHA-256' } };
  }
  if (type === 'ssh-rsa') {
    const e = r.string();
    const n = r.string();
    const strip = (b: Uint8Array) => unsignedFixed(b, b.length && b[0] === 0 ? b.length - 1 : b.length);
    // OpenSSH's RequiredRSASize: no RSA key under 1024 bits.
    if (strip(n).length < 128) throw new SshError('host-key', 'the server host key is RSA under 1024 bits');
    const key = await crypto.subtle.importKey('jwk', { kty: 'RSA', n: base64url(strip(n)), e: base64url(strip(e)), ext: true }, { name: 'RSASSA-PKCS1-v1_5', hash }, false, ['verify']);
    return { key, type, verify: { name: 'RSASSA-PKCS1-v1_5' } };
  }
  throw new SshError('algorithms', `unsupported host key type ${type}`);
}

/** Verifies `signature` (an SSH signature blob: string algorithm, string bytes) over `data`. */
export async function verifySignature(blob: Uint8Array, signature: Uint8Array, data: Uint8Array, expectedAlgorithm: string): Promise<boolean> {
  const s = new Reader(signature);
  const algorithm = s.text();
  const sig = s.string();
  if (algorithm !== expectedAlgorithm) return false;
  const hash = algorithm === 'rsa-sha2-512' ? 'SHA-512' : 'SHA-256';
  const { key, type, verify } = await importPublic(blob, hash);
  const expectedType = algorithm.startsWith('rsa-sha2-') ? 'ssh-rsa' : algorithm;
  if (type !== expectedType) return false;
  if (type === 'ecdsa-sha2-nistp256') {
    const rs = new Reader(sig);
    const raw = concat(unsignedFixed(rs.string(), 32), unsignedFixed(rs.string(), 32));
    return crypto.subtle.verify(verify, key, raw, data);
  }
  return crypto.subtle.verify(verify, key, sig, data);
}

