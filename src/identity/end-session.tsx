// RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0). A valid id_token_hint (signature
// and iss; expired is fine) names the app whose post-logout URIs apply (exact match). Without a
// valid hint the user confirms on a page and nothing redirects.
import type { Context } from 'hono';
import { errors, jwtVerify, decodeProtectedHeader } from 'jose';
import { findClient } from './clients';
import { isFormRequest, readBrowserParams, readLimitedText } from './oauth-params';
import { verificationKeySet, SIGNING_ALG } from './keys';
import { renderErrorPage, renderPage } from './pages';
import { LOGOUT_CONFIRM_PATH } from './paths';
import { csrfTokenFor, destroySession, readSession, verifyCsrf } from './session';
import { issuerOf } from './tokens';

interface Hint {
  clientId: string;
  sub: string;
}

/** The hint's app and subject if the ID token is ours (expiry ignored), else undefined. */
async function verifyIdTokenHint(c: Context, token: string | undefined): Promise<Hint | undefined> {
  if (!token || token.length > 8192) return undefined;
  try {
    const header = decodeProtectedHeader(token);
    if (header.typ && header.typ.toLowerCase().endsWith('at+jwt')) return undefined;
    const { payload } = await jwtVerify(token, await verificationKeySet(c.env, header.kid), {
      issuer: issuerOf(c.env),
      algorithms: [SIGNING_ALG],
      // An expired ID token is still a valid hint (OIDC RP-Initiated Logout §2).
      clockTolerance: Number.MAX_SAFE_INTEGER,
    });
    const aud = Array.isArray(payload.aud) ? (payload.aud.length === 1 ? payload.aud[0] : undefined) : payload.aud;
    if (typeof aud !== 'string' || typeof payload.sub !== 'string') return undefined;
    return { clientId: aud, sub: payload.sub };
  } catch (err) {
    if (err instanceof errors.JOSEError || err instanceof TypeError || err instanceof SyntaxError) return undefined;
    throw err;
  }
}

const signedOutPage = (c: Context) =>
  renderPage(
    c,
    'Signed out',
    <>
      <h1>You are signed out</h1>
      <p>You can close this window.</p>
    </>,
  );

/** GET and POST /connect/endsession */
export async function endSessionEndpoint(c: Context): Promise<Response> {
  const params = await readBrowserParams(c);
  if (typeof params === 'string') return renderErrorPage(c, 'invalid_request', params);
  const session = await readSession(c);
  const hint = await verifyIdTokenHint(c, params.get('id_token_hint'));
  const app = hint && (await findClient(c.env, hint.clientId));
  const hintValid = hint !== undefined && app !== undefined && (!session || session.userId === hint.sub);
  if (!hintValid) {
    if (!session) {
      await destroySession(c);
      return signedOutPage(c);
    }
    return renderPage(
      c,
      'Sign out',
      <>
        <h1>Sign out?</h1>
        <p>Do you want to sign out of {session.email}?</p>
        <form method="post" action={LOGOUT_CONFIRM_PATH}>
          <input type="hidden" name="csrf" value={csrfTokenFor(session)} />
          <button type="submit">Sign out</button>
        </form>
      </>,
    );
  }
  await destroySession(c);
  const target = params.get('post_logout_redirect_uri');
  if (target && app.postLogoutRedirectUris.includes(target)) {
    const url = new URL(target);
    const state = params.get('state');
    if (state !== undefined) url.searchParams.append('state', state);
    c.header('Cache-Control', 'no-store');
    return c.redirect(url.href, 302);
  }
  return signedOutPage(c);
}

/** POST /account/logout: the confirmation form of a hint-less sign-out. */
export async function confirmLogout(c: Context): Promise<Response> {
  const session = await readSession(c);
  let csrf: string | null = null;
  if (isFormRequest(c)) {
    try {
      csrf = new URLSearchParams(await readLimitedText(c.req.raw, 4096)).get('csrf');
    } catch {
      csrf = null;
    }
  }
  if (session && !verifyCsrf(session, csrf)) return renderErrorPage(c, 'invalid_request', 'The sign-out form has expired; try again.', 403);
  await destroySession(c);
  return signedOutPage(c);
}
