// Resource-server middleware: bearer tokens (RFC 6750) from the Authorization header only, checked
// locally against the identity service's keys and revocation state.
import type { Context, MiddlewareHandler } from 'hono';
import type { Env } from '../env';
import { ApiError } from '../errors';
import { resourceAudience } from './issuer';
import { scopeSatisfies } from './scopes';
import { InvalidTokenError, verifyAccessToken, type AuthContext } from './verify';

export type AuthVariables = { auth: AuthContext };
export type AuthBindings = { Bindings: Env; Variables: AuthVariables };

const realm = (env: Env) => `Bearer realm="${resourceAudience(env)}"`;
const quote = (s: string) => s.replace(/["\\]/g, '');

/** The bearer token of the Authorization header, or undefined when none was sent. */
export function bearerToken(c: Context): string | undefined {
  const header = c.req.header('authorization');
  if (!header) return undefined;
  const match = /^Bearer(?:[ ]+(\S*))?\s*$/i.exec(header);
  if (!match) return undefined;
  return match[1] ?? '';
}

export const missingTokenError = (env: Env) =>
  new ApiError(401, 'unauthorized', 'A bearer access token is required (Authorization: Bearer <token>).', undefined, { 'WWW-Authenticate': realm(env) });

export const invalidTokenError = (env: Env, message: string) =>
  new ApiError(401, 'invalid_token', message, undefined, {
    'WWW-Authenticate': `${realm(env)}, error="invalid_token", error_description="${quote(message)}"`,
  });

export const insufficientScopeError = (env: Env, scope: string) =>
  new ApiError(403, 'insufficient_scope', `This call needs the ${scope} scope (or a higher level of it).`, undefined, {
    'WWW-Authenticate': `${realm(env)}, error="insufficient_scope", scope="${quote(scope)}"`,
  });

/** Verifies the request's bearer token or throws the RFC 6750 error. */
export async function authenticate(c: Context, options: { fresh?: boolean } = {}): Promise<AuthContext> {
  const token = bearerToken(c);
  if (token === undefined) throw missingTokenError(c.env);
  if (!token) throw invalidTokenError(c.env, 'The bearer token is empty.');
  try {
    return await verifyAccessToken(c.env, token, options);
  } catch (err) {
    if (err instanceof InvalidTokenError) throw invalidTokenError(c.env, err.message);
    throw err;
  }
}

/**
 * Requires a valid access token carrying every listed scope (a route needing `X_read` accepts
 * `X_update` and `X_full`) and puts the caller on `c.var.auth`.
 *
 * @example
 * app.get('/api/storefront/v1/projects', requireScope('Projects_read'), (c) =>
 *   c.json(listProjects(c.var.auth.tenantId)));
 */
export function requireScope(...scopes: string[]): MiddlewareHandler<AuthBindings> {
  return async (c, next) => {
    const auth = await authenticate(c);
    const missing = scopes.find((s) => !scopeSatisfies(auth.scopes, s));
    if (missing) throw insufficientScopeError(c.env, missing);
    c.set('auth', auth);
    await next();
  };
}

/** Any valid access token, no particular scope. */
export const requireAuth = (): MiddlewareHandler<AuthBindings> => requireScope();
