// Back office > Projects in real Chromium: a project created through the storefront API is found
// in the filtered list, reaches Completed on its page (job timeline), its PDF downloads, an item's
// preflight badge and problems show (issue 21), a transition applies, and a stale transition
// shows the platform's 409 reason.
import { copyFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { backendApi, DEMO, SCREENSHOTS, launch, screenshot, signInToAdmin, type ApiCall } from './chromium.js';

const baseUrl = inject('workerUrl');
const repo = path.resolve(import.meta.dirname, '../..');
let browser: Browser;
let page: Page;
let api: ApiCall;
let projectId = 0;

beforeAll(async () => {
  api = await backendApi(baseUrl, '/api/storefront/v1');
  browser = await launch();
  page = await (await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true })).newPage();
  await signInToAdmin(page, baseUrl, DEMO.admin.email, DEMO.admin.password);
});
afterAll(async () => {
  await browser?.close();
});

describe('back office: projects', () => {
  it('a project created through the storefront API is in the list, filtered by storefront and period', async () => {
    const orderId = `bo-${Date.now()}`;
    const created = await api('POST', '/projects/with-single-item?storefrontId=1', {
      ownerId: 'shopper-bo',
      productReference: 'demo-card',
      orderId,
      orderLineItemIndex: 0,
      orderNumber: 4711,
      orderName: 'Backoffice walk',
      item: { quantity: 250, designIds: ['demo-card-design'], fields: { Name: 'Grace Hopper' } },
    });
    expect(created.status).toBe(201);
    projectId = created.body.id;
    await api('POST', `/projects/${projectId}/order-data`, [{ key: 'Shipping', value: 'Express' }]);

    await page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'Projects' }).click();
    await page.waitForURL(`${baseUrl}/admin/projects`);
    await page.getByLabel('Storefront').selectOption({ label: 'Demo storefront' });
    await page.getByLabel('Created').selectOption('Today');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/storefrontId=1/);
    expect(await page.getByRole('link', { name: `#${projectId} Backoffice walk` }).count()).toBe(1);
    await screenshot(page, 'backoffice-projects');
  });

  it('the project page reaches Completed with a task timeline and a downloadable PDF', async () => {
    await page.goto(`${baseUrl}/admin/projects/${projectId}`);
    // The page refreshes itself while the job runs.
    await page.locator('h3', { hasText: 'Completed' }).first().waitFor({ timeout: 60_000 });
    const rows = page.locator('section[aria-labelledby=jobs-h] tbody tr');
    expect(await rows.count()).toBe(3);
    expect(await rows.nth(1).locator('td').first().textContent()).toBe('render');
    expect(await rows.nth(1).locator('td').nth(1).textContent()).toBe('Completed');
    expect(await rows.nth(1).locator('td').nth(3).textContent()).toMatch(/\d+(\.\d)? m?s/);
    const main = (await page.locator('main').textContent()) ?? '';
    expect(main).toContain('Grace Hopper');
    expect(main).toContain('Express');
    expect(main).toContain('4711');
    await page.waitForFunction(() => {
      const img = document.querySelector<HTMLImageElement>('img[alt^="Preview of project"]');
      return !!img && img.complete && img.naturalWidth > 0;
    }, null, { timeout: 60_000 });

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: /\.pdf$/ }).click()]);
    const file = await download.path();
    expect(readFileSync(file!).subarray(0, 5).toString()).toBe('%PDF-');
    await screenshot(page, 'backoffice-project');
    copyFileSync(path.join(SCREENSHOTS, 'backoffice-project.png'), path.join(repo, 'docs/admin-project.png'));
  });

  it("the project page shows each item's preflight badge and problems; the list filters by preflight (issue 21)", async () => {
    // The demo card's one text layer, far wider than the 400 px card: it overflows (an error), and
    // its template font is substituted (a warning).
    const created = await api('POST', '/projects/with-single-item?storefrontId=1', {
      ownerId: 'shopper-bo',
      productReference: 'demo-card',
      orderId: `bo-preflight-${Date.now()}`,
      orderLineItemIndex: 0,
      orderName: 'Preflight walk',
      item: { quantity: 100, designIds: ['demo-card-design'], fields: { 'Line 1 Line 2 Line 3 and text': 'W'.repeat(80) } },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const preflight = created.body.items[0].preflight as { errors: number; warnings: number };
    expect(preflight?.errors, JSON.stringify(preflight)).toBeGreaterThan(0);
    const id = created.body.id as number;
    await page.goto(`${baseUrl}/admin/projects/${id}`);
    const badge = page.locator('section[aria-labelledby=items-h] .badge').first();
    const counts = (n: number, one: string) => (n ? `${n} ${one}${n === 1 ? '' : 's'}` : '');
    expect(await badge.textContent()).toBe([counts(preflight.errors, 'error'), counts(preflight.warnings, 'warning')].filter(Boolean).join(', '));
    const problems = page.getByRole('list', { name: 'Preflight problems' });
    expect(await problems.textContent()).toMatch(/Error · Line 1 Line 2 Line 3 and text: "W+…" is too long for .*: \d+ characters do not fit\./);
    await screenshot(page, 'backoffice-project-preflight');
    await page.goto(`${baseUrl}/admin/projects`);
    await page.getByLabel('Preflight').selectOption('errors');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/preflight=errors/);
    expect(await page.getByRole('link', { name: `#${id} Preflight walk` }).count()).toBe(1);
    await page.goto(`${baseUrl}/admin/projects/${projectId}`); // where the next step goes on
  });

  it('applies a transition with its button; a stale one shows the 409 reason', async () => {
    await page.getByRole('button', { name: 'Start production' }).click();
    await page.waitForURL(`${baseUrl}/admin/projects/${projectId}`);
    expect(await page.getByRole('status').first().textContent()).toContain('start-production');
    expect(await page.locator('section[aria-labelledby=status-h]').textContent()).toContain('In production');
    // Someone else completes it meanwhile: the page's "Complete" button is now stale.
    expect((await api('POST', `/projects/${projectId}/transitions/complete`)).status).toBe(200);
    await page.getByRole('button', { name: 'Complete' }).click();
    expect(await page.getByRole('alert').first().textContent()).toContain('No transition "complete" from status 3');
    await screenshot(page, 'backoffice-transition-409');
  });

  it('restart on a finished project starts a new run; phone-sized layout keeps the page usable', async () => {
    await page.goto(`${baseUrl}/admin/projects/${projectId}`);
    const jobs = page.locator('section[aria-labelledby=jobs-h] h3');
    const before = await jobs.count();
    await page.getByRole('button', { name: 'Restart processing' }).click();
    await page.waitForURL(`${baseUrl}/admin/projects/${projectId}`);
    expect(await page.getByRole('status').first().textContent()).toContain('restarted');
    await page.waitForFunction((n) => document.querySelectorAll('section[aria-labelledby=jobs-h] h3').length > n, before, { timeout: 30_000 });
    await page.locator('section[aria-labelledby=jobs-h] h3', { hasText: 'Completed' }).last().waitFor({ timeout: 60_000 });
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, 'backoffice-project-phone');
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('Settings > Project statuses: errors beside fields, a new final status with its swatch, a transition, the 409 reason', async () => {
    await page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'Project statuses' }).click();
    await page.waitForURL(`${baseUrl}/admin/statuses`);
    await page.getByRole('button', { name: 'Add status' }).click();
    expect(await page.locator('#status-code-error').textContent()).toBe('Enter a whole number.');
    expect(await page.locator('#status-name-error').textContent()).toBe('Enter a name.');
    expect(await page.locator('#status-code').getAttribute('aria-invalid')).toBe('true');
    const code = String(100 + (Date.now() % 100_000)); // unique when run again against one server
    await page.locator('#status-code').fill(code);
    await page.locator('#status-name').fill('Shipped');
    await page.locator('#status-color').fill('#16a34a');
    await page.getByLabel(/Final/).check();
    await page.getByRole('button', { name: 'Add status' }).click();
    await page.locator('.banner', { hasText: 'Status "Shipped" added.' }).waitFor();
    const row = page.locator('tr', { has: page.getByRole('cell', { name: code, exact: true }) });
    expect(await row.getByRole('img', { name: 'colour #16a34a' }).count()).toBe(1);
    expect(await row.textContent()).toContain('Final');
    // The same code again: the platform's 409 reason beside the field.
    await page.locator('#status-code').fill(code);
    await page.locator('#status-name').fill('Shipped twice');
    await page.getByRole('button', { name: 'Add status' }).click();
    expect(await page.locator('#status-code-error').textContent()).toContain('already exists');

    await page.locator('#status-name').fill('');
    await page.locator('#transition-name').fill(`ship-${code}`);
    await page.locator('#transition-display').fill(`Ship ${code}`);
    await page.locator('#transition-startStatus').selectOption({ label: 'Completed' });
    await page.locator('#transition-resultStatus').selectOption(code);
    await page.getByRole('button', { name: 'Add transition' }).click();
    await page.waitForURL(`${baseUrl}/admin/statuses`);
    await page.locator('.banner', { hasText: `Transition "ship-${code}" added.` }).waitFor();
    expect(await page.getByRole('row', { name: new RegExp(`Ship ${code}`) }).textContent()).toContain('Completed → Shipped');
    // The project (now Completed) offers it.
    await page.goto(`${baseUrl}/admin/projects/${projectId}`);
    expect(await page.getByRole('button', { name: `Ship ${code}` }).count()).toBe(1);

    await page.goto(`${baseUrl}/admin/statuses`);
    await page.getByRole('button', { name: 'Delete "New"' }).click();
    expect(await page.getByRole('alert').first().textContent()).toContain('The initial status cannot be deleted');
    await screenshot(page, 'backoffice-statuses');
  });

  it('Settings > Secrets are write-only', async () => {
    await page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'Secrets' }).click();
    await page.waitForURL(`${baseUrl}/admin/secrets`);
    await page.getByLabel('Name').fill('bad name!');
    await page.getByRole('button', { name: 'Save secret' }).click();
    expect(await page.locator('#secret-name-error').textContent()).toContain('1–64 characters');
    expect(await page.locator('#secret-value-error').textContent()).toBe('Enter the value.');
    await page.getByLabel('Name').fill('FTP_PASSWORD');
    await page.getByLabel('Value').fill('s3cret-value-xyz');
    await page.getByRole('button', { name: 'Save secret' }).click();
    await page.waitForURL(`${baseUrl}/admin/secrets`);
    expect(await page.getByRole('cell', { name: 'FTP_PASSWORD', exact: true }).count()).toBe(1);
    expect(await page.content()).not.toContain('s3cret-value-xyz');
    await screenshot(page, 'backoffice-secrets');
    await page.getByRole('button', { name: 'Delete FTP_PASSWORD' }).click();
    await page.waitForURL(`${baseUrl}/admin/secrets`);
    expect(await page.getByRole('cell', { name: 'FTP_PASSWORD', exact: true }).count()).toBe(0);
  });

  it('Pipelines: the validator error is shown next to its line, then a valid pipeline saves and dry-runs against the Demo card', async () => {
    await page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'Pipelines' }).click();
    await page.waitForURL(`${baseUrl}/admin/pipelines`);
    // The demo pipeline 1 among the seeded ones (pipeline 101 of the demo products also renders hires).
    expect(await page.getByRole('row', { name: /extract-project-design → render-hires → finalize/ }).count()).toBeGreaterThan(0);
    await page.getByRole('link', { name: 'New pipeline' }).click();
    const name = `Walk ${Date.now()}`;
    await page.getByLabel('Name').fill(name);
    const valid = await page.getByLabel('Pipeline JSON').inputValue();
    // Line 4 names a task type that does not exist.
    await page.getByLabel('Pipeline JSON').fill(valid.replace('"type": "render-hires"', '"type": "render-everything"'));
    await page.getByRole('button', { name: 'Save pipeline' }).click();
    const problem = page.getByRole('alert', { name: 'Problems by line' }).locator('tr[data-line]');
    expect(await problem.count()).toBe(1);
    expect(await problem.getAttribute('data-line')).toBe('4');
    expect(await problem.textContent()).toContain('tasks[1].type');
    expect(await problem.textContent()).toContain('render-everything');
    await screenshot(page, 'backoffice-pipeline-error');
    await page.getByLabel('Pipeline JSON').fill(valid);
    await page.getByRole('button', { name: 'Save pipeline' }).click();
    await page.waitForURL(/\/admin\/pipelines\/\d+$/);
    expect(await page.getByRole('status').first().textContent()).toContain('saved');
    await page.getByLabel('Dry run against product').selectOption({ label: 'Demo card' });
    await page.getByRole('button', { name: 'Dry run' }).click();
    const notes = (await page.getByRole('status').last().textContent()) ?? '';
    expect(notes).toContain('valid');
    expect(notes).toContain('Demo card');
    expect(notes).toContain('1 design connection');
  });

  it('Products: search finds the Demo card; its page shows variants, connections and the storefront reference', async () => {
    await page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'Products' }).click();
    await page.waitForURL(`${baseUrl}/admin/products`);
    await page.getByLabel('Search products').fill('demo');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/search=demo/);
    await page.getByRole('link', { name: 'Demo card' }).click();
    await page.waitForURL(/\/admin\/products\/\d+$/);
    const main = (await page.locator('main').textContent()) ?? '';
    expect(main).toContain('DEMO-CARD-MATTE');
    expect(main).toContain('Paper: Matte');
    expect(main).toContain('Demo card design (front)');
    expect(main).toContain('Demo mockup');
    expect(main).toContain('demo-card');
    await screenshot(page, 'backoffice-product');
  });
});
