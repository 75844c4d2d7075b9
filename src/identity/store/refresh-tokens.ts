// Refresh tokens in D1, stored as SHA-256, rotated on each use.
import { and, eq, gt, inArray, isNull } from 'drizzle-orm';
import { grants, refreshTokens, users } from '../../db/schema';
import * as grantStore from './grants';
import { asDb, type DbLike } from './handle';

export type RefreshTokenRow = typeof refreshTokens.$inferSelect;

export async function insert(db: DbLike, row: typeof refreshTokens.$inferInsert): Promise<void> {
  await asDb(db).insert(refreshTokens).values(row);
}

/** Uses a refresh token atomically if it is unused, unexpired and of a live grant of the client. */
export const consume = (db: DbLike, tokenHash: string, clientId: string, now: number): Promise<RefreshTokenRow | undefined> =>
  asDb(db)
    .update(refreshTokens)
    .set({ usedAt: now })
    .where(
      and(
        eq(refreshTokens.tokenHash, tokenHash),
        isNull(refreshTokens.usedAt),
        gt(refreshTokens.expiresAt, now),
        inArray(refreshTokens.grantId, grantStore.liveIdsOfClient(db, clientId, now)),
      ),
    )
    .returning()
    .get();

/** A token as stored with its grant's client (to end the family when a rotated token comes back). */
export const findWithClient = (db: DbLike, tokenHash: string) =>
  asDb(db)
    .select({ usedAt: refreshTokens.usedAt, grantId: refreshTokens.grantId, clientId: grants.clientId })
    .from(refreshTokens)
    .innerJoin(grants, eq(grants.id, refreshTokens.grantId))
    .where(eq(refreshTokens.tokenHash, tokenHash))
    .get();

/** A token with its grant and whether the grant's user is disabled (revocation, introspection). */
export const findWithGrant = (db: DbLike, tokenHash: string) =>
  asDb(db)
    .select({ token: refreshTokens, grant: grants, userDisabled: users.disabled })
    .from(refreshTokens)
    .innerJoin(grants, eq(grants.id, refreshTokens.grantId))
    .innerJoin(users, eq(users.id, grants.userId))
    .where(eq(refreshTokens.tokenHash, tokenHash))
    .get();
