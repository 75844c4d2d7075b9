/**
 * SQL on `anonymous_tokens`: the SHA-256 of each anonymous file URL's token, by target. The only
 * code that names the table (the asset and artifact deletes add `deleteTokensStatement` to their batch).
 */
export type AnonymousKind = 'asset' | 'artifact';

export async function insertToken(db: D1Database, tokenHash: string, tenantId: number, kind: AnonymousKind, targetId: string, created: number): Promise<void> {
  await db.prepare(`INSERT INTO anonymous_tokens (token_hash, tenant_id, kind, target_id, created) VALUES (?1, ?2, ?3, ?4, ?5)`)
    .bind(tokenHash, tenantId, kind, targetId, created)
    .run();
}

/** The creation time of a target's newest token (the token is derived from it), or null. */
export async function newestTokenCreated(db: D1Database, tenantId: number, kind: AnonymousKind, targetId: string): Promise<number | null> {
  const row = await db.prepare(`SELECT created FROM anonymous_tokens WHERE tenant_id = ?1 AND kind = ?2 AND target_id = ?3 ORDER BY created DESC LIMIT 1`)
    .bind(tenantId, kind, targetId)
    .first<{ created: number }>();
  return row ? row.created : null;
}

export async function deleteTokens(db: D1Database, tenantId: number, kind: AnonymousKind, targetIds: string[]): Promise<void> {
  await db.prepare(`DELETE FROM anonymous_tokens WHERE tenant_id = ?1 AND kind = ?2 AND target_id IN (SELECT value FROM json_each(?3))`)
    .bind(tenantId, kind, JSON.stringify(targetIds))
    .run();
}

/** The tokens of deleted targets, as a statement of the delete's batch. */
export function deleteTokensStatement(db: D1Database, tenantId: number, kind: AnonymousKind, targetIds: string[]): D1PreparedStatement {
  return db
    .prepare(`DELETE FROM anonymous_tokens WHERE tenant_id = ?1 AND kind = '${kind}' AND target_id IN (SELECT value FROM json_each(?2))`)
    .bind(tenantId, JSON.stringify(targetIds));
}

/** What a token hash opens, or null. */
export async function tokenTarget(db: D1Database, tokenHash: string): Promise<{ tenantId: number; kind: AnonymousKind; targetId: string } | null> {
  return db.prepare(`SELECT tenant_id AS tenantId, kind, target_id AS targetId FROM anonymous_tokens WHERE token_hash = ?1`).bind(tokenHash).first();
}
