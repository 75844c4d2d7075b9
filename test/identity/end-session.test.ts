import { env } from 'cloudflare:workers';
import { SignJWT, generateKeyPair } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEMO, seedIdentity } from '../helpers/identity-seed';
import { getSigningKey } from '../../src/identity/keys';
import { Browser, codeFlow, decodeJwt, formField } from './flow';

beforeAll(seedIdentity);

async function signedIn(): Promise<{ browser: Browser; idToken: string }> {
  const browser = new Browser();
  const t = await codeFlow('openid', DEMO.admin, browser);
  return { browser, idToken: t.id_token! };
}

const endSession = (browser: Browser, params: Record<string, string>) => browser.fetch(`/connect/endsession?${new URLSearchParams(params)}`);

async function sessionCount(): Promise<number> {
  return (await env.DB.prepare('SELECT count(*) AS n FROM sessions').first<{ n: number }>())!.n;
}

describe('RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0 §2, §3)', () => {
  it('with a valid id_token_hint deletes the session, clears the cookie and redirects to the registered URI with state', async () => {
    const { browser, idToken } = await signedIn();
    const before = await sessionCount();
    const res = await endSession(browser, { id_token_hint: idToken, post_logout_redirect_uri: DEMO.server.postLogoutRedirectUri, state: 'bye' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(`${DEMO.server.postLogoutRedirectUri}?state=bye`);
    expect(res.headers.getSetCookie().some((c) => c.startsWith('idsrv=;') || /^idsrv=.*Max-Age=0/i.test(c))).toBe(true);
    expect(browser.cookies.has('idsrv')).toBe(false);
    expect(await sessionCount()).toBe(before - 1);
  });

  it('accepts an expired id_token_hint', async () => {
    const { browser, idToken } = await signedIn();
    const claims = decodeJwt(idToken).payload;
    const { kid, key } = await getSigningKey(env);
    const expired = await new SignJWT({ ...claims, iat: claims.iat as number - 7200, exp: claims.iat as number - 3600 })
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid })
      .sign(key);
    const res = await endSession(browser, { id_token_hint: expired, post_logout_redirect_uri: DEMO.server.postLogoutRedirectUri });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(DEMO.server.postLogoutRedirectUri);
  });

  it('does not redirect to an unregistered post_logout_redirect_uri (exact match)', async () => {
    const { browser, idToken } = await signedIn();
    const res = await endSession(browser, { id_token_hint: idToken, post_logout_redirect_uri: `${DEMO.server.postLogoutRedirectUri}/x` });
    expect(res.status).toBe(200);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.text()).toContain('signed out');
    expect(browser.cookies.has('idsrv')).toBe(false);
  });

  it('uses the hint’s aud to pick the app: another app’s post-logout URI does not redirect', async () => {
    const { browser, idToken } = await signedIn();
    const res = await endSession(browser, { id_token_hint: idToken, post_logout_redirect_uri: 'https://elsewhere.example/out' });
    expect(res.headers.get('location')).toBeNull();
  });

  it('without a valid hint shows a confirmation page and redirects nowhere', async () => {
    const { browser } = await signedIn();
    const forged = await new SignJWT({ sub: DEMO.admin.id })
      .setProtectedHeader({ alg: 'RS256', kid: 'x' })
      .setIssuer(DEMO.issuer)
      .setAudience(DEMO.server.clientId)
      .sign((await generateKeyPair('RS256')).privateKey);
    const hints: Record<string, string>[] = [{}, { id_token_hint: forged, post_logout_redirect_uri: DEMO.server.postLogoutRedirectUri }, { id_token_hint: 'garbage', post_logout_redirect_uri: DEMO.server.postLogoutRedirectUri }];
    for (const params of hints) {
      const res = await endSession(browser, params);
      expect(res.status).toBe(200);
      expect(res.headers.get('location')).toBeNull();
      expect(res.headers.get('cache-control')).toBe('no-store');
      const html = await res.text();
      expect(html).toContain('Sign out?');
      expect(browser.cookies.has('idsrv')).toBe(true);
    }
    const page = await (await endSession(browser, {})).text();
    const res = await browser.postForm('/account/logout', { csrf: formField(page, 'csrf')! });
    expect(res.status).toBe(200);
    expect(res.headers.get('location')).toBeNull();
    expect(browser.cookies.has('idsrv')).toBe(false);
  });

  it('the confirmation needs the session’s CSRF token', async () => {
    const { browser } = await signedIn();
    const res = await browser.postForm('/account/logout', { csrf: 'forged' });
    expect(res.status).toBe(403);
    expect(browser.cookies.has('idsrv')).toBe(true);
  });

  it('without a session simply shows the signed-out page', async () => {
    const res = await endSession(new Browser(), {});
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('signed out');
  });
});
