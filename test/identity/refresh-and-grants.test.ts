import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { deleteClient, revokeUserGrants } from '../../src/identity/grants';
import { insertClient } from '../../src/identity/clients';
import { DEMO, seedIdentity } from '../helpers/identity-seed';
import { authorizeWithLogin, basic, Browser, call, codeFlow, decodeJwt, pkcePair, redirectParams, tokenRequest } from './flow';

beforeAll(async () => {
  await seedIdentity();
  await insertClient(env, {
    clientId: 'other-server',
    tenantId: 1,
    name: 'Other server',
    authType: 'authorization_code',
    secret: 'other-server-secret',
    redirectUris: ['https://other.example/cb'],
  });
});

const refresh = (token: string, extra: Record<string, string> = {}, auth = basic(DEMO.server.clientId, DEMO.server.secret)) =>
  tokenRequest({ grant_type: 'refresh_token', refresh_token: token, ...extra }, { authorization: auth });

const userinfoStatus = async (accessToken: string) => (await call('/connect/userinfo', { headers: { authorization: `Bearer ${accessToken}` } })).status;
const errorOf = async (res: Response) => ((await res.json()) as { error: string }).error;

describe('authorization code tokens (OIDC Core §3.1.3.3, identity contract "Tokens")', () => {
  it('issues access, ID and refresh tokens with the contract claims', async () => {
    const t = await codeFlow('openid profile offline_access Projects_read');
    expect(t.scope).toBe('openid profile offline_access Projects_read');
    expect(t.refresh_token).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    const access = decodeJwt(t.access_token).payload;
    expect(access).toMatchObject({ sub: DEMO.admin.id, client_id: DEMO.server.clientId, tenantId: 1, gid: expect.any(String), sid: expect.any(String), auth_time: expect.any(Number) });
    expect((access.exp as number) - (access.iat as number)).toBe(t.expires_in);
    const id = decodeJwt(t.id_token!).payload;
    expect(id).toMatchObject({ iss: DEMO.issuer, aud: DEMO.server.clientId, sub: DEMO.admin.id, nonce: 'n1', sid: access.sid, auth_time: access.auth_time, gid: access.gid });
    expect(id.at_hash).toBeUndefined();
  });

  it('issues no refresh token without offline_access and no ID token without openid', async () => {
    const t = await codeFlow('Projects_read');
    expect(t.refresh_token).toBeUndefined();
    expect(t.id_token).toBeUndefined();
  });
});

describe('refresh tokens (RFC 6749 §6, RFC 9700 §4.14)', () => {
  it('rotate on each use; the new pair works and the ID token keeps sub, aud and auth_time without nonce', async () => {
    const first = await codeFlow();
    const res = await refresh(first.refresh_token!);
    expect(res.status).toBe(200);
    const second = (await res.json()) as { refresh_token: string; access_token: string; id_token: string; scope: string };
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(second.scope).toBe(first.scope);
    const before = decodeJwt(first.id_token!).payload;
    const after = decodeJwt(second.id_token).payload;
    expect(after).toMatchObject({ sub: before.sub, aud: before.aud, auth_time: before.auth_time });
    expect(after.nonce).toBeUndefined();
    expect(await userinfoStatus(second.access_token)).toBe(200);
  });

  it('reuse of a rotated refresh token revokes the whole grant', async () => {
    const first = await codeFlow();
    const second = (await (await refresh(first.refresh_token!)).json()) as { refresh_token: string; access_token: string };
    const replay = await refresh(first.refresh_token!);
    expect(await errorOf(replay)).toBe('invalid_grant');
    expect(await errorOf(await refresh(second.refresh_token))).toBe('invalid_grant');
    expect(await userinfoStatus(second.access_token)).toBe(401);
    expect(await userinfoStatus(first.access_token)).toBe(401);
  });

  it('may narrow the scope but never widen it', async () => {
    const t = await codeFlow('openid offline_access Projects_read Assets_read');
    const narrowed = await refresh(t.refresh_token!, { scope: 'openid Projects_read' });
    expect(narrowed.status).toBe(200);
    const body = (await narrowed.json()) as { scope: string; refresh_token: string };
    expect(body.scope).toBe('openid Projects_read');
    // The refresh token keeps the original scope (RFC 6749 §6).
    const again = (await (await refresh(body.refresh_token, { scope: 'Assets_read' })).json()) as { scope: string };
    expect(again.scope).toBe('Assets_read');
    const t2 = await codeFlow('openid offline_access Projects_read');
    expect(await errorOf(await refresh(t2.refresh_token!, { scope: 'Projects_read Assets_full' }))).toBe('invalid_scope');
  });

  it('belong to the client they were issued to', async () => {
    const t = await codeFlow();
    expect(await errorOf(await refresh(t.refresh_token!, {}, basic('other-server', 'other-server-secret')))).toBe('invalid_grant');
    expect((await refresh(t.refresh_token!)).status).toBe(200);
  });

  it('end 30 days after the code redemption', async () => {
    const t = await codeFlow();
    const row = await env.DB.prepare('SELECT expires_at - created_at AS life FROM grants WHERE id = ?').bind(decodeJwt(t.access_token).payload.gid).first<{ life: number }>();
    expect(row!.life).toBe(30 * 86_400);
    await env.DB.prepare('UPDATE refresh_tokens SET expires_at = unixepoch() - 1').run();
    expect(await errorOf(await refresh(t.refresh_token!))).toBe('invalid_grant');
  });

  it('are single use under concurrent refreshes', async () => {
    const t = await codeFlow();
    const results = await Promise.all([refresh(t.refresh_token!), refresh(t.refresh_token!)]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 400]);
  });

  it('require refresh_token', async () => {
    expect(await errorOf(await tokenRequest({ grant_type: 'refresh_token' }, { authorization: basic(DEMO.server.clientId, DEMO.server.secret) }))).toBe('invalid_request');
    expect(await errorOf(await refresh('unknown'))).toBe('invalid_grant');
  });
});

