// The sign-in page: one form for authorize requests and for the admin panel. The pending request
// lives server-side (pending.ts); the page only carries its opaque id and a CSRF token.
import type { Context } from 'hono';
import { findClient } from './clients';
import { resumeAuthorization } from './authorize';
import { ACCOUNT_LOGIN_PATH, ADMIN_HOME_PATH } from './paths';
import { nowSeconds, timingSafeEqual } from './crypto';
import { readLimitedText, isFormRequest } from './oauth-params';
import { ACCOUNT_THROTTLE, clearSignInAttempts, reserveSignInAttempt } from './login-throttle';
import { housekeeping } from './store';
import { renderErrorPage, renderPage } from './pages';
import { burnPasswordCheck, verifyPassword } from './passwords';
import { createPending, deletePending, readPending, type Pending } from './pending';
import { createSession, readSession } from './session';
import { findUserInTenant, findUsersByEmail, normalizeEmail, type UserRow } from './users';

const BAD_CREDENTIALS = 'Invalid e-mail or password.';
/** Throttle key for admin sign-ins with an e-mail no tenant knows. */
const ADMIN_THROTTLE_TENANT = 0;

interface FormState {
  email?: string;
  error?: string;
  askTenant?: boolean;
}

async function loginForm(c: Context, pending: Pending, state: FormState = {}) {
  const appName = pending.request.kind === 'authorize' ? (await findClient(c.env, pending.request.params.client_id ?? ''))?.name : undefined;
  return renderPage(
    c,
    'Sign in',
    <>
      <h1>Sign in</h1>
      <p>{pending.request.kind === 'admin' ? 'Sign in to the admin panel.' : `Sign in to continue to ${appName ?? 'the application'}.`}</p>
      {state.error && (
        <p class="error" role="alert">
          {state.error}
        </p>
      )}
      <form method="post" action={ACCOUNT_LOGIN_PATH}>
        <input type="hidden" name="pending" value={pending.id} />
        <input type="hidden" name="csrf" value={pending.csrfToken} />
        <label for="email">E-mail</label>
        <input id="email" name="email" type="email" autocomplete="username" required value={state.email ?? ''} />
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required />
        {state.askTenant && (
          <>
            <label for="tenant">Tenant id</label>
            <input id="tenant" name="tenant" inputmode="numeric" required />
          </>
        )}
        <button type="submit">Sign in</button>
      </form>
    </>,
  );
}

const expired = (c: Context) =>
  renderErrorPage(c, 'expired', 'This sign-in request is unknown or has expired. Start again from the application.');

/** GET /account/login?pending=<id> */
export async function loginPage(c: Context): Promise<Response> {
  const pending = await readPending(c, c.req.query('pending'));
  if (!pending) return expired(c);
  return loginForm(c, pending);
}

/** GET /admin/login: starts a pending admin sign-in (or goes straight to the panel when signed in). */
export async function adminLogin(c: Context): Promise<Response> {
  if (await readSession(c)) return c.redirect(ADMIN_HOME_PATH, 302);
  const id = await createPending(c, { kind: 'admin' });
  c.header('Cache-Control', 'no-store');
  return c.redirect(`${ACCOUNT_LOGIN_PATH}?pending=${encodeURIComponent(id)}`, 302);
}

/** The user these credentials name, or an error message for the form. */
async function findCandidate(c: Context, pending: Pending, email: string, tenantField: string | undefined): Promise<{ user?: UserRow; tenantId: number; askTenant?: boolean }> {
  if (pending.request.kind === 'authorize') {
    const app = await findClient(c.env, pending.request.params.client_id ?? '');
    if (!app) return { tenantId: -1 };
    return { user: await findUserInTenant(c.env.DB, app.tenantId, email), tenantId: app.tenantId };
  }
  const candidates = await findUsersByEmail(c.env.DB, email);
  // A known account shares its failure counter with the authorize sign-in of its tenant.
  const pick = (user: UserRow | undefined) => ({ user, tenantId: user?.tenantId ?? ADMIN_THROTTLE_TENANT });
  if (tenantField !== undefined) {
    const tenantId = /^\d{1,12}$/.test(tenantField) ? Number(tenantField) : -1;
    return pick(candidates.find((u) => u.tenantId === tenantId));
  }
  if (candidates.length > 1) return { tenantId: ADMIN_THROTTLE_TENANT, askTenant: true };
  return pick(candidates[0]);
}

/** POST /account/login */
export async function loginSubmit(c: Context): Promise<Response> {
  if (!isFormRequest(c)) return renderErrorPage(c, 'invalid_request', 'The sign-in form must be posted as a form.');
  let form: URLSearchParams;
  try {
    form = new URLSearchParams(await readLimitedText(c.req.raw, 16 * 1024));
  } catch {
    return renderErrorPage(c, 'invalid_request', 'The sign-in form is too large.');
  }
  const pending = await readPending(c, form.get('pending') ?? undefined);
  if (!pending) return expired(c);
  if (!timingSafeEqual(form.get('csrf') ?? '', pending.csrfToken)) {
    return renderErrorPage(c, 'invalid_request', 'The form was not issued by this sign-in page (CSRF check failed).', 403);
  }
  const email = normalizeEmail(form.get('email') ?? '').slice(0, 320);
  const password = (form.get('password') ?? '').slice(0, 1024);
  const tenantField = form.get('tenant')?.trim() || undefined;
  if (!email || !password) return loginForm(c, pending, { email, error: 'Enter your e-mail and password.', askTenant: tenantField !== undefined });

  const candidate = await findCandidate(c, pending, email, tenantField);
  if (candidate.askTenant) {
    return loginForm(c, pending, { email, askTenant: true, error: 'This e-mail is registered in several tenants; enter the tenant id.' });
  }
  // Reserved before hashing (and counted whatever the outcome): parallel guesses cannot outrun it.
  const refused = await reserveSignInAttempt(c.env, c.req.raw, candidate.tenantId, email);
  if (refused) return loginForm(c, pending, { email, askTenant: tenantField !== undefined, error: refused });
  const user = candidate.user;
  const ok = user ? await verifyPassword(password, user) : (await burnPasswordCheck(password), false);
  if (!user || !ok || user.disabled) {
    return loginForm(c, pending, { email, error: BAD_CREDENTIALS, askTenant: tenantField !== undefined });
  }
  await clearSignInAttempts(c.env, c.req.raw, candidate.tenantId, email);
  const session = await createSession(c, user);
  await deletePending(c, pending.id);
  // Opportunistic: a sign-in is rare and already slow by design, so no cron is needed for this.
  await housekeeping.sweep(c.env.DB, nowSeconds(), ACCOUNT_THROTTLE);
  if (pending.request.kind === 'admin') return c.redirect(ADMIN_HOME_PATH, 303);
  return resumeAuthorization(c, pending.request.params, session);
}
