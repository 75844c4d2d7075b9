// Authorization codes in D1, stored as SHA-256; single use via `UPDATE … WHERE used_at IS NULL`.
import { and, eq, gt, isNull } from 'drizzle-orm';
import { authorizationCodes } from '../../db/schema';
import { asDb, type DbLike } from './handle';

export type CodeRow = typeof authorizationCodes.$inferSelect;

export async function insert(db: DbLike, row: typeof authorizationCodes.$inferInsert): Promise<void> {
  await asDb(db).insert(authorizationCodes).values(row);
}

/**
 * Redeems a code atomically: marks it used (recording the grant its redemption starts) if it is
 * unused, unexpired and the client's. The loser of a race, or any other caller, gets undefined.
 */
export const consume = (db: DbLike, codeHash: string, clientId: string, grantId: string, now: number): Promise<CodeRow | undefined> =>
  asDb(db)
    .update(authorizationCodes)
    .set({ usedAt: now, grantId })
    .where(and(eq(authorizationCodes.codeHash, codeHash), isNull(authorizationCodes.usedAt), eq(authorizationCodes.clientId, clientId), gt(authorizationCodes.expiresAt, now)))
    .returning()
    .get();

/** The code as stored, used or not (to revoke what a replayed code's first use produced). */
export const find = (db: DbLike, codeHash: string): Promise<CodeRow | undefined> =>
  asDb(db).select().from(authorizationCodes).where(eq(authorizationCodes.codeHash, codeHash)).get();
