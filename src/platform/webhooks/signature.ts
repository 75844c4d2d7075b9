/**
 * Standard Webhooks signatures (standardwebhooks.com, "Signature scheme"): the secret is
 * `whsec_` + base64 of random bytes, and the key is those bytes (base64-decoded, prefix dropped);
 * `webhook-signature` is `v1,<base64 HMAC-SHA256(key, "<webhook-id>.<webhook-timestamp>.<body>")>`,
 * several space-separated while a rotated secret is still valid.
 *
 * @example
 * const secret = newSecret();                        // whsec_…
 * await signatures([secret], 'msg_1', 1700000000, '{"type":"job.completed"}'); // 'v1,…'
 */
const enc = new TextEncoder();

export const SECRET_PREFIX = 'whsec_';

const b64 = (bytes: ArrayBuffer | Uint8Array) => {
  let s = '';
  for (const b of new Uint8Array(bytes)) s += String.fromCharCode(b);
  return btoa(s);
};

/** A new signing secret: 24 random bytes (192 bits; the spec asks for 24 to 64). */
export function newSecret(): string {
  return SECRET_PREFIX + b64(crypto.getRandomValues(new Uint8Array(24)));
}

async function keyOf(secret: string): Promise<CryptoKey> {
  const raw = Uint8Array.from(atob(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret), (c) => c.charCodeAt(0));
  return crypto.subtle.importKey('raw', raw, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
}

/** `v1,<sig>` for one secret. */
export async function sign(secret: string, id: string, timestamp: number, body: string): Promise<string> {
  const mac = await crypto.subtle.sign('HMAC', await keyOf(secret), enc.encode(`${id}.${timestamp}.${body}`));
  return `v1,${b64(mac)}`;
}

/** The `webhook-signature` header value: one signature per valid secret, space-separated. */
export async function signatures(secrets: string[], id: string, timestamp: number, body: string): Promise<string> {
  return (await Promise.all(secrets.map((s) => sign(s, id, timestamp, body)))).join(' ');
}
