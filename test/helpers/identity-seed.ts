// The contract's demo seed, created inside workerd with the app's own functions (the same data
// scripts/seed/10-identity.mjs writes for `npm run dev`).
import { env } from 'cloudflare:workers';
import { insertClient } from '../../src/identity/clients';
import { RESOURCE_TYPES } from '../../src/auth/scopes';
import { createTenant, createUser, findUser } from '../../src/identity/users';

export const DEMO = {
  issuer: 'http://localhost:8787',
  tenantId: 1,
  admin: { id: '00000000-0000-4000-8000-000000000001', email: 'admin@demo.test', password: 'demo-admin-password' },
  user: { id: '00000000-0000-4000-8000-000000000002', email: 'user@demo.test', password: 'demo-user-password' },
  backend: { clientId: 'demo-backend', secret: 'demo-backend-secret' },
  server: {
    clientId: 'demo-server',
    secret: 'demo-server-secret',
    redirectUri: 'http://localhost:8788/callback',
    postLogoutRedirectUri: 'http://localhost:8788/signed-out',
    origin: 'http://localhost:8788',
  },
  spa: {
    clientId: 'demo-spa',
    redirectUri: 'http://localhost:8788/implicit-callback',
    postLogoutRedirectUri: 'http://localhost:8788/signed-out',
    origin: 'http://localhost:8788',
  },
} as const;

/** Seeds tenant 1 "Demo", its two users and the three demo apps (idempotent). */
export async function seedIdentity(): Promise<void> {
  await createTenant(env.DB, { id: DEMO.tenantId, name: 'Demo' });
  if (!(await findUser(env.DB, DEMO.admin.id))) {
    await createUser(env.DB, { ...DEMO.admin, tenantId: DEMO.tenantId, role: 'admin', name: 'Demo Admin' });
  }
  if (!(await findUser(env.DB, DEMO.user.id))) {
    await createUser(env.DB, { ...DEMO.user, tenantId: DEMO.tenantId, role: 'user', name: 'Demo User' });
  }
  await insertClient(env, {
    clientId: DEMO.backend.clientId,
    tenantId: DEMO.tenantId,
    name: 'demo-backend',
    authType: 'client_credentials',
    secret: DEMO.backend.secret,
    tokenLifetime: 3600,
    permissions: Object.fromEntries(RESOURCE_TYPES.map((t) => [t, 'full'])),
  });
  await insertClient(env, {
    clientId: DEMO.server.clientId,
    tenantId: DEMO.tenantId,
    name: 'demo-server',
    authType: 'authorization_code',
    secret: DEMO.server.secret,
    requireClientSecret: true,
    requirePkce: true,
    redirectUris: [DEMO.server.redirectUri],
    postLogoutRedirectUris: [DEMO.server.postLogoutRedirectUri],
    corsOrigins: [DEMO.server.origin],
  });
  await insertClient(env, {
    clientId: DEMO.spa.clientId,
    tenantId: DEMO.tenantId,
    name: 'demo-spa',
    authType: 'implicit',
    redirectUris: [DEMO.spa.redirectUri],
    postLogoutRedirectUris: [DEMO.spa.postLogoutRedirectUri],
    corsOrigins: [DEMO.spa.origin],
  });
}
