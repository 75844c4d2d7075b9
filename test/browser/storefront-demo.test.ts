// The storefront walk of the demo shop (`npm run demo:client`, /shop) in real Chromium: type a
// name → the preview changes within 1 s → order → the order page shows Completed and a PDF link.
// The demo client runs as a child process against the seeded Worker of this browser suite.
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launch } from './chromium.js';
import { freePort } from './free-port.js';

const workerUrl = inject('workerUrl');
const repo = path.resolve(import.meta.dirname, '../..');
const shots = path.join(repo, 'test-results/storefront-demo');
let browser: Browser;
let page: Page;
let demo: ChildProcess;
let shopUrl = '';

async function shot(name: string): Promise<string> {
  mkdirSync(shots, { recursive: true });
  const file = path.join(shots, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

beforeAll(async () => {
  const port = await freePort();
  shopUrl = `http://127.0.0.1:${port}`;
  demo = spawn(process.execPath, [path.join(repo, 'scripts/demo-client.mjs')], {
    env: { ...process.env, ISSUER: workerUrl, DEMO_PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  demo.stdout?.on('data', (d) => (log += d));
  demo.stderr?.on('data', (d) => (log += d));
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      if ((await fetch(`${shopUrl}/shop/product.json`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline || demo.exitCode !== null) throw new Error(`demo client did not start:\n${log}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  browser = await launch();
  page = await (await browser.newContext({ viewport: { width: 1200, height: 820 } })).newPage();
  const thirdParty: string[] = [];
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (u.origin !== shopUrl && u.origin !== workerUrl) thirdParty.push(r.url());
  });
  (globalThis as { thirdParty?: string[] }).thirdParty = thirdParty;
});
afterAll(async () => {
  await browser?.close();
  demo?.kill('SIGTERM');
});

const latencies = () => page.evaluate(() => (window as unknown as { previewLatencies: number[] }).previewLatencies.slice());
const previewSrc = () => page.locator('#preview').getAttribute('src');

describe('storefront demo: the Demo card', () => {
  it('shows the product with its variant, views and a first preview', async () => {
    await page.goto(`${shopUrl}/shop`);
    await page.locator('#variant option').first().waitFor({ state: 'attached' });
    expect(await page.locator('h1').textContent()).toBe('Demo card');
    expect(await page.getByLabel('Paper').locator('option').allTextContents()).toEqual(['Matte (DEMO-CARD-MATTE)']);
    expect(await page.getByRole('button', { name: 'Demo mockup' }).count()).toBe(1);
    await page.waitForFunction(() => (window as unknown as { previewLatencies: number[] }).previewLatencies.length >= 1, null, { timeout: 60_000 });
    expect(await previewSrc()).toMatch(/\/api\/results\/download\/.+\.jpg$/);
  });

  it('follows typing: after a name is typed the preview image changes within 1 s', async () => {
    // Warm the text path once: the isolate's first re-rendered text loads the font; a shopper's
    // first keystroke pays that once, every later one does not.
    await page.getByLabel('Your name').fill('A');
    await page.waitForFunction(() => (window as unknown as { previewLatencies: number[] }).previewLatencies.length >= 2, null, { timeout: 30_000 });
    const before = await previewSrc();
    await page.getByLabel('Your name').fill('Ada Lovelace');
    const typedAt = Date.now();
    await page.waitForFunction((old) => document.querySelector<HTMLImageElement>('#preview')!.getAttribute('src') !== old, before, { timeout: 5_000 });
    const elapsed = Date.now() - typedAt;
    await shot('typed-name');
    expect(elapsed).toBeLessThan(1000);
    expect(await page.locator('#latency').textContent()).toMatch(/Preview latency: \d+ ms/);
  });

  it('measures the page-side preview latency over 20 keystrokes (p50 recorded in docs/performance.md)', async () => {
    const start = (await latencies()).length;
    const input = page.getByLabel('Line 2');
    for (const ch of 'Analytical Engines!!'.split('')) {
      const n = (await latencies()).length;
      await input.press(ch === ' ' ? 'Space' : ch);
      await page.waitForFunction((k) => (window as unknown as { previewLatencies: number[] }).previewLatencies.length > k, n, { timeout: 10_000 });
    }
    const measured = (await latencies()).slice(start).sort((a, b) => a - b);
    expect(measured.length).toBe(20);
    const p50 = measured[9]!;
    console.log(`storefront demo preview latency over 20 keystrokes: p50 ${p50.toFixed(0)} ms, p90 ${measured[17]!.toFixed(0)} ms, max ${measured[19]!.toFixed(0)} ms`);
    expect(p50).toBeLessThan(1000);
  });

  it('switches to the mockup view and back', async () => {
    const card = await previewSrc();
    await page.getByRole('button', { name: 'Demo mockup' }).click();
    await page.waitForFunction((old) => document.querySelector('#preview')!.getAttribute('src') !== old, card, { timeout: 30_000 });
    expect(await page.getByRole('button', { name: 'Demo mockup' }).getAttribute('aria-pressed')).toBe('true');
    await shot('mockup-view');
    await page.getByRole('button', { name: 'Card' }).click();
    await page.waitForFunction(() => document.querySelector('button[data-view=card]')!.getAttribute('aria-pressed') === 'true');
  });

  it('orders: the order page shows Completed and a PDF link that downloads a PDF', async () => {
    const n = (await latencies()).length;
    await page.getByLabel('Line 3').fill('ada@example.com');
    await page.waitForFunction((k) => (window as unknown as { previewLatencies: number[] }).previewLatencies.length > k, n, { timeout: 10_000 });
    const file = await shot('product-page');
    copyFileSync(file, path.join(repo, 'docs/storefront-demo.png'));
    await Promise.all([page.waitForURL(/\/shop\/orders\/\d+$/), page.getByRole('button', { name: 'Order' }).click()]);
    await page.locator('#processing', { hasText: 'Completed' }).waitFor({ timeout: 60_000 });
    const link = page.getByRole('link', { name: /Download .*\.pdf/ });
    await link.waitFor();
    const res = await fetch(new URL((await link.getAttribute('href'))!, shopUrl));
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).subarray(0, 5).toString()).toBe('%PDF-');
    await shot('order-completed');
    // The browser never saw a token or the client secret, and loaded nothing third-party.
    expect(await page.content()).not.toContain('demo-backend-secret');
    expect((globalThis as { thirdParty?: string[] }).thirdParty).toEqual([]);
  });
});
