// Access-token acceptance (identity contract, "Grants and revocation"): signature against the
// issuer's published keys, `typ: at+jwt`, iss, aud, exp/nbf with 60 s skew, then the revocable
// state — app exists in the token's tenant, jti not denied, and for user tokens the grant is live
// and the user enabled. That state may be cached in the isolate for ≤ 30 s (state-cache.ts). Keys
// and state come from the token sources the issuer wired (sources.ts).
import { decodeProtectedHeader, errors, jwtVerify, type JWTPayload } from 'jose';
import type { Env } from '../env';
import { issuerOf, resourceAudience } from './issuer';
import { tokenSources, type TokenSources } from './sources';
import { getCachedState, setCachedState } from './state-cache';

export const CLOCK_SKEW_SECONDS = 60;
const MAX_TOKEN_LENGTH = 8192;

/** What a route learns about the caller (c.var.auth). */
export interface AuthContext {
  tenantId: number;
  /** User id for user tokens; the client_id for Client Credentials. */
  sub: string;
  clientId: string;
  scopes: string[];
  /** Set for tokens issued to a signed-in user (Implicit, Authorization Code). */
  userId?: string;
  grantId?: string;
  sid?: string;
  authTime?: number;
  jti: string;
  iat: number;
  exp: number;
}

export class InvalidTokenError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidTokenError';
  }
}

export interface AccessTokenClaims extends JWTPayload {
  client_id: string;
  scope: string;
  tenantId: number;
  auth_time?: number;
  sid?: string;
  gid?: string;
}

/** Signature and claims only (no revocation state): throws InvalidTokenError. */
export async function verifyAccessTokenSignature(env: Env, token: string, sources: TokenSources = tokenSources()): Promise<AccessTokenClaims> {
  if (token.length > MAX_TOKEN_LENGTH || token.split('.').length !== 3) throw new InvalidTokenError('The access token is malformed.');
  let kid: string | undefined;
  try {
    kid = decodeProtectedHeader(token).kid;
  } catch {
    throw new InvalidTokenError('The access token is malformed.');
  }
  try {
    const { payload } = await jwtVerify<AccessTokenClaims>(token, await sources.verificationKeys(env, kid), {
      issuer: issuerOf(env),
      audience: resourceAudience(env),
      typ: 'at+jwt',
      algorithms: ['RS256'],
      clockTolerance: CLOCK_SKEW_SECONDS,
      requiredClaims: ['exp', 'iat', 'jti', 'sub', 'client_id', 'tenantId'],
    });
    if (typeof payload.client_id !== 'string' || typeof payload.tenantId !== 'number' || typeof payload.jti !== 'string') {
      throw new InvalidTokenError('The access token lacks required claims.');
    }
    if (payload.scope !== undefined && typeof payload.scope !== 'string') throw new InvalidTokenError('The scope claim is not a string.');
    return payload;
  } catch (err) {
    if (err instanceof InvalidTokenError) throw err;
    if (err instanceof errors.JWTExpired) throw new InvalidTokenError('The access token has expired.');
    if (err instanceof errors.JOSEError) throw new InvalidTokenError(`The access token is not valid (${err.code}).`);
    throw err;
  }
}

/** The revocable state of a token, through the isolate cache unless `fresh`. */
async function tokenIsLive(env: Env, claims: AccessTokenClaims, useCache: boolean, sources: TokenSources): Promise<boolean> {
  const key = `jti:${claims.jti}`;
  if (useCache) {
    const cached = getCachedState<boolean>(key);
    if (cached !== undefined) return cached;
  }
  const live = await sources.tokenIsLive(env, { ...claims, jti: claims.jti! });
  setCachedState(key, live);
  return live;
}

/**
 * Verifies a bearer access token and its revocable state. `fresh` skips the isolate cache
 * (introspection and userinfo report the state as it is now).
 */
export async function verifyAccessToken(env: Env, token: string, options: { fresh?: boolean } = {}, sources: TokenSources = tokenSources()): Promise<AuthContext> {
  const claims = await verifyAccessTokenSignature(env, token, sources);
  if (!(await tokenIsLive(env, claims, !options.fresh, sources))) throw new InvalidTokenError('The access token has been revoked.');
  return toAuthContext(claims);
}

export function toAuthContext(claims: AccessTokenClaims): AuthContext {
  const auth: AuthContext = {
    tenantId: claims.tenantId,
    sub: claims.sub!,
    clientId: claims.client_id,
    scopes: (claims.scope ?? '').split(' ').filter(Boolean),
    jti: claims.jti!,
    iat: claims.iat!,
    exp: claims.exp!,
  };
  if (claims.auth_time !== undefined) {
    auth.userId = claims.sub;
    auth.authTime = claims.auth_time;
    if (claims.gid) auth.grantId = claims.gid;
    if (claims.sid) auth.sid = claims.sid;
  }
  return auth;
}
