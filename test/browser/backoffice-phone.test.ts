// Every admin page on a phone (issue 24, "The back office"): at 390 × 844 no page scrolls
// sideways; wide tables turn into cards or scroll inside their own box. Signs in as the demo
// admin, makes one project through the storefront API (so the project page has jobs, items and
// order data) and one product with wide option data (long option and value titles, several
// variants, a design bound to some of them), so the product page's tables are measured whatever
// other suites did before, and measures each page's width. Screenshots go to test-results/backoffice-phone/.
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { backendApi, DEMO, launch, signInToAdmin, tokenRequest } from './chromium.js';

const baseUrl = inject('workerUrl');
const SHOTS = path.resolve(import.meta.dirname, '../../test-results/backoffice-phone');
const PHONE = { width: 390, height: 844 };

let browser: Browser;
let page: Page;
let projectId = 0;
let productId = 0;

/** The first link under /admin/<section>/<number> on the list page: one seeded pipeline or product. */
async function firstDetail(section: string): Promise<string> {
  await page.goto(`${baseUrl}/admin/${section}`);
  const href = await page.locator(`main a[href^="/admin/${section}/"]`).evaluateAll((links, section) => {
    const pattern = new RegExp(`^/admin/${section}/\\d+$`);
    return links.map((a) => a.getAttribute('href') ?? '').find((h) => pattern.test(h)) ?? '';
  }, section);
  expect(href, `a seeded item on /admin/${section}`).not.toBe('');
  return href;
}

/** The page's width as the browser lays it out; above the viewport means it scrolls sideways. */
async function widthOf(url: string, name: string): Promise<number> {
  await page.goto(`${baseUrl}${url}`);
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  if (width > PHONE.width) wideElements[url] = await widest();
  return width;
}

/** The innermost elements that reach past the right edge: what to fix when a page is too wide. */
const widest = () =>
  page.evaluate(() =>
    Array.from(document.querySelectorAll('main *'))
      .filter((e) => e.getBoundingClientRect().right > innerWidth + 1 && !Array.from(e.children).some((c) => c.getBoundingClientRect().right > innerWidth + 1))
      .slice(0, 6)
      .map((e) => `${e.tagName.toLowerCase()}${e.className ? `.${String(e.className).replace(/ /g, '.')}` : ''} → ${Math.round(e.getBoundingClientRect().right)}`),
  );
const wideElements: Record<string, string[]> = {};

