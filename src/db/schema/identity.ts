import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

/** Timestamps are Unix seconds: they compare directly with JWT `iat`/`exp`. */
const createdAt = () => integer('created_at').notNull().default(sql`(unixepoch())`);

export const tenants = sqliteTable('tenants', {
  id: integer('id').primaryKey(),
  name: text('name').notNull(),
  createdAt: createdAt(),
});

export const users = sqliteTable(
  'users',
  {
    id: text('id').primaryKey(),
    tenantId: integer('tenant_id').notNull().references(() => tenants.id),
    email: text('email').notNull(),
    name: text('name').notNull().default(''),
    /** PBKDF2-SHA256 hash and per-user salt, base64url. */
    passwordHash: text('password_hash').notNull(),
    passwordSalt: text('password_salt').notNull(),
    passwordIterations: integer('password_iterations').notNull(),
    role: text('role', { enum: ['admin', 'user'] }).notNull(),
    disabled: integer('disabled', { mode: 'boolean' }).notNull().default(false),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('users_tenant_email').on(t.tenantId, t.email)],
);

/** Registered clients ("External apps"). The secret is stored only as SHA-256. */
export const apps = sqliteTable(
  'apps',
  {
    clientId: text('client_id').primaryKey(),
    tenantId: integer('tenant_id').notNull().references(() => tenants.id),
    name: text('name').notNull(),
    authType: text('auth_type', { enum: ['client_credentials', 'implicit', 'authorization_code'] }).notNull(),
    secretHash: text('secret_hash'),
    tokenLifetime: integer('token_lifetime').notNull().default(3600),
    /** JSON: resource type → 'none' | 'read' | 'update' | 'full' (Client Credentials only). */
    permissions: text('permissions', { mode: 'json' }).$type<Record<string, string>>().notNull().default({}),
    redirectUris: text('redirect_uris', { mode: 'json' }).$type<string[]>().notNull().default([]),
    postLogoutRedirectUris: text('post_logout_redirect_uris', { mode: 'json' }).$type<string[]>().notNull().default([]),
    corsOrigins: text('cors_origins', { mode: 'json' }).$type<string[]>().notNull().default([]),
    requireClientSecret: integer('require_client_secret', { mode: 'boolean' }).notNull(),
    requirePkce: integer('require_pkce', { mode: 'boolean' }).notNull(),
    createdAt: createdAt(),
    updatedAt: integer('updated_at').notNull().default(sql`(unixepoch())`),
  },
  (t) => [index('apps_tenant').on(t.tenantId)],
);

/**
 * Signing keys. `generation` is unique so the first key is created race-free
 * (insert-if-absent on generation 1, then re-read). The private JWK is encrypted with
 * KEY_ENCRYPTION_SECRET. A key signs only from `activatesAt` (published in the JWKS first) and
 * stays published until `retiresAt`.
 */
export const signingKeys = sqliteTable('signing_keys', {
  kid: text('kid').primaryKey(),
  generation: integer('generation').notNull().unique(),
  alg: text('alg').notNull(),
  publicJwk: text('public_jwk', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
  privateJwkEncrypted: text('private_jwk_encrypted').notNull(),
  createdAt: createdAt(),
  activatesAt: integer('activates_at').notNull(),
  /** Set when a newer key takes over; the key stays in the JWKS until `retiresAt`. */
  supersededAt: integer('superseded_at'),
  retiresAt: integer('retires_at'),
});

/** Browser sessions at the identity host. The cookie holds the id; we store its SHA-256. */
export const sessions = sqliteTable(
  'sessions',
  {
    idHash: text('id_hash').primaryKey(),
    /** Public session id: the `sid` claim and the input of `session_state`. */
    sid: text('sid').notNull().unique(),
    tenantId: integer('tenant_id').notNull(),
    userId: text('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    authTime: integer('auth_time').notNull(),
    csrfSecret: text('csrf_secret').notNull(),
    createdAt: createdAt(),
    expiresAt: integer('expires_at').notNull(),
  },
  (t) => [index('sessions_user').on(t.userId)],
);

/** Authorize requests waiting for the login form, kept server-side under an opaque id. */
export const pendingAuthorizations = sqliteTable('pending_authorizations', {
  id: text('id').primaryKey(),
  request: text('request', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
  csrfToken: text('csrf_token').notNull(),
  createdAt: createdAt(),
  expiresAt: integer('expires_at').notNull(),
});

/** A grant is one authorization-code redemption and everything refreshed from it. */
export const grants = sqliteTable(
  'grants',
  {
    id: text('id').primaryKey(),
    tenantId: integer('tenant_id').notNull(),
    clientId: text('client_id').notNull(),
    userId: text('user_id').notNull(),
    sid: text('sid'),
    scope: text('scope').notNull(),
    authTime: integer('auth_time').notNull(),
    createdAt: createdAt(),
    /** Absolute end of the refresh-token family (30 days from the code redemption). */
    expiresAt: integer('expires_at').notNull(),
    revokedAt: integer('revoked_at'),
  },
  (t) => [index('grants_client').on(t.clientId), index('grants_user').on(t.userId)],
);

/** Authorization codes, stored as SHA-256; single use via `UPDATE … WHERE used_at IS NULL`. */
export const authorizationCodes = sqliteTable('authorization_codes', {
  codeHash: text('code_hash').primaryKey(),
  tenantId: integer('tenant_id').notNull(),
  clientId: text('client_id').notNull(),
  userId: text('user_id').notNull(),
  sid: text('sid'),
  redirectUri: text('redirect_uri').notNull(),
  scope: text('scope').notNull(),
  nonce: text('nonce'),
  codeChallenge: text('code_challenge'),
  authTime: integer('auth_time').notNull(),
  createdAt: createdAt(),
  expiresAt: integer('expires_at').notNull(),
  usedAt: integer('used_at'),
  /** The grant its redemption started: revoked if the code is replayed. */
  grantId: text('grant_id'),
});

/** Refresh tokens, stored as SHA-256, rotated on each use. */
export const refreshTokens = sqliteTable(
  'refresh_tokens',
  {
    tokenHash: text('token_hash').primaryKey(),
    grantId: text('grant_id').notNull().references(() => grants.id, { onDelete: 'cascade' }),
    scope: text('scope').notNull(),
    createdAt: createdAt(),
    expiresAt: integer('expires_at').notNull(),
    usedAt: integer('used_at'),
  },
  (t) => [index('refresh_tokens_grant').on(t.grantId)],
);

/** RFC 7009 revocations of Client Credentials access tokens, kept until their `exp`. */
export const revokedJtis = sqliteTable('revoked_jtis', {
  jti: text('jti').primaryKey(),
  expiresAt: integer('expires_at').notNull(),
});

/** Sign-in attempts per tenant, e-mail and client (its IP key; '' counts every client), used to slow repeated failures. */
export const loginThrottle = sqliteTable(
  'login_throttle',
  {
    tenantId: integer('tenant_id').notNull(),
    email: text('email').notNull(),
    client: text('client').notNull().default(''),
    failures: integer('failures').notNull().default(0),
    lastFailureAt: integer('last_failure_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.email, t.client] })],
);
