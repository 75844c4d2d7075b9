// OpenAPI description of the identity endpoints. The token request is the schema the token
// endpoint validates with (token-request.ts); the other forms are read by their handlers, strictly,
// as RFC 6749 requires (repeated parameters, Basic vs body, etc.).
import { z, type OpenAPIHono } from '@hono/zod-openapi';
import { PATHS } from './paths';
import { TokenRequest } from './token-request';

const OAuthErrorSchema = z
  .object({
    error: z.string().openapi({ example: 'invalid_grant' }),
    error_description: z.string().openapi({ example: 'The authorization code is invalid, expired, already used or was issued to another client.' }),
  })
  .openapi('OAuthError');

const TokenResponse = z
  .object({
    access_token: z.string(),
    token_type: z.literal('Bearer'),
    expires_in: z.number().int(),
    scope: z.string(),
    refresh_token: z.string().optional().openapi({ description: 'Authorization Code with offline_access only.' }),
    id_token: z.string().optional().openapi({ description: 'When openid was requested.' }),
  })
  .openapi('TokenResponse');

const TokenForm = z.object({ token: z.string(), token_type_hint: z.enum(['access_token', 'refresh_token']).optional() });

const form = (schema: z.ZodType) => ({ content: { 'application/x-www-form-urlencoded': { schema } }, required: true });
const oauthErrors = {
  400: { description: 'invalid_request, invalid_grant, invalid_scope, unauthorized_client, unsupported_grant_type', content: { 'application/json': { schema: OAuthErrorSchema } } },
  401: { description: 'invalid_client (WWW-Authenticate: Basic when HTTP Basic was tried)', content: { 'application/json': { schema: OAuthErrorSchema } } },
};
const json = (description: string) => ({ description, content: { 'application/json': { schema: z.record(z.string(), z.unknown()) } } });
const page = (description: string) => ({ description, content: { 'text/html': { schema: z.string() } } });

export function documentIdentity(app: OpenAPIHono<any>): void {
  const r = app.openAPIRegistry;
  const tags = ['OAuth 2.0 / OpenID Connect'];
  r.registerPath({ method: 'get', path: PATHS.discovery, tags, summary: 'OpenID Provider metadata', responses: { 200: json('Discovery document') } });
  r.registerPath({ method: 'get', path: PATHS.jwks, tags, summary: 'JSON Web Key Set', responses: { 200: json('Public signing keys') } });
  r.registerPath({
    method: 'get',
    path: PATHS.authorize,
    tags,
    summary: 'Authorization endpoint (also POST with a form)',
    description: 'response_type code, token or id_token token. Shows the login page or redirects to redirect_uri with code or tokens (RFC 9207 iss included).',
    responses: { 302: { description: 'Redirect to the login page or to redirect_uri' }, 400: page('Unknown client or unregistered redirect_uri (never redirected)') },
  });
  r.registerPath({ method: 'post', path: PATHS.token, tags, summary: 'Token endpoint', request: { body: form(TokenRequest) }, responses: { 200: { description: 'Tokens', content: { 'application/json': { schema: TokenResponse } } }, ...oauthErrors } });
  r.registerPath({ method: 'get', path: PATHS.userinfo, tags, summary: 'UserInfo (also POST)', security: [{ bearer: [] }], responses: { 200: json('Claims of the signed-in user'), 401: { description: 'invalid_token' }, 403: { description: 'insufficient_scope (openid)' } } });
  r.registerPath({ method: 'get', path: PATHS.endSession, tags, summary: 'End session (also POST)', description: 'id_token_hint, post_logout_redirect_uri, state.', responses: { 302: { description: 'To the registered post-logout URI' }, 200: page('Signed out, or a confirmation page without a valid hint') } });
  r.registerPath({ method: 'post', path: PATHS.revocation, tags, summary: 'Token revocation (RFC 7009)', request: { body: form(TokenForm) }, responses: { 200: { description: 'Revoked (or unknown token)' }, ...oauthErrors } });
  r.registerPath({ method: 'post', path: PATHS.introspection, tags, summary: 'Token introspection (RFC 7662)', request: { body: form(TokenForm) }, responses: { 200: json('{ active, … }'), ...oauthErrors } });
  r.registerComponent('securitySchemes', 'bearer', { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
}
