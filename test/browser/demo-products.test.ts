// The demo products' tour (issue 24 §1, docs/demo.md) in real Chromium, on desktop (1280) and
// phone (390) widths, writing the README's screenshots docs/demo-*.png:
//   1. the storefront sells them: reference `business-card` → product 101 with six variants
//      (paper × quantity), its design and two mockups, and no design flagged "missing fonts";
//      preflight of the card: a long name shrinks (warning), a far too long one does not fit (error);
//   2. a gallery a storefront builds from the Dynamic Image API: the personalised card, the card
//      placed on the desk and the mug mockups and the flyer on its table (perspective smart objects);
//   3. an order line → project → pipeline 101 (CMYK PDF/X-4 print file, SRA3 imposition,
//      finalize) → Completed with both PDFs, whose first pages are drawn to PNG by pdftoppm;
//   4. the back office: the product page and the project page, signed in as the demo admin;
//   5. the demo shop (`npm run demo:client`, /shop): the card as the shopper types, and on the desk.
import { execFileSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { backendApi, DEMO, launch, signInToAdmin, type ApiCall } from './chromium.js';
import { startDemoShop } from './demo-shop.js';

const baseUrl = inject('workerUrl');
const DOCS = path.resolve(import.meta.dirname, '../../docs');
const DESKTOP = { width: 1280, height: 860 };
const PHONE = { width: 390, height: 844 };
/**
 * The card's fields by layer name without its copyfitting markers (the layer "Name <TOS_fitToBox>
 * <MW_550> <FMIN_29> <REQ>" answers "Name" too), as a storefront sends them.
 */
const fields = { Name: 'Jordan Lee', Title: 'Studio Manager' };

let browser: Browser;
let storefront: ApiCall;
let storage: ApiCall;
let projectId = 0;
let demo: ChildProcess | undefined;
const tmp = mkdtempSync(path.join(os.tmpdir(), 'demo-products-'));

async function pageAt(viewport: { width: number; height: number }): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport, deviceScaleFactor: 1 });
  return { context, page: await context.newPage() };
}

/**
 * The page as docs/demo-<name>.png (its full height); `fits`: and it does not scroll sideways
 * (the back office's pages are measured at 390 px by backoffice-phone.test.ts).
 */
async function shot(page: Page, name: string, fits = true): Promise<void> {
  mkdirSync(DOCS, { recursive: true });
  // Lazy thumbnails (the back office's) load now, not only once scrolled to.
  await page.evaluate(async () => {
    const images = Array.from(document.images);
    for (const img of images) img.loading = 'eager';
    const pending = images.filter((img) => !img.complete);
    await Promise.all(pending.map((img) => new Promise((done) => {
      img.addEventListener('load', done, { once: true });
      img.addEventListener('error', done, { once: true });
    })));
  });
  await page.screenshot({ path: path.join(DOCS, `demo-${name}.png`), fullPage: true });
  if (!fits) return;
  const { scroll, width } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, width: innerWidth }));
  expect(scroll, `${name} scrolls sideways`).toBeLessThanOrEqual(width);
}

