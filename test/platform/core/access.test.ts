import { env } from 'cloudflare:workers';
import { SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { getSigningKey } from '../../../src/identity/keys';
import { DEMO } from '../../helpers/identity-seed';
import { seedPlatform, tenantToken } from '../../helpers/platform';
import { testCall } from './test-area';

beforeAll(seedPlatform);

/** A storefront user's token as GET /storefront-users/token issues it (sub = suid = the user). */
async function storefrontUserToken(user: string): Promise<string> {
  const { kid, key } = await getSigningKey(env);
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({
    iss: DEMO.issuer,
    aud: `${DEMO.issuer}/resources`,
    sub: user,
    suid: user,
    client_id: DEMO.backend.clientId,
    tenantId: 1,
    scope: 'Assets_read Private_assets_full',
    iat: now,
    exp: now + 600,
    jti: crypto.randomUUID(),
  })
    .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid })
    .sign(key);
}

describe('tenantId (contract, Auth & tenancy)', () => {
  it('absent or the token\'s own tenant is accepted; another tenant is a 403 problem', async () => {
    const t1 = await tenantToken(1);
    expect((await testCall('GET', '/api/storage/v1/things', { token: t1 })).status).toBe(200);
    const own = await testCall('GET', '/api/storage/v1/things?tenantId=1', { token: t1 });
    expect(own.status).toBe(200);
    expect(((await own.json()) as any).tenantId).toBe(1);
    for (const q of ['tenantId=2', 'TENANTID=2']) {
      const res = await testCall('GET', `/api/storage/v1/things?${q}`, { token: t1 });
      expect(res.status, q).toBe(403);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
    }
    const t2 = await tenantToken(2);
    expect((await testCall('GET', '/api/storage/v1/things?tenantId=1', { token: t2 })).status).toBe(403);
    expect(((await (await testCall('GET', '/api/storage/v1/things', { token: t2 })).json()) as any).tenantId).toBe(2);
  });

  it('a malformed tenantId is a 400', async () => {
    expect((await testCall('GET', '/api/storage/v1/things?tenantId=abc', { token: await tenantToken(1) })).status).toBe(400);
  });
});

describe('scopes: levels and the owner rule', () => {
  it('a route needing _read accepts _update and _full of the same type only', async () => {
    expect((await testCall('GET', '/api/storage/v1/things', { token: await tenantToken(1, 'Assets_full') })).status).toBe(200);
    expect((await testCall('GET', '/api/storage/v1/things', { token: await tenantToken(1, 'Projects_full') })).status).toBe(403);
    expect((await testCall('GET', '/api/storage/v1/private-things', { token: await tenantToken(1, 'Assets_full') })).status).toBe(403);
    expect((await testCall('GET', '/api/storage/v1/private-things', { token: await tenantToken(1, 'Private_assets_read') })).status).toBe(200);
  });

  it('naming an owner also needs Private_assets at the same level', async () => {
    const assetsOnly = await tenantToken(1, 'Assets_read');
    const res = await testCall('GET', '/api/storage/v1/things?ownerId=alice', { token: assetsOnly });
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toContain('scope="Private_assets_read"');
    const both = await tenantToken(1, 'Assets_read Private_assets_read');
    expect((await testCall('GET', '/api/storage/v1/things?ownerId=alice', { token: both })).status).toBe(200);
    // An empty owner names nobody.
    expect((await testCall('GET', '/api/storage/v1/things?ownerId=', { token: assetsOnly })).status).toBe(200);
  });
});

describe('storefront-user tokens (suid)', () => {
  it('owner defaults to the user; another owner answers 404', async () => {
    const token = await storefrontUserToken('demo-customer');
    const mine = await testCall('GET', '/api/storage/v1/things', { token });
    expect(mine.status).toBe(200);
    expect(((await mine.json()) as any).owner).toBe('demo-customer');
    expect((await testCall('GET', '/api/storage/v1/things?ownerId=demo-customer', { token })).status).toBe(200);
    expect((await testCall('GET', '/api/storage/v1/things?ownerId=someone-else', { token })).status).toBe(404);
  });

  it('a backend token has no confinement', async () => {
    const res = await testCall('GET', '/api/storage/v1/things', { token: await tenantToken(1) });
    expect(((await res.json()) as any).owner).toBeNull();
  });
});
