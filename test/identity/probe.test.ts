// Every identity route probed with bad input (issue 8, item 2.8): malformed bodies, wrong types,
// missing fields, huge strings, bad path values, wrong methods and content types. Each answer must
// be a 4xx in the route's documented error format (OAuth JSON, API JSON, or the HTML error page
// for browser routes; a browser-flow error after the client is known goes back to its
// redirect_uri), never a 500 and never a stack trace.
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEMO, seedIdentity } from '../helpers/identity-seed';
import { makeTenant, signIn, type Browser as AdminBrowser } from './admin/helpers';
import { basic, call } from './flow';

type Format = 'oauth' | 'api' | 'html' | 'redirect-error';

interface Probe {
  name: string;
  path: string;
  method?: string;
  headers?: Record<string, string>;
  body?: BodyInit;
  /** The documented error format of this route. */
  format: Format;
  /** Only for the few inputs a standard answers with something else (e.g. RFC 7009: 200 for an unknown token). */
  status?: number;
  /** Needs a signed-in tenant admin (admin forms). */
  admin?: boolean;
}

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const HUGE = 'x'.repeat(60_000);
const backend = basic(DEMO.backend.clientId, DEMO.backend.secret);
const authorizeQuery = (extra: Record<string, string>) =>
  `/connect/authorize?${new URLSearchParams({ client_id: DEMO.server.clientId, redirect_uri: DEMO.server.redirectUri, response_type: 'code', scope: 'openid', ...extra })}`;

