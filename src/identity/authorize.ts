// The authorization endpoint (RFC 6749 §3.1, §4.1, §4.2; OIDC Core §3.1.2, §3.2.2). Errors that
// cannot be trusted to go back to the client (unknown client, bad redirect_uri) are shown on an
// error page; every other error goes to the registered redirect_uri with `state` and `iss`.
import type { Context } from 'hono';
import { APP_TYPES, matchesRegisteredUri, type ResponseType } from './app-types';
import { findClient, type ClientRow } from './clients';
import { sendAuthorizeResponse, type ResponseMode, type ResponseTarget } from './authorize-response';
import { nowSeconds, randomToken, sha256Base64url } from './crypto';
import { quoteInput, readBrowserParams, type Params } from './oauth-params';
import { renderErrorPage } from './pages';
import { ACCOUNT_LOGIN_PATH } from './paths';
import { createPending } from './pending';
import { grantedUserScopes } from './user-scopes';
import { parseScopeParam, SUPPORTED_SCOPES } from '../auth/scopes';
import { readSession, type Session } from './session';
import { issueAccessToken, issueIdToken, issuerOf } from './tokens';
import { codes, grants } from './store';
import { findUser } from './users';

export const AUTHORIZATION_CODE_LIFETIME_SECONDS = 300;

const RESPONSE_TYPES = new Map<string, ResponseType>([
  ['code', 'code'],
  ['token', 'token'],
  ['id_token token', 'id_token token'],
  ['token id_token', 'id_token token'],
]);
const RESPONSE_MODES: readonly ResponseMode[] = ['query', 'fragment', 'form_post'];
const PROMPTS = new Set(['none', 'login', 'consent', 'select_account']);
const PKCE_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export interface AuthorizeRequest {
  app: ClientRow;
  target: ResponseTarget;
  responseType: ResponseType;
  state?: string;
  nonce?: string;
  scopes: string[];
  codeChallenge?: string;
  prompt: Set<string>;
  maxAge?: number;
}

type Validation =
  | { kind: 'ok'; request: AuthorizeRequest }
  | { kind: 'unsafe'; error: string; description: string }
  | { kind: 'redirect'; target: ResponseTarget; state?: string; error: string; description: string };

