// UserInfo endpoint (OIDC Core §5.3): a user token with `openid`; claims by scope.
import type { Context } from 'hono';
import { authenticate, insufficientScopeError, invalidTokenError } from '../auth/bearer';
import { findUser } from './users';

export async function userinfoEndpoint(c: Context): Promise<Response> {
  const auth = await authenticate(c, { fresh: true });
  if (!auth.userId || !auth.scopes.includes('openid')) throw insufficientScopeError(c.env, 'openid');
  const user = await findUser(c.env.DB, auth.userId);
  if (!user || user.disabled) throw invalidTokenError(c.env, 'The user of this token no longer exists.');
  const claims: Record<string, unknown> = { sub: user.id, tenantId: user.tenantId };
  if (auth.scopes.includes('profile')) {
    if (user.name) claims.name = user.name;
    claims.preferred_username = user.email;
    claims.role = user.role;
  }
  if (auth.scopes.includes('email')) {
    claims.email = user.email;
    claims.email_verified = false;
  }
  return c.json(claims, 200, { 'Cache-Control': 'no-store', Pragma: 'no-cache' });
}
