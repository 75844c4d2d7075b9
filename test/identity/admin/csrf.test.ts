import { env, exports } from 'cloudflare:workers';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { getDb } from '../../../src/db/client';
import { apps, sessions, signingKeys, users } from '../../../src/db/schema';
import { appsOf, ccForm, get, makeTenant, post, signIn, type Browser } from './helpers';

/** Every state-changing form of the panel, with what must stay unchanged when it is refused. */
async function scenario() {
  const t = await makeTenant();
  const admin = await signIn(t.admin);
  await getDb(env.DB).insert(apps).values({ clientId: `keep-${t.id}`, tenantId: t.id, name: 'Keep me', authType: 'implicit', requireClientSecret: false, requirePkce: false });
  const snapshot = async () => ({
    apps: await appsOf(t.id),
    users: await getDb(env.DB).select().from(users).where(eq(users.tenantId, t.id)).all(),
    keys: (await getDb(env.DB).select().from(signingKeys).all()).length,
    sessions: (await getDb(env.DB).select().from(sessions).where(eq(sessions.userId, t.admin.id)).all()).length,
  });
  const posts: [string, Record<string, string>][] = [
    ['/admin/apps/new', ccForm()],
    [`/admin/apps/keep-${t.id}`, { name: 'Renamed', tokenLifetime: '600', redirectUris: 'https://x.example.com/cb' }],
    [`/admin/apps/keep-${t.id}/delete`, {}],
    ['/admin/users/new', { email: 'new@example.test', role: 'admin', password: 'long-enough-password' }],
    [`/admin/users/${t.user.id}/password`, { password: 'another-password' }],
    [`/admin/users/${t.user.id}/disable`, {}],
    ['/admin/logout', {}],
  ];
  return { t, admin, snapshot, posts };
}

async function expectRefused(admin: Browser, posts: [string, Record<string, string>][], csrf: string | null) {
  for (const [path, fields] of posts) {
    const res = await post(path, admin, fields, csrf);
    expect(res.status, path).toBe(403);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(await res.text()).toContain('nothing was changed');
  }
}

describe('CSRF protection of admin forms', () => {
  it('refuses every form post without a CSRF token with a 403 page and changes nothing', async () => {
    const { admin, snapshot, posts } = await scenario();
    const before = await snapshot();
    await expectRefused(admin, posts, null);
    expect(await snapshot()).toEqual(before);
  });

  it('refuses a wrong token, and the token of another session', async () => {
    const { t, admin, snapshot, posts } = await scenario();
    const otherSession = await signIn(t.admin);
    const before = await snapshot();
    await expectRefused(admin, posts, 'not-the-token');
    await expectRefused(admin, posts, otherSession.csrf);
    const after = await snapshot();
    expect(after.apps).toEqual(before.apps);
    expect(after.users).toEqual(before.users);
    expect(after.keys).toBe(before.keys);
  });

  it('refuses a token sent in the query string or as JSON instead of the form', async () => {
    const { t, admin } = await scenario();
    const res = await exports.default.fetch(`http://localhost/admin/apps/new?_csrf=${admin.csrf}`, {
      method: 'POST',
      headers: { cookie: admin.cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ ...ccForm(), _csrf: admin.csrf }),
    });
    expect(res.status).toBe(403);
    expect(await appsOf(t.id)).toHaveLength(1);
  });

  it('puts the session’s token in every form it renders', async () => {
    const { t, admin } = await scenario();
    for (const path of ['/admin/apps/new', `/admin/apps/keep-${t.id}`, `/admin/apps/keep-${t.id}/delete`, '/admin/users/new', `/admin/users/${t.user.id}`, `/admin/users/${t.user.id}/disable`, '/admin/tenant']) {
      const html = await (await get(path, admin)).text();
      const forms = html.match(/<form[^>]*method="post"[\s\S]*?<\/form>/g) ?? [];
      expect(forms.length, path).toBeGreaterThan(0);
      for (const form of forms) expect(form, path).toContain(`name="_csrf" value="${admin.csrf}"`);
    }
  });
});
