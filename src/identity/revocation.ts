// Token revocation (RFC 7009). The client authenticates like at the token endpoint; unknown,
// foreign or already-dead tokens are not an error (RFC 7009 §2.2): the answer is 200 either way.
import type { Context } from 'hono';
import { forgetTokenState } from '../auth/state-cache';
import { InvalidTokenError, verifyAccessTokenSignature } from '../auth/verify';
import { findRefreshToken, looksLikeJwt, NO_STORE, readClientTokenForm } from './client-token-form';
import { revokeGrant } from './grants';
import { jtis } from './store';

/** POST /connect/revocation */
export async function revocationEndpoint(c: Context): Promise<Response> {
  const { app, token } = await readClientTokenForm(c, { requireSecret: false });
  if (looksLikeJwt(token)) {
    try {
      const claims = await verifyAccessTokenSignature(c.env, token);
      if (claims.client_id === app.clientId) {
        // A user token dies with its grant; a Client Credentials token goes on the jti deny-list.
        if (claims.gid) {
          await revokeGrant(c.env.DB, claims.gid);
        } else {
          await jtis.deny(c.env.DB, claims.jti!, claims.exp!);
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
