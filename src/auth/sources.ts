// What the resource-server middleware needs from the token issuer, passed in rather than imported
// (auth/ does not import identity/): where the verification keys come from, and the revocable
// state behind a token. The Worker's composition (src/app.ts) wires identity's once
// (`useTokenSources(...)`); a resource server elsewhere would wire a JWKS fetch and introspection.
import type { createLocalJWKSet } from 'jose';
import type { Env } from '../env';

/** The claims of an access token that decide its revocable state. */
export interface TokenStateClaims {
  jti: string;
  client_id: string;
  tenantId: number;
  sub?: string;
  gid?: string;
  /** Present on user tokens. */
  auth_time?: number;
}

export interface TokenSources {
  /** A jose key resolver over the issuer's published keys (an unknown `kid` may trigger a reload). */
  verificationKeys(env: Env, kid: string | undefined): Promise<ReturnType<typeof createLocalJWKSet>>;
  /** Is the token still live now: app exists in its tenant, jti not denied, grant live, user enabled? */
  tokenIsLive(env: Env, claims: TokenStateClaims): Promise<boolean>;
}

let sources: TokenSources | undefined;

/** Called once where the Worker is composed, with the sources of the service that issues the tokens. */
export function useTokenSources(s: TokenSources): void {
  sources = s;
}

export function tokenSources(): TokenSources {
  if (!sources) throw new Error('auth: no token sources wired (useTokenSources: src/app.ts wires those of the identity service)');
  return sources;
}
