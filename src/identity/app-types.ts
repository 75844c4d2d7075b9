// The three kinds of External app and the rules each obeys (identity contract, "App types").
// The token and authorize endpoints and the admin panel all read this module.

export const AUTH_TYPES = ['client_credentials', 'authorization_code', 'implicit'] as const;
export type AuthType = (typeof AUTH_TYPES)[number];

export type GrantType = 'client_credentials' | 'authorization_code' | 'refresh_token';
export type ResponseType = 'code' | 'token' | 'id_token token';

export interface AppTypeRules {
  label: string;
  /** Grants the token endpoint accepts for this app. */
  grantTypes: readonly GrantType[];
  /** Response types the authorize endpoint accepts for this app. */
  responseTypes: readonly ResponseType[];
  /** 'always': a secret is issued and required; 'toggle': "Require client secret" decides; 'never': public. */
  secret: 'always' | 'toggle' | 'never';
  requireClientSecretDefault: boolean;
  requirePkceDefault: boolean;
  /** Permissions matrix applies (Client Credentials); otherwise the user's role decides. */
  usesPermissions: boolean;
  /** Redirect and post-logout URIs apply (browser flows). */
  usesRedirects: boolean;
  refreshTokens: boolean;
}

export const APP_TYPES: Record<AuthType, AppTypeRules> = {
  client_credentials: {
    label: 'Client Credentials',
    grantTypes: ['client_credentials'],
    responseTypes: [],
    secret: 'always',
    requireClientSecretDefault: true,
    requirePkceDefault: false,
    usesPermissions: true,
    usesRedirects: false,
    refreshTokens: false,
  },
  authorization_code: {
    label: 'Authorization Code',
    grantTypes: ['authorization_code', 'refresh_token'],
    responseTypes: ['code'],
    secret: 'toggle',
    requireClientSecretDefault: true,
    requirePkceDefault: true,
    usesPermissions: false,
    usesRedirects: true,
    refreshTokens: true,
  },
  implicit: {
    label: 'Implicit',
    grantTypes: [],
    responseTypes: ['token', 'id_token token'],
    secret: 'never',
    requireClientSecretDefault: false,
    requirePkceDefault: false,
    usesPermissions: false,
    usesRedirects: true,
    refreshTokens: false,
  },
};

export const TOKEN_LIFETIME_MIN = 60;
export const TOKEN_LIFETIME_MAX = 86_400;
export const TOKEN_LIFETIME_DEFAULT = 3600;

/**
 * The effective switches of an app of a type: Client Credentials always needs its secret;
 * Implicit never has one; Authorization Code forces PKCE on when the secret is off (RFC 9700 §2.1.1).
 */
export function effectiveSwitches(
  type: AuthType,
  requested: { requireClientSecret?: boolean; requirePkce?: boolean },
): { requireClientSecret: boolean; requirePkce: boolean } {
  const rules = APP_TYPES[type];
  if (rules.secret === 'always') return { requireClientSecret: true, requirePkce: false };
  if (rules.secret === 'never') return { requireClientSecret: false, requirePkce: false };
  const requireClientSecret = requested.requireClientSecret ?? rules.requireClientSecretDefault;
  const requirePkce = !requireClientSecret || (requested.requirePkce ?? rules.requirePkceDefault);
  return { requireClientSecret, requirePkce };
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

const isLoopback = (url: URL): boolean => LOOPBACK_HOSTS.has(url.hostname);

/**
 * Why a redirect or post-logout URI cannot be registered, or undefined when it can: absolute,
 * no fragment, no wildcard, https (http only for loopback hosts).
 */
export function redirectUriProblem(value: string): string | undefined {
  if (value.includes('*')) return 'must not contain a wildcard';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URL';
  }
  if (value.includes('#')) return 'must not contain a fragment';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && isLoopback(url)) return undefined;
  return 'must use https (http is allowed only for localhost, 127.0.0.1 and [::1])';
}

/** Why an allowed CORS origin is invalid (`scheme://host[:port]`, no path), or undefined. */
export function corsOriginProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute origin such as https://app.example.com';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must use http or https';
  if (url.pathname !== '/' || url.search || url.hash || url.username || value.replace(/\/$/, '').toLowerCase() !== url.origin) {
    return 'must be scheme://host[:port] without a path';
  }
  return undefined;
}

/**
 * Is `candidate` one of the registered URIs? Exact string match. For a public client (a native
 * app, which cannot know its port in advance) the port of an http loopback URI may differ
 * (RFC 8252 §7.3); a confidential (server) client has a fixed address and matches exactly, port
 * included (RFC 9700 §2.1 / §4.1.3: exact matching; issue 18 item 11).
 */
export function matchesRegisteredUri(registered: readonly string[], candidate: string, client: { publicClient: boolean }): boolean {
  if (registered.includes(candidate)) return true;
  if (!client.publicClient) return false;
  let cand: URL;
  try {
    cand = new URL(candidate);
  } catch {
    return false;
  }
  if (cand.protocol !== 'http:' || !isLoopback(cand) || candidate.includes('#')) return false;
  return registered.some((r) => {
    try {
      const reg = new URL(r);
      if (reg.protocol !== 'http:' || !isLoopback(reg)) return false;
      reg.port = cand.port;
      return reg.href === cand.href;
    } catch {
      return false;
    }
  });
}
