// A tenant admin's path through Settings > External apps in real Chromium: sign in, create a
// Client Credentials app with Projects Read, copy its secret from the page, use it, delete the app.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { DEMO, launch, screenshot, signInToAdmin, tokenRequest } from './chromium.js';

const baseUrl = inject('workerUrl');
let browser: Browser;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  browser = await launch();
  context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseUrl });
  page = await context.newPage();
});
afterAll(async () => {
  await browser?.close();
});

describe('admin creates, uses and deletes a Client Credentials app', () => {
  let clientId = '';
  let secret = '';

  it('signs in as the demo admin through the identity login and sees the dashboard', async () => {
    await page.goto(`${baseUrl}/admin`);
    expect(new URL(page.url()).pathname).not.toBe('/admin'); // sent to the login first
    await screenshot(page, 'login');
    await signInToAdmin(page, baseUrl, DEMO.admin.email, DEMO.admin.password);
    expect(await page.locator('h1').textContent()).toContain('Demo');
    expect(await page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'External apps' }).count()).toBe(1);
    await screenshot(page, 'dashboard');
  });

  it('creates a Client Credentials app with Projects Read; the fields it does not use are disabled with a reason', async () => {
    await page.getByRole('link', { name: 'External apps', exact: true }).first().click();
    await page.waitForURL(`${baseUrl}/admin/apps`);
    await page.getByRole('link', { name: 'New app' }).click();
    await page.waitForURL(`${baseUrl}/admin/apps/new`);

    await page.getByLabel('Name', { exact: true }).fill('Print backend');
    await page.getByLabel(/Client Credentials/).check();
    expect(await page.getByLabel('Redirect URIs', { exact: true }).isDisabled()).toBe(true);
    expect(await page.getByText('Not used by Client Credentials apps').isVisible()).toBe(true);
    expect(await page.getByLabel('Require client secret').isChecked()).toBe(true);
    expect(await page.getByLabel('Require client secret').isDisabled()).toBe(true);
    expect(await page.getByLabel('Projects', { exact: true }).isEnabled()).toBe(true);
    await page.getByLabel('Projects', { exact: true }).selectOption({ label: 'Read' });
    expect(await page.getByLabel('Token lifetime (seconds)').inputValue()).toBe('3600');
    await screenshot(page, 'new-app-client-credentials');

    await page.getByRole('button', { name: 'Create app' }).click();
    await page.waitForURL(/\/admin\/apps\/[0-9a-f-]{36}$/);
    clientId = await page.locator('#clientId').inputValue();
    expect(page.url()).toContain(clientId);
    expect(await page.getByText('shown only this once').isVisible()).toBe(true);
  });

  it('copies the secret with the Copy button, exactly as shown', async () => {
    secret = await page.locator('#clientSecret').inputValue();
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    await page.locator('button[data-copy="clientSecret"]').click();
    await page.getByText('Copied to the clipboard.').first().waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    await screenshot(page, 'app-created-secret-once');
  });

  it('gets a token with Projects_read in its scope, and invalid_scope for Projects_full', async () => {
    const ok = await tokenRequest(baseUrl, { grant_type: 'client_credentials', client_id: clientId, client_secret: secret, scope: 'Projects_read' });
    expect(ok.status).toBe(200);
    expect(String(ok.body.scope).split(' ')).toContain('Projects_read');
    const all = await tokenRequest(baseUrl, { grant_type: 'client_credentials', client_id: clientId, client_secret: secret });
    expect(String(all.body.scope).split(' ')).toEqual(['Projects_read']);
    const full = await tokenRequest(baseUrl, { grant_type: 'client_credentials', client_id: clientId, client_secret: secret, scope: 'Projects_full' });
    expect(full.status).toBe(400);
    expect(full.body.error).toBe('invalid_scope');
  });

  it('never shows the secret again', async () => {
    await page.reload();
    expect(await page.locator('#clientSecret').count()).toBe(0);
    expect(await page.content()).not.toContain(secret);
    await page.goto(`${baseUrl}/admin/apps`);
    expect(await page.getByRole('cell', { name: clientId }).count()).toBe(1);
    await screenshot(page, 'external-apps');
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, 'external-apps-phone');
    await page.setViewportSize({ width: 1280, height: 860 });
  });

  it('deletes the app after a confirmation; the next token request gets invalid_client', async () => {
    await page.getByRole('link', { name: 'Print backend' }).click();
    await page.getByRole('link', { name: 'Delete app…' }).click();
    await page.waitForURL(/\/delete$/);
    expect(await page.getByText('This cannot be undone.').isVisible()).toBe(true);
    await screenshot(page, 'delete-confirm');
    // Still there until confirmed.
    expect((await tokenRequest(baseUrl, { grant_type: 'client_credentials', client_id: clientId, client_secret: secret })).status).toBe(200);
    await page.getByRole('button', { name: 'Delete app' }).click();
    await page.waitForURL(`${baseUrl}/admin/apps`);
    expect(await page.getByRole('status').first().textContent()).toContain('deleted');
    expect(await page.getByRole('cell', { name: clientId }).count()).toBe(0);
    await screenshot(page, 'app-deleted');
    const after = await tokenRequest(baseUrl, { grant_type: 'client_credentials', client_id: clientId, client_secret: secret, scope: 'Projects_read' });
    expect(after.status).toBe(401);
    expect(after.body.error).toBe('invalid_client');
  });

  it('shows the Users and Tenant settings', async () => {
    await page.getByRole('link', { name: 'Users', exact: true }).click();
    await page.waitForURL(`${baseUrl}/admin/users`);
    expect(await page.getByRole('link', { name: DEMO.user.email }).count()).toBe(1);
    await screenshot(page, 'users');
    await page.getByRole('link', { name: 'Tenant', exact: true }).click();
    await page.waitForURL(`${baseUrl}/admin/tenant`);
    const text = (await page.locator('main').textContent()) ?? '';
    expect(text).toContain('Demo');
    expect(text).toContain(baseUrl); // the issuer of this instance
    // Signing keys belong to the instance: listed here, rotated only by the operator (npm run keys:rotate).
    expect(text).toContain('Signing keys');
    expect(await page.getByRole('button', { name: /rotate/i }).count()).toBe(0);
    await screenshot(page, 'tenant');
  });

  it('is usable with the keyboard: skip link first, then the navigation and actions', async () => {
    await page.goto(`${baseUrl}/admin/apps`);
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    for (let i = 0; i < 15; i++) {
      await page.keyboard.press('Tab');
      if ((await page.evaluate(() => document.activeElement?.textContent)) === 'New app') break;
    }
    await page.keyboard.press('Enter');
    await page.waitForURL(`${baseUrl}/admin/apps/new`);
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter'); // the skip link moves focus to the content
    for (let i = 0; i < 5; i++) {
      await page.keyboard.press('Tab');
      if ((await page.evaluate(() => document.activeElement?.id)) === 'name') break;
    }
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('name');
  });

  it('signs out: the admin panel asks for the login again', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForLoadState();
    await page.goto(`${baseUrl}/admin/apps`);
    expect(new URL(page.url()).pathname).not.toBe('/admin/apps');
    expect(await page.getByLabel('Password').count()).toBe(1);
  });
});
