// The revocable state behind an access token, in one D1 round trip: the resource-server
// middleware (src/auth) asks it through the token sources the identity service wires.
import type { TokenStateClaims } from '../../auth/sources';

interface StateRow {
  app_tenant: number | null;
  denied: number | null;
  grant_live: number | null;
  user_ok: number | null;
}

/** App exists in the token's tenant, jti not denied; for user tokens the grant is live and the user enabled. */
export async function isLive(d1: D1Database, claims: TokenStateClaims): Promise<boolean> {
  const isUser = claims.auth_time !== undefined;
  const row = await d1
    .prepare(
      `SELECT
       (SELECT tenant_id FROM apps WHERE client_id = ?1) AS app_tenant,
       (SELECT 1 FROM revoked_jtis WHERE jti = ?2) AS denied,
       (SELECT 1 FROM grants WHERE id = ?3 AND client_id = ?1 AND user_id = ?4 AND revoked_at IS NULL AND expires_at > unixepoch()) AS grant_live,
       (SELECT 1 FROM users WHERE id = ?4 AND tenant_id = ?5 AND disabled = 0) AS user_ok`,
    )
    .bind(claims.client_id, claims.jti, claims.gid ?? null, isUser ? (claims.sub ?? null) : null, claims.tenantId)
    .first<StateRow>();
  return row !== null && row.app_tenant === claims.tenantId && !row.denied && (!isUser || (row.grant_live === 1 && row.user_ok === 1));
}