/** POST a rendering request; the result's URL. */
async function render(kind: 'preview' | 'hires', body: unknown): Promise<string> {
  const res = await fetch(`${baseUrl}/api/rendering/${kind}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status, await res.clone().text()).toBe(200);
  return String(await res.json());
}

beforeAll(async () => {
  browser = await launch();
  storefront = await backendApi(baseUrl, '/api/storefront/v1');
  storage = await backendApi(baseUrl, '/api/storage/v1');
});
afterAll(async () => {
  await browser?.close();
  demo?.kill('SIGTERM');
});

/** The demo shop against this suite's Worker; its base URL once /shop answers. */
async function startShop(): Promise<string> {
  const shop = await startDemoShop(baseUrl);
  demo = shop.process;
  return shop.url;
}

describe('demo products (issue 24 §1)', () => {
  it('the storefront sells the business card: six variants, its design and two mockups, no missing fonts', async () => {
    const ref = await storefront('GET', '/product-references/business-card/product?storefrontId=1');
    expect(ref.status).toBe(200);
    expect(ref.body.id).toBe(101);
    const variants = await storefront('GET', '/products/101/variants');
    expect(variants.body.items.map((v: { sku: string }) => v.sku)).toEqual(['CARD-MATTE-100', 'CARD-MATTE-250', 'CARD-MATTE-500', 'CARD-GLOSS-100', 'CARD-GLOSS-250', 'CARD-GLOSS-500']);
    const mockups = await storefront('GET', '/products/101/variant-mockups');
    expect(new Set(mockups.body.items.map((m: { mockupId: string }) => m.mockupId))).toEqual(new Set(['demo-mockup-desk', 'demo-mockup-mug']));
    const flyerMockups = await storefront('GET', '/products/102/variant-mockups');
    expect(new Set(flyerMockups.body.items.map((m: { mockupId: string }) => m.mockupId))).toEqual(new Set(['demo-mockup-flyer']));
    for (const id of ['demo-business-card-design', 'demo-flyer-design']) {
      const design = await storage('GET', `/designs/${id}`);
      expect(design.status).toBe(200);
      expect(design.body.hasProblems, `${id} has missing fonts`).toBe(false);
      expect(design.body.metadata.fonts.every((f: { family: string | null }) => f.family)).toBe(true);
    }
  });

  it('preflight: the name shrinks to fit, a name too long even at 7 pt is an error, a small photo a warning', async () => {
    const check = async (data: Record<string, unknown>) => {
      const res = await fetch(`${baseUrl}/api/rendering/preflight`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ template: 'demo/demo-business-card', data }),
      });
      expect(res.status).toBe(200);
      return (await res.json()) as { ok: boolean; problems: Array<{ layer: string; code: string; severity: string }> };
    };
    const preflight = (name: string) => check({ Name: { type: 'text', text: name } });
    expect(await preflight('Jordan Lee')).toEqual({ ok: true, problems: [] });
    const shrunk = await preflight('Alexandra Featherstonehaugh');
    expect(shrunk.ok).toBe(true);
    expect(shrunk.problems.map((p) => [p.layer, p.code, p.severity])).toEqual([['Name', 'textShrunk', 'warning']]);
    const long = await preflight('Maximilian Alexander Featherstonehaugh-Smythe of Wimbledon');
    expect(long.ok).toBe(false);
    expect(long.problems.map((p) => [p.layer, p.code])).toContainEqual(['Name', 'textOverflow']);
    // A 240 × 161 px picture filling the 300 px (1 in) photo frame prints at 161 ppi: a warning below 200.
    const small = await render('preview', { template: 'demo/demo-business-card', format: 'png', size: { width: 240, height: 240 } });
    const photo = await check({ Photo: { type: 'image', image: small, resizeMode: 'fill' } });
    expect(photo.problems.map((p) => [p.layer, p.code, p.severity])).toContainEqual(['Photo', 'lowResolution', 'warning']);
  });

  it('a storefront gallery from the rendering API: the card, on a desk and on a mug, the flyer on a table (desktop and phone)', async () => {
    const card = await render('preview', { template: 'demo/demo-business-card', format: 'png', size: { width: 1075, height: 720 }, data: Object.fromEntries(Object.entries(fields).map(([k, text]) => [k, { type: 'text', text }])) });
    const onMockup = (template: string, layer: string, art: string) =>
      render('preview', { template, format: 'jpg', size: { width: 1200, height: 1200 }, data: { [layer]: { type: 'image', image: art, resizeMode: 'fill' } } });
    const flyerArt = await render('preview', { template: 'demo/demo-flyer-a5', format: 'png', size: { width: 640, height: 900 }, data: { Headline: { type: 'text', text: 'Open Day' } } });
    const [desk, mug, flyer] = await Promise.all([
      onMockup('demo/demo-mockup-desk', 'Card', card),
      onMockup('demo/demo-mockup-mug', 'Print area', card),
      onMockup('demo/demo-mockup-flyer', 'Flyer', flyerArt),
    ]);
    const html = `<!doctype html><meta name="viewport" content="width=device-width, initial-scale=1"><title>Demo products</title>
<style>body{margin:0;font:16px/1.4 system-ui,sans-serif;color:#222831;background:#f4f1ea}main{max-width:1200px;margin:0 auto;padding:24px}
h1{font-size:28px;margin:0 0 4px}p{margin:0 0 20px;color:#58626e}.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(300px,1fr));gap:20px}
figure{margin:0;background:#fff;border-radius:10px;padding:12px;box-shadow:0 1px 3px #0002}img{width:100%;display:block;border-radius:6px}figcaption{padding-top:8px;font-weight:600}</style>
<main><h1>Business card and flyer, personalised</h1><p>Previews by the Dynamic Image API: the card as "Jordan Lee, Studio Manager" and the flyer's headline "Open Day", placed into the mockups' smart objects.</p>
<div class="grid"><figure><img src="${card}" alt="The business card"><figcaption>Business card (85 × 55 mm)</figcaption></figure>
<figure><img src="${desk}" alt="The card on a desk"><figcaption>On a desk</figcaption></figure>
<figure><img src="${mug}" alt="The card on a mug"><figcaption>On a mug</figcaption></figure>
<figure><img src="${flyer}" alt="The A5 flyer on a table"><figcaption>A5 flyer (148 × 210 mm), on a table</figcaption></figure></div></main>`;
    for (const [viewport, name] of [[DESKTOP, 'mockups'], [PHONE, 'mockups-phone']] as const) {
      const { context, page } = await pageAt(viewport);
      await page.setContent(html, { waitUntil: 'load' });
      const loaded = await page.locator('img').evaluateAll((imgs) => imgs.map((i) => (i as HTMLImageElement).naturalWidth));
      expect(loaded.every((w) => w > 0), 'every preview loaded').toBe(true);
      await shot(page, name);
      await context.close();
    }
  });

  it('an order becomes a CMYK PDF/X-4 print file and imposed SRA3 sheets (pipeline 101)', async () => {
    const created = await storefront('POST', '/projects/with-single-item?storefrontId=1', {
      ownerId: 'demo-customer', productReference: 'business-card', orderId: `demo-tour-${Date.now()}`, orderLineItemIndex: 0,
      orderNumber: 2001, orderName: 'Order 2001', item: { designIds: ['demo-business-card-design'], quantity: 250, fields },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    projectId = created.body.id;
    let results: { status: string; outputFileDetails: Array<{ name: string; url: string }> } = { status: '', outputFileDetails: [] };
    for (let i = 0; i < 180 && results.status !== 'Completed' && results.status !== 'Failed'; i++) {
      await new Promise((r) => setTimeout(r, 1000));
      results = (await storefront('GET', `/projects/${projectId}/processing-results`)).body;
    }
    expect(results.status, JSON.stringify(results)).toBe('Completed');
    expect(results.outputFileDetails.map((f) => f.name).sort()).toEqual(['Business card.pdf', 'imposition.pdf']);
    const token = (await (await fetch(`${baseUrl}/connect/token`, { method: 'POST', body: new URLSearchParams({ grant_type: 'client_credentials', client_id: 'demo-backend', client_secret: 'demo-backend-secret' }) })).json()) as { access_token: string };
    for (const f of results.outputFileDetails) {
      const pdf = path.join(tmp, f.name.replace(/ /g, '-'));
      writeFileSync(pdf, Buffer.from(await (await fetch(f.url, { headers: { authorization: `Bearer ${token.access_token}` } })).arrayBuffer()));
      const head = readFileSync(pdf).subarray(0, 8).toString('latin1');
      expect(head).toMatch(/^%PDF-1\.[4-7]/);
      const png = path.join(DOCS, f.name === 'imposition.pdf' ? 'demo-sheet' : 'demo-print');
      execFileSync('pdftoppm', ['-png', '-singlefile', '-f', '1', '-l', '1', '-scale-to', f.name === 'imposition.pdf' ? '900' : '1000', pdf, png]);
    }
    const print = readFileSync(path.join(tmp, 'Business-card.pdf')).toString('latin1');
    expect(print).toContain('/GTS_PDFX');
    expect(execFileSync('gs', ['-q', '-o', '-', '-sDEVICE=inkcov', path.join(tmp, 'Business-card.pdf')], { encoding: 'utf8' })).toMatch(/CMYK OK/);
  }, 240_000);

  it('the demo shop sells the card: typed into, previewed, and on the desk (desktop and phone)', async () => {
    const shopUrl = await startShop();
    for (const [viewport, suffix] of [[DESKTOP, ''], [PHONE, '-phone']] as const) {
      const { context, page } = await pageAt(viewport);
      await page.goto(`${shopUrl}/shop`);
      await page.getByLabel('Name', { exact: true }).waitFor();
      expect(await page.locator('h1').textContent()).toBe('Business card');
      const shown = () => page.evaluate(() => (window as unknown as { previewLatencies: number[] }).previewLatencies.length);
      await expect.poll(shown, { timeout: 60_000 }).toBeGreaterThanOrEqual(1);
      const before = await shown();
      await page.getByLabel('Name', { exact: true }).fill(fields.Name);
      await page.getByLabel('Title', { exact: true }).fill(fields.Title);
      await expect.poll(shown, { timeout: 30_000 }).toBeGreaterThan(before);
      await page.waitForFunction(() => !document.querySelector('#preview')?.classList.contains('busy'), null, { timeout: 30_000 });
      await shot(page, `shop${suffix}`);
      if (!suffix) {
        const views = await shown();
        await page.getByRole('button', { name: 'Card on a desk' }).click();
        await expect.poll(shown, { timeout: 30_000 }).toBeGreaterThan(views);
        expect(await page.locator('#preview').getAttribute('src')).toMatch(/\/api\/results\/download\/.+\.jpg$/);
        await shot(page, 'shop-desk');
      }
      await context.close();
    }
  });

  it('the back office shows the product and the project (desktop and phone)', async () => {
    expect(projectId).toBeGreaterThan(0);
    for (const [viewport, suffix] of [[DESKTOP, ''], [PHONE, '-phone']] as const) {
      const { context, page } = await pageAt(viewport);
      await signInToAdmin(page, baseUrl, DEMO.admin.email, DEMO.admin.password);
      await page.goto(`${baseUrl}/admin/products/101`);
      await expect.poll(() => page.locator('main').innerText()).toContain('Business card');
      await page.waitForLoadState('networkidle');
      await shot(page, `product${suffix}`, false);
      await page.goto(`${baseUrl}/admin/projects/${projectId}`);
      await expect.poll(() => page.locator('main').innerText()).toContain('Order 2001');
      await page.waitForLoadState('networkidle');
      await shot(page, `project${suffix}`, false);
      await context.close();
    }
  });
});
