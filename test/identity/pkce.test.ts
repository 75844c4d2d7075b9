import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { insertClient } from '../../src/identity/clients';
import { DEMO, seedIdentity } from '../helpers/identity-seed';
import { authorizeWithLogin, basic, Browser, pkcePair, redirectParams, tokenRequest } from './flow';

beforeAll(async () => {
  await seedIdentity();
  await insertClient(env, {
    clientId: 'no-pkce',
    tenantId: 1,
    name: 'No PKCE',
    authType: 'authorization_code',
    secret: 'no-pkce-secret',
    requirePkce: false,
    redirectUris: ['https://rp.example/cb'],
  });
  await insertClient(env, {
    clientId: 'public-code',
    tenantId: 1,
    name: 'Public code client',
    authType: 'authorization_code',
    requireClientSecret: false,
    requirePkce: false, // forced back on: no secret means PKCE (RFC 9700 §2.1.1)
    redirectUris: ['https://public.example/cb'],
  });
});

let browser: Browser;
beforeAll(async () => {
  browser = new Browser();
  const { challenge } = await pkcePair();
  await authorizeWithLogin(browser, { client_id: DEMO.server.clientId, response_type: 'code', redirect_uri: DEMO.server.redirectUri, scope: 'openid', code_challenge: challenge, code_challenge_method: 'S256' });
});

async function code(params: Record<string, string>): Promise<string> {
  const res = await browser.fetch(`/connect/authorize?${new URLSearchParams({ response_type: 'code', scope: 'openid', ...params })}`);
  const got = redirectParams(res).get('code');
  if (!got) throw new Error(`no code: ${res.headers.get('location')}`);
  return got;
}

const redeem = (codeValue: string, extra: Record<string, string>, auth = basic(DEMO.server.clientId, DEMO.server.secret)) =>
  tokenRequest({ grant_type: 'authorization_code', code: codeValue, redirect_uri: DEMO.server.redirectUri, ...extra }, { authorization: auth });

async function serverCode(): Promise<{ code: string; verifier: string }> {
  const { verifier, challenge } = await pkcePair();
  return { code: await code({ client_id: DEMO.server.clientId, redirect_uri: DEMO.server.redirectUri, code_challenge: challenge, code_challenge_method: 'S256' }), verifier };
}

const errorOf = async (res: Response) => ((await res.json()) as { error: string; error_description: string });

describe('PKCE at the authorization endpoint (RFC 7636 §4.3, §4.4.1)', () => {
  it('requires code_challenge when the app requires PKCE', async () => {
    const res = await browser.fetch(`/connect/authorize?${new URLSearchParams({ client_id: DEMO.server.clientId, response_type: 'code', redirect_uri: DEMO.server.redirectUri, scope: 'openid', state: 'a' })}`);
    expect(Object.fromEntries(redirectParams(res))).toMatchObject({ error: 'invalid_request', state: 'a' });
  });

  it('refuses the plain method and a missing method (only S256)', async () => {
    const { verifier } = await pkcePair();
    for (const extra of [{ code_challenge_method: 'plain' }, {}] as Record<string, string>[]) {
      const res = await browser.fetch(
        `/connect/authorize?${new URLSearchParams({ client_id: DEMO.server.clientId, response_type: 'code', redirect_uri: DEMO.server.redirectUri, scope: 'openid', code_challenge: verifier, ...extra })}`,
      );
      expect(redirectParams(res).get('error')).toBe('invalid_request');
    }
  });

  it('forces PKCE on for an app without a client secret', async () => {
    const res = await browser.fetch(`/connect/authorize?${new URLSearchParams({ client_id: 'public-code', response_type: 'code', redirect_uri: 'https://public.example/cb', scope: 'openid' })}`);
    expect(redirectParams(res).get('error')).toBe('invalid_request');
  });
});

