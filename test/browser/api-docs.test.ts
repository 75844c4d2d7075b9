// Pages we serve load nothing from a third party: /api/docs runs Swagger UI from the Worker's own
// static assets (the pinned swagger-ui-dist), under a strict CSP, with every other host blocked
// as if the machine were offline; the admin panel's pages do the same.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { DEMO, launch, screenshot, signInToAdmin } from './chromium.js';

const baseUrl = inject('workerUrl');
const origin = new URL(baseUrl).origin;
let browser: Browser;
let context: BrowserContext;
let page: Page;
/** Every URL the browser tried to load that is not on our origin (blocked before it leaves). */
const foreign: string[] = [];
/** Console errors (CSP violations show here) and uncaught page errors. */
const errors: string[] = [];

const local = (url: string) => url.startsWith('data:') || url.startsWith('blob:') || new URL(url).origin === origin;

beforeAll(async () => {
  browser = await launch();
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (local(url)) return route.continue();
    foreign.push(url);
    return route.abort('internetdisconnected');
  });
  page = await context.newPage();
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(String(e)));
});
afterAll(async () => {
  await browser?.close();
});

describe('API docs (/api/docs)', () => {
  it('sends a strict content security policy and references only same-origin files', async () => {
    const res = await fetch(`${baseUrl}/api/docs`);
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toMatch(/default-src 'none'/);
    expect(csp).toMatch(/script-src 'self'(;|$)/);
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|https?:|\*/);
    const html = await res.text();
    for (const [, ref] of html.matchAll(/(?:src|href)="([^"]+)"/g)) expect(ref.startsWith('/')).toBe(true);
    // wrangler dev serves the copied swagger-ui-dist on the Worker's origin.
    const bundle = await fetch(`${baseUrl}/api/docs/swagger-ui/swagger-ui-bundle.js`);
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('content-type')).toContain('javascript');
  });

  it('lists the operations of each document with no request leaving localhost', async () => {
    await page.goto(`${baseUrl}/api/docs`);
    // The first document (identity) loads by default.
    await page.locator('.opblock').first().waitFor({ timeout: 30_000 });
    const paths = async () => page.locator('.opblock-summary-path').allTextContents();
    expect((await paths()).map((p) => p.replace(/\u200b/g, ''))).toContain('/connect/token');
    await screenshot(page, 'api-docs-identity');

    await page.locator('.topbar select').selectOption({ label: 'Dynamic Image API' });
    await page.locator('.opblock-summary-path', { hasText: '/api/rendering/preview' }).first().waitFor({ timeout: 30_000 });
    expect((await paths()).length).toBeGreaterThan(10);
    await screenshot(page, 'api-docs-rendering');

    await page.locator('.topbar select').selectOption({ label: 'Platform APIs' });
    await page.locator('.information-container .title', { hasText: 'Platform APIs' }).waitFor({ timeout: 30_000 });

    expect(foreign).toEqual([]);
    expect(errors).toEqual([]); // CSP violations, failed loads, script errors
  });
});

describe('admin panel pages', () => {
  it('load no third-party scripts, styles or other files', async () => {
    foreign.length = 0;
    errors.length = 0;
    await signInToAdmin(page, baseUrl, DEMO.admin.email, DEMO.admin.password);
    for (const path of ['/admin', '/admin/apps', '/admin/apps/new', '/admin/users', '/admin/tenant']) {
      await page.goto(`${baseUrl}${path}`);
      expect(new URL(page.url()).pathname, path).toBe(path);
      const external = await page.evaluate(() =>
        Array.from(document.querySelectorAll('script[src], link[href], img[src], iframe[src]'))
          .map((e) => (e as HTMLScriptElement).src || (e as HTMLLinkElement).href)
          .filter((u) => !u.startsWith(location.origin) && !u.startsWith('data:')),
      );
      expect(external, path).toEqual([]);
    }
    expect(foreign).toEqual([]);
    expect(errors).toEqual([]);
  });
});
