// Token revocation (RFC 7009) and introspection (RFC 7662). Both authenticate the client like
// the token endpoint; unknown, foreign or already-dead tokens are not an error (RFC 7009 §2.2).
import type { Context } from 'hono';
import { eq } from 'drizzle-orm';
import { getDb } from '../db/client';
import { grants, refreshTokens, revokedJtis, users } from '../db/schema';
import { OAuthError } from '../errors';
import { forgetTokenState } from '../auth/state-cache';
import { InvalidTokenError, verifyAccessToken, verifyAccessTokenSignature } from '../auth/verify';
import { authenticateClient, readClientCredentials } from './apps';
import { nowSeconds, sha256Base64url } from './crypto';
import { readPostForm } from './form';
import { revokeGrant } from './grants';
import { issuerOf, resourceAudience } from './tokens';

const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };
const looksLikeJwt = (token: string) => token.split('.').length === 3;

async function readTokenRequest(c: Context, requireSecret: boolean) {
  const form = await readPostForm(c);
  const app = await authenticateClient(c.env, readClientCredentials(c.req.header('authorization'), form), { requireSecret });
  const token = form.get('token');
  if (!token) throw new OAuthError(400, 'invalid_request', 'token is missing.');
  return { app, token };
}

async function findRefreshToken(c: Context, token: string) {
  if (token.length > 512) return undefined;
  return getDb(c.env.DB)
    .select({ token: refreshTokens, grant: grants, userDisabled: users.disabled })
    .from(refreshTokens)
    .innerJoin(grants, eq(grants.id, refreshTokens.grantId))
    .innerJoin(users, eq(users.id, grants.userId))
    .where(eq(refreshTokens.tokenHash, await sha256Base64url(token)))
    .get();
}

/** POST /connect/revocation */
export async function revocationEndpoint(c: Context): Promise<Response> {
  const { app, token } = await readTokenRequest(c, false);
  if (looksLikeJwt(token)) {
    try {
      const claims = await verifyAccessTokenSignature(c.env, token);
      if (claims.client_id === app.clientId) {
        if (claims.gid) {
          await revokeGrant(c.env.DB, claims.gid);
        } else {
          await getDb(c.env.DB).insert(revokedJtis).values({ jti: claims.jti!, expiresAt: claims.exp! }).onConflictDoNothing();
          forgetTokenState();
        }
      }
    } catch (err) {
      if (!(err instanceof InvalidTokenError)) throw err;
    }
  } else {
    const found = await findRefreshToken(c, token);
    if (found && found.grant.clientId === app.clientId) await revokeGrant(c.env.DB, found.grant.id);
  }
  return c.body(null, 200, NO_STORE);
}

/** POST /connect/introspect: confidential clients, tokens of their own tenant. */
export async function introspectionEndpoint(c: Context): Promise<Response> {
  const { app, token } = await readTokenRequest(c, true);
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
