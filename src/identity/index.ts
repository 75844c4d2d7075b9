import { useTokenSources } from '../auth';
import { createServiceApp } from '../openapi/app';
import { adminApp } from './admin';
import { adminLogin, loginPage, loginSubmit } from './login';
import { authorizeEndpoint, LOGIN_PATH } from './authorize';
import { appOriginCors } from './cors';
import { discoveryDocument, PATHS } from './discovery';
import { confirmLogout, endSessionEndpoint, LOGOUT_CONFIRM_PATH } from './end-session';
import { getJwks, JWKS_MAX_AGE_SECONDS, verificationKeySet } from './keys';
import { documentIdentity } from './openapi';
import { introspectionEndpoint, revocationEndpoint } from './revocation';
import { tokenEndpoint } from './token-endpoint';
import { userinfoEndpoint } from './userinfo';
import * as tokenState from './store/token-state';

// The resource-server middleware (src/auth) checks tokens against this service's keys and state.
useTokenSources({ verificationKeys: verificationKeySet, tokenIsLive: (env, claims) => tokenState.isLive(env.DB, claims) });

/** Identity service: OAuth 2.0 / OpenID Connect provider and the admin panel. */
export const identityApp = createServiceApp();
documentIdentity(identityApp);

const PUBLIC_METADATA = { 'Access-Control-Allow-Origin': '*', 'Cache-Control': `public, max-age=${JWKS_MAX_AGE_SECONDS}` };

identityApp.get(PATHS.discovery, (c) => c.json(discoveryDocument(c.env), 200, PUBLIC_METADATA));
identityApp.get(PATHS.jwks, async (c) => c.json(await getJwks(c.env), 200, { ...PUBLIC_METADATA, 'Content-Type': 'application/jwk-set+json' }));

identityApp.on(['GET', 'POST'], PATHS.authorize, authorizeEndpoint);
identityApp.get(LOGIN_PATH, loginPage);
identityApp.post(LOGIN_PATH, loginSubmit);
identityApp.get('/admin/login', adminLogin);

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
identityApp.route('/admin', adminApp);