const PROBES: Probe[] = [
  // Discovery and JWKS: wrong method, extra path.
  { name: 'discovery POST', path: '/.well-known/openid-configuration', method: 'POST', format: 'api' },
  { name: 'jwks with a path below it', path: '/.well-known/openid-configuration/jwks/../../x%00', format: 'api' },
  { name: 'jwks DELETE', path: '/.well-known/openid-configuration/jwks', method: 'DELETE', format: 'api' },
  { name: 'unknown /connect path', path: '/connect/' + 'z'.repeat(5000), format: 'api' },

  // Token endpoint (RFC 6749 §5.2 errors).
  { name: 'token GET', path: '/connect/token', format: 'oauth' },
  { name: 'token PUT', path: '/connect/token', method: 'PUT', headers: FORM, body: form({ grant_type: 'client_credentials' }), format: 'oauth' },
  { name: 'token JSON body', path: '/connect/token', method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"grant_type":"client_credentials"}', format: 'oauth' },
  { name: 'token JSON array body', path: '/connect/token', method: 'POST', headers: { 'content-type': 'application/json' }, body: '[1,2,3]', format: 'oauth' },
  { name: 'token multipart body', path: '/connect/token', method: 'POST', headers: { 'content-type': 'multipart/form-data; boundary=x' }, body: '--x\r\nContent-Disposition: form-data; name="grant_type"\r\n\r\nclient_credentials\r\n--x--', format: 'oauth' },
  { name: 'token no content type', path: '/connect/token', method: 'POST', body: new Uint8Array([0, 255, 1, 254]), format: 'oauth' },
  { name: 'token empty body', path: '/connect/token', method: 'POST', headers: FORM, body: '', format: 'oauth' },
  { name: 'token missing grant_type', path: '/connect/token', method: 'POST', headers: { ...FORM, authorization: backend }, body: form({ scope: 'Assets_read' }), format: 'oauth' },
  { name: 'token unknown grant_type', path: '/connect/token', method: 'POST', headers: { ...FORM, authorization: backend }, body: form({ grant_type: 'password', username: 'a', password: 'b' }), format: 'oauth' },
  { name: 'token repeated parameter', path: '/connect/token', method: 'POST', headers: FORM, body: 'grant_type=client_credentials&grant_type=client_credentials', format: 'oauth' },
  { name: 'token bad percent-encoding', path: '/connect/token', method: 'POST', headers: FORM, body: 'grant_type=%E0%A4%A&client_id=%ZZ', format: 'oauth' },
  { name: 'token huge client_id', path: '/connect/token', method: 'POST', headers: FORM, body: form({ grant_type: 'client_credentials', client_id: HUGE }), format: 'oauth' },
  { name: 'token huge scope', path: '/connect/token', method: 'POST', headers: { ...FORM, authorization: backend }, body: form({ grant_type: 'client_credentials', scope: 'Assets_read '.repeat(5000) + 'nope' }), format: 'oauth' },
  { name: 'token body over 64 KB', path: '/connect/token', method: 'POST', headers: FORM, body: form({ grant_type: 'client_credentials', pad: 'p'.repeat(70_000) }), format: 'oauth' },
  { name: 'token garbage Basic', path: '/connect/token', method: 'POST', headers: { ...FORM, authorization: 'Basic !!!not-base64' }, body: form({ grant_type: 'client_credentials' }), format: 'oauth' },
  { name: 'token non-ASCII Basic', path: '/connect/token', method: 'POST', headers: { ...FORM, authorization: 'Basic ÿÿÿ' }, body: form({ grant_type: 'client_credentials' }), format: 'oauth' },
  { name: 'token Basic with bad escapes', path: '/connect/token', method: 'POST', headers: { ...FORM, authorization: `Basic ${btoa('%ZZ:%')}` }, body: form({ grant_type: 'client_credentials' }), format: 'oauth' },
  { name: 'token code grant, huge code', path: '/connect/token', method: 'POST', headers: { ...FORM, authorization: basic(DEMO.server.clientId, DEMO.server.secret) }, body: form({ grant_type: 'authorization_code', code: HUGE, redirect_uri: DEMO.server.redirectUri }), format: 'oauth' },
  { name: 'token code grant, missing code', path: '/connect/token', method: 'POST', headers: { ...FORM, authorization: basic(DEMO.server.clientId, DEMO.server.secret) }, body: form({ grant_type: 'authorization_code', redirect_uri: DEMO.server.redirectUri }), format: 'oauth' },
  { name: 'token code grant, bad verifier', path: '/connect/token', method: 'POST', headers: { ...FORM, authorization: basic(DEMO.server.clientId, DEMO.server.secret) }, body: form({ grant_type: 'authorization_code', code: 'c', redirect_uri: DEMO.server.redirectUri, code_verifier: 'short\u0000' }), format: 'oauth' },
  { name: 'token refresh grant, huge token', path: '/connect/token', method: 'POST', headers: { ...FORM, authorization: basic(DEMO.server.clientId, DEMO.server.secret) }, body: form({ grant_type: 'refresh_token', refresh_token: HUGE }), format: 'oauth' },

  // Revocation and introspection (RFC 7009, RFC 7662).
  { name: 'revocation GET', path: '/connect/revocation?token=x', format: 'oauth' },
  { name: 'revocation JSON', path: '/connect/revocation', method: 'POST', headers: { 'content-type': 'application/json', authorization: backend }, body: '{"token":"x"}', format: 'oauth' },
  { name: 'revocation missing token', path: '/connect/revocation', method: 'POST', headers: { ...FORM, authorization: backend }, body: form({ token_type_hint: 'access_token' }), format: 'oauth' },
  { name: 'revocation no client', path: '/connect/revocation', method: 'POST', headers: FORM, body: form({ token: 'x' }), format: 'oauth' },
  { name: 'revocation huge JWT-shaped token (unknown: 200)', path: '/connect/revocation', method: 'POST', headers: { ...FORM, authorization: backend }, body: form({ token: `${HUGE.slice(0, 20_000)}.a.b` }), format: 'oauth', status: 200 },
  { name: 'revocation garbage JWT (unknown: 200)', path: '/connect/revocation', method: 'POST', headers: { ...FORM, authorization: backend }, body: form({ token: 'e30.%%%.!!!' }), format: 'oauth', status: 200 },
  { name: 'introspection GET', path: '/connect/introspect', format: 'oauth' },
  { name: 'introspection no client', path: '/connect/introspect', method: 'POST', headers: FORM, body: form({ token: 'x' }), format: 'oauth' },
  { name: 'introspection public client', path: '/connect/introspect', method: 'POST', headers: FORM, body: form({ token: 'x', client_id: DEMO.spa.clientId }), format: 'oauth' },
  { name: 'introspection missing token', path: '/connect/introspect', method: 'POST', headers: { ...FORM, authorization: backend }, body: '', format: 'oauth' },
  { name: 'introspection multipart', path: '/connect/introspect', method: 'POST', headers: { 'content-type': 'multipart/form-data; boundary=x', authorization: backend }, body: '--x--', format: 'oauth' },

  // UserInfo (RFC 6750 errors).
  { name: 'userinfo no token', path: '/connect/userinfo', format: 'api' },
  { name: 'userinfo garbage token', path: '/connect/userinfo', headers: { authorization: 'Bearer garbage' }, format: 'api' },
  { name: 'userinfo huge token', path: '/connect/userinfo', headers: { authorization: `Bearer ${HUGE.slice(0, 9000)}` }, format: 'api' },
  { name: 'userinfo JWT-shaped junk', path: '/connect/userinfo', headers: { authorization: 'Bearer e30.e30.e30' }, format: 'api' },
  { name: 'userinfo Basic credentials', path: '/connect/userinfo', headers: { authorization: backend }, format: 'api' },
  { name: 'userinfo POST JSON', path: '/connect/userinfo', method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"access_token":1}', format: 'api' },
  { name: 'userinfo DELETE', path: '/connect/userinfo', method: 'DELETE', format: 'api' },

  // Authorize (error page for unsafe errors, redirect with error= once client and redirect_uri are known).
  { name: 'authorize no parameters', path: '/connect/authorize', format: 'html' },
  { name: 'authorize huge client_id', path: `/connect/authorize?client_id=${'c'.repeat(6000)}`, format: 'html' },
  { name: 'authorize bad escapes', path: '/connect/authorize?client_id=%ZZ&redirect_uri=%', format: 'html' },
  { name: 'authorize repeated client_id', path: `/connect/authorize?client_id=a&client_id=b`, format: 'html' },
  { name: 'authorize javascript: redirect', path: `/connect/authorize?client_id=${DEMO.server.clientId}&redirect_uri=javascript:alert(1)`, format: 'html' },
  { name: 'authorize POST JSON', path: '/connect/authorize', method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"client_id":"demo-server"}', format: 'html' },
  { name: 'authorize POST huge form', path: '/connect/authorize', method: 'POST', headers: FORM, body: form({ client_id: 'x', pad: 'p'.repeat(70_000) }), format: 'html' },
  { name: 'authorize PUT', path: '/connect/authorize', method: 'PUT', format: 'api' },
  { name: 'authorize bad max_age', path: authorizeQuery({ max_age: '-1' }), format: 'redirect-error' },
  { name: 'authorize huge state', path: authorizeQuery({ state: 's'.repeat(3000) }), format: 'redirect-error' },
  { name: 'authorize huge scope', path: authorizeQuery({ scope: 'Assets_read '.repeat(800) + '<script>' }), format: 'redirect-error' },
  { name: 'authorize bad code_challenge', path: authorizeQuery({ code_challenge: 'é'.repeat(43), code_challenge_method: 'S256' }), format: 'redirect-error' },
  { name: 'authorize bad response_mode', path: authorizeQuery({ response_mode: 'web_message' }), format: 'redirect-error' },

  // Sign-in page and end session.
  { name: 'login GET no pending', path: '/account/login', format: 'html' },
  { name: 'login GET huge pending', path: `/account/login?pending=${'p'.repeat(5000)}`, format: 'html' },
  { name: 'login POST JSON', path: '/account/login', method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"email":"a"}', format: 'html' },
  { name: 'login POST unknown pending', path: '/account/login', method: 'POST', headers: FORM, body: form({ pending: 'nope', csrf: 'x', email: 'a@b.c', password: 'p' }), format: 'html' },
  { name: 'login POST too large', path: '/account/login', method: 'POST', headers: FORM, body: form({ pending: 'nope', email: HUGE }), format: 'html' },
  { name: 'login DELETE', path: '/account/login', method: 'DELETE', format: 'api' },
  { name: 'end session POST JSON', path: '/connect/endsession', method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}', format: 'html' },
  { name: 'end session repeated parameter', path: '/connect/endsession?state=a&state=b', format: 'html' },
  { name: 'end session huge form', path: '/connect/endsession', method: 'POST', headers: FORM, body: form({ id_token_hint: 'x'.repeat(70_000) }), format: 'html' },
  { name: 'logout confirmation without session or CSRF', path: '/account/logout', method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'csrf', format: 'html', status: 200 },

  // Admin forms (signed-in tenant admin; HTML error pages).
  { name: 'admin form without CSRF, JSON', path: '/admin/apps/new', method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"x"}', format: 'html', admin: true },
  { name: 'admin form multipart without CSRF', path: '/admin/users/new', method: 'POST', headers: { 'content-type': 'multipart/form-data; boundary=x' }, body: '--x--', format: 'html', admin: true },
  { name: 'admin unknown app id', path: `/admin/apps/${'%ZZ'.repeat(10)}`, format: 'html', admin: true },
  { name: 'admin huge app id', path: `/admin/apps/${'a'.repeat(5000)}`, format: 'html', admin: true },
  { name: 'admin unknown user id', path: '/admin/users/..%2F..%2Fetc', format: 'html', admin: true },
  { name: 'admin app form, wrong types', path: '/admin/apps/new', method: 'POST', headers: FORM, body: 'CSRF&name=&authType=root&tokenLifetime=NaN&perm.Projects=everything&redirectUris=javascript:x', format: 'html', admin: true },
  { name: 'admin app form, huge strings', path: '/admin/apps/new', method: 'POST', headers: FORM, body: `CSRF&name=${'n'.repeat(50_000)}&authType=client_credentials&tokenLifetime=${'9'.repeat(400)}`, format: 'html', admin: true },
  { name: 'admin user form, wrong types', path: '/admin/users/new', method: 'POST', headers: FORM, body: 'CSRF&email=not-an-email&role=root&password=', format: 'html', admin: true },
  { name: 'admin password reset, unknown user', path: `/admin/users/${crypto.randomUUID()}/password`, method: 'POST', headers: FORM, body: 'CSRF&password=long-enough-password', format: 'html', admin: true },
  { name: 'admin form, 2 MB body', path: '/admin/apps/new', method: 'POST', headers: FORM, body: `CSRF&name=${'n'.repeat(2_000_000)}`, format: 'html', admin: true, status: 413 },
  { name: 'admin form, 2 MB multipart file', path: '/admin/users/new', method: 'POST', headers: { 'content-type': 'multipart/form-data; boundary=x' }, body: `--x\r\nContent-Disposition: form-data; name="email"; filename="a.bin"\r\n\r\n${'f'.repeat(2_000_000)}\r\n--x--`, format: 'html', admin: true, status: 413 },
  { name: 'admin form, 2 MB chunked body', path: '/admin/apps/new', method: 'POST', headers: FORM, body: 'STREAM', format: 'html', admin: true, status: 413 },
  { name: 'userinfo POST 2 MB form', path: '/connect/userinfo', method: 'POST', headers: FORM, body: form({ access_token: 'a'.repeat(2_000_000) }), format: 'api' },
  { name: 'admin page that does not exist', path: '/admin/tenant/rotate-key', method: 'POST', headers: FORM, body: 'CSRF', format: 'html', admin: true },
];

