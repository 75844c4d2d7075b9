// Grants: one authorization-code redemption and every token refreshed from it. Revoking a grant
// kills its refresh tokens and, through the resource-server check, its access tokens.
import { and, eq, isNull, type SQL } from 'drizzle-orm';
import { apps, grants, sessions } from '../db/schema';
import { forgetTokenState } from '../auth/state-cache';
import { nowSeconds } from './crypto';
import { asDb, type DbLike } from './store/handle';

/** Marks the live grants matching `match` revoked (one statement, for a batch or on its own). */
const revokeLive = (d: ReturnType<typeof asDb>, match: SQL | undefined) =>
  d.update(grants).set({ revokedAt: nowSeconds() }).where(and(match, isNull(grants.revokedAt)));

export async function revokeGrant(db: DbLike, grantId: string): Promise<void> {
  await revokeLive(asDb(db), eq(grants.id, grantId));
  forgetTokenState();
}

/**
 * Revokes all of a user's grants and deletes their sessions: call when a user is disabled,
 * deleted or their password is reset.
 */
export async function revokeUserGrants(db: DbLike, userId: string): Promise<void> {
  const d = asDb(db);
  await d.batch([revokeLive(d, eq(grants.userId, userId)), d.delete(sessions).where(eq(sessions.userId, userId))]);
  forgetTokenState();
}

/**
 * Deletes an app and revokes everything issued to it: its grants (refresh tokens) now, and its
 * access tokens because the resource-server check requires the app to exist.
 */
export async function deleteApp(db: DbLike, clientId: string): Promise<void> {
  const d = asDb(db);
  await d.batch([revokeLive(d, eq(grants.clientId, clientId)), d.delete(apps).where(eq(apps.clientId, clientId))]);
  forgetTokenState();
}
