// OpenID Provider Metadata (OIDC Discovery 1.0 §3, RFC 8414) with IdentityServer's paths.
import type { Env } from '../env';
import { SUPPORTED_SCOPES } from '../auth/scopes';
import { SIGNING_ALG } from './keys';
import { PATHS } from './paths';
import { issuerOf } from './tokens';

export const CLAIMS_SUPPORTED = ['sub', 'iss', 'aud', 'exp', 'iat', 'auth_time', 'nonce', 'at_hash', 'sid', 'amr', 'name', 'preferred_username', 'email', 'email_verified', 'tenantId', 'role'];

export function discoveryDocument(env: Env) {
  const issuer = issuerOf(env);
  return {
    issuer,
    jwks_uri: issuer + PATHS.jwks,
    authorization_endpoint: issuer + PATHS.authorize,
    token_endpoint: issuer + PATHS.token,
    userinfo_endpoint: issuer + PATHS.userinfo,
    end_session_endpoint: issuer + PATHS.endSession,
    revocation_endpoint: issuer + PATHS.revocation,
    introspection_endpoint: issuer + PATHS.introspection,
    frontchannel_logout_supported: false,
    backchannel_logout_supported: false,
    scopes_supported: [...SUPPORTED_SCOPES],
    claims_supported: CLAIMS_SUPPORTED,
    grant_types_supported: ['authorization_code', 'client_credentials', 'refresh_token', 'implicit'],
    response_types_supported: ['code', 'token', 'id_token token'],
    response_modes_supported: ['form_post', 'query', 'fragment'],
    token_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic'],
    revocation_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic'],
    introspection_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic'],
    id_token_signing_alg_values_supported: [SIGNING_ALG],
    subject_types_supported: ['public'],
    code_challenge_methods_supported: ['S256'],
    prompt_values_supported: ['none', 'login'],
    request_parameter_supported: false,
    request_uri_parameter_supported: false,
    authorization_response_iss_parameter_supported: true,
  };
}