const STACK = /\n\s+at\s|\.(ts|js|mjs|tsx):\d+|node_modules|TypeError|ReferenceError/;

let admin: AdminBrowser;
beforeAll(async () => {
  await seedIdentity();
  admin = await signIn((await makeTenant()).admin);
});

async function send(p: Probe): Promise<Response> {
  const headers = new Headers(p.headers);
  let body = p.body;
  if (p.admin) {
    headers.set('cookie', admin.cookie);
    if (typeof body === 'string') body = body.replace(/^CSRF/, `_csrf=${encodeURIComponent(admin.csrf)}`);
  }
  if (body === 'STREAM') {
    // No Content-Length: the body arrives in chunks and must be cut off as it grows.
    const chunk = new TextEncoder().encode('n'.repeat(64 * 1024));
    let sent = 0;
    body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ >= 32) controller.close();
        else controller.enqueue(sent === 1 ? new TextEncoder().encode(`_csrf=${encodeURIComponent(admin.csrf)}&name=`) : chunk);
      },
    });
    return call(p.path, { method: p.method, headers, body, duplex: 'half' } as RequestInit);
  }
  return call(p.path, { method: p.method ?? 'GET', headers, body });
}

describe('identity routes answer bad input with a documented 4xx', () => {
  it.each(PROBES.map((p) => [p.name, p] as const))('%s', async (_name, p) => {
    const res = await send(p);
    const text = await res.text();
    const type = res.headers.get('content-type') ?? '';
    expect(res.status, text.slice(0, 300)).not.toBe(500);
    expect(text).not.toMatch(STACK);
    if (p.format === 'redirect-error') {
      expect(res.status).toBe(302);
      const location = new URL(res.headers.get('location')!);
      expect(location.origin + location.pathname).toBe(DEMO.server.redirectUri);
      expect(location.searchParams.get('error')).toMatch(/^[a-z_]+$/);
      expect(location.searchParams.get('iss')).toBe(env.ISSUER);
      return;
    }
    if (p.status) expect(res.status).toBe(p.status);
    else expect(res.status).toBeGreaterThanOrEqual(400), expect(res.status).toBeLessThan(500);
    if (res.status === 200 && !text) return;
    if (p.format === 'html') {
      expect(type).toContain('text/html');
      if (res.status >= 400) expect(text).toMatch(/class="error"|<h1>(Sorry|Access denied|Not found|Something is wrong|New)/);
      return;
    }
    expect(type).toContain('application/json');
    const json = JSON.parse(text) as Record<string, unknown>;
    expect(json.error).toMatch(/^[a-z_]+$/);
    if (p.format === 'oauth') {
      expect(typeof json.error_description).toBe('string');
      expect(res.headers.get('cache-control')).toBe('no-store');
    } else {
      expect(typeof json.message).toBe('string');
    }
  });
});
