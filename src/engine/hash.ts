/** Hex SHA-256: content hashes of inputs and fingerprints of requests. */
export async function sha256Hex(data: ArrayBuffer | ArrayBufferView | string): Promise<string> {
  const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data;
  const digest = await crypto.subtle.digest('SHA-256', bytes as ArrayBuffer);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** JSON with sorted keys: equal requests give equal fingerprints whatever the key order. */
export { canonicalJson } from '../lib/json';
