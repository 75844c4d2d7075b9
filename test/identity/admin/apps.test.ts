import { env, exports } from 'cloudflare:workers';
import { Hono } from 'hono';
import { requireScope, type AuthBindings } from '../../../src/auth';
import { handleError } from '../../../src/errors';
import { describe, expect, it } from 'vitest';
import { sha256Base64url } from '../../../src/identity/crypto';
import { appsOf, ccForm, codeForm, cookiesFrom, get, makeTenant, post, signIn, type Browser } from './helpers';

/** Creates an app through the form and follows the redirect like a browser: the app's page once. */
async function createThroughForm(b: Browser, form: Record<string, string>) {
  const res = await post('/admin/apps/new', b, form);
  expect(res.status).toBe(303);
  // The secret rides to the next page in a short-lived cookie only the admin pages receive.
  expect(res.headers.getSetCookie().find((c) => c.startsWith('admin_flash='))).toMatch(/Max-Age=300; Path=\/admin; HttpOnly; SameSite=Lax/);
  const location = res.headers.get('location')!;
  const clientId = decodeURIComponent(location.split('/').pop()!);
  const page = await get(location, b, cookiesFrom(res));
  expect(page.status).toBe(200);
  const html = await page.text();
  const secret = html.match(/id="clientSecret" value="([^"]+)"/)?.[1];
  return { clientId, location, html, secret };
}

const token = (form: Record<string, string>) =>
  exports.default.fetch('http://localhost/connect/token', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form),
  });

