// Grants in D1: one authorization-code redemption (or implicit response) and every token refreshed
// from it. Revoking a grant kills its refresh tokens and, through the token-state check, its
// access tokens. Callers clear the isolate's token-state cache (identity/grants.ts).
import { and, eq, gt, isNull, type SQL } from 'drizzle-orm';
import { grants, sessions } from '../../db/schema';
import * as clients from './clients';
import { asDb, type DbLike } from './handle';

export type GrantRow = typeof grants.$inferSelect;

export async function insert(db: DbLike, row: typeof grants.$inferInsert): Promise<void> {
  await asDb(db).insert(grants).values(row);
}

export const find = (db: DbLike, id: string): Promise<GrantRow | undefined> => asDb(db).select().from(grants).where(eq(grants.id, id)).get();

/** Marks the live grants matching `match` revoked (one statement, for a batch or on its own). */
export const revokeLive = (db: DbLike, match: SQL | undefined, now: number) =>
  asDb(db).update(grants).set({ revokedAt: now }).where(and(match, isNull(grants.revokedAt)));

export async function revoke(db: DbLike, grantId: string, now: number): Promise<void> {
  await revokeLive(db, eq(grants.id, grantId), now);
}

/** Revokes all of a user's grants and deletes their sessions, in one batch. */
export async function revokeForUser(db: DbLike, userId: string, now: number): Promise<void> {
  const d = asDb(db);
  await d.batch([revokeLive(d, eq(grants.userId, userId), now), d.delete(sessions).where(eq(sessions.userId, userId))]);
}

/** Revokes a client's grants and deletes the client, in one batch. */
export async function deleteClient(db: DbLike, clientId: string, now: number): Promise<void> {
  const d = asDb(db);
  await d.batch([revokeLive(d, eq(grants.clientId, clientId), now), clients.deleteQuery(d, clientId)]);
}

/** Ids of a client's live grants, as a subquery (refresh-token redemption). */
export const liveIdsOfClient = (db: DbLike, clientId: string, now: number) =>
  asDb(db)
    .select({ id: grants.id })
    .from(grants)
    .where(and(eq(grants.clientId, clientId), isNull(grants.revokedAt), gt(grants.expiresAt, now)));
