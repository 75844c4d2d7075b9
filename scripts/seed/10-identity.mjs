// Local demo seed of the identity service (identity contract, "Local demo seed"): tenant 1 "Demo",
// its admin and plain user, and the apps demo-backend, demo-server and demo-spa. Idempotent:
// INSERT OR IGNORE keeps existing rows (and their password hashes) untouched.
// Passwords are hashed exactly as src/identity/passwords.ts does (PBKDF2-SHA256, 100,000
// iterations, 16-byte salt, 32-byte hash, base64url); secrets as src/identity/client-secrets.ts
// (SHA-256, base64url).
import { createHash, pbkdf2Sync, randomBytes } from 'node:crypto';
import { isMain, projectRoot, withLocalStorage } from '../lib/local-platform.mjs';

const ITERATIONS = 100_000;
const RESOURCE_TYPES = ['Assets', 'Private_assets', 'Artifacts', 'Projects', 'ProcessingPipelines', 'Templates', 'Storefronts', 'StorefrontUsers', 'TenantUsers', 'Products'];

const b64url = (buf) => Buffer.from(buf).toString('base64url');
const sql = (value) => (value === null ? 'NULL' : typeof value === 'number' ? String(value) : `'${String(value).replace(/'/g, "''")}'`);

function passwordColumns(password) {
  const salt = randomBytes(16);
  return { hash: b64url(pbkdf2Sync(password, salt, ITERATIONS, 32, 'sha256')), salt: b64url(salt) };
}

const secretHash = (secret) => b64url(createHash('sha256').update(secret).digest());

const users = [
  { id: '00000000-0000-4000-8000-000000000001', email: 'admin@demo.test', password: 'demo-admin-password', role: 'admin', name: 'Demo Admin' },
  { id: '00000000-0000-4000-8000-000000000002', email: 'user@demo.test', password: 'demo-user-password', role: 'user', name: 'Demo User' },
];

const apps = [
  {
    client_id: 'demo-backend', name: 'demo-backend', auth_type: 'client_credentials', secret: 'demo-backend-secret',
    permissions: Object.fromEntries(RESOURCE_TYPES.map((t) => [t, 'full'])), redirect_uris: [], post_logout_redirect_uris: [], cors_origins: [],
    require_client_secret: 1, require_pkce: 0,
  },
  {
    client_id: 'demo-server', name: 'demo-server', auth_type: 'authorization_code', secret: 'demo-server-secret', permissions: {},
    redirect_uris: ['http://localhost:8788/callback'], post_logout_redirect_uris: ['http://localhost:8788/signed-out'], cors_origins: ['http://localhost:8788'],
    require_client_secret: 1, require_pkce: 1,
  },
  {
    client_id: 'demo-spa', name: 'demo-spa', auth_type: 'implicit', secret: null, permissions: {},
    redirect_uris: ['http://localhost:8788/implicit-callback'], post_logout_redirect_uris: ['http://localhost:8788/signed-out'], cors_origins: ['http://localhost:8788'],
    require_client_secret: 0, require_pkce: 0,
  },
];

const statements = [`INSERT OR IGNORE INTO tenants (id, name) VALUES (1, 'Demo')`];
for (const u of users) {
  const { hash, salt } = passwordColumns(u.password);
  statements.push(
    `INSERT OR IGNORE INTO users (id, tenant_id, email, name, password_hash, password_salt, password_iterations, role, disabled) VALUES (${[u.id, 1, u.email, u.name, hash, salt, ITERATIONS, u.role, 0].map(sql).join(', ')})`,
  );
}
for (const a of apps) {
  statements.push(
    `INSERT OR IGNORE INTO apps (client_id, tenant_id, name, auth_type, secret_hash, token_lifetime, permissions, redirect_uris, post_logout_redirect_uris, cors_origins, require_client_secret, require_pkce) VALUES (${[
      a.client_id, 1, a.name, a.auth_type, a.secret ? secretHash(a.secret) : null, 3600,
      JSON.stringify(a.permissions), JSON.stringify(a.redirect_uris), JSON.stringify(a.post_logout_redirect_uris), JSON.stringify(a.cors_origins),
      a.require_client_secret, a.require_pkce,
    ].map(sql).join(', ')})`,
  );
}

/** Writes the rows in one atomic batch; `npm run dev` calls it with its local bindings. */
export async function seed(env) {
  await env.DB.batch(statements.map((s) => env.DB.prepare(s)));
  console.log('Identity demo seed: tenant 1 "Demo", admin@demo.test, user@demo.test, demo-backend, demo-server, demo-spa.');
}

// Run alone: its own local bindings (getPlatformProxy); `--persist-to <dir>` selects the state.
if (isMain(import.meta.url)) await withLocalStorage(projectRoot(import.meta.url), seed);
