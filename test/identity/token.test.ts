import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { insertClient } from '../../src/identity/clients';
import { RESOURCE_SCOPES } from '../../src/auth/scopes';
import { DEMO, seedIdentity } from '../helpers/identity-seed';
import { basic, call, decodeJwt, tokenRequest } from './flow';

beforeAll(async () => {
  await seedIdentity();
  await insertClient(env, {
    clientId: 'limited backend:1+',
    tenantId: DEMO.tenantId,
    name: 'limited',
    authType: 'client_credentials',
    secret: 'p@ss:w+rd/%',
    tokenLifetime: 120,
    permissions: { Projects: 'update', Assets: 'read' },
  });
  await insertClient(env, { clientId: 'no-permissions', tenantId: DEMO.tenantId, name: 'none', authType: 'client_credentials', secret: 'x'.repeat(20) });
});

const cc = (extra: Record<string, string> = {}) =>
  tokenRequest({ grant_type: 'client_credentials', client_id: DEMO.backend.clientId, client_secret: DEMO.backend.secret, ...extra });

async function expectOAuthError(res: Response, status: number, error: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get('cache-control')).toBe('no-store');
  expect(res.headers.get('pragma')).toBe('no-cache');
  const body = (await res.json()) as { error: string; error_description: string };
  expect(body.error).toBe(error);
  expect(body.error_description).toEqual(expect.any(String));
  return body;
}

describe('client credentials grant (RFC 6749 §4.4)', () => {
  it('issues an RFC 9068 access token with the contract claims', async () => {
    const res = await cc({ scope: 'Projects_read Assets_full' });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('pragma')).toBe('no-cache');
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'Projects_read Assets_full' });
    expect(body.refresh_token).toBeUndefined();
    expect(body.id_token).toBeUndefined();
    const { header, payload } = decodeJwt(body.access_token as string);
    expect(header).toMatchObject({ alg: 'RS256', typ: 'at+jwt', kid: expect.any(String) });
    expect(payload).toMatchObject({
      iss: DEMO.issuer,
      aud: `${DEMO.issuer}/resources`,
      sub: DEMO.backend.clientId,
      client_id: DEMO.backend.clientId,
      scope: 'Projects_read Assets_full',
      tenantId: 1,
      jti: expect.any(String),
    });
    expect((payload.exp as number) - (payload.iat as number)).toBe(3600);
    expect(payload.nbf).toBe(payload.iat);
    expect(payload.gid).toBeUndefined();
  });

  it('grants every allowed scope when none is requested', async () => {
    const body = (await (await cc()).json()) as { scope: string };
    const scopes = body.scope.split(' ');
    expect(scopes).toContain('TenantUsers_full');
    expect(scopes).toContain('Assets_read');
    // demo-backend has every resource type Full: every resource scope.
    expect(scopes).toHaveLength(RESOURCE_SCOPES.length);
  });

  it('refuses scopes beyond the app permissions with invalid_scope', async () => {
    const res = await tokenRequest(
      { grant_type: 'client_credentials', scope: 'Projects_full' },
      { authorization: basic('limited backend:1+', 'p@ss:w+rd/%') },
    );
    await expectOAuthError(res, 400, 'invalid_scope');
  });

  it('grants a level and the levels below it (Update allows _read and _update)', async () => {
    const res = await tokenRequest({ grant_type: 'client_credentials' }, { authorization: basic('limited backend:1+', 'p@ss:w+rd/%') });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { scope: string; expires_in: number };
    expect(body.scope.split(' ').sort()).toEqual(['Assets_read', 'Projects_read', 'Projects_update']);
    expect(body.expires_in).toBe(120);
  });

  it('refuses openid and offline_access for client credentials', async () => {
    await expectOAuthError(await cc({ scope: 'openid' }), 400, 'invalid_scope');
    await expectOAuthError(await cc({ scope: 'offline_access Projects_read' }), 400, 'invalid_scope');
    await expectOAuthError(await cc({ scope: 'NoSuch_read' }), 400, 'invalid_scope');
  });

  it('refuses an app without permissions when no scope is requested', async () => {
    const res = await tokenRequest({ grant_type: 'client_credentials', client_id: 'no-permissions', client_secret: 'x'.repeat(20) });
    await expectOAuthError(res, 400, 'invalid_scope');
  });
});

describe('client authentication (RFC 6749 §2.3.1)', () => {
  it('accepts HTTP Basic credentials URL-decoded after base64', async () => {
    const res = await tokenRequest({ grant_type: 'client_credentials', scope: 'Projects_read' }, { authorization: basic('limited backend:1+', 'p@ss:w+rd/%') });
    expect(res.status).toBe(200);
  });

  it('rejects using HTTP Basic and client_secret in the body together with invalid_request', async () => {
    const res = await tokenRequest(
      { grant_type: 'client_credentials', client_secret: DEMO.backend.secret },
      { authorization: basic(DEMO.backend.clientId, DEMO.backend.secret) },
    );
    const body = await expectOAuthError(res, 400, 'invalid_request');
    expect(body.error_description).toMatch(/both/i);
  });

  it('answers an unknown client with 401 invalid_client and no WWW-Authenticate when Basic was not tried', async () => {
    const res = await tokenRequest({ grant_type: 'client_credentials', client_id: 'nobody', client_secret: 'x' });
    await expectOAuthError(res, 401, 'invalid_client');
    expect(res.headers.get('www-authenticate')).toBeNull();
  });

  it('answers a wrong Basic secret with 401 invalid_client and WWW-Authenticate Basic realm', async () => {
    const res = await tokenRequest({ grant_type: 'client_credentials' }, { authorization: basic(DEMO.backend.clientId, 'wrong') });
    await expectOAuthError(res, 401, 'invalid_client');
    expect(res.headers.get('www-authenticate')).toBe(`Basic realm="${DEMO.issuer}"`);
  });

  it('requires the secret of a confidential client', async () => {
    await expectOAuthError(await tokenRequest({ grant_type: 'client_credentials', client_id: DEMO.backend.clientId }), 401, 'invalid_client');
  });

  it('answers malformed Basic credentials with invalid_request, not a 500', async () => {
    for (const authorization of ['Basic !!!notbase64', `Basic ${btoa('no-colon')}`, `Basic ${btoa('%E0%A4%A:secret')}`]) {
      await expectOAuthError(await tokenRequest({ grant_type: 'client_credentials' }, { authorization }), 400, 'invalid_request');
    }
  });

  it('requires some client identification', async () => {
    await expectOAuthError(await tokenRequest({ grant_type: 'client_credentials' }), 401, 'invalid_client');
  });
});

