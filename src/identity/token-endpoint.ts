// The token endpoint (RFC 6749 §3.2, §4.1.3, §4.4, §6; RFC 7636 §4.6). Every single-use value is
// consumed by one atomic `UPDATE … WHERE used_at IS NULL RETURNING`; the loser gets invalid_grant,
// and a replayed code or a reused rotated refresh token revokes the whole grant.
import type { Context } from 'hono';
import { and, eq, gt, inArray, isNull } from 'drizzle-orm';
import { getDb } from '../db/client';
import { authorizationCodes, grants, refreshTokens } from '../db/schema';
import { OAuthError } from '../errors';
import { APP_TYPES, type GrantType } from './app-types';
import { authenticateClient, readClientCredentials, type AppRow } from './apps';
import { nowSeconds, randomToken, sha256Base64url, timingSafeEqual } from './crypto';
import { quoteInput, readPostForm, type Params } from './form';
import { revokeGrant } from './grants';
import { normalizePermissions, parseResourceScope, parseScopeParam, scopesForPermissions } from './scopes';
import { issueAccessToken, issueIdToken } from './tokens';
import { grantedUserScopes } from './user-scopes';
import { findUser } from './users';

/** Absolute lifetime of a refresh-token family, from the code redemption. */
export const REFRESH_TOKEN_LIFETIME_SECONDS = 30 * 86_400;
const GRANT_TYPES: readonly GrantType[] = ['client_credentials', 'authorization_code', 'refresh_token'];
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

const invalidGrant = (description: string) => new OAuthError(400, 'invalid_grant', description);
const invalidScope = (description: string) => new OAuthError(400, 'invalid_scope', description);

function required(form: Params, name: string): string {
  const value = form.get(name);
  if (value === undefined) throw new OAuthError(400, 'invalid_request', `${name} is missing.`);
  return value;
}

type TokenResponse = Record<string, string | number>;

/** POST /connect/token */
export async function tokenEndpoint(c: Context): Promise<Response> {
  const form = await readPostForm(c);
  const credentials = readClientCredentials(c.req.header('authorization'), form);
  const grantType = required(form, 'grant_type');
  const app = await authenticateClient(c.env, credentials);
  if (!GRANT_TYPES.includes(grantType as GrantType)) {
    throw new OAuthError(400, 'unsupported_grant_type', 'grant_type must be client_credentials, authorization_code or refresh_token.');
  }
  if (!APP_TYPES[app.authType].grantTypes.includes(grantType as GrantType)) {
    throw new OAuthError(400, 'unauthorized_client', `This app (${APP_TYPES[app.authType].label}) may not use the ${grantType} grant.`);
  }
  const body =
    grantType === 'client_credentials'
      ? await clientCredentialsGrant(c, app, form)
      : grantType === 'authorization_code'
        ? await authorizationCodeGrant(c, app, form)
        : await refreshTokenGrant(c, app, form);
  return c.json(body, 200, NO_STORE);
}

/** RFC 6749 §4.4: scopes must be allowed by the app's permissions; none requested = all allowed. */
async function clientCredentialsGrant(c: Context, app: AppRow, form: Params): Promise<TokenResponse> {
  const allowed = scopesForPermissions(normalizePermissions(app.permissions));
  const requested = parseScopeParam(form.get('scope'));
  const refused = requested.filter((s) => !allowed.includes(s));
  if (refused.length) {
    const why = refused.some((s) => !parseResourceScope(s)) ? 'only resource scopes can be requested with client_credentials' : 'not allowed by the app’s permissions';
    throw invalidScope(`Scope ${quoteInput(refused.join(' '))}: ${why}.`);
  }
  const scopes = requested.length ? requested : allowed;
  if (scopes.length === 0) throw invalidScope('The app has no permissions, so no scope can be granted.');
  const access = await issueAccessToken(c.env, { clientId: app.clientId, tenantId: app.tenantId, scopes, lifetime: app.tokenLifetime });
  return { access_token: access.token, expires_in: access.expiresIn, token_type: 'Bearer', scope: scopes.join(' ') };
}

function readVerifier(form: Params): string | undefined {
  const verifier = form.get('code_verifier');
  if (verifier !== undefined && !VERIFIER.test(verifier)) {
    throw new OAuthError(400, 'invalid_request', 'code_verifier must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~ (RFC 7636 §4.1).');
  }
  return verifier;
}

