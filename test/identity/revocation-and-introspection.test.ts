import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { insertClient } from '../../src/identity/clients';
import { DEMO, seedIdentity } from '../helpers/identity-seed';
import { basic, call, clientCredentialsToken, codeFlow } from './flow';

beforeAll(async () => {
  await seedIdentity();
  await insertClient(env, { clientId: 'backend-2', tenantId: 1, name: 'Backend 2', authType: 'client_credentials', secret: 'backend-2-secret', permissions: { Assets: 'read' } });
  await env.DB.prepare("INSERT OR IGNORE INTO tenants (id, name) VALUES (2, 'Other')").run();
  await insertClient(env, { clientId: 'foreign', tenantId: 2, name: 'Foreign', authType: 'client_credentials', secret: 'foreign-secret', permissions: { Assets: 'read' } });
});

const post = (path: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  call(path, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(fields).toString() });

const revoke = (token: string, auth = basic(DEMO.backend.clientId, DEMO.backend.secret), extra: Record<string, string> = {}) =>
  post('/connect/revocation', { token, ...extra }, { authorization: auth });

const introspect = async (token: string, auth = basic(DEMO.backend.clientId, DEMO.backend.secret)) =>
  (await (await post('/connect/introspect', { token }, { authorization: auth })).json()) as Record<string, unknown>;

const apiStatus = async (token: string) => (await call('/connect/userinfo', { headers: { authorization: `Bearer ${token}` } })).status;

describe('revocation (RFC 7009)', () => {
  it('puts a revoked Client Credentials access token on the jti deny-list until its exp', async () => {
    const token = await clientCredentialsToken();
    expect(await introspect(token)).toMatchObject({ active: true });
    const res = await revoke(token, basic(DEMO.backend.clientId, DEMO.backend.secret), { token_type_hint: 'access_token' });
    expect(res.status).toBe(200);
    expect(await introspect(token)).toEqual({ active: false });
    const row = await env.DB.prepare('SELECT expires_at FROM revoked_jtis').first<{ expires_at: number }>();
    expect(row!.expires_at).toBeGreaterThan(Date.now() / 1000 + 3000);
  });

  it('revokes the grant of a user access token, refresh tokens included', async () => {
    const t = await codeFlow();
    const res = await revoke(t.access_token, basic(DEMO.server.clientId, DEMO.server.secret));
    expect(res.status).toBe(200);
    expect(await apiStatus(t.access_token)).toBe(401);
    const refreshed = await post('/connect/token', { grant_type: 'refresh_token', refresh_token: t.refresh_token! }, { authorization: basic(DEMO.server.clientId, DEMO.server.secret) });
    expect(refreshed.status).toBe(400);
  });

  it('revokes the grant of a refresh token', async () => {
    const t = await codeFlow();
    expect((await revoke(t.refresh_token!, basic(DEMO.server.clientId, DEMO.server.secret), { token_type_hint: 'refresh_token' })).status).toBe(200);
    expect(await apiStatus(t.access_token)).toBe(401);
  });

  it('answers 200 for unknown or malformed tokens (§2.2)', async () => {
    for (const token of ['unknown', 'a.b.c', 'x'.repeat(5000)]) expect((await revoke(token)).status).toBe(200);
  });

  it('does not let a client revoke another client’s token', async () => {
    const token = await clientCredentialsToken();
    expect((await revoke(token, basic('backend-2', 'backend-2-secret'))).status).toBe(200);
    expect(await introspect(token)).toMatchObject({ active: true });
  });

  it('requires client authentication and the token parameter', async () => {
    const token = await clientCredentialsToken();
    const anonymous = await post('/connect/revocation', { token });
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as { error: string }).error).toBe('invalid_client');
    const missing = await post('/connect/revocation', {}, { authorization: basic(DEMO.backend.clientId, DEMO.backend.secret) });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { error: string }).error).toBe('invalid_request');
    const json = await call('/connect/revocation', { method: 'POST', headers: { 'content-type': 'application/json', authorization: basic(DEMO.backend.clientId, DEMO.backend.secret) }, body: '{}' });
    expect(json.status).toBe(400);
  });
});

describe('introspection (RFC 7662)', () => {
  it('describes an active access token', async () => {
    const token = await clientCredentialsToken('Assets_read');
    const res = await post('/connect/introspect', { token }, { authorization: basic(DEMO.backend.clientId, DEMO.backend.secret) });
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.json()).toMatchObject({
      active: true,
      client_id: DEMO.backend.clientId,
      sub: DEMO.backend.clientId,
      scope: 'Assets_read',
      tenantId: 1,
      token_type: 'Bearer',
      iss: DEMO.issuer,
      exp: expect.any(Number),
    });
  });

  it('describes an active refresh token of the calling client and reports used ones inactive', async () => {
    const t = await codeFlow();
    const auth = basic(DEMO.server.clientId, DEMO.server.secret);
    expect(await introspect(t.refresh_token!, auth)).toMatchObject({ active: true, token_type: 'refresh_token', client_id: DEMO.server.clientId, sub: DEMO.admin.id });
    expect(await introspect(t.refresh_token!)).toEqual({ active: false });
    await post('/connect/token', { grant_type: 'refresh_token', refresh_token: t.refresh_token! }, { authorization: auth });
    expect(await introspect(t.refresh_token!, auth)).toEqual({ active: false });
  });

  it('reports tokens of another tenant, garbage and expired tokens as inactive', async () => {
    const token = await clientCredentialsToken();
    expect(await introspect(token, basic('foreign', 'foreign-secret'))).toEqual({ active: false });
    expect(await introspect('garbage')).toEqual({ active: false });
    expect(await introspect('eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.')).toEqual({ active: false });
  });

  it('reports the live grant state: a revoked user token is inactive at once', async () => {
    const t = await codeFlow();
    const auth = basic(DEMO.server.clientId, DEMO.server.secret);
    expect(await introspect(t.access_token, auth)).toMatchObject({ active: true, sub: DEMO.admin.id, auth_time: expect.any(Number) });
    await env.DB.prepare('UPDATE grants SET revoked_at = unixepoch()').run();
    expect(await introspect(t.access_token, auth)).toEqual({ active: false });
  });

  it('is only for confidential clients', async () => {
    const token = await clientCredentialsToken();
    const res = await post('/connect/introspect', { token, client_id: DEMO.spa.clientId });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: string }).error).toBe('invalid_client');
  });
});
