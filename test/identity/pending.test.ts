// The pending sign-in and its browser binding cookie (issue 8, item 2.7): a sign-in that reuses
// the cookie must not extend its expiry, and no pending request outlives the cookie it needs.
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEMO, seedIdentity } from '../helpers/identity-seed';
import { Browser, formField } from './flow';

beforeAll(seedIdentity);

const now = () => Math.floor(Date.now() / 1000);
const BINDING = 'idsrv.login';

/** Starts an admin sign-in; returns the pending row's expiry and the binding cookie set, if any. */
async function startSignIn(browser: Browser) {
  const res = await browser.fetch('/admin/login');
  const pending = new URL(res.headers.get('location')!, 'http://x').searchParams.get('pending')!;
  const row = await env.DB.prepare('SELECT expires_at FROM pending_authorizations WHERE id = ?').bind(pending).first<{ expires_at: number }>();
  const setCookie = res.headers.getSetCookie().find((c) => c.startsWith(`${BINDING}=`));
  return { location: res.headers.get('location')!, expiresAt: row!.expires_at, setCookie };
}

describe('pending sign-in binding cookie', () => {
  it('sets the binding once, for 30 minutes, with its expiry in the value', async () => {
    const browser = new Browser();
    const first = await startSignIn(browser);
    expect(first.setCookie).toMatch(/Max-Age=1800/);
    expect(first.setCookie).toMatch(/HttpOnly/);
    expect(first.expiresAt - now()).toBeGreaterThan(1790);
    const value = browser.cookies.get(BINDING)!;
    expect(Number(value.split('.')[0])).toBe(first.expiresAt);
  });

  it('does not extend a reused binding: no new cookie, and the new pending request expires with it', async () => {
    const browser = new Browser();
    const first = await startSignIn(browser);
    const second = await startSignIn(browser);
    expect(second.setCookie).toBeUndefined();
    expect(second.expiresAt).toBe(first.expiresAt);

    // A binding with ten minutes left: reused as is, never lengthened to the full 30 minutes.
    const older = new Browser();
    const exp = now() + 600;
    older.cookies.set(BINDING, `${exp}.${'a'.repeat(32)}`);
    const reused = await startSignIn(older);
    expect(reused.setCookie).toBeUndefined();
    expect(reused.expiresAt).toBe(exp);
    expect(older.cookies.get(BINDING)).toBe(`${exp}.${'a'.repeat(32)}`);
    // …and the sign-in under it works.
    const html = await (await older.fetch(reused.location)).text();
    const done = await older.postForm('/account/login', { pending: formField(html, 'pending')!, csrf: formField(html, 'csrf')!, ...DEMO.admin });
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe('/admin');
    expect(done.headers.getSetCookie().some((c) => c.startsWith(`${BINDING}=`))).toBe(false);
  });

  it('replaces a binding that is nearly over, malformed, or claims more life than it was given', async () => {
    for (const value of [`${now() + 60}.${'b'.repeat(32)}`, 'legacy-binding-without-expiry', `${now() + 86_400}.${'c'.repeat(32)}`]) {
      const browser = new Browser();
      browser.cookies.set(BINDING, value);
      const started = await startSignIn(browser);
      expect(started.setCookie, value).toMatch(/Max-Age=1800/);
      expect(browser.cookies.get(BINDING)).not.toBe(value);
      expect(started.expiresAt - now()).toBeGreaterThan(1790);
    }
  });
});
