/** Hex SHA-256: content hashes of inputs and fingerprints of requests. */
export async function sha256Hex(data: ArrayBuffer | ArrayBufferView | string): Promise<string> {
  const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data;
  const digest = await crypto.subtle.digest('SHA-256', bytes as ArrayBuffer);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** JSON with sorted keys: equal requests give equal fingerprints whatever the key order. */
export { canonicalJson } from '../lib/json';

/**
 * FNV-1a over bytes or a string's UTF-16 code units, as an unsigned 32-bit number: a cheap
 * content key where collisions only cost a cache miss or a subset-tag clash (never security).
 * `seed` and `prime` give independent variants for wider keys.
 */
export function fnv1a32(data: Uint8Array | string, seed = 0x811c9dc5, prime = 0x01000193): number {
  let h = seed;
  if (typeof data === 'string') for (let i = 0; i < data.length; i++) h = Math.imul(h ^ data.charCodeAt(i), prime);
  else for (let i = 0; i < data.length; i++) h = Math.imul(h ^ data[i]!, prime);
  return h >>> 0;
}