describe('grants and revocation (identity contract)', () => {
  it('a replayed authorization code revokes the grant its first redemption started', async () => {
    const browser = new Browser();
    const { verifier, challenge } = await pkcePair();
    const res = await authorizeWithLogin(browser, {
      client_id: DEMO.server.clientId,
      response_type: 'code',
      redirect_uri: DEMO.server.redirectUri,
      scope: 'openid offline_access',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    const code = redirectParams(res).get('code')!;
    const form = { grant_type: 'authorization_code', code, redirect_uri: DEMO.server.redirectUri, code_verifier: verifier };
    const auth = { authorization: basic(DEMO.server.clientId, DEMO.server.secret) };
    const first = (await (await tokenRequest(form, auth)).json()) as { access_token: string; refresh_token: string };
    expect(await userinfoStatus(first.access_token)).toBe(200);
    expect(await errorOf(await tokenRequest(form, auth))).toBe('invalid_grant');
    expect(await userinfoStatus(first.access_token)).toBe(401);
    expect(await errorOf(await refresh(first.refresh_token))).toBe('invalid_grant');
  });

  it('revokeUserGrants (user disabled or password reset) ends all of their grants and sessions', async () => {
    const browser = new Browser();
    const t = await codeFlow('openid offline_access', DEMO.user, browser);
    expect(browser.cookies.has('idsrv')).toBe(true);
    await revokeUserGrants(env.DB, DEMO.user.id);
    expect(await userinfoStatus(t.access_token)).toBe(401);
    expect(await errorOf(await refresh(t.refresh_token!))).toBe('invalid_grant');
    const res = await browser.fetch(`/connect/authorize?${new URLSearchParams({ client_id: DEMO.spa.clientId, response_type: 'token', redirect_uri: DEMO.spa.redirectUri, scope: 'Assets_read', prompt: 'none' })}`);
    expect(redirectParams(res).get('error')).toBe('login_required');
  });

  it('deleting an app revokes every token issued to it', async () => {
    await insertClient(env, { clientId: 'doomed', tenantId: 1, name: 'Doomed', authType: 'authorization_code', secret: 'doomed-secret', redirectUris: ['https://doomed.example/cb'] });
    const browser = new Browser();
    const { verifier, challenge } = await pkcePair();
    const res = await authorizeWithLogin(browser, { client_id: 'doomed', response_type: 'code', redirect_uri: 'https://doomed.example/cb', scope: 'openid offline_access', code_challenge: challenge, code_challenge_method: 'S256' });
    const t = (await (
      await tokenRequest(
        { grant_type: 'authorization_code', code: redirectParams(res).get('code')!, redirect_uri: 'https://doomed.example/cb', code_verifier: verifier },
        { authorization: basic('doomed', 'doomed-secret') },
      )
    ).json()) as { access_token: string; refresh_token: string };
    expect(await userinfoStatus(t.access_token)).toBe(200);
    await deleteClient(env.DB, 'doomed');
    expect(await userinfoStatus(t.access_token)).toBe(401);
    expect((await refresh(t.refresh_token, {}, basic('doomed', 'doomed-secret'))).status).toBe(401);
    const grant = await env.DB.prepare("SELECT revoked_at FROM grants WHERE client_id = 'doomed'").first<{ revoked_at: number | null }>();
    expect(grant!.revoked_at).not.toBeNull();
  });
});
