// Users of one tenant: the admin panel's operations over the identity store. Disabling a user or
// resetting their password revokes all their grants and sessions (identity contract, "Grants and
// revocation").
import type { Database } from '../../../db/client';
import { revokeUserGrants } from '../../grants';
import { users } from '../../store';
import { hashPassword } from '../../passwords';
import { createUser, findUserInTenant, type UserRow } from '../../users';
import type { UserRole } from '../../../auth/scopes';

export type { UserRow };

export const listUsers = (db: Database, tenantId: number): Promise<UserRow[]> => users.listForTenant(db, tenantId);

export const findTenantUser = (db: Database, tenantId: number, id: string): Promise<UserRow | undefined> => users.findByIdInTenant(db, tenantId, id);

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
  await users.setPassword(db, user.id, await hashPassword(password));
  await revokeUserGrants(db, user.id);
}

export async function setDisabled(db: Database, user: UserRow, disabled: boolean): Promise<void> {
  await users.setDisabled(db, user.id, disabled);
  if (disabled) await revokeUserGrants(db, user.id);
}