/** Checks an authorize request in RFC order: client and redirect_uri first (unsafe), then the rest. */
export async function validateAuthorizeRequest(c: Context, params: Params): Promise<Validation> {
  const unsafe = (error: string, description: string): Validation => ({ kind: 'unsafe', error, description });
  const clientId = params.get('client_id');
  if (!clientId) return unsafe('invalid_request', 'client_id is missing.');
  const app = await findClient(c.env, clientId);
  if (!app) return unsafe('invalid_client', 'Unknown client_id.');
  const rules = APP_TYPES[app.authType];
  if (!rules.usesRedirects) return unsafe('unauthorized_client', 'This app uses Client Credentials and cannot use the authorization endpoint.');
  const redirectUri = params.get('redirect_uri');
  if (!redirectUri) return unsafe('invalid_request', 'redirect_uri is missing.');
  if (!matchesRegisteredUri(app.redirectUris, redirectUri, { publicClient: !app.requireClientSecret })) return unsafe('invalid_request', 'redirect_uri is not registered for this client.');

  const rawResponseType = params.get('response_type');
  const responseType = rawResponseType ? RESPONSE_TYPES.get(rawResponseType) : undefined;
  const requestedMode = params.get('response_mode') as ResponseMode | undefined;
  // Anything returning a token (even an unsupported hybrid) must not put it in the query string.
  const defaultMode: ResponseMode = rawResponseType?.includes('token') ? 'fragment' : 'query';
  const modeKnown = requestedMode !== undefined && RESPONSE_MODES.includes(requestedMode);
  const tokenInQuery = requestedMode === 'query' && defaultMode === 'fragment';
  const target: ResponseTarget = { redirectUri, responseMode: modeKnown && !tokenInQuery ? requestedMode : defaultMode };
  const state = params.get('state');
  const fail = (error: string, description: string): Validation => ({ kind: 'redirect', target, state, error, description });

  if (params.has('request')) return fail('request_not_supported', 'Request objects are not supported.');
  if (params.has('request_uri')) return fail('request_uri_not_supported', 'request_uri is not supported.');
  if (!rawResponseType) return fail('invalid_request', 'response_type is missing.');
  if (!responseType) return fail('unsupported_response_type', 'response_type must be code, token or id_token token.');
  if (!rules.responseTypes.includes(responseType)) {
    return fail('unauthorized_client', `This app (${rules.label}) may not use response_type ${quoteInput(rawResponseType)}.`);
  }
  if (requestedMode !== undefined && !modeKnown) return fail('invalid_request', 'response_mode must be query, fragment or form_post.');
  if (tokenInQuery) return fail('invalid_request', 'response_mode=query is not allowed when tokens are returned.');
  if (state !== undefined && state.length > 2000) return fail('invalid_request', 'state is longer than 2000 characters.');

  const scopes = parseScopeParam(params.get('scope'));
  if (scopes.length === 0) return fail('invalid_scope', 'scope is missing.');
  const unknown = scopes.filter((s) => !SUPPORTED_SCOPES.includes(s));
  if (unknown.length) return fail('invalid_scope', `Unsupported scope: ${quoteInput(unknown.join(' '))}.`);
  if (responseType === 'id_token token' && !scopes.includes('openid')) {
    return fail('invalid_scope', 'response_type id_token token requires the openid scope.');
  }

  const nonce = params.get('nonce');
  if (responseType === 'id_token token' && !nonce) return fail('invalid_request', 'nonce is required for response_type id_token token.');
  if (nonce && nonce.length > 300) return fail('invalid_request', 'nonce is longer than 300 characters.');

  let codeChallenge: string | undefined;
  if (responseType === 'code') {
    codeChallenge = params.get('code_challenge');
    const method = params.get('code_challenge_method');
    if (codeChallenge === undefined) {
      if (method !== undefined) return fail('invalid_request', 'code_challenge_method was sent without code_challenge.');
      if (app.requirePkce) return fail('invalid_request', 'code_challenge is required (PKCE, S256) for this client.');
    } else {
      if (method !== 'S256') return fail('invalid_request', 'code_challenge_method must be S256 (plain is not supported).');
      if (!PKCE_CHALLENGE.test(codeChallenge)) return fail('invalid_request', 'code_challenge must be the 43-character base64url SHA-256 of the verifier.');
    }
  }

  const prompt = new Set(parseScopeParam(params.get('prompt')));
  if ([...prompt].some((p) => !PROMPTS.has(p))) return fail('invalid_request', 'prompt must be none, login, consent or select_account.');
  if (prompt.has('none') && prompt.size > 1) return fail('invalid_request', 'prompt=none cannot be combined with other values.');
  let maxAge: number | undefined;
  const rawMaxAge = params.get('max_age');
  if (rawMaxAge !== undefined) {
    if (!/^\d{1,9}$/.test(rawMaxAge)) return fail('invalid_request', 'max_age must be a non-negative integer.');
    maxAge = Number(rawMaxAge);
  }
  return { kind: 'ok', request: { app, target, responseType, state, nonce, scopes, codeChallenge, prompt, maxAge } };
}

/** OIDC Session Management `session_state`: hash of client, RP origin, session id and a salt. */
async function sessionState(clientId: string, redirectUri: string, sid: string): Promise<string> {
  const salt = randomToken(16);
  const hash = await sha256Base64url(`${clientId} ${new URL(redirectUri).origin} ${sid} ${salt}`);
  return `${hash}.${salt}`;
}

