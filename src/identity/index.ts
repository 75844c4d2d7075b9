import { createServiceApp } from '../openapi/app';

/** Identity service: OAuth 2.0 / OpenID Connect provider and the admin panel. */
export const identityApp = createServiceApp();
