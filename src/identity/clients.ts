// Clients (the admin panel's "External apps"): finding them and authenticating them at the token,
// revocation and introspection endpoints (RFC 6749 §2.3.1: HTTP Basic or the request body, never
// both).
import type { Env } from '../env';
import { OAuthError } from '../errors';
import { APP_TYPES, effectiveSwitches } from './app-types';
import { hashClientSecret, verifyClientSecret } from './client-secrets';
import { clients } from './store';
import { issuerOf } from './tokens';

export type ClientRow = clients.ClientRow;

/** Any tenant's client with this id, or undefined (also for ids no client could have). */
export async function findClient(env: Env, clientId: string): Promise<ClientRow | undefined> {
  if (!clientId || clientId.length > 200) return undefined;
  return clients.find(env.DB, clientId);
}

/** Is this Origin one of the allowed CORS origins of any client on this instance? */
export async function isAllowedCorsOrigin(env: Env, origin: string): Promise<boolean> {
  if (origin.length > 300) return false;
  return clients.anyAllowsCorsOrigin(env.DB, origin);
}

export interface ClientCredentials {
  clientId: string;
  clientSecret?: string;
  /** Which method the client tried; Basic failures answer with WWW-Authenticate. */
  method: 'basic' | 'post' | 'none';
}

function decodeFormComponent(value: string): string {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    throw new OAuthError(400, 'invalid_request', 'The Basic credentials are not valid URL-encoded text.');
  }
}

/**
 * The client's credentials from HTTP Basic (base64, then URL-decoded: RFC 6749 §2.3.1) or the
 * form body. Both at once is invalid_request.
 */
export function readClientCredentials(authorization: string | undefined, form: Map<string, string>): ClientCredentials | undefined {
  const bodyId = form.get('client_id');
  const bodySecret = form.get('client_secret');
  if (authorization && /^basic /i.test(authorization)) {
    if (bodySecret !== undefined) {
      throw new OAuthError(400, 'invalid_request', 'The client used both HTTP Basic and client_secret in the body; use one method.');
    }
    let decoded: string;
    try {
      decoded = atob(authorization.slice(6).trim());
    } catch {
      throw new OAuthError(400, 'invalid_request', 'The Basic credentials are not valid base64.');
    }
    const colon = decoded.indexOf(':');
    if (colon < 0) throw new OAuthError(400, 'invalid_request', 'The Basic credentials must be client_id:client_secret.');
    const clientId = decodeFormComponent(decoded.slice(0, colon));
    if (bodyId !== undefined && bodyId !== clientId) {
      throw new OAuthError(400, 'invalid_request', 'client_id in the body differs from the HTTP Basic client.');
    }
    return { clientId, clientSecret: decodeFormComponent(decoded.slice(colon + 1)), method: 'basic' };
  }
  if (bodyId === undefined) return undefined;
  return { clientId: bodyId, clientSecret: bodySecret, method: bodySecret === undefined ? 'none' : 'post' };
}

/**
 * Authenticates the client of a token-endpoint-style request and returns its app. A secret is
 * required when the app requires one; a public app (no secret) identifies itself by client_id.
 */
export async function authenticateClient(
  env: Env,
  credentials: ClientCredentials | undefined,
  options: { requireSecret?: boolean } = {},
): Promise<ClientRow> {
  const fail = (description: string): never => {
    const headers: Record<string, string> = credentials?.method === 'basic' ? { 'WWW-Authenticate': `Basic realm="${issuerOf(env)}"` } : {};
    throw new OAuthError(401, 'invalid_client', description, headers);
  };
  if (!credentials) return fail('Client authentication is required (client_id, and client_secret when the app has one).');
  const app = await findClient(env, credentials.clientId);
  if (!app) return fail('Unknown client or wrong client secret.');
  const secretRequired = options.requireSecret || APP_TYPES[app.authType].secret === 'always' || app.requireClientSecret;
  if (credentials.clientSecret !== undefined) {
    if (!app.secretHash || !(await verifyClientSecret(credentials.clientSecret, app.secretHash))) {
      return fail('Unknown client or wrong client secret.');
    }
  } else if (secretRequired) {
    return fail('This client must authenticate with its client secret.');
  }
  return app;
}

export interface NewClient {
  clientId: string;
  tenantId: number;
  name: string;
  authType: ClientRow['authType'];
  /** Plain secret to hash and store (shown once by the caller). */
  secret?: string;
  tokenLifetime?: number;
  permissions?: Record<string, string>;
  redirectUris?: string[];
  postLogoutRedirectUris?: string[];
  corsOrigins?: string[];
  requireClientSecret?: boolean;
  requirePkce?: boolean;
}

/** Inserts a client with its type's effective switches; no-op when the client id exists (seeds). */
export async function insertClient(env: Env, input: NewClient): Promise<void> {
  const { secret, requireClientSecret, requirePkce, ...rest } = input;
  await clients.insert(
    env.DB,
    { ...rest, secretHash: secret ? await hashClientSecret(secret) : null, ...effectiveSwitches(input.authType, { requireClientSecret, requirePkce }) },
    { ifAbsent: true },
  );
}
