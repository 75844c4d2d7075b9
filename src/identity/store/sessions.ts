// Browser sessions in D1. The cookie holds a random id; only its SHA-256 is stored.
import { and, eq, gt } from 'drizzle-orm';
import { sessions, users } from '../../db/schema';
import { asDb, type DbLike } from './handle';

export async function create(db: DbLike, row: typeof sessions.$inferInsert): Promise<void> {
  await asDb(db).insert(sessions).values(row);
}

/** The unexpired session under this id hash, with its user's role, e-mail and status. */
export const findLive = (db: DbLike, idHash: string, now: number) =>
  asDb(db)
    .select({
      sid: sessions.sid,
      userId: sessions.userId,
      tenantId: sessions.tenantId,
      authTime: sessions.authTime,
      csrfSecret: sessions.csrfSecret,
      role: users.role,
      email: users.email,
      disabled: users.disabled,
    })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.idHash, idHash), gt(sessions.expiresAt, now)))
    .get();

export async function remove(db: DbLike, idHash: string): Promise<void> {
  await asDb(db).delete(sessions).where(eq(sessions.idHash, idHash));
}
