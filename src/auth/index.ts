// Bearer-token middleware for the resource servers (platform APIs) and helpers they share.
export { requireScope, requireAuth, authenticate, bearerToken, type AuthBindings, type AuthVariables } from './bearer';
export { verifyAccessToken, InvalidTokenError, type AuthContext } from './verify';
export { scopeSatisfies } from './scopes';
export { useTokenSources, type TokenSources, type TokenStateClaims } from './sources';
export { issuerOf, resourceAudience } from './issuer';
