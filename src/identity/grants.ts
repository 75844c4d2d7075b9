// Revoking grants: a grant is one authorization-code redemption (or implicit response) and every
// token refreshed from it. Revoking it kills its refresh tokens now and, through the token-state
// check, its access tokens; this isolate forgets its cached token state at once.
import { forgetTokenState } from '../auth/state-cache';
import { nowSeconds } from './crypto';
import { grants, type DbLike } from './store';

export async function revokeGrant(db: DbLike, grantId: string): Promise<void> {
  await grants.revoke(db, grantId, nowSeconds());
  forgetTokenState();
}

/**
 * Revokes all of a user's grants and deletes their sessions: call when a user is disabled,
 * deleted or their password is reset.
 */
export async function revokeUserGrants(db: DbLike, userId: string): Promise<void> {
  await grants.revokeForUser(db, userId, nowSeconds());
  forgetTokenState();
}

/**
 * Deletes a client (External app) and revokes everything issued to it: its grants (refresh
 * tokens) now, and its access tokens because the token-state check requires the client to exist.
 */
export async function deleteClient(db: DbLike, clientId: string): Promise<void> {
  await grants.deleteClient(db, clientId, nowSeconds());
  forgetTokenState();
}
