// The back-office walk in real Chromium (issue 13, "Proof"): sign in → upload a PSD on the Assets
// page (file picker with progress, then drag and drop) → create a pipeline (an error shown next
// to its line first, then valid) → a product with a design connection and a storefront
// reference → a project through the storefront API → Completed on its page → the PDF downloads
// → a transition applies. Screenshots go to test-results/backoffice-walk/.
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { backendApi, DEMO, launch, signInToAdmin, type ApiCall } from './chromium.js';

const baseUrl = inject('workerUrl');
const repo = path.resolve(import.meta.dirname, '../..');
const PSD = path.join(repo, 'test/fixtures/psd/psdtools-text.psd');
const SHOTS = path.join(repo, 'test-results/backoffice-walk');
// Unique per run, so the walk can run again against one server (BROWSER_TEST_BASE_URL).
const run = Date.now().toString(36);

let browser: Browser;
let page: Page;
let api: ApiCall;
const walk = { folder: `Walk ${run}`, designId: '', pipelineId: 0, productId: 0, reference: `walk-card-${run}`, projectId: 0 };

async function shot(name: string) {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
}

beforeAll(async () => {
  api = await backendApi(baseUrl);
  browser = await launch();
  page = await (await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true })).newPage();
  // Cold renders (the first thumbnail, the first compile of a PSD) on a loaded 2-core machine.
  page.setDefaultTimeout(60_000);
  page.setDefaultNavigationTimeout(90_000);
});
afterAll(async () => {
  await browser?.close();
});

