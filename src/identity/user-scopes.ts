import { permissionsForRole, scopesForPermissions, type UserRole } from '../auth/scopes';

const IDENTITY_CLAIM_SCOPES = new Set(['openid', 'profile', 'email']);

/**
 * Scopes granted to a user token: requested ∩ what the role allows, plus `openid`, `profile`,
 * `email`, and `offline_access` for Authorization Code. Excess scopes are dropped silently.
 */
export function grantedUserScopes(requested: readonly string[], role: UserRole, allowOffline: boolean): string[] {
  const allowed = new Set(scopesForPermissions(permissionsForRole(role)));
  return requested.filter(
    (scope) => IDENTITY_CLAIM_SCOPES.has(scope) || allowed.has(scope) || (scope === 'offline_access' && allowOffline),
  );
}
