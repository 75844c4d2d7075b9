import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { RESOURCE_SCOPES } from '../../src/auth/scopes';
import { rotateSigningKey, resetKeyCache, listSigningKeys, RotationRefusedError } from '../../src/identity/keys';
import { DEMO, seedIdentity } from '../helpers/identity-seed';
import { call, clientCredentialsToken, decodeJwt } from './flow';

beforeAll(seedIdentity);

describe('discovery (OIDC Discovery 1.0 §3, RFC 8414)', () => {
  it('publishes the issuer and every endpoint under the issuer', async () => {
    const res = await call('/.well-known/openid-configuration');
    expect(res.status).toBe(200);
    const doc = (await res.json()) as Record<string, unknown>;
    expect(doc.issuer).toBe(DEMO.issuer);
    for (const key of ['jwks_uri', 'authorization_endpoint', 'token_endpoint', 'userinfo_endpoint', 'end_session_endpoint', 'revocation_endpoint', 'introspection_endpoint']) {
      expect(String(doc[key])).toMatch(/^http:\/\/localhost:8787\/(connect|\.well-known)\//);
    }
    expect(doc.token_endpoint).toBe('http://localhost:8787/connect/token');
    expect(doc.end_session_endpoint).toBe('http://localhost:8787/connect/endsession');
  });

  it('lists every resource scope plus openid, profile, email and offline_access', async () => {
    const doc = (await (await call('/.well-known/openid-configuration')).json()) as { scopes_supported: string[] };
    expect(doc.scopes_supported).toEqual(expect.arrayContaining(['openid', 'profile', 'email', 'offline_access', ...RESOURCE_SCOPES]));
    expect(doc.scopes_supported).toContain('StorefrontUsers_full');
  });

  it('advertises exactly S256 for PKCE, the three response types, both client auth methods and RFC 9207', async () => {
    const doc = (await (await call('/.well-known/openid-configuration')).json()) as Record<string, unknown>;
    expect(doc.code_challenge_methods_supported).toEqual(['S256']);
    expect(doc.response_types_supported).toEqual(['code', 'token', 'id_token token']);
    expect(doc.token_endpoint_auth_methods_supported).toEqual(expect.arrayContaining(['client_secret_post', 'client_secret_basic']));
    expect(doc.authorization_response_iss_parameter_supported).toBe(true);
    expect(doc.id_token_signing_alg_values_supported).toEqual(['RS256']);
    expect(doc.subject_types_supported).toEqual(['public']);
    expect(doc.grant_types_supported).toEqual(expect.arrayContaining(['authorization_code', 'client_credentials', 'refresh_token', 'implicit']));
  });

  it('is cacheable and readable from any origin', async () => {
    const res = await call('/.well-known/openid-configuration', { headers: { origin: 'https://evil.example' } });
    expect(res.headers.get('cache-control')).toMatch(/max-age=\d+/);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
  });
});

describe('key set (RFC 7517) and rotation', () => {
  it('publishes RS256 public keys only, each with kid, use sig and alg', async () => {
    const res = await call('/.well-known/openid-configuration/jwks');
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('cache-control')).toContain('max-age=3600');
    const { keys } = (await res.json()) as { keys: Record<string, unknown>[] };
    expect(keys.length).toBeGreaterThanOrEqual(1);
    for (const key of keys) {
      expect(key).toMatchObject({ kty: 'RSA', use: 'sig', alg: 'RS256' });
      expect(key.kid).toEqual(expect.any(String));
      expect(key.d).toBeUndefined();
      expect(key.p).toBeUndefined();
    }
  });

  it('signs tokens with a published key', async () => {
    const token = await clientCredentialsToken();
    const { keys } = (await (await call('/.well-known/openid-configuration/jwks')).json()) as { keys: { kid: string }[] };
    expect(keys.map((k) => k.kid)).toContain(decodeJwt(token).header.kid);
  });

  it('stores private keys only encrypted', async () => {
    await clientCredentialsToken();
    const rows = await env.DB.prepare('SELECT private_jwk_encrypted AS sealed FROM signing_keys').all<{ sealed: string }>();
    for (const row of rows.results) {
      expect(row.sealed).toMatch(/^v1\./);
      expect(row.sealed).not.toContain('"d"');
    }
  });

  it('publishes a rotated-in key at least an hour before it signs, and keeps the old one until the longest token lifetime has passed', async () => {
    const before = decodeJwt(await clientCredentialsToken()).header.kid;
    const { kid, activatesAt } = await rotateSigningKey(env.DB, env);
    expect(activatesAt - Math.floor(Date.now() / 1000)).toBeGreaterThanOrEqual(3600 - 5);
    const { keys } = (await (await call('/.well-known/openid-configuration/jwks')).json()) as { keys: { kid: string }[] };
    expect(keys.map((k) => k.kid)).toEqual(expect.arrayContaining([before, kid]));
    // Not active yet: tokens still carry the old kid.
    expect(decodeJwt(await clientCredentialsToken()).header.kid).toBe(before);
    const old = (await listSigningKeys(env.DB)).find((k) => k.kid === before)!;
    expect(old.retiresAt! - activatesAt).toBeGreaterThanOrEqual(86_400);

    // Once its hour has passed, the new key signs and the old key still verifies.
    const oldToken = await clientCredentialsToken();
    await env.DB.prepare('UPDATE signing_keys SET activates_at = unixepoch() - 1 WHERE kid = ?').bind(kid).run();
    resetKeyCache();
    expect(decodeJwt(await clientCredentialsToken()).header.kid).toBe(kid);
    const res = await call('/connect/introspect', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: oldToken, client_id: DEMO.backend.clientId, client_secret: DEMO.backend.secret }).toString(),
    });
    expect(await res.json()).toMatchObject({ active: true });
  });

  it('refuses a rotation while a rotated-in key still waits to activate, so the JWKS cannot grow', async () => {
    const { kid } = await rotateSigningKey(env.DB, env);
    const jwks = async () => ((await (await call('/.well-known/openid-configuration/jwks')).json()) as { keys: { kid: string }[] }).keys.map((k) => k.kid);
    const published = await jwks();
    const rows = await listSigningKeys(env.DB);
    await expect(rotateSigningKey(env.DB, env)).rejects.toBeInstanceOf(RotationRefusedError);
    // Parallel attempts are refused too (the guard is part of the insert).
    const parallel = await Promise.allSettled([rotateSigningKey(env.DB, env), rotateSigningKey(env.DB, env)]);
    expect(parallel.every((r) => r.status === 'rejected')).toBe(true);
    expect(await listSigningKeys(env.DB)).toEqual(rows);
    expect(await jwks()).toEqual(published);
    // Once the waiting key signs, the next rotation goes ahead.
    await env.DB.prepare('UPDATE signing_keys SET activates_at = unixepoch() - 1 WHERE kid = ?').bind(kid).run();
    const next = await rotateSigningKey(env.DB, env);
    expect((await listSigningKeys(env.DB)).map((k) => k.kid)).toContain(next.kid);
  });
});

describe('API documentation', () => {
  it('describes the identity endpoints in the OpenAPI document', async () => {
    const doc = (await (await call('/api/docs/identity.json')).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/connect/token', '/connect/authorize', '/.well-known/openid-configuration', '/connect/revocation', '/connect/introspect']));
  });
});