beforeAll(async () => {
  const api = await backendApi(baseUrl, '/api/storefront/v1');
  const created = await api('POST', '/projects/with-single-item?storefrontId=1', {
    ownerId: 'shopper-phone',
    productReference: 'demo-card',
    orderId: `phone-${Date.now()}`,
    orderLineItemIndex: 0,
    orderNumber: 390,
    orderName: 'Phone width check',
    item: { quantity: 50, designIds: ['demo-card-design'], fields: { Name: 'Katherine Johnson' } },
  });
  expect(created.status).toBe(201);
  projectId = created.body.id;
  await api('POST', `/projects/${projectId}/order-data`, [{ key: 'Shipping', value: 'Standard, to a rather long address line' }]);

  // A product whose option tables are as wide as a real catalogue's: long titles, six variants
  // with long SKUs, and a design bound to some of the variants (its binding text in the table).
  // A design in storage with an id and a name as long as storage allows one word to be: every
  // product page offers it in its "Connect a design" choices.
  const token = String((await tokenRequest(baseUrl, { grant_type: 'client_credentials', client_id: 'demo-backend', client_secret: 'demo-backend-secret' })).body.access_token);
  const form = new FormData();
  form.append('file', new Blob([readFileSync(path.resolve(import.meta.dirname, '../fixtures/psd/psdtools-text.psd'))]), 'card.psd');
  form.append('id', `phone-${Date.now()}-${'x'.repeat(64)}`.slice(0, 64));
  form.append('name', 'Business_card_front_side_with_a_very_long_file_name_from_the_designer_v12_final');
  const uploaded = await fetch(`${baseUrl}/api/storage/v1/designs`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  expect(uploaded.status, await uploaded.clone().text()).toBe(201);

  const backoffice = await backendApi(baseUrl, '/api/backoffice/v1');
  const product = await backoffice('POST', '/products', {
    name: 'Phone width product with long option titles',
    description: 'Seeded by the phone-width check.',
    options: [
      {
        title: 'Paper stock and weight',
        useForDesignBinding: true,
        values: [
          { title: 'Matte 350 g/m² uncoated recycled', isDefault: true },
          { title: 'Gloss 400 g/m² silk laminated on both sides' },
          { title: 'Premium cotton 600 g/m² with painted edges' },
        ],
      },
      { title: 'Corner finish', values: [{ title: 'Square', isDefault: true }, { title: 'Rounded with a 3 mm radius' }] },
    ],
  });
  expect(product.status, JSON.stringify(product.body)).toBe(200);
  productId = product.body.id;
  const options = await backoffice('GET', `/products/${productId}/options`);
  const paper = options.body.items.find((o: { title: string }) => o.title === 'Paper stock and weight');
  const bound = await backoffice('POST', `/products/${productId}/design-connections`, {
    connections: [{ designId: 'demo-card-design', designGroup: 'front side of the card', options: [{ optionUID: paper.uid, optionValueUIDs: paper.productOptionValues.slice(0, 2).map((v: { uid: string }) => v.uid) }] }],
  });
  expect(bound.status, JSON.stringify(bound.body)).toBe(200);
  const variants = await backoffice('GET', `/products/${productId}/variants`);
  const skus = await backoffice(
    'POST',
    `/products/${productId}/set-variant-sku`,
    variants.body.items.map((v: { id: number }) => ({ productVariantId: v.id, value: `PHONE-WIDTH-BUSINESS-CARD-${v.id}-PREMIUM` })),
  );
  expect(skus.status, JSON.stringify(skus.body)).toBeLessThan(300);

  browser = await launch();
  page = await (await browser.newContext({ viewport: PHONE })).newPage();
  page.setDefaultTimeout(60_000);
  page.setDefaultNavigationTimeout(90_000);
  await signInToAdmin(page, baseUrl, DEMO.admin.email, DEMO.admin.password);
});
afterAll(async () => {
  await browser?.close();
});

describe('every admin page at 390 × 844', () => {
  it('the project page, once its job completed, is no wider than the phone', async () => {
    await page.goto(`${baseUrl}/admin/projects/${projectId}`);
    await page.locator('section[aria-labelledby=jobs-h] h3', { hasText: 'Completed' }).first().waitFor({ timeout: 90_000 });
    const url = `/admin/projects/${projectId}`;
    expect(await widthOf(url, 'project'), JSON.stringify(wideElements[url])).toBeLessThanOrEqual(PHONE.width);
  });

  it('no other page scrolls sideways', async () => {
    const pages: [string, string][] = [
      ['dashboard', '/admin'],
      ['apps', '/admin/apps'],
      ['users', '/admin/users'],
      ['tenant', '/admin/tenant'],
      ['projects', '/admin/projects'],
      ['pipelines', '/admin/pipelines'],
      ['pipeline-new', '/admin/pipelines/new'],
      ['pipeline', await firstDetail('pipelines')],
      ['products', '/admin/products'],
      ['product-first', await firstDetail('products')],
      ['product', `/admin/products/${productId}`],
      ['assets-designs', '/admin/assets/designs'],
      ['assets-mockups', '/admin/assets/mockups'],
      ['assets-images', '/admin/assets/images'],
      ['assets-fonts', '/admin/assets/fonts'],
      ['design', '/admin/assets/designs/demo-card-design'],
      ['statuses', '/admin/statuses'],
      ['secrets', '/admin/secrets'],
      ['webhooks', '/admin/webhooks'],
    ];
    const widths: Record<string, number> = {};
    for (const [name, url] of pages) widths[`${name} ${url}`] = await widthOf(url, name);
    const tooWide = Object.entries(widths).filter(([, w]) => w > PHONE.width);
    expect(tooWide, JSON.stringify({ widths, wideElements }, null, 1)).toEqual([]);
  });
});
