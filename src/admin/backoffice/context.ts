// The back-office pages call the platform's service functions directly (not over HTTP), inside
// the signed-in admin's tenant. An admin has full access to the tenant's resources, so the
// context carries no scopes to check: the pages, not tokens, decide what may be done.
import type { TenantContext } from '../../platform/core';
import type { AdminContextOf } from '../../identity/admin/guard';

export function tenantOf(c: AdminContextOf): TenantContext {
  const { session } = c.get('admin');
  const now = Math.floor(Date.now() / 1000);
  return {
    tenantId: session.tenantId,
    auth: { tenantId: session.tenantId, sub: session.userId, clientId: 'admin-panel', scopes: [], userId: session.userId, jti: '', iat: now, exp: now },
    env: c.env,
    baseUrl: c.env.PUBLIC_BASE_URL ? c.env.PUBLIC_BASE_URL.replace(/\/+$/, '') : new URL(c.req.url).origin,
  };
}
