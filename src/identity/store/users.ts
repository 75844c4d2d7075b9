// Tenants' users in D1. E-mail addresses arrive normalised (users.ts); passwords arrive hashed.
import { and, asc, eq } from 'drizzle-orm';
import { users } from '../../db/schema';
import { asDb, type DbLike } from './handle';

export type UserRow = typeof users.$inferSelect;
export type NewUserRow = typeof users.$inferInsert;

export const insert = (db: DbLike, row: NewUserRow): Promise<UserRow> => asDb(db).insert(users).values(row).returning().get();

export const find = (db: DbLike, id: string): Promise<UserRow | undefined> => asDb(db).select().from(users).where(eq(users.id, id)).get();

export const findInTenant = (db: DbLike, tenantId: number, email: string): Promise<UserRow | undefined> =>
  asDb(db).select().from(users).where(and(eq(users.tenantId, tenantId), eq(users.email, email))).get();

/** The user with this id if it belongs to the tenant (another tenant's user is "not found"). */
export const findByIdInTenant = (db: DbLike, tenantId: number, id: string): Promise<UserRow | undefined> =>
  asDb(db).select().from(users).where(and(eq(users.tenantId, tenantId), eq(users.id, id))).get();

/** Every tenant's user with this e-mail (the admin sign-in does not know the tenant yet). */
export const findByEmail = (db: DbLike, email: string): Promise<UserRow[]> => asDb(db).select().from(users).where(eq(users.email, email)).limit(20).all();

export const listForTenant = (db: DbLike, tenantId: number): Promise<UserRow[]> =>
  asDb(db).select().from(users).where(eq(users.tenantId, tenantId)).orderBy(asc(users.email)).all();

export async function setPassword(db: DbLike, id: string, hash: Pick<UserRow, 'passwordHash' | 'passwordSalt' | 'passwordIterations'>): Promise<void> {
  await asDb(db).update(users).set(hash).where(eq(users.id, id));
}

export async function setDisabled(db: DbLike, id: string, disabled: boolean): Promise<void> {
  await asDb(db).update(users).set({ disabled }).where(eq(users.id, id));
}