describe('token request validation', () => {
  it('rejects a repeated parameter with invalid_request', async () => {
    const res = await call('/connect/token', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `grant_type=client_credentials&client_id=demo-backend&client_secret=demo-backend-secret&scope=Projects_read&scope=Assets_read`,
    });
    const body = await expectOAuthError(res, 400, 'invalid_request');
    expect(body.error_description).toContain('scope');
  });

  it('rejects a body that is not a form with invalid_request', async () => {
    const res = await call('/connect/token', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'client_credentials', client_id: DEMO.backend.clientId, client_secret: DEMO.backend.secret }),
    });
    await expectOAuthError(res, 400, 'invalid_request');
  });

  it('rejects a request without a body or content type with invalid_request', async () => {
    await expectOAuthError(await call('/connect/token', { method: 'POST' }), 400, 'invalid_request');
  });

  it('rejects GET with invalid_request', async () => {
    await expectOAuthError(await call('/connect/token?grant_type=client_credentials'), 400, 'invalid_request');
  });

  it('rejects an oversized body with invalid_request, not a 500', async () => {
    const res = await tokenRequest({ grant_type: 'client_credentials', client_id: DEMO.backend.clientId, client_secret: DEMO.backend.secret, pad: 'x'.repeat(100_000) });
    await expectOAuthError(res, 400, 'invalid_request');
  });

  it('rejects a missing grant_type with invalid_request', async () => {
    await expectOAuthError(await tokenRequest({ client_id: DEMO.backend.clientId, client_secret: DEMO.backend.secret }), 400, 'invalid_request');
  });

  it('rejects an unknown grant_type with unsupported_grant_type', async () => {
    await expectOAuthError(await cc({ grant_type: 'password' }), 400, 'unsupported_grant_type');
  });

  it('rejects a grant the app type does not allow with unauthorized_client', async () => {
    await expectOAuthError(await cc({ grant_type: 'authorization_code', code: 'x', redirect_uri: 'http://localhost:8788/callback' }), 400, 'unauthorized_client');
    const server = await tokenRequest({ grant_type: 'client_credentials' }, { authorization: basic(DEMO.server.clientId, DEMO.server.secret) });
    await expectOAuthError(server, 400, 'unauthorized_client');
    const spa = await tokenRequest({ grant_type: 'authorization_code', client_id: DEMO.spa.clientId, code: 'x', redirect_uri: DEMO.spa.redirectUri });
    await expectOAuthError(spa, 400, 'unauthorized_client');
  });

  it('reads the app on every request: a deleted app is rejected at once', async () => {
    await insertClient(env, { clientId: 'short-lived', tenantId: 1, name: 's', authType: 'client_credentials', secret: 'short-lived-secret', permissions: { Assets: 'read' } });
    const form = { grant_type: 'client_credentials', client_id: 'short-lived', client_secret: 'short-lived-secret' };
    expect((await tokenRequest(form)).status).toBe(200);
    await env.DB.prepare("DELETE FROM apps WHERE client_id = 'short-lived'").run();
    await expectOAuthError(await tokenRequest(form), 401, 'invalid_client');
  });
});

describe('one schema validates and documents the token request', () => {
  it('publishes the TokenRequest schema the endpoint validates with (one shape per grant type)', async () => {
    const doc = (await (await call('/api/docs/identity.json')).json()) as {
      paths: Record<string, { post: { requestBody: { content: Record<string, { schema: { $ref: string } }> } } }>;
      components: { schemas: Record<string, { oneOf?: unknown[]; discriminator?: unknown; required?: string[] }> };
    };
    const ref = doc.paths['/connect/token']!.post.requestBody.content['application/x-www-form-urlencoded']!.schema.$ref;
    expect(ref).toBe('#/components/schemas/TokenRequest');
    expect(doc.components.schemas.TokenRequest!.oneOf).toHaveLength(3);
    expect(doc.components.schemas.AuthorizationCodeTokenRequest!.required).toEqual(expect.arrayContaining(['grant_type', 'code', 'redirect_uri']));
    expect(doc.components.schemas.RefreshTokenRequest!.required).toEqual(expect.arrayContaining(['grant_type', 'refresh_token']));
  });

  it('answers what the schema refuses in RFC 6749 terms (invalid_request naming the field)', async () => {
    const server = basic(DEMO.server.clientId, DEMO.server.secret);
    const missing = await tokenRequest({ grant_type: 'refresh_token' }, { authorization: server });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toEqual({ error: 'invalid_request', error_description: 'refresh_token is missing.' });
    const verifier = await tokenRequest({ grant_type: 'authorization_code', code: 'c', redirect_uri: DEMO.server.redirectUri, code_verifier: 'short' }, { authorization: server });
    expect(await verifier.json()).toMatchObject({ error: 'invalid_request', error_description: expect.stringContaining('code_verifier must be 43 to 128') });
  });
});
