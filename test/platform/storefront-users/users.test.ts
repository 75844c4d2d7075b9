// Storefront users, storefronts and the tenant (contract, "Storefront" and "Auth & tenancy"):
// create is idempotent, anonymous users are listed only on request, register and merge, and the
// design editor's token confined to one user.
import { beforeAll, describe, expect, it } from 'vitest';
import { env } from 'cloudflare:workers';
import { decodeJwt } from 'jose';
import { verifyAccessToken } from '../../../src/auth';
import { api, apiJson, seedPlatform, tenantToken } from '../../helpers/platform';

const SF = '/api/storefront/v1';
const uniq = (p: string) => `${p}-${Date.now()}-${Math.random().toString(36).slice(2, 6)}`;

beforeAll(async () => {
  await seedPlatform();
});

describe('storefront users', () => {
  it('creates a user (201); an existing id answers 201 with that user unchanged', async () => {
    const id = uniq('u');
    const user = await apiJson('POST', `${SF}/storefront-users?storefrontId=1`, { storefrontUserId: id, isAnonymous: true }, { token: 1 }, 201);
    expect(user).toEqual({ userId: id, tenantId: 1, storefrontId: 1, isAnonymous: true });
    const again = await apiJson('POST', `${SF}/storefront-users?storefrontId=1`, { storefrontUserId: id, isAnonymous: false }, { token: 1 }, 201);
    expect(again.isAnonymous).toBe(true);
  });

  it('lists regular users; anonymous ones only with includeAnonymous=true', async () => {
    const anon = uniq('anon');
    await apiJson('POST', `${SF}/storefront-users?storefrontId=1`, { storefrontUserId: anon, isAnonymous: true }, { token: 1 }, 201);
    const plain = await apiJson('GET', `${SF}/storefront-users?storefrontId=1&take=1000`, undefined, { token: 1 });
    expect(plain.items.map((u: any) => u.userId)).toContain('demo-customer');
    expect(plain.items.map((u: any) => u.userId)).not.toContain(anon);
    const all = await apiJson('GET', `${SF}/storefront-users?storefrontId=1&includeAnonymous=true&take=1000`, undefined, { token: 1 });
    expect(all.items.map((u: any) => u.userId)).toContain(anon);
    expect(all.total).toBe(all.items.length);
  });

  it('storefrontId is required (400); an unknown storefront is 404', async () => {
    expect((await api('GET', `${SF}/storefront-users`, undefined, { token: 1 })).status).toBe(400);
    expect((await api('POST', `${SF}/storefront-users`, { storefrontUserId: 'x' }, { token: 1 })).status).toBe(400);
    expect((await api('GET', `${SF}/storefront-users?storefrontId=999999`, undefined, { token: 1 })).status).toBe(404);
    expect((await api('POST', `${SF}/storefront-users?storefrontId=abc`, { storefrontUserId: 'x' }, { token: 1 })).status).toBe(400);
  });

  it('gets a user; unknown or another tenant → 404', async () => {
    expect(await apiJson('GET', `${SF}/storefront-users/demo-customer?storefrontId=1`, undefined, { token: 1 })).toMatchObject({ userId: 'demo-customer', isAnonymous: false });
    expect((await api('GET', `${SF}/storefront-users/nobody?storefrontId=1`, undefined, { token: 1 })).status).toBe(404);
    expect((await api('GET', `${SF}/storefront-users/demo-customer?storefrontId=1`, undefined, { token: 2 })).status).toBe(404);
    expect((await api('POST', `${SF}/storefront-users?storefrontId=1`, { storefrontUserId: 'x' }, { token: 2 })).status).toBe(404);
  });

  it('register answers 200 and makes an anonymous user regular', async () => {
    const id = uniq('reg');
    await apiJson('POST', `${SF}/storefront-users?storefrontId=1`, { storefrontUserId: id, isAnonymous: true }, { token: 1 }, 201);
    const user = await apiJson('POST', `${SF}/storefront-users/register?storefrontId=1`, { storefrontUserId: id }, { token: 1 }, 200);
    expect(user.isAnonymous).toBe(false);
    const fresh = await apiJson('POST', `${SF}/storefront-users/register?storefrontId=1`, { storefrontUserId: uniq('new') }, { token: 1 }, 200);
    expect(fresh.isAnonymous).toBe(false);
  });

  it('merge-anonymous moves projects and private assets to the regular user (200 empty) and removes the anonymous user', async () => {
    const anon = uniq('anon');
    const regular = uniq('reg');
    await apiJson('POST', `${SF}/storefront-users?storefrontId=1`, { storefrontUserId: anon, isAnonymous: true }, { token: 1 }, 201);
    await apiJson('POST', `${SF}/storefront-users?storefrontId=1`, { storefrontUserId: regular }, { token: 1 }, 201);
    const designId = crypto.randomUUID().replace(/-/g, '').slice(0, 24);
    await env.DB.prepare(`INSERT INTO assets (tenant_id, id, type, owner_id, name) VALUES (1, ?1, 'design', ?2, 'anon-design')`).bind(designId, anon).run();
    const project = await apiJson('POST', `${SF}/projects/with-single-item?storefrontId=1`, { ownerId: anon, item: { designIds: [designId] } }, { token: 1 }, 201);
    const res = await api('POST', `${SF}/storefront-users/merge-anonymous?storefrontId=1`, { anonymousStorefrontUserId: anon, regularStorefrontUserId: regular }, { token: 1 });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('');
    expect((await apiJson('GET', `${SF}/projects/${project.id}`, undefined, { token: 1 })).ownerId).toBe(regular);
    const asset = await env.DB.prepare(`SELECT owner_id AS o FROM assets WHERE tenant_id = 1 AND id = ?1`).bind(designId).first<{ o: string }>();
    expect(asset!.o).toBe(regular);
    expect((await api('GET', `${SF}/storefront-users/${anon}?storefrontId=1`, undefined, { token: 1 })).status).toBe(404);
  });

  it('merge-anonymous: unknown users → 404 with errors; a regular "anonymous" user → 409', async () => {
    const res = await api('POST', `${SF}/storefront-users/merge-anonymous?storefrontId=1`, { anonymousStorefrontUserId: 'nobody-1', regularStorefrontUserId: 'demo-customer' }, { token: 1 });
    expect(res.status).toBe(404);
    expect(((await res.json()) as any).errors).toHaveProperty('anonymousStorefrontUserId');
    const regular = uniq('reg');
    await apiJson('POST', `${SF}/storefront-users?storefrontId=1`, { storefrontUserId: regular }, { token: 1 }, 201);
    expect((await api('POST', `${SF}/storefront-users/merge-anonymous?storefrontId=1`, { anonymousStorefrontUserId: regular, regularStorefrontUserId: 'demo-customer' }, { token: 1 })).status).toBe(409);
  });
});

