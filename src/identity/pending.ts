// Requests waiting for the login form, kept server-side under an opaque id so the page carries no
// return URL. The row is bound to the browser that created it (cookie) and carries the form's
// CSRF token, so a login form cannot be posted from another site or another browser.
import type { Context } from 'hono';
import { readCookie, setIdentityCookie } from './cookies';
import { nowSeconds, randomToken, sha256Base64url, timingSafeEqual } from './crypto';
import { pending } from './store';

export type PendingRequest =
  | { kind: 'authorize'; params: Record<string, string> }
  | { kind: 'admin' };

export interface Pending {
  id: string;
  request: PendingRequest;
  csrfToken: string;
}

const BINDING_COOKIE = 'idsrv.login';
const PENDING_LIFETIME_SECONDS = 30 * 60;
/** A binding with less life left than this is replaced rather than reused. */
const MIN_REUSE_SECONDS = 5 * 60;

type StoredRequest = PendingRequest & { binding: string };

/**
 * The browser binding: `<expires>.<random>`, the cookie's own expiry written into its value (and
 * so into the hash the pending row keeps). Reusing it never extends it: the cookie is not set
 * again and a pending request under it expires when the cookie does. A binding too close to its
 * end, malformed, or claiming more life than we ever give, is replaced by a fresh one.
 */
function browserBinding(c: Context, now: number): { value: string; expiresAt: number } {
  const cookie = readCookie(c, BINDING_COOKIE);
  const match = cookie && cookie.length <= 64 ? /^(\d{1,12})\.[A-Za-z0-9_-]{16,}$/.exec(cookie) : null;
  const expiresAt = match ? Number(match[1]) : 0;
  if (cookie && expiresAt - now >= MIN_REUSE_SECONDS && expiresAt <= now + PENDING_LIFETIME_SECONDS) return { value: cookie, expiresAt };
  const fresh = { value: `${now + PENDING_LIFETIME_SECONDS}.${randomToken(24)}`, expiresAt: now + PENDING_LIFETIME_SECONDS };
  setIdentityCookie(c, BINDING_COOKIE, fresh.value, PENDING_LIFETIME_SECONDS);
  return fresh;
}

/** Stores a pending request and returns its opaque id (for `/account/login?pending=<id>`). */
export async function createPending(c: Context, request: PendingRequest): Promise<string> {
  const now = nowSeconds();
  const binding = browserBinding(c, now);
  const id = randomToken(24);
  const stored: StoredRequest = { ...request, binding: await sha256Base64url(binding.value) };
  await pending.create(c.env.DB, { id, request: stored, csrfToken: randomToken(24), createdAt: now, expiresAt: binding.expiresAt }, now);
  return id;
}

/** The pending request of this browser under `id`, or null (unknown, expired, other browser). */
export async function readPending(c: Context, id: string | undefined): Promise<Pending | null> {
  if (!id || id.length > 64) return null;
  const row = await pending.findLive(c.env.DB, id, nowSeconds());
  if (!row) return null;
  const { binding, ...request } = row.request as unknown as StoredRequest;
  const cookie = readCookie(c, BINDING_COOKIE);
  if (!cookie || !timingSafeEqual(await sha256Base64url(cookie), binding)) return null;
  return { id: row.id, request: request as PendingRequest, csrfToken: row.csrfToken };
}

export async function deletePending(c: Context, id: string): Promise<void> {
  await pending.remove(c.env.DB, id);
}
