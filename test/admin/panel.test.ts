// The admin panel as src/admin composes it: it names the product (not "Identity admin"), lists
// identity's and the back office's sections in one navigation, and leaves /admin/login to the
// identity service.
import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { PRODUCT_NAME } from '../../src/admin';
import { get, makeTenant, post, signIn } from '../identity/admin/helpers';

describe('admin panel', () => {
  it('names the product in the page title and the navigation, on pages and error pages', async () => {
    const t = await makeTenant();
    const admin = await signIn(t.admin);
    const page = await (await get('/admin/tenant', admin)).text();
    expect(page).toContain(`<title>Tenant · ${PRODUCT_NAME}</title>`);
    expect(page).toMatch(new RegExp(`<a class="brand" href="/admin">${PRODUCT_NAME}<small>`));
    expect(page).not.toMatch(/Identity admin/i);
    const denied = await (await get('/admin', await signIn(t.user))).text();
    expect(denied).toContain(`<title>Access denied · ${PRODUCT_NAME}</title>`);
  });

  it('lists the dashboard, then Back office and Settings with their sections, the current one marked', async () => {
    const t = await makeTenant();
    const html = await (await get('/admin/users', await signIn(t.admin))).text();
    const nav = html.match(/<nav aria-label="Admin">(.*?)<\/nav>/s)?.[1] ?? '';
    const labels = [...nav.matchAll(/<(?:a href="[^"]+"[^>]*|h2)>([^<]+)</g)].map((m) => m[1]);
    expect(labels).toEqual(['Dashboard', 'Back office', 'Projects', 'Products', 'Pipelines', 'Assets', 'Settings', 'External apps', 'Users', 'Tenant', 'Project statuses', 'Secrets', 'Webhooks']);
    expect(nav).toContain('<a href="/admin/users" aria-current="page">Users</a>');
  });

  it('leaves /admin/login to the identity login: GET starts a sign-in, other methods are a plain 404', async () => {
    const start = await exports.default.fetch('http://localhost/admin/login', { redirect: 'manual' });
    expect(start.status).toBe(302);
    expect(start.headers.get('location')).toMatch(/^\/account\/login\?pending=/);
    const posted = await post('/admin/login', undefined, {});
    expect(posted.status).toBe(404);
    expect(posted.headers.get('content-type')).not.toContain('text/html');
  });
});
