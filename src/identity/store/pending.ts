// Sign-ins waiting for the login form, in D1 under an opaque id.
import { and, eq, gt, lt } from 'drizzle-orm';
import { pendingAuthorizations } from '../../db/schema';
import { asDb, type DbLike } from './handle';

export type PendingRow = typeof pendingAuthorizations.$inferSelect;

/** Stores one, sweeping expired ones in the same batch. */
export async function create(db: DbLike, row: typeof pendingAuthorizations.$inferInsert, now: number): Promise<void> {
  const d = asDb(db);
  await d.batch([d.delete(pendingAuthorizations).where(lt(pendingAuthorizations.expiresAt, now)), d.insert(pendingAuthorizations).values(row)]);
}

export const findLive = (db: DbLike, id: string, now: number): Promise<PendingRow | undefined> =>
  asDb(db)
    .select()
    .from(pendingAuthorizations)
    .where(and(eq(pendingAuthorizations.id, id), gt(pendingAuthorizations.expiresAt, now)))
    .get();

export async function remove(db: DbLike, id: string): Promise<void> {
  await asDb(db).delete(pendingAuthorizations).where(eq(pendingAuthorizations.id, id));
}
