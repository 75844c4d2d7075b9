// Admin panel test helpers: a tenant with an admin and a plain user in the real D1, a session for
// either (stored exactly as the login stores it), and form posts as the browser sends them.
import { env, exports } from 'cloudflare:workers';
import { getDb } from '../../../src/db/client';
import { apps, sessions } from '../../../src/db/schema';
import { eq } from 'drizzle-orm';
import { randomToken, sha256Base64url } from '../../../src/identity/crypto';
import { createTenant, createUser, type UserRow } from '../../../src/identity/users';
import { SESSION_COOKIE } from '../../../src/identity/session';

let nextTenant = 1000 + Math.floor(Math.random() * 100_000);

export interface Tenant {
  id: number;
  admin: UserRow;
  user: UserRow;
}

export const tenantName = (id: number) => `Acme ${id}`;

export const ADMIN_PASSWORD = 'admin-password-1';
export const USER_PASSWORD = 'user-password-1';

export async function makeTenant(): Promise<Tenant> {
  const id = await createTenant(env.DB, { id: nextTenant++, name: tenantName(nextTenant - 1) });
  const admin = await createUser(env.DB, { tenantId: id, email: `admin${id}@example.test`, password: ADMIN_PASSWORD, role: 'admin' });
  const user = await createUser(env.DB, { tenantId: id, email: `user${id}@example.test`, password: USER_PASSWORD, role: 'user' });
  return { id, admin, user };
}

export interface Browser {
  cookie: string;
  csrf: string;
}

/** A signed-in browser of this user: a session row as the login writes it, and its cookie. */
export async function signIn(user: UserRow): Promise<Browser> {
  const id = randomToken(32);
  const csrf = randomToken(32);
  const now = Math.floor(Date.now() / 1000);
  await getDb(env.DB).insert(sessions).values({
    idHash: await sha256Base64url(id),
    sid: randomToken(16),
    tenantId: user.tenantId,
    userId: user.id,
    authTime: now,
    csrfSecret: csrf,
    expiresAt: now + 3600,
  });
  return { cookie: `${SESSION_COOKIE}=${id}`, csrf };
}

export const get = (path: string, browser?: Browser, cookie = '') =>
  exports.default.fetch(`http://localhost${path}`, { headers: { cookie: [browser?.cookie, cookie].filter(Boolean).join('; ') }, redirect: 'manual' });

/** Posts a form like the page does; the session's CSRF token is added unless `csrf` overrides it (null: none). */
export function post(path: string, browser: Browser | undefined, fields: Record<string, string | string[]>, csrf: string | null = browser?.csrf ?? null) {
  const body = new URLSearchParams();
  if (csrf !== null) body.set('_csrf', csrf);
  for (const [k, v] of Object.entries(fields)) for (const one of Array.isArray(v) ? v : [v]) body.append(k, one);
  return exports.default.fetch(`http://localhost${path}`, {
    method: 'POST',
    headers: { cookie: browser?.cookie ?? '', 'content-type': 'application/x-www-form-urlencoded' },
    body,
    redirect: 'manual',
  });
}

/** The `name=value` pairs a response sets, for the next request's Cookie header. */
export function cookiesFrom(res: Response): string {
  return res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0]!)
    .filter((c) => !c.endsWith('='))
    .join('; ');
}

export const appsOf = (tenantId: number) => getDb(env.DB).select().from(apps).where(eq(apps.tenantId, tenantId)).all();

/** A valid Client Credentials app form. */
export const ccForm = (overrides: Record<string, string | string[]> = {}) => ({
  switches: '1',
  name: 'Backend',
  authType: 'client_credentials',
  tokenLifetime: '3600',
  'perm.Projects': 'read',
  ...overrides,
});

/** A valid Authorization Code app form (secret and PKCE on). */
export const codeForm = (overrides: Record<string, string | string[]> = {}) => ({
  switches: '1',
  name: 'Web shop',
  authType: 'authorization_code',
  tokenLifetime: '3600',
  redirectUris: 'https://shop.example.com/callback',
  postLogoutRedirectUris: 'https://shop.example.com/signed-out',
  corsOrigins: 'https://shop.example.com',
  requireClientSecret: 'on',
  requirePkce: 'on',
  ...overrides,
});
