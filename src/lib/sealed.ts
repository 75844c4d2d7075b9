/**
 * Values sealed at rest with AES-GCM under a key derived by HKDF-SHA-256 from
 * KEY_ENCRYPTION_SECRET, one `info` label per kind of value (`tenant-secrets/v1`,
 * `webhook-secrets/v1`), so a ciphertext of one kind never opens as another. The caller's
 * additional data binds each value to its owner (e.g. `<tenantId>/<name>`): a row copied to
 * another tenant does not decrypt.
 */
const enc = new TextEncoder();

export const toBase64 = (bytes: ArrayBuffer | Uint8Array): string => {
  let s = '';
  for (const b of new Uint8Array(bytes)) s += String.fromCharCode(b);
  return btoa(s);
};
export const fromBase64 = (s: string): Uint8Array => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));

export interface Sealed {
  /** The 12-byte nonce, base64. */
  iv: string;
  /** Ciphertext with its tag, base64. */
  ciphertext: string;
}

async function sealingKey(secret: string | undefined, info: string): Promise<CryptoKey> {
  if (!secret) throw new Error(`KEY_ENCRYPTION_SECRET is not set: ${info} values cannot be sealed`);
  const ikm = await crypto.subtle.importKey('raw', enc.encode(secret), 'HKDF', false, ['deriveKey']);
  return crypto.subtle.deriveKey({ name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(0), info: enc.encode(info) }, ikm, { name: 'AES-GCM', length: 256 }, false, [
    'encrypt',
    'decrypt',
  ]);
}

export async function seal(secret: string | undefined, info: string, additionalData: string, value: string): Promise<Sealed> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: enc.encode(additionalData) }, await sealingKey(secret, info), enc.encode(value));
  return { iv: toBase64(iv), ciphertext: toBase64(sealed) };
}

export async function unseal(secret: string | undefined, info: string, additionalData: string, sealed: Sealed): Promise<string> {
  const plain = await crypto.subtle.decrypt(
    { name: 'AES-GCM', iv: fromBase64(sealed.iv), additionalData: enc.encode(additionalData) },
    await sealingKey(secret, info),
    fromBase64(sealed.ciphertext),
  );
  return new TextDecoder().decode(plain);
}
