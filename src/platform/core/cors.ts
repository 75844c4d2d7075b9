/**
 * CORS of platform paths (contract, Conventions): bearer tokens only, no cookies, so any origin
 * may call: `Access-Control-Allow-Origin: *` on every response. `OPTIONS` answers 204 with
 * `Allow`, and as a preflight the allowed methods and headers for an hour.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { platformNotFound } from './problem';
import type { PlatformRouteTable } from './paths';

export const CORS_EXPOSE_HEADERS = 'Content-Disposition, Content-Range, WWW-Authenticate, X-Preflight';
export const CORS_ALLOW_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE';
export const CORS_ALLOW_HEADERS = 'Authorization, Content-Type, Range';

function withCors(res: Response): Response {
  let out = res;
  try {
    out.headers.set('Access-Control-Allow-Origin', '*');
  } catch {
    // Immutable headers (a fetched response): copy once.
    out = new Response(res.body, res);
    out.headers.set('Access-Control-Allow-Origin', '*');
  }
  out.headers.set('Access-Control-Expose-Headers', CORS_EXPOSE_HEADERS);
  return out;
}

/** OPTIONS for the platform, and CORS headers on whatever the routes answer. */
export function platformCors(table: () => PlatformRouteTable): MiddlewareHandler {
  return async (c: Context, next) => {
    if (c.req.method === 'OPTIONS') {
      const allowed = table().allowed(c.req.path);
      if (!allowed) return withCors(platformNotFound(c));
      const headers: Record<string, string> = { Allow: allowed.join(', ') };
      if (c.req.header('origin') && c.req.header('access-control-request-method')) {
        headers['Access-Control-Allow-Methods'] = CORS_ALLOW_METHODS;
        headers['Access-Control-Allow-Headers'] = CORS_ALLOW_HEADERS;
        headers['Access-Control-Max-Age'] = '3600';
      }
      return withCors(new Response(null, { status: 204, headers }));
    }
    await next();
    const res = withCors(c.res);
    if (res !== c.res) c.res = res;
  };
}
