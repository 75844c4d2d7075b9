// Who may use the admin panel and how its pages are sent: a signed-in admin of the tenant (else
// the identity login, or a 403 page for other users), a CSRF token bound to the session on every
// form post (else a 403 page and nothing changes), and headers that forbid framing and caching.
// The panel (src/admin) puts these in front of every section, identity's and the back office's.
import type { Context, MiddlewareHandler } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { Child } from 'hono/jsx';
import { getDb, type Database } from '../../db/client';
import type { Env } from '../../env';
import { ApiError, forbidden, notFound } from '../../errors';
import { base64url, fromBase64url, randomToken } from '../crypto';
import { ADMIN_LOGIN_PATH, PATHS } from '../paths';
import { csrfTokenFor, destroySession, readSession, verifyCsrf, type Session } from '../session';
import { tenants } from '../store';
import { Page, type Banner, type PanelChrome, type Section } from './layout';

export interface AdminContext {
  session: Session;
  tenantName: string;
  csrf: string;
}

export type AdminEnv = {
  Bindings: Env;
  Variables: { admin: AdminContext; nonce: string; db: Database; flash: Flash; panel: PanelChrome };
};
export type AdminContextOf = Context<AdminEnv>;

/** The panel's name and navigation for every page it renders, errors included: the panel's first middleware. */
export const panelChrome =
  (chrome: PanelChrome): MiddlewareHandler<AdminEnv> =>
  async (c, next) => {
    c.set('panel', chrome);
    await next();
  };

const csp = (nonce: string) =>
  // connect-src 'self': the Assets page's upload is an XMLHttpRequest (for its progress events).
  `default-src 'none'; style-src 'unsafe-inline'; script-src 'nonce-${nonce}'; img-src 'self' data:; connect-src 'self'; ` +
  `form-action 'self'; frame-ancestors 'none'; base-uri 'none'`;

/** Security headers of every admin response, success or error. */
export const adminHeaders: MiddlewareHandler<AdminEnv> = async (c, next) => {
  const nonce = randomToken(16);
  c.set('nonce', nonce);
  await next();
  const h = c.res.headers;
  h.set('Cache-Control', 'no-store');
  h.set('Pragma', 'no-cache');
  h.set('Content-Security-Policy', csp(nonce));
  h.set('X-Frame-Options', 'DENY');
  h.set('X-Content-Type-Options', 'nosniff');
  h.set('Referrer-Policy', 'same-origin');
};

/**
 * Lets only admins of their tenant through. Unauthenticated visitors go to the identity login
 * (which returns to /admin); a signed-in user without the admin role gets a 403 page. Every
 * state-changing request must carry the session's CSRF token in the `_csrf` form field.
 */
export const requireAdmin: MiddlewareHandler<AdminEnv> = async (c, next) => {
  if (c.req.path === ADMIN_LOGIN_PATH) return next();
  const session = await readSession(c);
  if (!session) return c.redirect(ADMIN_LOGIN_PATH, 303);
  if (session.role !== 'admin') throw forbidden('The admin panel is only for administrators of the tenant. Ask an administrator for access.');
  const db = getDb(c.env.DB);
  const tenantName = await tenants.name(db, session.tenantId);
  c.set('db', db);
  c.set('admin', { session, tenantName: tenantName ?? `Tenant ${session.tenantId}`, csrf: csrfTokenFor(session) });
  if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
    // A script's request (the Assets page's upload) may send the token as X-CSRF-Token, so its
    // body can stream to storage unparsed; a cross-site page cannot set that header.
    const header = c.req.header('x-csrf-token');
    const token = header !== undefined ? header : (await c.req.parseBody())._csrf;
    if (!verifyCsrf(session, token)) {
      throw forbidden('The form expired or did not come from this admin panel, so nothing was changed. Go back, reload the page and try again.');
    }
  }
  return next();
};

/** POST /admin/logout: ends the session and returns to the identity login. */
export async function signOut(c: AdminContextOf): Promise<Response> {
  await destroySession(c);
  return c.redirect(ADMIN_LOGIN_PATH, 303);
}

/**
 * The panel's last route: the identity login's path passes on to the plain 404 (GET is served by
 * the identity service, mounted before the panel), `/admin/apps/` is `/admin/apps`, and anything
 * else is the panel's 404 page.
 */
