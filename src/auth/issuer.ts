// The instance's issuer URL and the audience of its access tokens, from configuration (ISSUER).
// Shared by the identity service (which signs) and the resource-server middleware (which checks).

export const issuerOf = (env: { ISSUER: string }): string => env.ISSUER.replace(/\/$/, '');
/** The `aud` of every access token: all resource servers of this instance. */
export const resourceAudience = (env: { ISSUER: string }): string => `${issuerOf(env)}/resources`;
