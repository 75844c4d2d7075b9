// An admin registers an Authorization Code app with PKCE and a redirect URI in real Chromium; a
// user then signs in through it. The callback is intercepted: the browser never needs the app.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { DEMO, launch, pkcePair, screenshot, signInToAdmin, tokenRequest } from './chromium.js';

const baseUrl = inject('workerUrl');
const CALLBACK = 'http://localhost:8788/shop-callback';
let browser: Browser;
let admin: Page;

beforeAll(async () => {
  browser = await launch();
  admin = await (await browser.newContext({ viewport: { width: 1280, height: 860 } })).newPage();
});
afterAll(async () => {
  await browser?.close();
});

describe('admin registers an Authorization Code app and a user signs in through it', () => {
  let clientId = '';
  let secret = '';

  it('creates the app: secret and PKCE on by default, PKCE forced on without a secret, permissions disabled', async () => {
    await signInToAdmin(admin, baseUrl, DEMO.admin.email, DEMO.admin.password);
    await admin.goto(`${baseUrl}/admin/apps/new`);
    await admin.getByLabel('Name', { exact: true }).fill('Web shop');
    await admin.getByLabel(/Authorization Code/).check();

    expect(await admin.getByLabel('Projects', { exact: true }).isDisabled()).toBe(true);
    expect(await admin.getByText('Not used by Authorization Code apps: they act with the rights of the signed-in user.').isVisible()).toBe(true);
    const secretBox = admin.getByLabel('Require client secret');
    const pkceBox = admin.getByLabel('Require PKCE');
    expect(await secretBox.isChecked()).toBe(true);
    expect(await pkceBox.isChecked()).toBe(true);
    await secretBox.uncheck();
    expect(await pkceBox.isChecked()).toBe(true);
    expect(await pkceBox.isDisabled()).toBe(true);
    expect(await admin.getByText('Always on when the app has no client secret').isVisible()).toBe(true);
    await secretBox.check();
    expect(await pkceBox.isEnabled()).toBe(true);

    // A wrong redirect URI is refused next to its field and nothing is saved.
    await admin.getByLabel('Redirect URIs', { exact: true }).fill('http://shop.example.com/callback');
    await admin.getByRole('button', { name: 'Create app' }).click();
    await admin.waitForLoadState();
    expect(await admin.locator('#redirectUris-error').textContent()).toContain('must use https');
    expect(await admin.getByLabel('Redirect URIs', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    await screenshot(admin, 'new-app-validation-error');

    await admin.getByLabel('Redirect URIs', { exact: true }).fill(CALLBACK);
    await admin.getByLabel('Allowed CORS origins').fill('http://localhost:8788');
    await screenshot(admin, 'new-app-authorization-code');
    await admin.setViewportSize({ width: 390, height: 844 });
    await screenshot(admin, 'new-app-phone');
    await admin.setViewportSize({ width: 1280, height: 860 });
    await admin.getByRole('button', { name: 'Create app' }).click();
    await admin.waitForURL(/\/admin\/apps\/[0-9a-f-]{36}$/);
    clientId = await admin.locator('#clientId').inputValue();
    secret = await admin.locator('#clientSecret').inputValue();
    expect(secret.length).toBe(43);
    expect(await admin.getByLabel('Require PKCE').isChecked()).toBe(true);
    await screenshot(admin, 'app-authorization-code');
  });

  it('lets a user sign in through the app: the callback gets code and state, and the code redeems with the verifier', async () => {
    const userContext = await browser.newContext();
    const page = await userContext.newPage();
    // Playwright does not route the hops of a redirect, so the sign-in post is fetched here and
    // a redirect to the callback is answered in place of the app (which does not exist).
    const callbacks: URL[] = [];
    await page.route(`${baseUrl}/**`, async (route) => {
      if (route.request().method() !== 'POST') return route.continue();
      const response = await route.fetch({ maxRedirects: 0 });
      const location = response.headers()['location'];
      if (location?.startsWith(CALLBACK)) {
        callbacks.push(new URL(location));
        return route.fulfill({ status: 200, contentType: 'text/html', body: '<h1>Web shop: signed in</h1>' });
      }
      return route.fulfill({ response });
    });
    const { verifier, challenge } = await pkcePair();
    const state = crypto.randomUUID();
    const authorize = new URL(`${baseUrl}/connect/authorize`);
    authorize.search = new URLSearchParams({
      client_id: clientId,
      response_type: 'code',
      redirect_uri: CALLBACK,
      scope: 'openid Projects_read',
      state,
      code_challenge: challenge,
      code_challenge_method: 'S256',
    }).toString();
    await page.goto(authorize.toString());
    await page.getByLabel(/e-?mail/i).fill(DEMO.user.email);
    await page.getByLabel(/password/i).fill(DEMO.user.password);
    await screenshot(page, 'app-sign-in');
    await page.getByRole('button', { name: /sign in/i }).click();
    await page.getByText('Web shop: signed in').waitFor();

    expect(callbacks).toHaveLength(1);
    const callback = callbacks[0]!;
    expect(`${callback.origin}${callback.pathname}`).toBe(CALLBACK);
    expect(callback.searchParams.get('state')).toBe(state);
    const code = callback.searchParams.get('code');
    expect(code).toBeTruthy();
    expect(callback.searchParams.get('iss')).toBe(baseUrl);

    const redeemed = await tokenRequest(baseUrl, {
      grant_type: 'authorization_code',
      client_id: clientId,
      client_secret: secret,
      code: code!,
      redirect_uri: CALLBACK,
      code_verifier: verifier,
    });
    expect(redeemed.status).toBe(200);
    expect(redeemed.body.token_type).toBe('Bearer');
    expect(String(redeemed.body.scope).split(' ')).toEqual(expect.arrayContaining(['openid', 'Projects_read']));
    expect(redeemed.body.id_token).toBeTruthy();
    await userContext.close();
  });
});