describe('Settings > External apps', () => {
  it('shows an empty state before the first app', async () => {
    const t = await makeTenant();
    const html = await (await get('/admin/apps', await signIn(t.admin))).text();
    expect(html).toContain('No external apps yet');
    expect(html).toContain('href="/admin/apps/new"');
  });

  it('creates a Client Credentials app with a generated client id and a secret shown once, stored as SHA-256', async () => {
    const t = await makeTenant();
    const b = await signIn(t.admin);
    const { clientId, location, html, secret } = await createThroughForm(b, ccForm({ name: 'Print backend' }));
    expect(clientId).toMatch(/^[0-9a-f-]{36}$/);
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(html).toContain('shown only this once');
    expect(html).toContain('data-copy="clientSecret"');
    const [row] = await appsOf(t.id);
    expect(row).toMatchObject({ clientId, name: 'Print backend', authType: 'client_credentials', tokenLifetime: 3600, requireClientSecret: true });
    expect(row!.secretHash).toBe(await sha256Base64url(secret!));
    expect(JSON.stringify(row)).not.toContain(secret!);
    // Never again: the next visit of the page (and the list) has no secret.
    for (const path of [location, '/admin/apps']) {
      const again = await (await get(path, b)).text();
      expect(again).not.toContain(secret!);
      expect(again).not.toContain('id="clientSecret"');
    }
    const list = await (await get('/admin/apps', b)).text();
    expect(list).toContain('Print backend');
    expect(list).toContain(clientId);
    expect(list).toContain('Client Credentials');
  });

  it('issues tokens with the new secret within the app’s permissions; deleting the app makes the token endpoint answer invalid_client', async () => {
    const t = await makeTenant();
    const b = await signIn(t.admin);
    const { clientId, secret } = await createThroughForm(b, ccForm({ 'perm.Projects': 'read', tokenLifetime: '600' }));
    const ok = await token({ grant_type: 'client_credentials', client_id: clientId, client_secret: secret!, scope: 'Projects_read' });
    expect(ok.status).toBe(200);
    const body = (await ok.json()) as { scope: string; expires_in: number };
    expect(body.scope.split(' ')).toContain('Projects_read');
    expect(body.expires_in).toBe(600);
    const tooMuch = await token({ grant_type: 'client_credentials', client_id: clientId, client_secret: secret!, scope: 'Projects_full' });
    expect(await tooMuch.json()).toMatchObject({ error: 'invalid_scope' });

    const confirm = await get(`/admin/apps/${clientId}/delete`, b);
    expect(await confirm.text()).toContain('cannot be undone');
    expect(await appsOf(t.id)).toHaveLength(1); // asking is not deleting
    const deleted = await post(`/admin/apps/${clientId}/delete`, b, {});
    expect(deleted.status).toBe(303);
    expect(deleted.headers.get('location')).toBe('/admin/apps');
    expect(await appsOf(t.id)).toHaveLength(0);
    const after = await token({ grant_type: 'client_credentials', client_id: clientId, client_secret: secret!, scope: 'Projects_read' });
    expect(after.status).toBe(401);
    expect(await after.json()).toMatchObject({ error: 'invalid_client' });
    const banner = await (await get('/admin/apps', b, cookiesFrom(deleted))).text();
    expect(banner).toContain('deleted');
  });

  it('makes tokens already issued to a deleted app fail at the resource-server middleware', async () => {
    const t = await makeTenant();
    const b = await signIn(t.admin);
    const { clientId, secret } = await createThroughForm(b, ccForm({ 'perm.Projects': 'read' }));
    const issued = (await (await token({ grant_type: 'client_credentials', client_id: clientId, client_secret: secret! })).json()) as { access_token: string };
    const api = new Hono<AuthBindings>().onError(handleError).get('/projects', requireScope('Projects_read'), (c) => c.json({ tenantId: c.var.auth.tenantId }));
    const call = () => api.request('/projects', { headers: { authorization: `Bearer ${issued.access_token}` } }, env);
    expect((await call()).status).toBe(200);
    await post(`/admin/apps/${clientId}/delete`, b, {});
    const refused = await call();
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it('creates an Authorization Code app with secret and PKCE, and without a secret forces PKCE on', async () => {
    const t = await makeTenant();
    const b = await signIn(t.admin);
    const withSecret = await createThroughForm(b, codeForm());
    expect(withSecret.secret).toBeDefined();
    const publicApp = await createThroughForm(b, codeForm({ name: 'SPA with code', requireClientSecret: '', requirePkce: '' }));
    expect(publicApp.secret).toBeUndefined();
    const rows = await appsOf(t.id);
    const byId = Object.fromEntries(rows.map((r) => [r.clientId, r]));
    expect(byId[withSecret.clientId]).toMatchObject({
      authType: 'authorization_code',
      requireClientSecret: true,
      requirePkce: true,
      redirectUris: ['https://shop.example.com/callback'],
      postLogoutRedirectUris: ['https://shop.example.com/signed-out'],
      corsOrigins: ['https://shop.example.com'],
      permissions: {},
    });
    expect(byId[publicApp.clientId]).toMatchObject({ requireClientSecret: false, requirePkce: true, secretHash: null });
  });

  it('creates an Implicit app as a public client without a secret', async () => {
    const t = await makeTenant();
    const b = await signIn(t.admin);
    const created = await createThroughForm(b, codeForm({ authType: 'implicit', name: 'Browser editor' }));
    expect(created.secret).toBeUndefined();
    expect((await appsOf(t.id))[0]).toMatchObject({ authType: 'implicit', requireClientSecret: false, requirePkce: false, secretHash: null });
  });

  it('shows validation errors next to the fields that caused them with a 400, and saves nothing', async () => {
    const t = await makeTenant();
    const b = await signIn(t.admin);
    const res = await post('/admin/apps/new', b, codeForm({ name: '', tokenLifetime: '30', redirectUris: 'http://shop.example.com/cb', corsOrigins: 'https://shop.example.com/path' }));
    expect(res.status).toBe(400);
    const html = await res.text();
    for (const field of ['name', 'tokenLifetime', 'redirectUris', 'corsOrigins']) {
      expect(html, field).toMatch(new RegExp(`id="${field}"[^>]*aria-describedby="[^"]*${field}-error"[^>]*aria-invalid="true"`));
      expect(html, field).toContain(`<span class="error" id="${field}-error">`);
    }
    expect(html).toContain('nothing was saved');
    expect(html).toContain('http://shop.example.com/cb'); // what was typed stays in the form
    expect(await appsOf(t.id)).toHaveLength(0);
  });

  it('edits an app; the flow stays; turning the secret on issues one, shown once', async () => {
    const t = await makeTenant();
    const b = await signIn(t.admin);
    const { clientId } = await createThroughForm(b, codeForm({ requireClientSecret: '', requirePkce: 'on' }));
    const res = await post(`/admin/apps/${clientId}`, b, codeForm({ name: 'Renamed', authType: 'client_credentials', tokenLifetime: '7200', requireClientSecret: 'on' }));
    expect(res.status).toBe(303);
    const page = await (await get(res.headers.get('location')!, b, cookiesFrom(res))).text();
    const secret = page.match(/id="clientSecret" value="([^"]+)"/)?.[1];
    expect(secret).toBeDefined();
    const [row] = await appsOf(t.id);
    expect(row).toMatchObject({ name: 'Renamed', authType: 'authorization_code', tokenLifetime: 7200, requireClientSecret: true });
    expect(row!.secretHash).toBe(await sha256Base64url(secret!));

    const invalid = await post(`/admin/apps/${clientId}`, b, codeForm({ tokenLifetime: '90000' }));
    expect(invalid.status).toBe(400);
    expect(await invalid.text()).toContain('id="tokenLifetime-error"');
    expect((await appsOf(t.id))[0]!.tokenLifetime).toBe(7200);
  });

  it('renders the flow-dependent fields disabled with their reason', async () => {
    const t = await makeTenant();
    const b = await signIn(t.admin);
    const html = await (await get('/admin/apps/new?type=implicit', b)).text();
    expect(html).toMatch(/<fieldset class="card" data-flow="permissions" disabled/);
    expect(html).toContain('they act with the rights of the signed-in user');
    expect(html).toMatch(/id="requireClientSecret" name="requireClientSecret" disabled/);
    expect(html).toContain('cannot keep a secret');
  });
});
