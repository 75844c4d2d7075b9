// The token endpoint (RFC 6749 §3.2, §4.1.3, §4.4, §6; RFC 7636 §4.6). Every single-use value is
// consumed by one atomic `UPDATE … WHERE used_at IS NULL RETURNING`; the loser gets invalid_grant,
// and a replayed code or a reused rotated refresh token revokes the whole grant.
import type { Context } from 'hono';
import { OAuthError } from '../errors';
import { APP_TYPES, type GrantType } from './app-types';
import { authenticateClient, readClientCredentials, type ClientRow } from './clients';
import { nowSeconds, randomToken, sha256Base64url, timingSafeEqual } from './crypto';
import { quoteInput, readPostForm } from './oauth-params';
import { revokeGrant } from './grants';
import { normalizePermissions, parseResourceScope, parseScopeParam, scopesForPermissions } from '../auth/scopes';
import { issueAccessToken, issueIdToken } from './tokens';
import { codes, grants, refreshTokens } from './store';
import { parseTokenRequest, TOKEN_GRANT_TYPES, type TokenRequest } from './token-request';
import { grantedUserScopes } from './user-scopes';
import { findUser } from './users';

/** Absolute lifetime of a refresh-token family, from the code redemption. */
export const REFRESH_TOKEN_LIFETIME_SECONDS = 30 * 86_400;

const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

const invalidGrant = (description: string) => new OAuthError(400, 'invalid_grant', description);
const invalidScope = (description: string) => new OAuthError(400, 'invalid_scope', description);

type TokenResponse = Record<string, string | number>;

/** POST /connect/token */
export async function tokenEndpoint(c: Context): Promise<Response> {
  const form = await readPostForm(c);
  const credentials = readClientCredentials(c.req.header('authorization'), form);
  const grantType = form.get('grant_type');
  if (grantType === undefined) throw new OAuthError(400, 'invalid_request', 'grant_type is missing.');
  // RFC order: who the client is, whether it may use this grant, then the grant's own fields.
  const app = await authenticateClient(c.env, credentials);
  if (!TOKEN_GRANT_TYPES.includes(grantType as GrantType)) {
    throw new OAuthError(400, 'unsupported_grant_type', `grant_type must be ${TOKEN_GRANT_TYPES.join(', ')}.`);
  }
  if (!APP_TYPES[app.authType].grantTypes.includes(grantType as GrantType)) {
    throw new OAuthError(400, 'unauthorized_client', `This app (${APP_TYPES[app.authType].label}) may not use the ${grantType} grant.`);
  }
  const request = parseTokenRequest(form);
  const body =
    request.grant_type === 'client_credentials'
      ? await clientCredentialsGrant(c, app, request)
      : request.grant_type === 'authorization_code'
        ? await authorizationCodeGrant(c, app, request)
        : await refreshTokenGrant(c, app, request);
  return c.json(body, 200, NO_STORE);
}

/** RFC 6749 §4.4: scopes must be allowed by the app's permissions; none requested = all allowed. */
async function clientCredentialsGrant(c: Context, app: ClientRow, request: Extract<TokenRequest, { grant_type: 'client_credentials' }>): Promise<TokenResponse> {
  const allowed = scopesForPermissions(normalizePermissions(app.permissions));
  const requested = parseScopeParam(request.scope);
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

async function authorizationCodeGrant(c: Context, app: ClientRow, request: Extract<TokenRequest, { grant_type: 'authorization_code' }>): Promise<TokenResponse> {
  const { code, redirect_uri: redirectUri, code_verifier: verifier } = request;
  const db = c.env.DB;
  const codeHash = await sha256Base64url(code);
  const now = nowSeconds();
  const grantId = crypto.randomUUID();
  const row = await codes.consume(db, codeHash, app.clientId, grantId, now);
  if (!row) {
    const replayed = await codes.find(db, codeHash);
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
  await grants.insert(db, {
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

async function refreshTokenGrant(c: Context, app: ClientRow, request: Extract<TokenRequest, { grant_type: 'refresh_token' }>): Promise<TokenResponse> {
  const requested = request.scope !== undefined ? parseScopeParam(request.scope) : undefined;
  const db = c.env.DB;
  const tokenHash = await sha256Base64url(request.refresh_token);
  const now = nowSeconds();
  const row = await refreshTokens.consume(db, tokenHash, app.clientId, now);
  if (!row) {
    const reused = await refreshTokens.findWithClient(db, tokenHash);
    // RFC 9700 §4.14.2: a rotated refresh token presented again means it leaked; end the family.
    if (reused?.usedAt && reused.clientId === app.clientId) await revokeGrant(db, reused.grantId);
    throw invalidGrant('The refresh token is invalid, expired, revoked or already used.');
  }
  const grant = await grants.find(db, row.grantId);
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
  app: ClientRow,
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
    await refreshTokens.insert(c.env.DB, { tokenHash: await sha256Base64url(refreshToken), grantId: input.grantId, scope: input.refresh.scope, expiresAt: input.refresh.expiresAt });
    body.refresh_token = refreshToken;
  }
  return body;
}
