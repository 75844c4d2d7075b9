// Users of one tenant in D1. Disabling a user or resetting their password revokes all their
// grants and sessions (identity contract, "Grants and revocation").
import { and, asc, eq } from 'drizzle-orm';
import type { Database } from '../../../db/client';
import { users } from '../../../db/schema';
import { revokeUserGrants } from '../../grants';
import { hashPassword } from '../../passwords';
import { createUser, findUserInTenant, type UserRow } from '../../users';
import type { UserRole } from '../../scopes';

export type { UserRow };

export function listUsers(db: Database, tenantId: number): Promise<UserRow[]> {
  return db.select().from(users).where(eq(users.tenantId, tenantId)).orderBy(asc(users.email)).all();
}

export function findTenantUser(db: Database, tenantId: number, id: string): Promise<UserRow | undefined> {
  return db.select().from(users).where(and(eq(users.tenantId, tenantId), eq(users.id, id))).get();
}

/** Creates a user; 'taken' when the tenant already has this e-mail address. */
export async function addUser(
  db: Database,
  tenantId: number,
  input: { email: string; name: string; role: UserRole; password: string },
): Promise<UserRow | 'taken'> {
  if (await findUserInTenant(db, tenantId, input.email)) return 'taken';
  try {
    return await createUser(db, { tenantId, ...input });
  } catch (err) {
    // A concurrent create of the same address loses on the unique index.
    if (String((err as Error)?.message ?? err).includes('UNIQUE') || String((err as { cause?: unknown }).cause).includes('UNIQUE')) return 'taken';
    throw err;
  }
}

export async function resetPassword(db: Database, user: UserRow, password: string): Promise<void> {
  await db.update(users).set(await hashPassword(password)).where(eq(users.id, user.id));
  await revokeUserGrants(db, user.id);
}

export async function setDisabled(db: Database, user: UserRow, disabled: boolean): Promise<void> {
  await db.update(users).set({ disabled }).where(eq(users.id, user.id));
  if (disabled) await revokeUserGrants(db, user.id);
}
