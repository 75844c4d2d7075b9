// The form revocation (RFC 7009) and introspection (RFC 7662) share: an authenticated client
// naming one token. Not the token endpoint's request (token-request.ts).
import type { Context } from 'hono';
import { OAuthError } from '../errors';
import { authenticateClient, readClientCredentials, type ClientRow } from './clients';
import { sha256Base64url } from './crypto';
import { readPostForm } from './oauth-params';
import { refreshTokens } from './store';

export const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };
export const looksLikeJwt = (token: string): boolean => token.split('.').length === 3;

/** The client (authenticated like the token endpoint) and the `token` it names. */
export async function readClientTokenForm(c: Context, options: { requireSecret: boolean }): Promise<{ app: ClientRow; token: string }> {
  const form = await readPostForm(c);
  const app = await authenticateClient(c.env, readClientCredentials(c.req.header('authorization'), form), options);
  const token = form.get('token');
  if (!token) throw new OAuthError(400, 'invalid_request', 'token is missing.');
  return { app, token };
}

/** A refresh token with its grant, or undefined (also for values no refresh token could be). */
export async function findRefreshToken(c: Context, token: string) {
  if (token.length > 512) return undefined;
  return refreshTokens.findWithGrant(c.env.DB, await sha256Base64url(token));
}