describe('the back-office walk', () => {
  it('signs in and opens Back office > Assets', async () => {
    await signInToAdmin(page, baseUrl, DEMO.admin.email, DEMO.admin.password);
    await page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'Assets' }).click();
    await page.waitForURL(`${baseUrl}/admin/assets/designs`);
    // The demo seed's design sits in /demo/.
    expect(await page.getByRole('navigation', { name: 'Folders' }).getByRole('link', { name: 'demo' }).count()).toBe(1);
  });

  it('makes a folder (a blank name is refused beside the field) and uploads a PSD with the file picker, showing progress', async () => {
    await page.getByRole('button', { name: 'Create folder' }).click();
    expect(await page.locator('#folder-name-error').textContent()).toContain('blank');
    expect(await page.locator('#folder-name').getAttribute('aria-invalid')).toBe('true');
    // By keyboard: from the skip link, Tab to the new folder's name, type it, Enter submits.
    await page.goto(`${baseUrl}/admin/assets/designs`);
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter'); // skip to content
    for (let i = 0; i < 80 && (await page.evaluate(() => document.activeElement?.id)) !== 'folder-name'; i++) await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('folder-name');
    await page.keyboard.type(walk.folder);
    await page.keyboard.press('Enter');
    await page.locator('.banner', { hasText: `Folder /${walk.folder}/ created.` }).waitFor();

    await page.getByLabel(/^Upload designs to/).setInputFiles(PSD);
    // The page's script reports progress while the XHR sends, then reloads with a banner.
    const progress: string[] = [];
    await page.exposeFunction('walkProgress', (t: string) => progress.push(t));
    await page.evaluate(() => {
      const status = document.getElementById('upload-status')!;
      new MutationObserver(() => (window as unknown as { walkProgress: (t: string) => void }).walkProgress(status.textContent ?? '')).observe(status, { childList: true, characterData: true, subtree: true });
    });
    await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Upload', exact: true }).click()]);
    await page.locator('.banner', { hasText: 'Uploaded "psdtools-text".' }).waitFor();
    expect(progress.some((t) => /Uploading psdtools-text\.psd: \d+%/.test(t))).toBe(true);
    const link = page.getByRole('link', { name: 'psdtools-text', exact: true });
    walk.designId = decodeURIComponent(((await link.getAttribute('href')) ?? '').split('/').pop()!);
    expect(walk.designId).not.toBe('');
    // Its thumbnail is drawn by the renderer.
    await page.waitForFunction((id) => {
      const img = document.querySelector<HTMLImageElement>(`img[src$="/designs/${id}/thumbnail"]`);
      return !!img && img.complete && img.naturalWidth > 0;
    }, walk.designId, { timeout: 60_000 });
    await shot('01-assets-uploaded');
    await page.setViewportSize({ width: 390, height: 844 });
    await shot('01-assets-phone');
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('uploads a second file by drag and drop; the same name again is refused with the 409 reason', async () => {
    // A drop event carrying the PSD, as the browser sends one when a file is dragged in.
    const drop = async (name: string) =>
      page.evaluate(
        async ({ id, name }) => {
          const bytes = await (await fetch(`/admin/assets/designs/${encodeURIComponent(id)}/file`)).arrayBuffer();
          const data = new DataTransfer();
          data.items.add(new File([bytes], name, { type: 'image/vnd.adobe.photoshop' }));
          document.getElementById('drop-zone')!.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
        },
        { id: walk.designId, name },
      );
    await Promise.all([page.waitForEvent('load'), drop('dropped card.psd')]);
    await page.locator('.banner', { hasText: 'Uploaded "dropped card".' }).waitFor();
    await drop('dropped card.psd');
    const error = page.locator('#upload-file-live');
    await error.filter({ hasText: 'already exists' }).waitFor();
    expect(await error.textContent()).toContain('dropped card.psd: A design named "dropped card" already exists in this folder.');
    expect(await page.locator('#upload-file').getAttribute('aria-invalid')).toBe('true');
    await shot('02-assets-drop-409');
  });

  it("opens the design's page: variables and missing fonts; renames it and edits its custom fields", async () => {
    await page.getByRole('link', { name: 'psdtools-text', exact: true }).click();
    await page.waitForURL(`${baseUrl}/admin/assets/designs/${encodeURIComponent(walk.designId)}`);
    const vars = page.locator('section[aria-labelledby=vars-h] tbody tr');
    expect(await vars.count()).toBeGreaterThan(0);
    expect(await vars.first().locator('td').nth(1).textContent()).toBe('Text');
    expect(await page.locator('section[aria-labelledby=fonts-h]').textContent()).toMatch(/missing font|All fonts found/);
    await page.getByLabel('Custom fields (JSON object)').fill('{"side": ');
    await page.getByRole('button', { name: 'Save custom fields' }).click();
    expect(await page.locator('#asset-fields-error').textContent()).toMatch(/^Not JSON/);
    await page.getByLabel('Custom fields (JSON object)').fill('{"side": "front"}');
    await page.getByRole('button', { name: 'Save custom fields' }).click();
    await page.locator('.banner', { hasText: 'Custom fields saved.' }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill(`Walk card ${run}`);
    await page.getByRole('button', { name: 'Rename' }).click();
    await page.locator('.banner', { hasText: `Renamed to "Walk card ${run}".` }).waitFor();
    await page.getByLabel('To folder').selectOption({ label: 'Root (/)' });
    await page.getByRole('button', { name: 'Move' }).click();
    await page.locator('.banner', { hasText: 'Moved to /.' }).waitFor();
    await shot('03-design-page');
    await page.setViewportSize({ width: 390, height: 844 });
    await shot('03-design-page-phone');
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('creates a pipeline: the validator error is shown next to its line, then the valid one saves', async () => {
    await page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'Pipelines' }).click();
    await page.getByRole('link', { name: 'New pipeline' }).click();
    await page.getByLabel('Name').fill(`Walk pipeline ${run}`);
    const valid = await page.getByLabel('Pipeline JSON').inputValue();
    await page.getByLabel('Pipeline JSON').fill(valid.replace('"hiResOutputDpi": 300', '"hiResOutputDpi": "high"'));
    await page.getByRole('button', { name: 'Save pipeline' }).click();
    const problem = page.getByRole('alert', { name: 'Problems by line' }).locator('tr[data-line]');
    expect(await problem.count()).toBe(1);
    expect(await problem.getAttribute('data-line')).toBe('5');
    expect(await problem.textContent()).toContain('hiResOutputDpi');
    await shot('04-pipeline-error');
    await page.getByLabel('Pipeline JSON').fill(valid);
    await page.getByRole('button', { name: 'Save pipeline' }).click();
    await page.waitForURL(/\/admin\/pipelines\/\d+$/);
    walk.pipelineId = Number(page.url().split('/').pop());
    expect(await page.getByRole('status').first().textContent()).toContain('saved');
  });

  it('creates a product on the Products page, connects the design (picked with its thumbnail) and adds a storefront reference', async () => {
    await page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'Products' }).click();
    await page.getByRole('link', { name: 'New product' }).click();
    await page.locator('#product-name').fill(`Walk product ${run}`);
    await page.locator('#product-description').fill('Made by the back-office walk.');
    await page.locator('#product-pipeline').selectOption({ label: `Walk pipeline ${run}` });
    await page.getByRole('button', { name: 'Create product' }).click();
    await page.waitForURL(/\/admin\/products\/\d+$/);
    walk.productId = Number(page.url().split('/').pop());

    await page.getByRole('radiogroup', { name: 'Designs in storage' }).getByRole('radio', { name: new RegExp(`Walk card ${run}`) }).check();
    await page.locator('#design-group').fill('front');
    await page.getByRole('button', { name: 'Connect design' }).click();
    await page.waitForURL(`${baseUrl}/admin/products/${walk.productId}`);
    expect(await page.getByRole('button', { name: `Disconnect Walk card ${run}` }).count()).toBe(1);

    await page.locator('#reference-storefront').selectOption({ label: 'Demo storefront' });
    await page.locator('#reference-name').fill(walk.reference);
    await page.locator('#reference-title').fill(`Walk product ${run}`);
    await page.getByRole('button', { name: 'Add reference' }).click();
    await page.waitForURL(`${baseUrl}/admin/products/${walk.productId}`);
    expect((await page.locator('main').textContent()) ?? '').toContain(walk.reference);
    // What the storefront API now serves for the reference: this product, with the design.
    const ref = await api('GET', `/api/backoffice/v1/product-references/${walk.reference}?storefrontId=1`);
    expect(ref.body.productId).toBe(walk.productId);
    const designs = await api('GET', `/api/storefront/v1/products/${walk.productId}/variant-designs`);
    expect(designs.body.items.map((d: { designId: string }) => d.designId)).toContain(walk.designId);
    await shot('05-product');
  });

  it('a project created through the storefront API reaches Completed on its page, and its PDF downloads', async () => {
    const created = await api('POST', '/api/storefront/v1/projects/with-single-item?storefrontId=1', {
      ownerId: 'shopper-walk',
      productReference: walk.reference,
      orderId: `walk-${run}`,
      orderLineItemIndex: 0,
      orderNumber: 1913,
      orderName: `Walk order ${run}`,
      item: { quantity: 100, fields: { Name: 'Ada Lovelace' } },
    });
    const body = created.body as { id: number };
    expect(created.status, JSON.stringify(body)).toBe(201);
    walk.projectId = body.id;

    await page.goto(`${baseUrl}/admin/projects/${walk.projectId}`);
    await page.locator('section[aria-labelledby=jobs-h] h3', { hasText: 'Completed' }).first().waitFor({ timeout: 90_000 });
    const rows = page.locator('section[aria-labelledby=jobs-h] tbody tr');
    expect(await rows.count()).toBe(3);
    expect(await rows.nth(1).locator('td').nth(1).textContent()).toBe('Completed');
    expect((await page.locator('main').textContent()) ?? '').toContain('1913');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: /\.pdf$/ }).first().click()]);
    expect(readFileSync((await download.path())!).subarray(0, 5).toString()).toBe('%PDF-');
    await shot('06-project-completed');
  });

  it('applies a transition with its button', async () => {
    await page.getByRole('button', { name: 'Start production' }).click();
    await page.waitForURL(`${baseUrl}/admin/projects/${walk.projectId}`);
    expect(await page.getByRole('status').first().textContent()).toContain('start-production');
    expect(await page.locator('section[aria-labelledby=status-h]').textContent()).toContain('In production');
    await shot('07-transition-applied');
  });
});