describe('the storefront-user token', () => {
  it('is an access token of the caller app: sub = suid = the user, no auth_time/gid, Assets_read Private_assets_full, ≤ 3600 s', async () => {
    const res = await api('GET', `${SF}/storefront-users/token?storefrontId=1&storefrontUserId=demo-customer`, undefined, { token: 1 });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    const token = await res.text();
    const claims = decodeJwt(token);
    expect(claims).toMatchObject({ sub: 'demo-customer', suid: 'demo-customer', client_id: 'demo-backend', tenantId: 1 });
    expect(claims).not.toHaveProperty('auth_time');
    expect(claims).not.toHaveProperty('gid');
    expect(String(claims.scope).split(' ').sort()).toEqual(['Assets_read', 'Private_assets_full']);
    expect(claims.exp! - claims.iat!).toBeLessThanOrEqual(3600);
    const auth = await verifyAccessToken(env as never, token);
    expect(auth.sub).toBe('demo-customer');
    expect(auth.userId).toBeUndefined();
  });

  it("caps each scope at the caller's own level and drops what the caller lacks", async () => {
    const caller = await tenantToken(1, 'StorefrontUsers_full Private_assets_update');
    const token = await (await api('GET', `${SF}/storefront-users/token?storefrontId=1&storefrontUserId=demo-customer`, undefined, { token: caller })).text();
    expect(decodeJwt(token).scope).toBe('Private_assets_update');
  });

  it('needs StorefrontUsers_full; the user must exist in that storefront (else 404)', async () => {
    const reader = await tenantToken(1, 'StorefrontUsers_read');
    expect((await api('GET', `${SF}/storefront-users/token?storefrontId=1&storefrontUserId=demo-customer`, undefined, { token: reader })).status).toBe(403);
    expect((await api('GET', `${SF}/storefront-users/token?storefrontId=1&storefrontUserId=nobody`, undefined, { token: 1 })).status).toBe(404);
    expect((await api('GET', `${SF}/storefront-users/token?storefrontId=2&storefrontUserId=demo-customer`, undefined, { token: 2 })).status).toBe(404);
    expect((await api('GET', `${SF}/storefront-users/token?storefrontId=1`, undefined, { token: 1 })).status).toBe(400);
  });

  it('cannot reach projects or storefront users (its scopes do not cover them)', async () => {
    const token = await (await api('GET', `${SF}/storefront-users/token?storefrontId=1&storefrontUserId=demo-customer`, undefined, { token: 1 })).text();
    expect((await api('GET', `${SF}/projects`, undefined, { token })).status).toBe(403);
    expect((await api('GET', `${SF}/storefront-users?storefrontId=1`, undefined, { token })).status).toBe(403);
  });
});

describe('storefronts and the tenant', () => {
  it("lists and gets the tenant's storefronts; another tenant's id is 404", async () => {
    const list = await apiJson('GET', `${SF}/storefronts`, undefined, { token: 1 });
    expect(list.items.find((s: any) => s.id === 1)).toMatchObject({ id: 1, tenantId: 1, name: 'Demo storefront', type: 'Custom', status: 'Dev' });
    expect(list.items.every((s: any) => s.tenantId === 1)).toBe(true);
    expect(await apiJson('GET', `${SF}/storefronts/1`, undefined, { token: 1 })).toMatchObject({ id: 1, name: 'Demo storefront' });
    expect((await api('GET', `${SF}/storefronts/1`, undefined, { token: 2 })).status).toBe(404);
    expect((await api('GET', `${SF}/storefronts/x`, undefined, { token: 1 })).status).toBe(404);
  });

  it('tenant-info and tenant-info/users (a bare array)', async () => {
    expect(await apiJson('GET', `${SF}/tenant-info`, undefined, { token: 2 })).toMatchObject({ tenantId: 2, tenancyName: 'Demo 2', isActive: true });
    const users = await apiJson('GET', `${SF}/tenant-info/users`, undefined, { token: 1 });
    expect(Array.isArray(users)).toBe(true);
    expect(users.length).toBeGreaterThan(0);
    expect(users[0]).toHaveProperty('userId');
    const none = await apiJson('GET', `${SF}/tenant-info/users`, undefined, { token: 2 });
    expect(none.every((u: any) => !users.some((v: any) => v.userId === u.userId))).toBe(true);
  });
});
