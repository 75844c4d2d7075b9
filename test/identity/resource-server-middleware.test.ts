import { env } from 'cloudflare:workers';
import { Hono } from 'hono';
import { SignJWT, generateKeyPair } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { requireScope, type AuthBindings } from '../../src/auth';
import { forgetTokenState } from '../../src/auth/state-cache';
import { handleError } from '../../src/errors';
import { getSigningKey } from '../../src/identity/keys';
import { DEMO, seedIdentity } from '../helpers/identity-seed';
import { call, clientCredentialsToken, codeFlow, decodeJwt } from './flow';

beforeAll(seedIdentity);

const api = new Hono<AuthBindings>();
api.onError(handleError);
api.get('/projects', requireScope('Projects_read'), (c) => c.json(c.var.auth));
api.put('/projects', requireScope('Projects_update'), (c) => c.json({ ok: true }));

const get = (token?: string, headers: Record<string, string> = {}, path = '/projects', method = 'GET') =>
  api.request(path, { method, headers: { ...(token !== undefined ? { authorization: `Bearer ${token}` } : {}), ...headers } }, env);

const now = () => Math.floor(Date.now() / 1000);

/** A token signed with our real key, with the claims a test wants to break. */
async function forge(claims: Record<string, unknown>, header: Record<string, unknown> = {}): Promise<string> {
  const { kid, key } = await getSigningKey(env);
  const t = now();
  return new SignJWT({
    iss: DEMO.issuer,
    aud: `${DEMO.issuer}/resources`,
    sub: DEMO.backend.clientId,
    client_id: DEMO.backend.clientId,
    tenantId: 1,
    scope: 'Projects_read',
    iat: t,
    nbf: t,
    exp: t + 600,
    jti: crypto.randomUUID(),
    ...claims,
  })
    .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid, ...header })
    .sign(key);
}

async function expectInvalidToken(res: Response) {
  expect(res.status).toBe(401);
  expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="[^"]+", error="invalid_token"/);
  expect(((await res.json()) as { error: string }).error).toBe('invalid_token');
}

describe('bearer token presentation (RFC 6750 §2, §3)', () => {
  it('without a token answers 401 with Bearer realm and no error code', async () => {
    const res = await get();
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(`Bearer realm="${DEMO.issuer}/resources"`);
  });

  it('reads the token only from the Authorization header', async () => {
    const token = await clientCredentialsToken();
    const res = await get(undefined, {}, `/projects?access_token=${token}`);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).not.toContain('error=');
  });

  it('treats another scheme as no token', async () => {
    expect((await get(undefined, { authorization: 'Basic Zm9vOmJhcg==' })).status).toBe(401);
  });

  it('answers a malformed JWT with invalid_token, never a 500', async () => {
    for (const token of ['', 'abc', 'a.b.c', 'eyJhbGciOiJSUzI1NiJ9.e30.AAAA', 'x'.repeat(10_000)]) await expectInvalidToken(await get(token));
  });
});

