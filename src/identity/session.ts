// Browser sessions at the identity host, shared by the login page, authorize, end-session and the
// admin panel. The cookie carries a random id; D1 keeps only its SHA-256. A session belongs to one
// user of one tenant and is dropped as soon as the user is disabled or deleted.
import type { Context } from 'hono';
import { clearIdentityCookie, readCookie, setIdentityCookie } from './cookies';
import { nowSeconds, randomToken, sha256Base64url, timingSafeEqual } from './crypto';
import type { UserRole } from '../auth/scopes';
import { sessions } from './store';

export const SESSION_COOKIE = 'idsrv';
/** Absolute session lifetime; after it the user signs in again. */
export const SESSION_LIFETIME_SECONDS = 12 * 3600;

export interface Session {
  /** Public session id: the `sid` claim. */
  sid: string;
  userId: string;
  tenantId: number;
  role: UserRole;
  email: string;
  /** Unix seconds of the password check (the `auth_time` claim). */
  authTime: number;
  csrfSecret: string;
}

/** Each request's session once read (null: none), so the login page, the panel and CSRF checks read D1 once. */
const sessionOfRequest = new WeakMap<Context, Session | null>();

/** The signed-in session of this request, or null (no cookie, unknown, expired, user disabled). */
export async function readSession(c: Context): Promise<Session | null> {
  const cached = sessionOfRequest.get(c);
  if (cached !== undefined) return cached;
  const id = readCookie(c, SESSION_COOKIE);
  let session: Session | null = null;
  if (id && id.length <= 128) {
    const row = await sessions.findLive(c.env.DB, await sha256Base64url(id), nowSeconds());
    if (row && !row.disabled) {
      const { disabled: _disabled, ...rest } = row;
      session = rest;
    }
  }
  sessionOfRequest.set(c, session);
  return session;
}

/** Starts a session for a user who just proved their password; replaces this browser's old one. */
export async function createSession(
  c: Context,
  user: { id: string; tenantId: number; role: UserRole; email: string },
): Promise<Session> {
  await deleteCurrentSessionRow(c);
  const id = randomToken(32);
  const now = nowSeconds();
  const session: Session = {
    sid: randomToken(16),
    userId: user.id,
    tenantId: user.tenantId,
    role: user.role,
    email: user.email,
    authTime: now,
    csrfSecret: randomToken(32),
  };
  await sessions.create(c.env.DB, {
    idHash: await sha256Base64url(id),
    sid: session.sid,
    tenantId: session.tenantId,
    userId: session.userId,
    authTime: session.authTime,
    csrfSecret: session.csrfSecret,
    createdAt: now,
    expiresAt: now + SESSION_LIFETIME_SECONDS,
  });
  setIdentityCookie(c, SESSION_COOKIE, id, SESSION_LIFETIME_SECONDS);
  sessionOfRequest.set(c, session);
  return session;
}

async function deleteCurrentSessionRow(c: Context): Promise<void> {
  const id = readCookie(c, SESSION_COOKIE);
  if (id && id.length <= 128) {
    await sessions.remove(c.env.DB, await sha256Base64url(id));
  }
}

/** Signs this browser out: deletes the server-side session and clears the cookie. */
export async function destroySession(c: Context): Promise<void> {
  await deleteCurrentSessionRow(c);
  clearIdentityCookie(c, SESSION_COOKIE);
  sessionOfRequest.set(c, null);
}

/**
 * The CSRF token for forms of this session (synchronizer token: a per-session random value,
 * distinct from the cookie, so only pages we rendered know it).
 */
export const csrfTokenFor = (session: Session): string => session.csrfSecret;

/** Does a submitted CSRF token belong to this session? Constant-time. */
export function verifyCsrf(session: Session | null, token: unknown): boolean {
  return session !== null && typeof token === 'string' && token.length > 0 && timingSafeEqual(token, session.csrfSecret);
}
