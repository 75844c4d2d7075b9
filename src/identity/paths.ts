// Every path the identity service answers, in one place (the route table is index.ts).

/** The OAuth 2.0 / OpenID Connect endpoints (IdentityServer's paths), as discovery publishes them. */
export const PATHS = {
  discovery: '/.well-known/openid-configuration',
  jwks: '/.well-known/openid-configuration/jwks',
  authorize: '/connect/authorize',
  token: '/connect/token',
  userinfo: '/connect/userinfo',
  endSession: '/connect/endsession',
  revocation: '/connect/revocation',
  introspection: '/connect/introspect',
} as const;

/** The sign-in page of a pending request (authorize or admin): GET shows the form, POST submits it. */
export const ACCOUNT_LOGIN_PATH = '/account/login';
/** The confirmation form of a sign-out that came without a valid id_token_hint (POST). */
export const LOGOUT_CONFIRM_PATH = '/account/logout';
/** The admin panel's way in: starts a pending admin sign-in at ACCOUNT_LOGIN_PATH (GET). */
export const ADMIN_LOGIN_PATH = '/admin/login';
/** Where a successful admin sign-in lands. */
export const ADMIN_HOME_PATH = '/admin';
