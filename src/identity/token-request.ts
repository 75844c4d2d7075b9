// The token endpoint's request (RFC 6749 §4.1.3, §4.4.2, §6; RFC 7636 §4.5): ONE schema that both
// validates the form and documents it in the OpenAPI description (openapi.ts). Failures become
// RFC 6749 §5.2 errors (`invalid_request` naming the field), not the API's generic 400.
import { z } from '@hono/zod-openapi';
import { OAuthError } from '../errors';
import type { GrantType } from './app-types';
import { quoteInput, type Params } from './oauth-params';

const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

const clientAuth = {
  client_id: z.string().optional().openapi({ description: 'Or HTTP Basic (URL-encoded, then base64), never both.' }),
  client_secret: z.string().optional(),
};

const ClientCredentialsRequest = z
  .object({
    grant_type: z.literal('client_credentials'),
    ...clientAuth,
    scope: z.string().optional().openapi({ description: 'Space-separated resource scopes; none = every scope the app’s permissions allow.' }),
  })
  .openapi('ClientCredentialsTokenRequest');

const AuthorizationCodeRequest = z
  .object({
    grant_type: z.literal('authorization_code'),
    ...clientAuth,
    code: z.string(),
    redirect_uri: z.string().openapi({ description: 'Exactly the redirect_uri of the authorization request.' }),
    code_verifier: z
      .string()
      .regex(VERIFIER, 'code_verifier must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~ (RFC 7636 §4.1).')
      .optional()
      .openapi({ description: 'PKCE (S256), required when the authorization request carried a code_challenge.' }),
  })
  .openapi('AuthorizationCodeTokenRequest');

const RefreshTokenRequest = z
  .object({
    grant_type: z.literal('refresh_token'),
    ...clientAuth,
    refresh_token: z.string(),
    scope: z.string().optional().openapi({ description: 'May narrow the original scope, never widen it.' }),
  })
  .openapi('RefreshTokenRequest');

export const TokenRequest = z.discriminatedUnion('grant_type', [ClientCredentialsRequest, AuthorizationCodeRequest, RefreshTokenRequest]).openapi('TokenRequest');
export type TokenRequest = z.infer<typeof TokenRequest>;

/** The grant types the endpoint serves: the schema's own list. */
export const TOKEN_GRANT_TYPES: readonly GrantType[] = TokenRequest.options.map((o) => o.shape.grant_type.value);

/**
 * The form checked against its grant's schema. Call once grant_type is known to be supported:
 * the first problem becomes invalid_request with a sentence naming the field.
 */
export function parseTokenRequest(form: Params): TokenRequest {
  const result = TokenRequest.safeParse(Object.fromEntries(form));
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const field = quoteInput(String(issue.path[0] ?? 'the request'));
  const missing = issue.code === 'invalid_type' && form.get(String(issue.path[0])) === undefined;
  throw new OAuthError(400, 'invalid_request', missing ? `${field} is missing.` : issue.message);
}
