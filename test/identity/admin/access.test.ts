import { env, exports } from 'cloudflare:workers';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { getDb } from '../../../src/db/client';
import { apps, sessions, users } from '../../../src/db/schema';
import { ADMIN_PASSWORD, appsOf, ccForm, cookiesFrom, get, makeTenant, post, signIn } from './helpers';

const PAGES = ['/admin', '/admin/apps', '/admin/apps/new', '/admin/users', '/admin/users/new', '/admin/tenant'];

describe('admin panel access', () => {
  it('sends visitors without a session to the identity login', async () => {
    for (const path of PAGES) {
      const res = await get(path);
      expect(res.status, path).toBe(303);
      expect(res.headers.get('location')).toBe('/admin/login');
    }
    expect((await post('/admin/apps/new', undefined, ccForm(), 'x')).headers.get('location')).toBe('/admin/login');
  });

  it('lets an admin of the tenant in on every page, with the External apps link in the navigation', async () => {
    const t = await makeTenant();
    const b = await signIn(t.admin);
    for (const path of PAGES) {
      const res = await get(path, b);
      expect(res.status, path).toBe(200);
      const html = await res.text();
      expect(html).toMatch(/<a href="\/admin\/apps"[^>]*>External apps<\/a>/);
      expect(html).toContain(t.admin.email);
    }
  });

  it('sends paths with a trailing slash to the page without it', async () => {
    const t = await makeTenant();
    const b = await signIn(t.admin);
    for (const [from, to] of [['/admin/', '/admin'], ['/admin/apps/', '/admin/apps']]) {
      const res = await get(from, b);
      expect(res.status, from).toBe(301);
      expect(res.headers.get('location')).toBe(to);
    }
    expect((await get('/admin/nothing-here', b)).status).toBe(404);
  });

  it('answers a signed-in non-admin with a 403 page on every admin path, GET and POST, and changes nothing', async () => {
    const t = await makeTenant();
    const b = await signIn(t.user);
    for (const path of [...PAGES, '/admin/no-such-page']) {
      const res = await get(path, b);
      expect(res.status, path).toBe(403);
      expect(res.headers.get('content-type')).toContain('text/html');
      const html = await res.text();
      expect(html).toContain('Access denied');
      expect(html).toContain('href="/connect/endsession"'); // a way out to another account
      expect(html).not.toContain('href="/admin/apps"'); // no admin navigation
    }
    const res = await post('/admin/apps/new', b, ccForm());
    expect(res.status).toBe(403);
    expect(await appsOf(t.id)).toHaveLength(0);
  });

  it('sends no-store and frame-ancestors none on pages and error pages', async () => {
    const t = await makeTenant();
    for (const [path, who] of [['/admin/apps', t.admin], ['/admin', t.user]] as const) {
      const res = await get(path, await signIn(who));
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(res.headers.get('x-frame-options')).toBe('DENY');
    }
    const anonymous = await get('/admin');
    expect(anonymous.headers.get('cache-control')).toBe('no-store');
  });

  it('turns away an admin once they are disabled', async () => {
    const t = await makeTenant();
    const b = await signIn(t.admin);
    await getDb(env.DB).update(users).set({ disabled: true }).where(eq(users.id, t.admin.id));
    expect((await get('/admin', b)).status).toBe(303);
  });

  it('shows only the admin’s own tenant: another tenant’s app is not found', async () => {
    const mine = await makeTenant();
    const other = await makeTenant();
    await getDb(env.DB).insert(apps).values({ clientId: `other-${other.id}`, tenantId: other.id, name: 'Theirs', authType: 'implicit', requireClientSecret: false, requirePkce: false });
    const b = await signIn(mine.admin);
    expect(await (await get('/admin/apps', b)).text()).not.toContain('Theirs');
    expect((await get(`/admin/apps/other-${other.id}`, b)).status).toBe(404);
    expect((await post(`/admin/apps/other-${other.id}/delete`, b, {})).status).toBe(404);
    expect((await get(`/admin/users/${other.admin.id}`, b)).status).toBe(404);
  });

  it('signs out: the session ends and the next visit goes to the login', async () => {
    const t = await makeTenant();
    const b = await signIn(t.admin);
    const res = await post('/admin/logout', b, {});
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/admin/login');
    expect(res.headers.getSetCookie().join()).toMatch(/idsrv=;/);
    expect(await getDb(env.DB).select().from(sessions).where(eq(sessions.userId, t.admin.id)).all()).toHaveLength(0);
    expect((await get('/admin', b)).status).toBe(303);
  });

  it('signs in through the identity login page and lands on the dashboard', async () => {
    const t = await makeTenant();
    const start = await exports.default.fetch('http://localhost/admin/login', { redirect: 'manual' });
    const loginUrl = new URL(start.headers.get('location')!, 'http://localhost');
    let jar = cookiesFrom(start);
    const page = await exports.default.fetch(loginUrl, { headers: { cookie: jar } });
    const html = await page.text();
    jar = [jar, cookiesFrom(page)].filter(Boolean).join('; ');
    const form = new URLSearchParams();
    for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)) form.set(m[1]!, m[2]!.replace(/&amp;/g, '&'));
    form.set('email', t.admin.email);
    form.set('password', ADMIN_PASSWORD);
    const action = html.match(/<form[^>]*action="([^"]+)"/)?.[1] ?? loginUrl.pathname;
    const submitted = await exports.default.fetch(new URL(action.replace(/&amp;/g, '&'), loginUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: jar },
      body: form,
      redirect: 'manual',
    });
    expect(submitted.status).toBeGreaterThanOrEqual(300);
    expect(new URL(submitted.headers.get('location')!, 'http://localhost').pathname).toBe('/admin');
    const dashboard = await get('/admin', undefined, cookiesFrom(submitted));
    expect(dashboard.status).toBe(200);
    expect(await dashboard.text()).toContain('External apps');
  });
});
