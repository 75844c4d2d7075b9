/**
 * SQL on `blobs`: one row per content-addressed file body of a tenant, counted by the rows naming
 * it. The refcount statements go into the same D1 batch as the rows that name the blob.
 */
const NOW = `CAST(unixepoch('subsec') * 1000 AS INTEGER)`;

/** Whether the tenant's `blobs` has a row for `sha` (any refcount). */
export async function blobKnown(db: D1Database, tenantId: number, sha: string): Promise<boolean> {
  return (await db.prepare(`SELECT 1 FROM blobs WHERE tenant_id = ?1 AND sha256 = ?2`).bind(tenantId, sha).first()) !== null;
}

/** The blob's refcount row, or null when the tenant never had it. */
export async function blobRefcount(db: D1Database, tenantId: number, sha: string): Promise<{ refcount: number } | null> {
  return db.prepare(`SELECT refcount FROM blobs WHERE tenant_id = ?1 AND sha256 = ?2`).bind(tenantId, sha).first<{ refcount: number }>();
}

/** +1 for a new row naming `sha` (the blob row is created on first use). */
export function addBlobRef(db: D1Database, tenantId: number, sha: string, size: number, contentType: string | null): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO blobs (tenant_id, sha256, size, content_type, refcount) VALUES (?1, ?2, ?3, ?4, 1)
       ON CONFLICT (tenant_id, sha256) DO UPDATE SET refcount = refcount + 1, last_modified = ${NOW}`,
    )
    .bind(tenantId, sha, size, contentType);
}

/**
 * Refcounts changed by `sign` for every blob the given rows of `table` name (run BEFORE a delete
 * and AFTER an insert of those rows in the same batch). `ids` is the JSON list of row ids.
 */
export function shiftBlobRefs(db: D1Database, tenantId: number, table: 'assets' | 'artifacts', ids: string[], sign: 1 | -1): D1PreparedStatement {
  return db
    .prepare(
      `UPDATE blobs SET refcount = refcount + ?3 * (
         SELECT count(*) FROM ${table} r WHERE r.tenant_id = ?1 AND r.id IN (SELECT value FROM json_each(?2)) AND r.blob_sha = blobs.sha256),
         last_modified = ${NOW}
       WHERE tenant_id = ?1 AND sha256 IN (SELECT blob_sha FROM ${table} WHERE tenant_id = ?1 AND id IN (SELECT value FROM json_each(?2)))`,
    )
    .bind(tenantId, JSON.stringify(ids), sign);
}

/** -1 for one blob (a row's content replaced). */
export function dropBlobRef(db: D1Database, tenantId: number, sha: string): D1PreparedStatement {
  return db.prepare(`UPDATE blobs SET refcount = refcount - 1, last_modified = ${NOW} WHERE tenant_id = ?1 AND sha256 = ?2`).bind(tenantId, sha);
}

/** Deletes up to `max` rows of blobs at refcount 0 last changed before `before`; returns their hashes. */
export async function deleteUnreferencedBlobRows(db: D1Database, tenantId: number, before: number, max: number): Promise<string[]> {
  const { results } = await db
    .prepare(
      `DELETE FROM blobs WHERE tenant_id = ?1 AND sha256 IN (SELECT sha256 FROM blobs WHERE tenant_id = ?1 AND refcount <= 0 AND last_modified < ?2 LIMIT ?3)
         AND refcount <= 0 RETURNING sha256`,
    )
    .bind(tenantId, before, max)
    .all<{ sha256: string }>();
  return results.map((r) => r.sha256);
}