async function authorizationCodeGrant(c: Context, app: AppRow, form: Params): Promise<TokenResponse> {
  const code = required(form, 'code');
  const redirectUri = required(form, 'redirect_uri');
  const verifier = readVerifier(form);
  const db = getDb(c.env.DB);
  const codeHash = await sha256Base64url(code);
  const now = nowSeconds();
  const grantId = crypto.randomUUID();
  const row = await db
    .update(authorizationCodes)
    .set({ usedAt: now, grantId })
    .where(
      and(
        eq(authorizationCodes.codeHash, codeHash),
        isNull(authorizationCodes.usedAt),
        eq(authorizationCodes.clientId, app.clientId),
        gt(authorizationCodes.expiresAt, now),
      ),
    )
    .returning()
    .get();
  if (!row) {
    const replayed = await db.select().from(authorizationCodes).where(eq(authorizationCodes.codeHash, codeHash)).get();
    // RFC 6749 §4.1.2: a code used twice revokes what its first use produced.
    if (replayed?.usedAt && replayed.grantId) await revokeGrant(db, replayed.grantId);
    throw invalidGrant('The authorization code is invalid, expired, already used or was issued to another client.');
  }
  if (row.redirectUri !== redirectUri) throw invalidGrant('redirect_uri does not match the one of the authorization request.');
  if (row.codeChallenge) {
    if (!verifier) throw invalidGrant('code_verifier is required: the authorization request carried a code_challenge.');
    if (!timingSafeEqual(await sha256Base64url(verifier), row.codeChallenge)) throw invalidGrant('code_verifier does not match the code_challenge.');
  } else if (verifier) {
    throw invalidGrant('code_verifier was sent but the authorization request carried no code_challenge.');
  }
  const user = await findUser(db, row.userId);
  if (!user || user.disabled || user.tenantId !== app.tenantId) throw invalidGrant('The user of this code is no longer active.');

  const scopes = parseScopeParam(row.scope);
  const grantExpires = now + REFRESH_TOKEN_LIFETIME_SECONDS;
  await db.insert(grants).values({
    id: grantId,
    tenantId: app.tenantId,
    clientId: app.clientId,
    userId: user.id,
    sid: row.sid,
    scope: row.scope,
    authTime: row.authTime,
    // Same clock as expiresAt, so a grant lives exactly its lifetime even across a second boundary.
    createdAt: now,
    expiresAt: grantExpires,
  });
  return userTokens(c, app, {
    grantId,
    userId: user.id,
    authTime: row.authTime,
    sid: row.sid,
    scopes,
    nonce: row.nonce,
    refresh: scopes.includes('offline_access') ? { scope: row.scope, expiresAt: grantExpires } : undefined,
  });
}

async function refreshTokenGrant(c: Context, app: AppRow, form: Params): Promise<TokenResponse> {
  const token = required(form, 'refresh_token');
  const requested = form.has('scope') ? parseScopeParam(form.get('scope')) : undefined;
  const db = getDb(c.env.DB);
  const tokenHash = await sha256Base64url(token);
  const now = nowSeconds();
  const liveGrantsOfClient = db
    .select({ id: grants.id })
    .from(grants)
    .where(and(eq(grants.clientId, app.clientId), isNull(grants.revokedAt), gt(grants.expiresAt, now)));
  const row = await db
    .update(refreshTokens)
    .set({ usedAt: now })
    .where(
      and(
        eq(refreshTokens.tokenHash, tokenHash),
        isNull(refreshTokens.usedAt),
        gt(refreshTokens.expiresAt, now),
        inArray(refreshTokens.grantId, liveGrantsOfClient),
      ),
    )
    .returning()
    .get();
  if (!row) {
    const reused = await db
      .select({ usedAt: refreshTokens.usedAt, grantId: refreshTokens.grantId, clientId: grants.clientId })
      .from(refreshTokens)
      .innerJoin(grants, eq(grants.id, refreshTokens.grantId))
      .where(eq(refreshTokens.tokenHash, tokenHash))
      .get();
    // RFC 9700 §4.14.2: a rotated refresh token presented again means it leaked; end the family.
    if (reused?.usedAt && reused.clientId === app.clientId) await revokeGrant(db, reused.grantId);
    throw invalidGrant('The refresh token is invalid, expired, revoked or already used.');
  }
  const grant = await db.select().from(grants).where(eq(grants.id, row.grantId)).get();
  const user = grant && (await findUser(db, grant.userId));
  if (!grant || !user || user.disabled) throw invalidGrant('The user of this refresh token is no longer active.');
  const original = parseScopeParam(row.scope);
  const widened = requested?.filter((s) => !original.includes(s)) ?? [];
  if (widened.length) throw invalidScope(`A refresh may narrow the scope, never widen it (${quoteInput(widened.join(' '))}).`);
  return userTokens(c, app, {
    grantId: grant.id,
    userId: user.id,
    authTime: grant.authTime,
    sid: grant.sid,
    scopes: requested ?? original,
    nonce: null,
    role: user.role,
    refresh: { scope: row.scope, expiresAt: row.expiresAt },
  });
}

async function userTokens(
  c: Context,
  app: AppRow,
  input: {
    grantId: string;
    userId: string;
    authTime: number;
    sid: string | null;
    scopes: string[];
    nonce: string | null;
    /** Re-checks resource scopes against the user's current role (refresh). */
    role?: 'admin' | 'user';
    refresh?: { scope: string; expiresAt: number };
  },
): Promise<TokenResponse> {
  const scopes = input.role ? grantedUserScopes(input.scopes, input.role, true) : input.scopes;
  const access = await issueAccessToken(c.env, {
    clientId: app.clientId,
    tenantId: app.tenantId,
    scopes,
    lifetime: app.tokenLifetime,
    user: { userId: input.userId, authTime: input.authTime, sid: input.sid, grantId: input.grantId },
  });
  const body: TokenResponse = { access_token: access.token, expires_in: access.expiresIn, token_type: 'Bearer', scope: scopes.join(' ') };
  if (scopes.includes('openid')) {
    body.id_token = await issueIdToken(c.env, { clientId: app.clientId, userId: input.userId, authTime: input.authTime, sid: input.sid, grantId: input.grantId, nonce: input.nonce });
  }
  if (input.refresh) {
    const refreshToken = randomToken(32);
    await getDb(c.env.DB)
      .insert(refreshTokens)
      .values({ tokenHash: await sha256Base64url(refreshToken), grantId: input.grantId, scope: input.refresh.scope, expiresAt: input.refresh.expiresAt });
    body.refresh_token = refreshToken;
  }
  return body;
}
