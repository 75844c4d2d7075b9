import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { insertClient } from '../../src/identity/clients';
import { createTenant, createUser } from '../../src/identity/users';
import { DEMO, seedIdentity } from '../helpers/identity-seed';
import { authorizeWithLogin, Browser, call, decodeJwt, formField, pkcePair, redirectParams } from './flow';

beforeAll(async () => {
  await seedIdentity();
  await createTenant(env.DB, { id: 2, name: 'Other' });
  await createUser(env.DB, { tenantId: 2, email: 'other@other.test', password: 'other-password', role: 'admin' });
  // Same e-mail as the demo admin, in another tenant (e-mail is unique per tenant only).
  await createUser(env.DB, { tenantId: 2, email: 'user@demo.test', password: 'tenant-two-password', role: 'user' });
  await insertClient(env, {
    clientId: 'loopback-app',
    tenantId: 1,
    name: 'Loopback',
    authType: 'authorization_code',
    secret: 'loopback-secret',
    requirePkce: false,
    redirectUris: ['http://127.0.0.1/cb'],
  });
  // A native app: public (no secret, PKCE forced), the kind RFC 8252 §7.3 is for.
  await insertClient(env, {
    clientId: 'native-loopback-app',
    tenantId: 1,
    name: 'Native loopback',
    authType: 'authorization_code',
    requireClientSecret: false,
    redirectUris: ['http://127.0.0.1/cb'],
  });
  await insertClient(env, {
    clientId: 'tenant2-spa',
    tenantId: 2,
    name: 'Tenant 2 SPA',
    authType: 'implicit',
    redirectUris: ['https://two.example/cb'],
  });
});

const codeParams = async (extra: Record<string, string> = {}) => ({
  client_id: DEMO.server.clientId,
  response_type: 'code',
  redirect_uri: DEMO.server.redirectUri,
  scope: 'openid profile Projects_read',
  state: 'xyz',
  code_challenge: (await pkcePair()).challenge,
  code_challenge_method: 'S256',
  ...extra,
});

const implicitParams = (extra: Record<string, string> = {}) => ({
  client_id: DEMO.spa.clientId,
  response_type: 'id_token token',
  redirect_uri: DEMO.spa.redirectUri,
  scope: 'openid Assets_read',
  state: 'st',
  nonce: 'nonce-1',
  ...extra,
});

const authorize = (params: Record<string, string>, browser = new Browser()) => browser.fetch(`/connect/authorize?${new URLSearchParams(params)}`);

async function signedInBrowser(): Promise<Browser> {
  const browser = new Browser();
  const res = await authorizeWithLogin(browser, await codeParams());
  expect(res.status).toBe(302);
  return browser;
}

