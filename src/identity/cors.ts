// CORS (identity contract): discovery and JWKS answer `*`; token, userinfo and revocation echo an
// Origin that is an allowed origin of any app on this instance, with `Vary: Origin`; no CORS
// headers anywhere else.
import type { Context, MiddlewareHandler } from 'hono';
import { isAllowedCorsOrigin } from './clients';

const ALLOWED_METHODS = 'GET, POST, OPTIONS';
const ALLOWED_HEADERS = 'Authorization, Content-Type';

async function allowedOrigin(c: Context): Promise<string | undefined> {
  const origin = c.req.header('origin');
  if (!origin || origin === 'null') return undefined;
  return (await isAllowedCorsOrigin(c.env, origin)) ? origin : undefined;
}

/** Echo-an-allowed-origin CORS for browser-facing endpoints, preflight included. */
export function appOriginCors(): MiddlewareHandler {
  return async (c, next) => {
    const origin = await allowedOrigin(c);
    if (c.req.method === 'OPTIONS') {
      const headers: Record<string, string> = { Vary: 'Origin' };
      if (origin) {
        headers['Access-Control-Allow-Origin'] = origin;
        headers['Access-Control-Allow-Methods'] = ALLOWED_METHODS;
        headers['Access-Control-Allow-Headers'] = ALLOWED_HEADERS;
        headers['Access-Control-Max-Age'] = '3600';
      }
      return c.body(null, 204, headers);
    }
    // Thrown errors are already rendered into c.res by the app's error handler here, so error
    // responses carry the CORS headers too (a browser client can read the OAuth error).
    await next();
    applyCors(c.res.headers, origin);
  };
}

export function applyCors(headers: Headers, origin: string | undefined): void {
  headers.append('Vary', 'Origin');
  if (origin) {
    headers.set('Access-Control-Allow-Origin', origin);
    headers.set('Access-Control-Expose-Headers', 'WWW-Authenticate');
  }
}
