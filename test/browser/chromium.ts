// Real Chromium (the Debian package) driven by playwright-core, and the steps a person takes in
// the admin panel: sign in, open pages, keep screenshots under test-results/.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export const SCREENSHOTS = path.resolve(import.meta.dirname, '../../test-results/admin');

export const launch = (): Promise<Browser> => chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });

/** Full-page screenshot under test-results/admin/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** Signs in on the identity login page the admin panel sends us to. */
export async function signInToAdmin(page: Page, baseUrl: string, email: string, password: string): Promise<void> {
  await page.goto(`${baseUrl}/admin`);
  await page.getByLabel(/e-?mail/i).fill(email);
  await page.getByLabel(/password/i).fill(password);
  await Promise.all([page.waitForURL(`${baseUrl}/admin`), page.getByRole('button', { name: /sign in/i }).click()]);
}

/** S256 PKCE pair (RFC 7636). */
export async function pkcePair(): Promise<{ verifier: string; challenge: string }> {
  const verifier = Buffer.from(crypto.getRandomValues(new Uint8Array(48))).toString('base64url');
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier));
  return { verifier, challenge: Buffer.from(digest).toString('base64url') };
}

/** POST /connect/token with a form body; the parsed JSON and the status. */
export async function tokenRequest(baseUrl: string, form: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${baseUrl}/connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

export type ApiCall = (method: string, path: string, body?: unknown) => Promise<{ status: number; body: any }>;

/** JSON calls as the demo back end (client credentials of `demo-backend`), paths under `prefix`. */
export async function backendApi(baseUrl: string, prefix = ''): Promise<ApiCall> {
  const t = await tokenRequest(baseUrl, { grant_type: 'client_credentials', client_id: 'demo-backend', client_secret: 'demo-backend-secret' });
  const token = String(t.body.access_token);
  return async (method, p, body) => {
    const res = await fetch(`${baseUrl}${prefix}${p}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
}

/** The demo seed's accounts (identity contract, "Local demo seed"). */
export const DEMO = {
  admin: { email: 'admin@demo.test', password: 'demo-admin-password' },
  user: { email: 'user@demo.test', password: 'demo-user-password' },
};
