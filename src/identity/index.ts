// The identity service's route table: path (paths.ts) → handler. A handler's file is named after
// its endpoint (token-endpoint.ts, authorize.ts, revocation.ts, introspection.ts, userinfo.ts,
// end-session.tsx, login.tsx); its input schema or reader sits beside it (token-request.ts,
// oauth-params.ts) and its storage is store/ (named operations over D1). Identity's sections of
// the admin panel are admin/ (its own routes / *-form / store split); the panel itself is
// src/admin, mounted at /admin.
import { createServiceApp } from '../openapi/app';
import { adminLogin, loginPage, loginSubmit } from './login';
import { authorizeEndpoint } from './authorize';
import { appOriginCors } from './cors';
import { discoveryDocument } from './discovery';
import { confirmLogout, endSessionEndpoint } from './end-session';
import { introspectionEndpoint } from './introspection';
import { getJwks, JWKS_MAX_AGE_SECONDS } from './keys';
import { documentIdentity } from './openapi';
import { ACCOUNT_LOGIN_PATH, ADMIN_LOGIN_PATH, LOGOUT_CONFIRM_PATH, PATHS } from './paths';
import { revocationEndpoint } from './revocation';
import { tokenEndpoint } from './token-endpoint';
import { userinfoEndpoint } from './userinfo';

/** Identity service: OAuth 2.0 / OpenID Connect provider. */
export const identityApp = createServiceApp();
documentIdentity(identityApp);

const PUBLIC_METADATA = { 'Access-Control-Allow-Origin': '*', 'Cache-Control': `public, max-age=${JWKS_MAX_AGE_SECONDS}` };

identityApp.get(PATHS.discovery, (c) => c.json(discoveryDocument(c.env), 200, PUBLIC_METADATA));
identityApp.get(PATHS.jwks, async (c) => c.json(await getJwks(c.env), 200, { ...PUBLIC_METADATA, 'Content-Type': 'application/jwk-set+json' }));

identityApp.on(['GET', 'POST'], PATHS.authorize, authorizeEndpoint);
identityApp.get(ACCOUNT_LOGIN_PATH, loginPage);
identityApp.post(ACCOUNT_LOGIN_PATH, loginSubmit);
identityApp.get(ADMIN_LOGIN_PATH, adminLogin);

// Browser-callable endpoints: CORS for allowed app origins (preflight included); any method so
// that a wrong one gets the OAuth invalid_request instead of a bare 404.
identityApp.use(PATHS.token, appOriginCors());
identityApp.use(PATHS.userinfo, appOriginCors());
identityApp.use(PATHS.revocation, appOriginCors());
identityApp.all(PATHS.token, tokenEndpoint);
identityApp.on(['GET', 'POST'], PATHS.userinfo, userinfoEndpoint);
identityApp.all(PATHS.revocation, revocationEndpoint);
identityApp.all(PATHS.introspection, introspectionEndpoint);

identityApp.on(['GET', 'POST'], PATHS.endSession, endSessionEndpoint);
identityApp.post(LOGOUT_CONFIRM_PATH, confirmLogout);
