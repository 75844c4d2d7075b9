// Tenants and tenant users. E-mail addresses are stored lower-case and unique per tenant.
import { and, eq } from 'drizzle-orm';
import { tenants, users } from '../db/schema';
import { asDb, type DbLike } from './store/handle';
import { hashPassword } from './passwords';
import type { UserRole } from './scopes';

export const normalizeEmail = (email: string): string => email.trim().toLowerCase();

export type UserRow = typeof users.$inferSelect;

export async function createTenant(db: DbLike, tenant: { id?: number; name: string }): Promise<number> {
  const row = await asDb(db).insert(tenants).values(tenant).onConflictDoNothing().returning({ id: tenants.id }).get();
  return row?.id ?? tenant.id!;
}

/** Creates a user with a freshly hashed password; `id` defaults to a random UUID. */
export async function createUser(
  db: DbLike,
  input: { id?: string; tenantId: number; email: string; password: string; role: UserRole; name?: string },
): Promise<UserRow> {
  const row = await asDb(db)
    .insert(users)
    .values({
      id: input.id ?? crypto.randomUUID(),
      tenantId: input.tenantId,
      email: normalizeEmail(input.email),
      name: input.name ?? '',
      role: input.role,
      ...(await hashPassword(input.password)),
    })
    .returning()
    .get();
  return row;
}

export async function findUserInTenant(db: DbLike, tenantId: number, email: string): Promise<UserRow | undefined> {
  return asDb(db)
    .select()
    .from(users)
    .where(and(eq(users.tenantId, tenantId), eq(users.email, normalizeEmail(email))))
    .get();
}

/** Every tenant's user with this e-mail (the admin sign-in does not know the tenant yet). */
export async function findUsersByEmail(db: DbLike, email: string): Promise<UserRow[]> {
  return asDb(db).select().from(users).where(eq(users.email, normalizeEmail(email))).limit(20).all();
}

export async function findUser(db: DbLike, id: string): Promise<UserRow | undefined> {
  return asDb(db).select().from(users).where(eq(users.id, id)).get();
}