/** Issues the code or tokens for a validated request and a session of the app's tenant. */
export async function completeAuthorization(c: Context, request: AuthorizeRequest, session: Session): Promise<Response> {
  const { app, target } = request;
  const env = c.env;
  const user = await findUser(env.DB, session.userId);
  if (!user || user.disabled) return sendAuthorizeResponse(c, target, errorValues(c, request.state, 'access_denied', 'The user account is disabled.'));
  const scopes = grantedUserScopes(request.scopes, user.role, request.responseType === 'code');
  const common = {
    scope: scopes.join(' '),
    state: request.state,
    session_state: await sessionState(app.clientId, target.redirectUri, session.sid),
    iss: issuerOf(env),
  };
  const now = nowSeconds();
  if (request.responseType === 'code') {
    const code = randomToken(32);
    await codes.insert(env.DB, {
      codeHash: await sha256Base64url(code),
      tenantId: app.tenantId,
      clientId: app.clientId,
      userId: user.id,
      sid: session.sid,
      redirectUri: target.redirectUri,
      scope: common.scope,
      nonce: request.nonce ?? null,
      codeChallenge: request.codeChallenge ?? null,
      authTime: session.authTime,
      createdAt: now,
      expiresAt: now + AUTHORIZATION_CODE_LIFETIME_SECONDS,
    });
    return sendAuthorizeResponse(c, target, { code, ...common });
  }
  // Implicit: the tokens' grant lets RFC 7009 and user revocation reach them like any user token.
  const grantId = crypto.randomUUID();
  await grants.insert(env.DB, {
    id: grantId,
    tenantId: app.tenantId,
    clientId: app.clientId,
    userId: user.id,
    sid: session.sid,
    scope: common.scope,
    authTime: session.authTime,
    createdAt: now,
    expiresAt: now + app.tokenLifetime,
  });
  const access = await issueAccessToken(env, {
    clientId: app.clientId,
    tenantId: app.tenantId,
    scopes,
    lifetime: app.tokenLifetime,
    user: { userId: user.id, authTime: session.authTime, sid: session.sid, grantId },
  });
  const idToken =
    request.responseType === 'id_token token'
      ? await issueIdToken(env, { clientId: app.clientId, userId: user.id, authTime: session.authTime, sid: session.sid, grantId, nonce: request.nonce, accessToken: access.token })
      : undefined;
  return sendAuthorizeResponse(c, target, {
    access_token: access.token,
    token_type: 'Bearer',
    expires_in: String(access.expiresIn),
    id_token: idToken,
    ...common,
  });
}

function errorValues(c: Context, state: string | undefined, error: string, description: string) {
  return { error, error_description: description, state, iss: issuerOf(c.env) };
}

/** Validated request → error page, error redirect, or the request itself. */
async function validated(c: Context, params: Params): Promise<Response | AuthorizeRequest> {
  const v = await validateAuthorizeRequest(c, params);
  if (v.kind === 'unsafe') return renderErrorPage(c, v.error, v.description);
  if (v.kind === 'redirect') return sendAuthorizeResponse(c, v.target, errorValues(c, v.state, v.error, v.description));
  return v.request;
}

/** GET and POST /connect/authorize. */
export async function authorizeEndpoint(c: Context): Promise<Response> {
  const params = await readBrowserParams(c);
  if (typeof params === 'string') return renderErrorPage(c, 'invalid_request', params);
  const request = await validated(c, params);
  if (request instanceof Response) return request;
  const session = await readSession(c);
  const live =
    session !== null &&
    session.tenantId === request.app.tenantId &&
    !request.prompt.has('login') &&
    (request.maxAge === undefined || nowSeconds() - session.authTime <= request.maxAge);
  if (live) return completeAuthorization(c, request, session);
  if (request.prompt.has('none')) {
    return sendAuthorizeResponse(c, request.target, errorValues(c, request.state, 'login_required', 'The user is not signed in.'));
  }
  // prompt=login is satisfied by the sign-in that follows, so it is not kept in the pending request.
  const kept = Object.fromEntries([...params].filter(([k]) => k !== 'prompt' && k !== 'max_age'));
  const pending = await createPending(c, { kind: 'authorize', params: kept });
  c.header('Cache-Control', 'no-store');
  return c.redirect(`${ACCOUNT_LOGIN_PATH}?pending=${encodeURIComponent(pending)}`, 302);
}

/** After a successful sign-in: re-validate the stored request (the app may have changed) and answer it. */
export async function resumeAuthorization(c: Context, params: Record<string, string>, session: Session): Promise<Response> {
  const request = await validated(c, new Map(Object.entries(params)));
  if (request instanceof Response) return request;
  if (session.tenantId !== request.app.tenantId) {
    return sendAuthorizeResponse(c, request.target, errorValues(c, request.state, 'access_denied', 'The user does not belong to this app’s tenant.'));
  }
  return completeAuthorization(c, request, session);
}

