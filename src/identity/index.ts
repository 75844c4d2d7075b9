import { createServiceApp } from '../openapi/app';
import { adminApp } from './admin';
import { adminLogin, loginPage, loginSubmit } from './login';
import { authorizeEndpoint, LOGIN_PATH } from './authorize';
import { discoveryDocument, PATHS } from './discovery';
import { getJwks, JWKS_MAX_AGE_SECONDS } from './keys';

/** Identity service: OAuth 2.0 / OpenID Connect provider and the admin panel. */
export const identityApp = createServiceApp();

const PUBLIC_METADATA = { 'Access-Control-Allow-Origin': '*', 'Cache-Control': `public, max-age=${JWKS_MAX_AGE_SECONDS}` };

identityApp.get(PATHS.discovery, (c) => c.json(discoveryDocument(c.env), 200, PUBLIC_METADATA));
identityApp.get(PATHS.jwks, async (c) => c.json(await getJwks(c.env), 200, { ...PUBLIC_METADATA, 'Content-Type': 'application/jwk-set+json' }));
identityApp.on(['GET', 'POST'], PATHS.authorize, authorizeEndpoint);
identityApp.get(LOGIN_PATH, loginPage);
identityApp.post(LOGIN_PATH, loginSubmit);
identityApp.get('/admin/login', adminLogin);
identityApp.route('/admin', adminApp);
