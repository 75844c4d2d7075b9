// The JWTs we sign: RFC 9068 access tokens (`typ: at+jwt`) and OpenID Connect ID tokens.
import { SignJWT } from 'jose';
import type { Env } from '../env';
import { issuerOf, resourceAudience } from '../auth/issuer';
import { base64url, nowSeconds, randomToken, sha256 } from './crypto';
import { getSigningKey, SIGNING_ALG } from './keys';

export const ID_TOKEN_LIFETIME_SECONDS = 300;

export { issuerOf, resourceAudience };

export interface AccessTokenInput {
  clientId: string;
  tenantId: number;
  scopes: readonly string[];
  lifetime: number;
  /** User tokens only. */
  user?: { userId: string; authTime: number; sid: string | null; grantId: string | null };
  /** Storefront-user tokens (platform `GET /storefront-users/token`): `sub` = `suid` = this id, no auth_time/gid. */
  storefrontUserId?: string;
}

export async function issueAccessToken(env: Env, input: AccessTokenInput): Promise<{ token: string; expiresIn: number; jti: string }> {
  const { kid, key } = await getSigningKey(env);
  const iat = nowSeconds();
  const jti = randomToken(16);
  const claims: Record<string, unknown> = {
    client_id: input.clientId,
    scope: input.scopes.join(' '),
    tenantId: input.tenantId,
  };
  if (input.user) {
    claims.auth_time = input.user.authTime;
    if (input.user.sid) claims.sid = input.user.sid;
    if (input.user.grantId) claims.gid = input.user.grantId;
  }
  if (input.storefrontUserId) claims.suid = input.storefrontUserId;
  const token = await new SignJWT(claims)
    .setProtectedHeader({ alg: SIGNING_ALG, typ: 'at+jwt', kid })
    .setIssuer(issuerOf(env))
    .setAudience(resourceAudience(env))
    .setSubject(input.user?.userId ?? input.storefrontUserId ?? input.clientId)
    .setIssuedAt(iat)
    .setNotBefore(iat)
    .setExpirationTime(iat + input.lifetime)
    .setJti(jti)
    .sign(key);
  return { token, expiresIn: input.lifetime, jti };
}

/** Left half of SHA-256 of the token, base64url (OIDC Core §3.2.2.9 at_hash). */
export async function tokenHalfHash(token: string): Promise<string> {
  const digest = await sha256(token);
  return base64url(digest.slice(0, digest.length / 2));
}

export interface IdTokenInput {
  clientId: string;
  userId: string;
  authTime: number;
  sid: string | null;
  /** The grant the tokens belong to (identity contract: access and ID tokens carry `gid`). */
  grantId?: string | null;
  nonce?: string | null;
  /** Implicit `id_token token`: binds the ID token to its access token. */
  accessToken?: string;
}

export async function issueIdToken(env: Env, input: IdTokenInput): Promise<string> {
  const { kid, key } = await getSigningKey(env);
  const iat = nowSeconds();
  const claims: Record<string, unknown> = { auth_time: input.authTime, amr: ['pwd'] };
  if (input.sid) claims.sid = input.sid;
  if (input.grantId) claims.gid = input.grantId;
  if (input.nonce) claims.nonce = input.nonce;
  if (input.accessToken) claims.at_hash = await tokenHalfHash(input.accessToken);
  return new SignJWT(claims)
    .setProtectedHeader({ alg: SIGNING_ALG, typ: 'JWT', kid })
    .setIssuer(issuerOf(env))
    .setAudience(input.clientId)
    .setSubject(input.userId)
    .setIssuedAt(iat)
    .setExpirationTime(iat + ID_TOKEN_LIFETIME_SECONDS)
    .sign(key);
}