describe('unsafe errors show a page and never redirect (RFC 6749 §4.1.2.1)', () => {
  it('unknown client_id', async () => {
    const res = await authorize(await codeParams({ client_id: 'nobody' }));
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(await res.text()).toContain('invalid_client');
  });

  it('missing client_id', async () => {
    const params = await codeParams();
    delete (params as Record<string, string>).client_id;
    const res = await authorize(params);
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
  });

  it('redirect_uri not registered (exact match)', async () => {
    for (const redirect_uri of ['http://localhost:8788/callback/', 'http://localhost:8788/callback?x=1', 'https://evil.example/callback', '']) {
      const res = await authorize(await codeParams({ redirect_uri }));
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
    }
  });

  it('a Client Credentials app at the authorization endpoint', async () => {
    const res = await authorize(await codeParams({ client_id: DEMO.backend.clientId }));
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
  });

  it('a repeated parameter', async () => {
    const res = await call(`/connect/authorize?client_id=demo-server&client_id=demo-spa&response_type=code`);
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
  });

  it('a POST that is not a form', async () => {
    const res = await call('/connect/authorize', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(400);
  });
});

describe('safe errors go back to the redirect_uri with state and iss (RFC 6749 §4.1.2.1, RFC 9207)', () => {
  it('unsupported response_type', async () => {
    const res = await authorize(await codeParams({ response_type: 'foo' }));
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toMatch(/^http:\/\/localhost:8788\/callback\?/);
    expect(Object.fromEntries(redirectParams(res))).toMatchObject({ error: 'unsupported_response_type', state: 'xyz', iss: DEMO.issuer });
  });

  it('an unsupported response type that would carry tokens answers in the fragment', async () => {
    const res = await authorize(await codeParams({ response_type: 'code id_token' }));
    expect(res.headers.get('location')).toMatch(/^http:\/\/localhost:8788\/callback#/);
    expect(redirectParams(res).get('error')).toBe('unsupported_response_type');
  });

  it('a response type the app type may not use is unauthorized_client', async () => {
    const res = await authorize(await codeParams({ response_type: 'token' }));
    expect(redirectParams(res).get('error')).toBe('unauthorized_client');
  });

  it('missing response_type is invalid_request', async () => {
    const params: Record<string, string> = await codeParams();
    delete params.response_type;
    expect(redirectParams(await authorize(params)).get('error')).toBe('invalid_request');
  });

  it('response_mode=query with a token response is refused, in the fragment', async () => {
    const res = await authorize(implicitParams({ response_mode: 'query' }));
    expect(res.headers.get('location')).toContain('#');
    expect(redirectParams(res).get('error')).toBe('invalid_request');
  });

  it('nonce is mandatory for id_token token', async () => {
    const params: Record<string, string> = implicitParams();
    delete params.nonce;
    const res = await authorize(params);
    expect(Object.fromEntries(redirectParams(res))).toMatchObject({ error: 'invalid_request', state: 'st', iss: DEMO.issuer });
  });

  it('a scope outside scopes_supported is invalid_scope', async () => {
    expect(redirectParams(await authorize(await codeParams({ scope: 'openid Nope_read' }))).get('error')).toBe('invalid_scope');
  });

  it('a missing scope is invalid_scope', async () => {
    const params: Record<string, string> = await codeParams();
    delete params.scope;
    expect(redirectParams(await authorize(params)).get('error')).toBe('invalid_scope');
  });

  it('prompt=none without a session is login_required', async () => {
    const res = await authorize(await codeParams({ prompt: 'none' }));
    expect(Object.fromEntries(redirectParams(res))).toMatchObject({ error: 'login_required', state: 'xyz', iss: DEMO.issuer });
  });
});

describe('login page (identity contract)', () => {
  it('keeps the request server-side under an opaque id, uncacheable and unframeable', async () => {
    const browser = new Browser();
    const res = await authorize(await codeParams(), browser);
    expect(res.status).toBe(302);
    const location = res.headers.get('location')!;
    expect(location).toMatch(/^\/account\/login\?pending=[A-Za-z0-9_-]+$/);
    const page = await browser.fetch(location);
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const html = await page.text();
    expect(html).not.toContain('localhost:8788');
    expect(html).not.toContain('redirect_uri');
    expect(formField(html, 'csrf')).toBeTruthy();
    expect(html).toContain('demo-server');
  });

  it('signs in and redirects with code, state, scope, session_state and iss', async () => {
    const browser = new Browser();
    const res = await authorizeWithLogin(browser, await codeParams());
    expect(res.status).toBe(302);
    const params = Object.fromEntries(redirectParams(res));
    expect(params).toMatchObject({ state: 'xyz', scope: 'openid profile Projects_read', iss: DEMO.issuer });
    expect(params.code).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    expect(params.session_state).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('idsrv='))!;
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(cookie).not.toMatch(/Secure/i);
  });

  it('marks the session cookie Secure outside localhost', async () => {
    const browser = new Browser();
    const first = await browser.fetch(`https://id.example.com/connect/authorize?${new URLSearchParams(await codeParams())}`);
    const page = await browser.fetch(`https://id.example.com${first.headers.get('location')}`);
    const html = await page.text();
    const res = await browser.postForm('https://id.example.com/account/login', {
      pending: formField(html, 'pending')!,
      csrf: formField(html, 'csrf')!,
      email: DEMO.admin.email,
      password: DEMO.admin.password,
    });
    expect(res.headers.getSetCookie().find((c) => c.startsWith('idsrv='))).toMatch(/Secure/);
  });

  it('shows the same message for an unknown e-mail and a wrong password', async () => {
    const texts: string[] = [];
    for (const creds of [
      { email: 'nobody@demo.test', password: 'whatever-password' },
      { email: DEMO.user.email, password: 'wrong-password' },
    ]) {
      const res = await authorizeWithLogin(new Browser(), await codeParams(), creds);
      expect(res.status).toBe(200);
      const html = await res.text();
      texts.push(/class="error"[^>]*>([^<]*)</.exec(html)![1]!);
    }
    expect(texts[0]).toBe(texts[1]);
    expect(texts[0]).toBe('Invalid e-mail or password.');
  });

  it('slows repeated failures for an account', async () => {
    const creds = { email: 'slow@demo.test', password: 'bad-password' };
    let last = '';
    for (let i = 0; i < 6; i++) last = await (await authorizeWithLogin(new Browser(), await codeParams(), creds)).text();
    expect(last).toMatch(/Too many failed sign-in attempts/);
    // Even the right password waits while this client is locked out of the account (the lockout
    // is per account and client: login-throttle.test.ts shows a clean client getting in).
    await env.DB.prepare("DELETE FROM login_throttle WHERE email = 'admin@demo.test'").run();
    await env.DB.prepare("UPDATE login_throttle SET email = 'admin@demo.test' WHERE email = 'slow@demo.test'").run();
    const res = await authorizeWithLogin(new Browser(), await codeParams(), DEMO.admin);
    expect(res.status).toBe(200);
    expect(await res.text()).toMatch(/Too many failed sign-in attempts/);
    await env.DB.prepare('DELETE FROM login_throttle').run();
  });

  it('rejects a login post without the CSRF token and starts no session', async () => {
    const browser = new Browser();
    const first = await authorize(await codeParams(), browser);
    const html = await (await browser.fetch(first.headers.get('location')!)).text();
    const res = await browser.postForm('/account/login', { pending: formField(html, 'pending')!, email: DEMO.admin.email, password: DEMO.admin.password });
    expect(res.status).toBe(403);
    expect(browser.cookies.has('idsrv')).toBe(false);
  });

  it('binds the pending request to the browser that started it', async () => {
    const alice = new Browser();
    const first = await authorize(await codeParams(), alice);
    const html = await (await alice.fetch(first.headers.get('location')!)).text();
    const mallory = new Browser();
    const res = await mallory.postForm('/account/login', { pending: formField(html, 'pending')!, csrf: formField(html, 'csrf')!, email: DEMO.admin.email, password: DEMO.admin.password });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
  });

  it('only lets users of the app’s tenant sign in', async () => {
    const res = await authorizeWithLogin(new Browser(), await codeParams(), { email: 'other@other.test', password: 'other-password' });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('Invalid e-mail or password.');
  });

  it('uses the user of the app’s tenant when the e-mail exists in several tenants', async () => {
    const res = await authorizeWithLogin(new Browser(), implicitParams({ client_id: 'tenant2-spa', redirect_uri: 'https://two.example/cb' }), {
      email: 'user@demo.test',
      password: 'tenant-two-password',
    });
    expect(res.status).toBe(302);
    expect(decodeJwt(redirectParams(res).get('access_token')!).payload.tenantId).toBe(2);
  });
});

describe('sessions and prompt (OIDC Core §3.1.2.1)', () => {
  it('a live session skips the login page', async () => {
    const browser = await signedInBrowser();
    const res = await authorize(await codeParams(), browser);
    expect(res.status).toBe(302);
    expect(redirectParams(res).get('code')).toBeTruthy();
  });

  it('prompt=login shows the login page despite a session', async () => {
    const browser = await signedInBrowser();
    const res = await authorize(await codeParams({ prompt: 'login' }), browser);
    expect(res.headers.get('location')).toMatch(/^\/account\/login/);
    const done = await authorizeWithLogin(browser, await codeParams({ prompt: 'login' }));
    expect(redirectParams(done).get('code')).toBeTruthy();
  });

  it('prompt=none with a session answers without UI', async () => {
    const browser = await signedInBrowser();
    expect(redirectParams(await authorize(await codeParams({ prompt: 'none' }), browser)).get('code')).toBeTruthy();
  });

  it('a session of another tenant does not sign in to this app', async () => {
    const browser = await signedInBrowser();
    const res = await authorize(implicitParams({ client_id: 'tenant2-spa', redirect_uri: 'https://two.example/cb', prompt: 'none' }), browser);
    expect(redirectParams(res).get('error')).toBe('login_required');
  });
});

describe('implicit responses (RFC 6749 §4.2.2, OIDC Core §3.2.2.5)', () => {
  it('id_token token returns the tokens in the fragment with nonce and at_hash', async () => {
    const browser = await signedInBrowser();
    const res = await authorize(implicitParams(), browser);
    expect(res.headers.get('location')).toMatch(/^http:\/\/localhost:8788\/implicit-callback#/);
    const params = Object.fromEntries(redirectParams(res));
    expect(params).toMatchObject({ token_type: 'Bearer', expires_in: '3600', scope: 'openid Assets_read', state: 'st', iss: DEMO.issuer });
    expect(params.session_state).toBeTruthy();
    const id = decodeJwt(params.id_token!).payload;
    expect(id).toMatchObject({ iss: DEMO.issuer, aud: DEMO.spa.clientId, sub: DEMO.admin.id, nonce: 'nonce-1', at_hash: expect.any(String), sid: expect.any(String) });
    expect((id.exp as number) - (id.iat as number)).toBe(300);
    const access = decodeJwt(params.access_token!).payload;
    expect(access).toMatchObject({ sub: DEMO.admin.id, client_id: DEMO.spa.clientId, tenantId: 1, sid: id.sid, gid: expect.any(String) });
    expect(access.auth_time).toBe(id.auth_time);
  });

  it('token alone returns no id_token', async () => {
    const browser = await signedInBrowser();
    const params = redirectParams(await authorize(implicitParams({ response_type: 'token', scope: 'Assets_read' }), browser));
    expect(params.get('access_token')).toBeTruthy();
    expect(params.get('id_token')).toBeNull();
  });

  it('grants requested ∩ role and drops the excess silently', async () => {
    const browser = new Browser();
    const res = await authorizeWithLogin(browser, implicitParams({ scope: 'openid email Projects_read Projects_full TenantUsers_read offline_access' }), DEMO.user);
    expect(redirectParams(res).get('scope')).toBe('openid email Projects_read');
  });

  it('form_post delivers the response as an auto-submitted form', async () => {
    const browser = await signedInBrowser();
    const res = await authorize(implicitParams({ response_mode: 'form_post' }), browser);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('action="http://localhost:8788/implicit-callback"');
    expect(html).toContain('name="access_token"');
    expect(html).toContain('name="iss"');
  });
});

describe('authorize details', () => {
  it('accepts POST with a form body', async () => {
    const browser = await signedInBrowser();
    const res = await browser.postForm('/connect/authorize', await codeParams());
    expect(redirectParams(res).get('code')).toBeTruthy();
  });

  it('lets the port of a loopback redirect URI of a public (native) client differ (RFC 8252 §7.3)', async () => {
    const browser = await signedInBrowser();
    const pkce = await pkcePair();
    const res = await authorize(
      { client_id: 'native-loopback-app', response_type: 'code', redirect_uri: 'http://127.0.0.1:53123/cb', scope: 'openid', code_challenge: pkce.challenge, code_challenge_method: 'S256' },
      browser,
    );
    expect(res.headers.get('location')).toMatch(/^http:\/\/127\.0\.0\.1:53123\/cb\?code=/);
  });

  it('matches the loopback redirect URI of a confidential client exactly, port included (issue 18 item 11)', async () => {
    const browser = await signedInBrowser();
    const res = await authorize({ client_id: 'loopback-app', response_type: 'code', redirect_uri: 'http://127.0.0.1:53123/cb', scope: 'openid' }, browser);
    expect(res.headers.get('location')).toBeNull();
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('redirect_uri is not registered for this client.');
    const exact = await authorize({ client_id: 'loopback-app', response_type: 'code', redirect_uri: 'http://127.0.0.1/cb', scope: 'openid' }, browser);
    expect(exact.headers.get('location')).toMatch(/^http:\/\/127\.0\.0\.1\/cb\?code=/);
  });
});

describe('admin sign-in', () => {
  it('GET /admin/login leads through the login form to /admin', async () => {
    const browser = new Browser();
    const start = await browser.fetch('/admin/login');
    expect(start.headers.get('location')).toMatch(/^\/account\/login\?pending=/);
    const html = await (await browser.fetch(start.headers.get('location')!)).text();
    expect(html).toContain('admin panel');
    const res = await browser.postForm('/account/login', { pending: formField(html, 'pending')!, csrf: formField(html, 'csrf')!, email: DEMO.admin.email, password: DEMO.admin.password });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/admin');
    expect(browser.cookies.has('idsrv')).toBe(true);
  });

  it('asks for the tenant id when the e-mail exists in several tenants', async () => {
    const browser = new Browser();
    const start = await browser.fetch('/admin/login');
    const html = await (await browser.fetch(start.headers.get('location')!)).text();
    const fields = { pending: formField(html, 'pending')!, csrf: formField(html, 'csrf')!, email: 'user@demo.test', password: 'tenant-two-password' };
    const ask = await browser.postForm('/account/login', fields);
    expect(await ask.text()).toContain('name="tenant"');
    const res = await browser.postForm('/account/login', { ...fields, tenant: '2' });
    expect(res.headers.get('location')).toBe('/admin');
  });
});

describe('bad input on the sign-in pages never yields a 500', () => {
  it('an unknown or missing pending id shows the expired page', async () => {
    for (const path of ['/account/login', '/account/login?pending=nope', `/account/login?pending=${'x'.repeat(500)}`]) {
      const res = await call(path);
      expect(res.status).toBe(400);
      expect(res.headers.get('cache-control')).toBe('no-store');
    }
  });

  it('a login post that is not a form, too large or empty is a 4xx page', async () => {
    const json = await call('/account/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(json.status).toBe(400);
    const big = await call('/account/login', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `pending=${'x'.repeat(100_000)}` });
    expect(big.status).toBe(400);
    const empty = await call('/account/login', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' });
    expect(empty.status).toBe(400);
  });

  it('an oversized authorize POST is an error page', async () => {
    const res = await call('/connect/authorize', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `client_id=demo-spa&pad=${'x'.repeat(100_000)}` });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
  });

  it('a missing e-mail or password re-shows the form', async () => {
    const res = await authorizeWithLogin(new Browser(), await codeParams(), { email: '', password: '' });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('Enter your e-mail and password.');
  });
});
