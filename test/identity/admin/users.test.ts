import { env } from 'cloudflare:workers';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { getDb } from '../../../src/db/client';
import { grants, sessions, signingKeys, users } from '../../../src/db/schema';
import { verifyPassword } from '../../../src/identity/passwords';
import { findUser } from '../../../src/identity/users';
import { cookiesFrom, get, makeTenant, post, signIn, tenantName } from './helpers';

const db = () => getDb(env.DB);
const sessionsOf = (userId: string) => db().select().from(sessions).where(eq(sessions.userId, userId)).all();

async function liveGrant(tenantId: number, userId: string) {
  const id = crypto.randomUUID();
  const now = Math.floor(Date.now() / 1000);
  await db().insert(grants).values({ id, tenantId, clientId: 'some-app', userId, scope: 'openid', authTime: now, expiresAt: now + 3600 });
  return id;
}
const grantRevoked = async (id: string) => (await db().select().from(grants).where(eq(grants.id, id)).get())!.revokedAt !== null;

describe('Settings > Users', () => {
  it('lists the tenant’s users with role and status', async () => {
    const t = await makeTenant();
    const html = await (await get('/admin/users', await signIn(t.admin))).text();
    expect(html).toContain(t.admin.email);
    expect(html).toContain(t.user.email);
    expect(html).toContain('(you)');
  });

  it('creates a user with a role and a hashed password', async () => {
    const t = await makeTenant();
    const b = await signIn(t.admin);
    const res = await post('/admin/users/new', b, { email: ' New.Admin@Example.test ', name: 'Nia', role: 'admin', password: 'a-long-password' });
    expect(res.status).toBe(303);
    const created = (await db().select().from(users).where(eq(users.email, 'new.admin@example.test')).all()).find((u) => u.tenantId === t.id)!;
    expect(created).toMatchObject({ role: 'admin', name: 'Nia', disabled: false });
    expect(await verifyPassword('a-long-password', created)).toBe(true);
    expect(await (await get(res.headers.get('location')!, b, cookiesFrom(res))).text()).toContain('created');
  });

  it('refuses a duplicate e-mail, a bad e-mail, a missing role and a short password next to each field', async () => {
    const t = await makeTenant();
    const b = await signIn(t.admin);
    const dup = await post('/admin/users/new', b, { email: t.user.email.toUpperCase(), role: 'user', password: 'a-long-password' });
    expect(dup.status).toBe(400);
    expect(await dup.text()).toMatch(/id="email-error">A user with this e-mail address already exists/);
    const bad = await post('/admin/users/new', b, { email: 'not-an-email', role: 'owner', password: 'short' });
    const html = await bad.text();
    expect(bad.status).toBe(400);
    for (const field of ['email', 'role', 'password']) expect(html).toContain(`id="${field}-error"`);
    expect(html).not.toContain('value="short"');
    expect(await db().select().from(users).where(eq(users.tenantId, t.id)).all()).toHaveLength(2);
  });

  it('resets a password and revokes the user’s grants and sessions', async () => {
    const t = await makeTenant();
    const b = await signIn(t.admin);
    await signIn(t.user);
    const grant = await liveGrant(t.id, t.user.id);
    const tooShort = await post(`/admin/users/${t.user.id}/password`, b, { password: 'short' });
    expect(tooShort.status).toBe(400);
    expect(await tooShort.text()).toContain('id="password-error"');
    expect(await sessionsOf(t.user.id)).toHaveLength(1);

    const res = await post(`/admin/users/${t.user.id}/password`, b, { password: 'a-brand-new-password' });
    expect(res.status).toBe(303);
    expect(await verifyPassword('a-brand-new-password', (await findUser(env.DB, t.user.id))!)).toBe(true);
    expect(await sessionsOf(t.user.id)).toHaveLength(0);
    expect(await grantRevoked(grant)).toBe(true);
  });

  it('disables a user after confirmation, revoking all their grants and sessions, and can enable them again', async () => {
    const t = await makeTenant();
    const b = await signIn(t.admin);
    const userBrowser = await signIn(t.user);
    const grant = await liveGrant(t.id, t.user.id);
    expect(await (await get(`/admin/users/${t.user.id}/disable`, b)).text()).toContain('Disable user');
    expect((await findUser(env.DB, t.user.id))!.disabled).toBe(false);

    expect((await post(`/admin/users/${t.user.id}/disable`, b, {})).status).toBe(303);
    expect((await findUser(env.DB, t.user.id))!.disabled).toBe(true);
    expect(await sessionsOf(t.user.id)).toHaveLength(0);
    expect(await grantRevoked(grant)).toBe(true);
    expect((await get('/admin', userBrowser)).status).toBe(303); // their session is gone
    expect(await (await get(`/admin/users/${t.user.id}`, b)).text()).toContain('Disabled');

    expect((await post(`/admin/users/${t.user.id}/enable`, b, {})).status).toBe(303);
    expect((await findUser(env.DB, t.user.id))!.disabled).toBe(false);
  });

  it('does not let an admin disable themself', async () => {
    const t = await makeTenant();
    const b = await signIn(t.admin);
    expect(await (await get(`/admin/users/${t.admin.id}`, b)).text()).toContain('You cannot disable your own account');
    const res = await post(`/admin/users/${t.admin.id}/disable`, b, {});
    expect(res.status).toBe(400);
    expect((await findUser(env.DB, t.admin.id))!.disabled).toBe(false);
    expect(await sessionsOf(t.admin.id)).toHaveLength(1);
  });
});

describe('Settings > Tenant', () => {
  it('shows the tenant’s name and id, the region, the issuer and the signing keys, read-only', async () => {
    const t = await makeTenant();
    const b = await signIn(t.admin);
    await get('/.well-known/openid-configuration/jwks'); // the first key exists
    const html = await (await get('/admin/tenant', b)).text();
    expect(html).toContain(tenantName(t.id));
    expect(html).toContain(`<code>${t.id}</code>`);
    expect(html).toContain(env.REGION);
    expect(html).toContain(env.ISSUER);
    const keys = await db().select().from(signingKeys).all();
    for (const k of keys) expect(html).toContain(k.kid);
    expect(html).not.toContain('rotate-key');
    expect(html).not.toMatch(/<button[^>]*>\s*Rotate/);
  });

  it('offers a tenant admin no way to rotate the instance’s signing keys', async () => {
    const t = await makeTenant();
    const b = await signIn(t.admin);
    const before = await db().select().from(signingKeys).all();
    const res = await post('/admin/tenant/rotate-key', b, {});
    expect(res.status).toBe(404);
    expect(await db().select().from(signingKeys).all()).toEqual(before);
  });
});
