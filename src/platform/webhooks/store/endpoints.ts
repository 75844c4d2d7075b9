/**
 * Webhook endpoints in D1 (`webhook_endpoints`, migrations/0004): the only file that knows the
 * table. Secrets are sealed with AES-256-GCM under an HKDF key of KEY_ENCRYPTION_SECRET (info
 * `webhook-secrets/v1`, its own key, not the tenant secrets'), the tenant and endpoint id as
 * additional data, so a sealed value copied to another row does not open.
 */
import type { Env } from '../../../env';
import { seal, unseal } from '../../../lib/sealed';

export interface EndpointRow {
  tenantId: number;
  id: string;
  url: string;
  events: string[];
  description: string | null;
  created: number;
  lastModified: number;
}

export interface EndpointSecrets {
  current: string;
  /** The secret before the last rotation, while it is still valid. */
  previous: string | null;
  previousExpires: number | null;
}

type Raw = { tenant_id: number; id: string; url: string; events: string; description: string | null; created: number; last_modified: number };
const COLUMNS = 'tenant_id, id, url, events, description, created, last_modified';
const rowOf = (r: Raw): EndpointRow => ({
  tenantId: r.tenant_id,
  id: r.id,
  url: r.url,
  events: JSON.parse(r.events) as string[],
  description: r.description,
  created: r.created,
  lastModified: r.last_modified,
});

// Signing secrets at rest: "<iv>.<ciphertext>" (base64), bound to tenant and endpoint.
const SEALED_AS = 'webhook-secrets/v1';

async function sealSecret(env: Pick<Env, 'KEY_ENCRYPTION_SECRET'>, tenantId: number, id: string, value: string): Promise<string> {
  const { iv, ciphertext } = await seal(env.KEY_ENCRYPTION_SECRET, SEALED_AS, `${tenantId}/${id}`, value);
  return `${iv}.${ciphertext}`;
}

async function openSecret(env: Pick<Env, 'KEY_ENCRYPTION_SECRET'>, tenantId: number, id: string, sealed: string): Promise<string> {
  const [iv = '', ciphertext = ''] = sealed.split('.');
  return unseal(env.KEY_ENCRYPTION_SECRET, SEALED_AS, `${tenantId}/${id}`, { iv, ciphertext });
}

export async function listEndpoints(db: D1Database, tenantId: number): Promise<EndpointRow[]> {
  const { results } = await db.prepare(`SELECT ${COLUMNS} FROM webhook_endpoints WHERE tenant_id = ?1 ORDER BY created, id`).bind(tenantId).all<Raw>();
  return results.map(rowOf);
}

export async function getEndpoint(db: D1Database, tenantId: number, id: string): Promise<EndpointRow | null> {
  const r = await db.prepare(`SELECT ${COLUMNS} FROM webhook_endpoints WHERE tenant_id = ?1 AND id = ?2`).bind(tenantId, id).first<Raw>();
  return r ? rowOf(r) : null;
}

/** Ids of the endpoints subscribed to `type`. */
export async function subscribedEndpoints(db: D1Database, tenantId: number, type: string): Promise<string[]> {
  const { results } = await db
    .prepare(`SELECT id FROM webhook_endpoints WHERE tenant_id = ?1 AND EXISTS (SELECT 1 FROM json_each(events) WHERE value = ?2)`)
    .bind(tenantId, type)
    .all<{ id: string }>();
  return results.map((r) => r.id);
}

export async function countEndpoints(db: D1Database, tenantId: number): Promise<number> {
  return (await db.prepare(`SELECT COUNT(*) AS n FROM webhook_endpoints WHERE tenant_id = ?1`).bind(tenantId).first<{ n: number }>())?.n ?? 0;
}

export async function insertEndpoint(env: Env, row: Omit<EndpointRow, 'created' | 'lastModified'>, secret: string): Promise<EndpointRow> {
  const now = Date.now();
  await env.DB.prepare(`INSERT INTO webhook_endpoints (tenant_id, id, url, events, description, secret, created, last_modified) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7)`)
    .bind(row.tenantId, row.id, row.url, JSON.stringify(row.events), row.description, await sealSecret(env, row.tenantId, row.id, secret), now)
    .run();
  return { ...row, created: now, lastModified: now };
}

export async function updateEndpoint(db: D1Database, tenantId: number, id: string, change: { url: string; events: string[]; description: string | null }): Promise<boolean> {
  const res = await db
    .prepare(`UPDATE webhook_endpoints SET url = ?3, events = ?4, description = ?5, last_modified = ?6 WHERE tenant_id = ?1 AND id = ?2`)
    .bind(tenantId, id, change.url, JSON.stringify(change.events), change.description, Date.now())
    .run();
  return res.meta.changes > 0;
}

export async function deleteEndpoint(db: D1Database, tenantId: number, id: string): Promise<boolean> {
  return (await db.prepare(`DELETE FROM webhook_endpoints WHERE tenant_id = ?1 AND id = ?2`).bind(tenantId, id).run()).meta.changes > 0;
}

/** Replaces the secret; the old one stays valid until `previousExpires`. */
export async function rotateSecret(env: Env, tenantId: number, id: string, secret: string, previousExpires: number): Promise<boolean> {
  const res = await env.DB.prepare(
    `UPDATE webhook_endpoints SET previous_secret = secret, previous_expires = ?4, secret = ?3, last_modified = ?5 WHERE tenant_id = ?1 AND id = ?2`,
  )
    .bind(tenantId, id, await sealSecret(env, tenantId, id, secret), previousExpires, Date.now())
    .run();
  return res.meta.changes > 0;
}

/** The endpoint's URL and valid secrets for a delivery, or null when it was deleted. */
export async function deliveryTarget(env: Env, tenantId: number, id: string, now = Date.now()): Promise<{ url: string; secrets: string[] } | null> {
  const r = await env.DB.prepare(`SELECT url, secret, previous_secret, previous_expires FROM webhook_endpoints WHERE tenant_id = ?1 AND id = ?2`)
    .bind(tenantId, id)
    .first<{ url: string; secret: string; previous_secret: string | null; previous_expires: number | null }>();
  if (!r) return null;
  const secrets = [await openSecret(env, tenantId, id, r.secret)];
  if (r.previous_secret && (r.previous_expires ?? 0) > now) secrets.push(await openSecret(env, tenantId, id, r.previous_secret));
  return { url: r.url, secrets };
}