describe('token acceptance (identity contract, RFC 9068 §4)', () => {
  it('accepts a valid token and hands the route the tenant, subject, client and scopes', async () => {
    const res = await get(await clientCredentialsToken('Projects_read Assets_read'));
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ tenantId: 1, sub: DEMO.backend.clientId, clientId: DEMO.backend.clientId, scopes: ['Projects_read', 'Assets_read'] });
  });

  it('hands a user token’s user id, grant and session to the route', async () => {
    const t = await codeFlow('openid Projects_read');
    const auth = (await (await get(t.access_token)).json()) as Record<string, unknown>;
    expect(auth).toMatchObject({ tenantId: 1, sub: DEMO.admin.id, userId: DEMO.admin.id, clientId: DEMO.server.clientId, grantId: expect.any(String), sid: expect.any(String) });
  });

  it('rejects a token signed by a key not in our key set', async () => {
    const { privateKey } = await generateKeyPair('RS256');
    const foreign = await new SignJWT({ client_id: 'x', tenantId: 1, scope: 'Projects_read', jti: 'j' })
      .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: 'foreign' })
      .setIssuer(DEMO.issuer)
      .setAudience(`${DEMO.issuer}/resources`)
      .setSubject('x')
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(privateKey);
    await expectInvalidToken(await get(foreign));
  });

  it('rejects a token whose typ is not at+jwt (an ID token)', async () => {
    const t = await codeFlow('openid Projects_read');
    await expectInvalidToken(await get(t.id_token));
    await expectInvalidToken(await get(await forge({}, { typ: 'JWT' })));
  });

  it('rejects a wrong iss or aud', async () => {
    await expectInvalidToken(await get(await forge({ iss: 'https://evil.example' })));
    await expectInvalidToken(await get(await forge({ aud: DEMO.server.clientId })));
  });

  it('allows 60 s of clock skew on exp and nbf, and no more', async () => {
    expect((await get(await forge({ exp: now() - 30 }))).status).toBe(200);
    await expectInvalidToken(await get(await forge({ exp: now() - 120 })));
    expect((await get(await forge({ nbf: now() + 30 }))).status).toBe(200);
    await expectInvalidToken(await get(await forge({ nbf: now() + 120 })));
  });

  it('requires the app to exist in the token’s tenant', async () => {
    await expectInvalidToken(await get(await forge({ client_id: 'no-such-app', sub: 'no-such-app' })));
    await expectInvalidToken(await get(await forge({ tenantId: 2 })));
    await expectInvalidToken(await get(await forge({ tenantId: '1' })));
  });

  it('rejects a user token whose user is disabled', async () => {
    const t = await codeFlow('openid Projects_read', DEMO.user);
    expect((await get(t.access_token)).status).toBe(200);
    await env.DB.prepare('UPDATE users SET disabled = 1 WHERE id = ?').bind(DEMO.user.id).run();
    forgetTokenState();
    await expectInvalidToken(await get(t.access_token));
    await env.DB.prepare('UPDATE users SET disabled = 0 WHERE id = ?').bind(DEMO.user.id).run();
  });

  it('rejects a user token without a live grant', async () => {
    const t = await codeFlow('openid Projects_read');
    await expectInvalidToken(await get(await forge({ ...decodeJwt(t.access_token).payload, gid: 'no-such-grant', jti: 'other' })));
  });

  it('rejects a denied jti', async () => {
    const token = await clientCredentialsToken();
    await env.DB.prepare('INSERT INTO revoked_jtis (jti, expires_at) VALUES (?, ?)').bind(decodeJwt(token).payload.jti, now() + 3600).run();
    forgetTokenState();
    await expectInvalidToken(await get(token));
  });

  it('caches the revocable state in the isolate (for at most 30 s)', async () => {
    const token = await forge({});
    expect((await get(token)).status).toBe(200);
    await env.DB.prepare('INSERT INTO revoked_jtis (jti, expires_at) VALUES (?, ?)').bind(decodeJwt(token).payload.jti, now() + 3600).run();
    expect((await get(token)).status).toBe(200);
    forgetTokenState();
    await expectInvalidToken(await get(token));
  });
});

describe('scopes (RFC 6750 §3.1, identity contract)', () => {
  it('a route needing _read accepts _update and _full', async () => {
    expect((await get(await clientCredentialsToken('Projects_update'))).status).toBe(200);
    expect((await get(await clientCredentialsToken('Projects_full'))).status).toBe(200);
  });

  it('a missing scope is 403 insufficient_scope naming the scope', async () => {
    const res = await get(await clientCredentialsToken('Projects_read'), {}, '/projects', 'PUT');
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toBe(`Bearer realm="${DEMO.issuer}/resources", error="insufficient_scope", scope="Projects_update"`);
    expect(((await res.json()) as { error: string }).error).toBe('insufficient_scope');
    expect((await get(await clientCredentialsToken('Assets_full'))).status).toBe(403);
  });
});

describe('userinfo (OIDC Core §5.3)', () => {
  const userinfo = (token: string, method = 'GET') => call('/connect/userinfo', { method, headers: { authorization: `Bearer ${token}` } });

  it('returns the user’s claims by scope, on GET and POST', async () => {
    const t = await codeFlow('openid profile email');
    for (const method of ['GET', 'POST']) {
      const res = await userinfo(t.access_token, method);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ sub: DEMO.admin.id, email: DEMO.admin.email, preferred_username: DEMO.admin.email, tenantId: 1 });
    }
  });

  it('answers a bad token with 401 invalid_token', async () => {
    const res = await userinfo('nope');
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it('answers a token without openid (or a client token) with 403 insufficient_scope', async () => {
    const t = await codeFlow('Projects_read');
    for (const token of [t.access_token, await clientCredentialsToken()]) {
      const res = await userinfo(token);
      expect(res.status).toBe(403);
      expect(res.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
    }
  });
});
