// Token introspection (RFC 7662): confidential clients only, tokens of their own tenant; any
// other token is reported inactive. State is read fresh (no isolate cache).
import type { Context } from 'hono';
import { InvalidTokenError, verifyAccessToken } from '../auth/verify';
import { findRefreshToken, looksLikeJwt, NO_STORE, readClientTokenForm } from './client-token-form';
import { nowSeconds } from './crypto';
import { issuerOf, resourceAudience } from './tokens';

/** POST /connect/introspect: confidential clients, tokens of their own tenant. */
export async function introspectionEndpoint(c: Context): Promise<Response> {
  const { app, token } = await readClientTokenForm(c, { requireSecret: true });
  const inactive = () => c.json({ active: false }, 200, NO_STORE);
  if (looksLikeJwt(token)) {
    try {
      const auth = await verifyAccessToken(c.env, token, { fresh: true });
      if (auth.tenantId !== app.tenantId) return inactive();
      return c.json(
        {
          active: true,
          iss: issuerOf(c.env),
          aud: resourceAudience(c.env),
          token_type: 'Bearer',
          client_id: auth.clientId,
          sub: auth.sub,
          scope: auth.scopes.join(' '),
          iat: auth.iat,
          nbf: auth.iat,
          exp: auth.exp,
          jti: auth.jti,
          tenantId: auth.tenantId,
          ...(auth.authTime !== undefined ? { auth_time: auth.authTime } : {}),
          ...(auth.sid ? { sid: auth.sid } : {}),
        },
        200,
        NO_STORE,
      );
    } catch (err) {
      if (err instanceof InvalidTokenError) return inactive();
      throw err;
    }
  }
  const found = await findRefreshToken(c, token);
  const now = nowSeconds();
  if (
    !found ||
    found.grant.clientId !== app.clientId ||
    found.token.usedAt !== null ||
    found.token.expiresAt <= now ||
    found.grant.revokedAt !== null ||
    found.userDisabled
  ) {
    return inactive();
  }
  return c.json(
    {
      active: true,
      iss: issuerOf(c.env),
      token_type: 'refresh_token',
      client_id: found.grant.clientId,
      sub: found.grant.userId,
      scope: found.token.scope,
      iat: found.token.createdAt,
      exp: found.token.expiresAt,
      tenantId: found.grant.tenantId,
      auth_time: found.grant.authTime,
    },
    200,
    NO_STORE,
  );
}