describe('PKCE at the token endpoint (RFC 7636 §4.5, §4.6)', () => {
  it('accepts the matching verifier', async () => {
    const { code: c, verifier } = await serverCode();
    expect((await redeem(c, { code_verifier: verifier })).status).toBe(200);
  });

  it('rejects a wrong verifier with invalid_grant', async () => {
    const { code: c } = await serverCode();
    const res = await redeem(c, { code_verifier: (await pkcePair()).verifier });
    expect(res.status).toBe(400);
    expect((await errorOf(res)).error).toBe('invalid_grant');
  });

  it('rejects a missing verifier for a code issued with a challenge', async () => {
    const { code: c } = await serverCode();
    expect((await errorOf(await redeem(c, {}))).error).toBe('invalid_grant');
  });

  it('rejects a verifier shorter than 43 or longer than 128 characters with invalid_request saying so', async () => {
    for (const verifier of ['a'.repeat(42), 'a'.repeat(129), `${'a'.repeat(42)}!`]) {
      const { code: c } = await serverCode();
      const res = await redeem(c, { code_verifier: verifier });
      expect(res.status).toBe(400);
      const body = await errorOf(res);
      expect(body.error).toBe('invalid_request');
      expect(body.error_description).toMatch(/43 to 128/);
    }
  });

  it('rejects a verifier sent for a code issued without a challenge', async () => {
    const c = await code({ client_id: 'no-pkce', redirect_uri: 'https://rp.example/cb' });
    const res = await tokenRequest(
      { grant_type: 'authorization_code', code: c, redirect_uri: 'https://rp.example/cb', code_verifier: (await pkcePair()).verifier },
      { authorization: basic('no-pkce', 'no-pkce-secret') },
    );
    expect((await errorOf(res)).error).toBe('invalid_grant');
  });

  it('lets a public client redeem with client_id and verifier only', async () => {
    const { verifier, challenge } = await pkcePair();
    const c = await code({ client_id: 'public-code', redirect_uri: 'https://public.example/cb', code_challenge: challenge, code_challenge_method: 'S256' });
    const res = await tokenRequest({ grant_type: 'authorization_code', client_id: 'public-code', code: c, redirect_uri: 'https://public.example/cb', code_verifier: verifier });
    expect(res.status).toBe(200);
  });
});

describe('authorization codes (RFC 6749 §4.1.2, §4.1.3)', () => {
  it('must be redeemed with the same redirect_uri', async () => {
    const { code: c, verifier } = await serverCode();
    const res = await tokenRequest(
      { grant_type: 'authorization_code', code: c, redirect_uri: 'http://localhost:8788/other', code_verifier: verifier },
      { authorization: basic(DEMO.server.clientId, DEMO.server.secret) },
    );
    expect((await errorOf(res)).error).toBe('invalid_grant');
  });

  it('requires redirect_uri', async () => {
    const { code: c, verifier } = await serverCode();
    const res = await tokenRequest({ grant_type: 'authorization_code', code: c, code_verifier: verifier }, { authorization: basic(DEMO.server.clientId, DEMO.server.secret) });
    expect((await errorOf(res)).error).toBe('invalid_request');
  });

  it('expire after 300 seconds', async () => {
    const { code: c, verifier } = await serverCode();
    const { results } = await env.DB.prepare('SELECT expires_at - created_at AS life FROM authorization_codes').all<{ life: number }>();
    expect(results.every((r) => r.life === 300)).toBe(true);
    await env.DB.prepare('UPDATE authorization_codes SET expires_at = unixepoch() - 1 WHERE used_at IS NULL').run();
    expect((await errorOf(await redeem(c, { code_verifier: verifier }))).error).toBe('invalid_grant');
  });

  it('cannot be redeemed by another client', async () => {
    const { code: c, verifier } = await serverCode();
    const res = await tokenRequest(
      { grant_type: 'authorization_code', code: c, redirect_uri: DEMO.server.redirectUri, code_verifier: verifier },
      { authorization: basic('no-pkce', 'no-pkce-secret') },
    );
    expect((await errorOf(res)).error).toBe('invalid_grant');
    expect((await redeem(c, { code_verifier: verifier })).status).toBe(200);
  });

  it('are single use even under concurrent redemption', async () => {
    const { code: c, verifier } = await serverCode();
    const results = await Promise.all([1, 2, 3].map(() => redeem(c, { code_verifier: verifier })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 400, 400]);
  });

  it('reject an unknown code with invalid_grant', async () => {
    expect((await errorOf(await redeem('not-a-code', { code_verifier: 'a'.repeat(43) }))).error).toBe('invalid_grant');
  });
});
