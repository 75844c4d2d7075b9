// Tenants and tenant users. E-mail addresses are stored lower-case and unique per tenant.
import { hashPassword } from './passwords';
import type { UserRole } from '../auth/scopes';
import { tenants, users, type DbLike } from './store';

export const normalizeEmail = (email: string): string => email.trim().toLowerCase();

export type UserRow = users.UserRow;

export const createTenant = (db: DbLike, tenant: { id?: number; name: string }): Promise<number> => tenants.create(db, tenant);

/** Creates a user with a freshly hashed password; `id` defaults to a random UUID. */
export async function createUser(
  db: DbLike,
  input: { id?: string; tenantId: number; email: string; password: string; role: UserRole; name?: string },
): Promise<UserRow> {
  return users.insert(db, {
    id: input.id ?? crypto.randomUUID(),
    tenantId: input.tenantId,
    email: normalizeEmail(input.email),
    name: input.name ?? '',
    role: input.role,
    ...(await hashPassword(input.password)),
  });
}

export const findUserInTenant = (db: DbLike, tenantId: number, email: string): Promise<UserRow | undefined> =>
  users.findInTenant(db, tenantId, normalizeEmail(email));

/** Every tenant's user with this e-mail (the admin sign-in does not know the tenant yet). */
export const findUsersByEmail = (db: DbLike, email: string): Promise<UserRow[]> => users.findByEmail(db, normalizeEmail(email));

export const findUser = (db: DbLike, id: string): Promise<UserRow | undefined> => users.find(db, id);
