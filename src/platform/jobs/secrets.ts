/**
 * Reads a tenant secret for `{{secrets.<name>}}` (D1 `tenant_secrets`: AES-GCM under
 * HKDF-SHA-256(KEY_ENCRYPTION_SECRET, info "tenant-secrets/v1", empty salt), AAD
 * `<tenantId>/<name>`, iv and ciphertext base64). Names are case-insensitive (`name_key`).
 */
import type { Env } from '../../env';
import { TaskFailure } from '../pipelines/tasks/errors';

const enc = new TextEncoder();
const unb64 = (s: string) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));

async function secretKey(secret: string): Promise<CryptoKey> {
  const base = await crypto.subtle.importKey('raw', enc.encode(secret), 'HKDF', false, ['deriveKey']);
  return crypto.subtle.deriveKey(
    { name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(), info: enc.encode('tenant-secrets/v1') },
    base,
    { name: 'AES-GCM', length: 256 },
    false,
    ['decrypt'],
  );
}

export async function readSecret(env: Env, tenantId: number, name: string): Promise<string | undefined> {
  const row = await env.DB.prepare(`SELECT name, iv, ciphertext FROM tenant_secrets WHERE tenant_id = ?1 AND name_key = ?2`)
    .bind(tenantId, name.toLowerCase())
    .first<{ name: string; iv: string; ciphertext: string }>();
  if (!row) return undefined;
  try {
    const plain = await crypto.subtle.decrypt(
      { name: 'AES-GCM', iv: unb64(row.iv), additionalData: enc.encode(`${tenantId}/${row.name}`) },
      await secretKey(env.KEY_ENCRYPTION_SECRET),
      unb64(row.ciphertext),
    );
    return new TextDecoder().decode(plain);
  } catch {
    throw new TaskFailure(`the secret ${name} cannot be read`);
  }
}