export function adminNotFound(c: AdminContextOf): Response | Promise<Response> {
  if (c.req.path === ADMIN_LOGIN_PATH) return c.notFound();
  if (c.req.method === 'GET' && c.req.path.endsWith('/')) return c.redirect(c.req.path.replace(/\/+$/, '') || '/admin', 301);
  throw notFound('There is no such page in the admin panel.');
}

/** A one-time message (and, once, a new client secret) carried to the next page in a cookie. */
export interface Flash {
  banner?: Banner;
  secret?: { clientId: string; value: string };
}

const FLASH_COOKIE = 'admin_flash';
const FLASH_MAX_AGE = 300;
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Only the admin pages ever see it (it may carry a new secret); Secure except on loopback http. */
function flashCookieOptions(c: Context) {
  const url = new URL(c.req.url);
  const secure = url.protocol === 'https:' || !LOOPBACK.has(url.hostname);
  return { path: '/admin', httpOnly: true, secure, sameSite: 'Lax' as const };
}

export function setFlash(c: Context, flash: Flash): void {
  const value = base64url(new TextEncoder().encode(JSON.stringify(flash)));
  setCookie(c, FLASH_COOKIE, value, { ...flashCookieOptions(c), maxAge: FLASH_MAX_AGE });
}

/** Reads and clears the flash: whatever it carries is shown on this page only. */
export function takeFlash(c: Context): Flash {
  const ac = c as AdminContextOf;
  const taken = ac.get('flash');
  if (taken) return taken;
  const raw = getCookie(c, FLASH_COOKIE);
  let flash: Flash = {};
  if (raw) {
    deleteCookie(c, FLASH_COOKIE, flashCookieOptions(c));
    try {
      flash = JSON.parse(new TextDecoder().decode(fromBase64url(raw))) as Flash;
    } catch {
      // a mangled cookie just shows no banner
    }
  }
  ac.set('flash', flash);
  return flash;
}

/** Redirect after a successful post (post/redirect/get), with a banner for the next page. */
export function done(c: Context, location: string, text: string, extra: Omit<Flash, 'banner'> = {}): Response {
  setFlash(c, { banner: { kind: 'success', text }, ...extra });
  return c.redirect(location, 303);
}

/** Renders an admin page in the frame: navigation, the signed-in admin, the flash banner. */
export function render(
  c: AdminContextOf,
  page: { title: string; section?: Section; banner?: Banner; script?: string; body: Child },
  status: ContentfulStatusCode = 200,
): Response | Promise<Response> {
  const admin = c.get('admin');
  const banner = page.banner ?? takeFlash(c).banner;
  return c.html(
    <Page
      panel={c.get('panel')}
      title={page.title}
      section={page.section}
      admin={admin && { email: admin.session.email, tenantName: admin.tenantName }}
      csrf={admin?.csrf}
      banner={banner}
      nonce={c.get('nonce')}
      script={page.script}
    >
      {page.body}
    </Page>,
    status,
  );
}

const TITLES: Partial<Record<number, string>> = { 403: 'Access denied', 404: 'Not found' };

/** Errors of admin pages become HTML pages with the error's status (the JSON handler's twin). */
export function adminErrorPage(err: unknown, c: Context): Response | Promise<Response> {
  const ac = c as AdminContextOf;
  if (err instanceof ApiError) {
    const title = TITLES[err.status] ?? 'Something is wrong';
    // Signed in, but not as an admin: offer to sign out and sign in as someone else.
    const outsider = !ac.get('admin') && err.status === 403;
    return render(ac, {
      title,
      body: (
        <div class="card">
          <h1>{title}</h1>
          <p>{err.message}</p>
          <p>
            {outsider ? <a href={PATHS.endSession}>Sign out to use another account</a> : <a href="/admin">Back to the dashboard</a>}
          </p>
        </div>
      ),
    }, err.status);
  }
  console.error('Admin panel error', c.req.method, c.req.path, err);
  return render(ac, {
    title: 'Something went wrong',
    body: (
      <div class="card">
        <h1>Something went wrong</h1>
        <p>An unexpected error occurred and has been logged. Nothing else was changed; please try again.</p>
      </div>
    ),
  }, 500);
}
