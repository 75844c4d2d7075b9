// Signing keys in D1. The private JWK arrives sealed (keys.ts); nothing here sees it in clear.
import { gt, isNull, or } from 'drizzle-orm';
import { signingKeys } from '../../db/schema';
import { asDb, type DbLike } from './handle';

export type KeyRow = typeof signingKeys.$inferSelect;
export type NewKeyRow = Omit<typeof signingKeys.$inferInsert, 'generation'>;

/** Keys still published (not retired), oldest generation first. */
export function listPublished(db: DbLike, now: number): Promise<KeyRow[]> {
  return asDb(db)
    .select()
    .from(signingKeys)
    .where(or(isNull(signingKeys.retiresAt), gt(signingKeys.retiresAt, now)))
    .orderBy(signingKeys.generation)
    .all();
}

/** Generation 1, if no key exists yet (a concurrent first use loses on the unique generation). */
export async function insertFirst(db: DbLike, row: NewKeyRow): Promise<void> {
  await asDb(db).insert(signingKeys).values({ ...row, generation: 1 }).onConflictDoNothing();
}

/**
 * The statements of a rotation, as SQL text and parameters so that the Worker (D1 batch) and the
 * operator's script (`wrangler d1 execute --remote`) run exactly the same thing:
 * 1. insert the new key as the next generation, unless a published key still waits to activate
 *    (or no key signs yet: the first key is created by the Worker on first use);
 * 2. if (and only if) it went in, schedule every other current key to retire.
 */
export function rotationStatements(row: NewKeyRow & { activatesAt: number; createdAt: number }, retiresAt: number): { sql: string; params: (string | number)[] }[] {
  return [
    {
      sql: `INSERT INTO signing_keys (kid, generation, alg, public_jwk, private_jwk_encrypted, created_at, activates_at)
        SELECT ?1, next.generation, ?2, ?3, ?4, ?5, ?6 FROM (SELECT coalesce(max(generation), 0) + 1 AS generation FROM signing_keys) AS next
        WHERE NOT EXISTS (SELECT 1 FROM signing_keys WHERE activates_at > ?5 AND (retires_at IS NULL OR retires_at > ?5))
          AND EXISTS (SELECT 1 FROM signing_keys WHERE activates_at <= ?5 AND (retires_at IS NULL OR retires_at > ?5))`,
      params: [row.kid, row.alg, JSON.stringify(row.publicJwk), row.privateJwkEncrypted, row.createdAt, row.activatesAt],
    },
    {
      sql: `UPDATE signing_keys SET superseded_at = ?2, retires_at = ?3
        WHERE retires_at IS NULL AND kid <> ?1 AND EXISTS (SELECT 1 FROM signing_keys WHERE kid = ?1)`,
      params: [row.kid, row.activatesAt, retiresAt],
    },
  ];
}

/** Runs a rotation in one D1 batch (a transaction); false when it was refused. */
export async function rotate(d1: D1Database, row: NewKeyRow & { activatesAt: number; createdAt: number }, retiresAt: number): Promise<boolean> {
  const [inserted] = await d1.batch(rotationStatements(row, retiresAt).map((s) => d1.prepare(s.sql).bind(...s.params)));
  return (inserted?.meta.changes ?? 0) > 0;
}

/** The key rows with their schedule (no private parts). */
export function list(db: DbLike) {
  return asDb(db)
    .select({ kid: signingKeys.kid, generation: signingKeys.generation, activatesAt: signingKeys.activatesAt, retiresAt: signingKeys.retiresAt, createdAt: signingKeys.createdAt })
    .from(signingKeys)
    .orderBy(signingKeys.generation)
    .all();
}
