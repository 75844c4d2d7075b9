// The External app form: what the admin typed (a draft, re-shown as typed when something is
// wrong), and the rules that turn it into an app or into errors next to the fields.
// Pure functions: the page and the handler share them, the tests call them directly.
import {
  APP_TYPES,
  AUTH_TYPES,
  TOKEN_LIFETIME_DEFAULT,
  TOKEN_LIFETIME_MAX,
  TOKEN_LIFETIME_MIN,
  corsOriginProblem,
  effectiveSwitches,
  redirectUriProblem,
  type AuthType,
} from '../../app-types';
import { PERMISSION_LEVELS, RESOURCE_TYPES, normalizePermissions, type PermissionLevel, type ResourceType } from '../../../auth/scopes';
import { field, type FormBody } from '../form-body';

/** The form exactly as typed: strings for text fields, one line per list entry. */
export interface AppDraft {
  name: string;
  authType: AuthType | '';
  tokenLifetime: string;
  permissions: Record<ResourceType, PermissionLevel>;
  redirectUris: string;
  postLogoutRedirectUris: string;
  corsOrigins: string;
  requireClientSecret: boolean;
  requirePkce: boolean;
}

/** A valid app, ready to store. */
export interface AppSettings {
  name: string;
  authType: AuthType;
  tokenLifetime: number;
  permissions: Record<string, PermissionLevel>;
  redirectUris: string[];
  postLogoutRedirectUris: string[];
  corsOrigins: string[];
  requireClientSecret: boolean;
  requirePkce: boolean;
}

/** Field name → what is wrong with it (shown next to that field). */
export type FieldErrors = Partial<Record<keyof AppDraft, string>>;

export const NAME_MAX_LENGTH = 100;
export const LIST_MAX_ENTRIES = 20;
export const URI_MAX_LENGTH = 2000;

/** Form field names of the list fields, shared with the page. */
export const LIST_FIELDS = ['redirectUris', 'postLogoutRedirectUris', 'corsOrigins'] as const;
export type ListField = (typeof LIST_FIELDS)[number];

export const permissionField = (type: ResourceType): string => `perm.${type}`;

/** The blank form of a new app; `type` preselects a flow. */
export function emptyDraft(type?: AuthType): AppDraft {
  const rules = type ? APP_TYPES[type] : undefined;
  return {
    name: '',
    authType: type ?? '',
    tokenLifetime: String(TOKEN_LIFETIME_DEFAULT),
    permissions: normalizePermissions({}),
    redirectUris: '',
    postLogoutRedirectUris: '',
    corsOrigins: '',
    requireClientSecret: rules?.requireClientSecretDefault ?? true,
    requirePkce: rules?.requirePkceDefault ?? true,
  };
}

/** The form of a stored app, for editing. */
export function draftFromApp(app: Omit<AppSettings, 'permissions'> & { permissions: Record<string, unknown> }): AppDraft {
  return {
    name: app.name,
    authType: app.authType,
    tokenLifetime: String(app.tokenLifetime),
    permissions: normalizePermissions(app.permissions),
    redirectUris: app.redirectUris.join('\n'),
    postLogoutRedirectUris: app.postLogoutRedirectUris.join('\n'),
    corsOrigins: app.corsOrigins.join('\n'),
    requireClientSecret: app.requireClientSecret,
    requirePkce: app.requirePkce,
  };
}


/**
 * The draft a submitted form describes. On edit the flow is fixed (`fixedType`). The page sends
 * `switches=1` beside its checkboxes, so an absent checkbox means "off"; a post without it (a
 * script, not the page) gets the flow's defaults.
 */
export function draftFromForm(body: FormBody, fixedType?: AuthType): AppDraft {
  const typed = field(body, 'authType');
  const authType = fixedType ?? ((AUTH_TYPES as readonly string[]).includes(typed) ? (typed as AuthType) : '');
  const hasSwitches = field(body, 'switches') === '1';
  const defaults = authType ? APP_TYPES[authType] : undefined;
  const checkbox = (key: string, fallback: boolean) => (hasSwitches ? CHECKED.has(field(body, key).toLowerCase()) : fallback);
  const permissions = {} as Record<ResourceType, PermissionLevel>;
  for (const t of RESOURCE_TYPES) {
    const level = field(body, permissionField(t));
    permissions[t] = (PERMISSION_LEVELS as readonly string[]).includes(level) ? (level as PermissionLevel) : 'none';
  }
  return {
    name: field(body, 'name').trim(),
    authType,
    tokenLifetime: field(body, 'tokenLifetime').trim() || String(TOKEN_LIFETIME_DEFAULT),
    permissions,
    redirectUris: field(body, 'redirectUris'),
    postLogoutRedirectUris: field(body, 'postLogoutRedirectUris'),
    corsOrigins: field(body, 'corsOrigins'),
    requireClientSecret: checkbox('requireClientSecret', defaults?.requireClientSecretDefault ?? true),
    requirePkce: checkbox('requirePkce', defaults?.requirePkceDefault ?? true),
  };
}

/** Values a ticked checkbox (or a script) sends. */
const CHECKED = new Set(['on', 'true', '1', 'yes']);

/** Non-empty trimmed lines, duplicates dropped (order kept). */
export const lines = (value: string): string[] => [...new Set(value.split(/\r?\n/).map((l) => l.trim()).filter(Boolean))];

function listProblem(entries: string[], problem: (v: string) => string | undefined, noun: string): string | undefined {
  if (entries.length > LIST_MAX_ENTRIES) return `At most ${LIST_MAX_ENTRIES} ${noun}s.`;
  for (const entry of entries) {
    if (entry.length > URI_MAX_LENGTH) return `"${entry.slice(0, 60)}…" is longer than ${URI_MAX_LENGTH} characters.`;
    const why = problem(entry);
    if (why) return `"${entry}" ${why}.`;
  }
  return undefined;
}

/** Why the token lifetime is not acceptable, or undefined. */
export function lifetimeProblem(value: string): string | undefined {
  if (!/^\d+$/.test(value)) return 'Enter a whole number of seconds.';
  const n = Number(value);
  if (n < TOKEN_LIFETIME_MIN || n > TOKEN_LIFETIME_MAX) {
    return `Must be between ${TOKEN_LIFETIME_MIN} and ${TOKEN_LIFETIME_MAX} seconds (1 minute to 24 hours).`;
  }
  return undefined;
}

/**
 * Checks a draft against the identity contract: name, flow, lifetime 60–86400 s, URIs absolute
 * without fragment or wildcard and https (http only for loopback), origins `scheme://host[:port]`.
 * Fields a flow does not use are ignored and stored empty; the secret and PKCE switches follow
 * the flow's rules whatever the form said.
 */
export function validateDraft(draft: AppDraft): { settings: AppSettings; errors?: undefined } | { settings?: undefined; errors: FieldErrors } {
  const errors: FieldErrors = {};
  if (!draft.name) errors.name = 'Enter a name, so you can recognise the app later.';
  else if (draft.name.length > NAME_MAX_LENGTH) errors.name = `Use at most ${NAME_MAX_LENGTH} characters.`;
  if (!draft.authType) errors.authType = 'Choose the flow the app uses to get tokens.';
  const lifetime = lifetimeProblem(draft.tokenLifetime);
  if (lifetime) errors.tokenLifetime = lifetime;

  const rules = draft.authType ? APP_TYPES[draft.authType] : undefined;
  const lists: Record<ListField, string[]> = {
    redirectUris: lines(draft.redirectUris),
    postLogoutRedirectUris: lines(draft.postLogoutRedirectUris),
    corsOrigins: lines(draft.corsOrigins),
  };
  if (rules?.usesRedirects) {
    const redirect = listProblem(lists.redirectUris, redirectUriProblem, 'redirect URI');
    if (redirect) errors.redirectUris = redirect;
    else if (lists.redirectUris.length === 0) errors.redirectUris = 'Add at least one redirect URI: users are sent back only to listed addresses.';
    const logout = listProblem(lists.postLogoutRedirectUris, redirectUriProblem, 'post logout redirect URI');
    if (logout) errors.postLogoutRedirectUris = logout;
    const cors = listProblem(lists.corsOrigins, corsOriginProblem, 'origin');
    if (cors) errors.corsOrigins = cors;
  }
  if (Object.keys(errors).length > 0 || !draft.authType || !rules) return { errors };

  const permissions: Record<string, PermissionLevel> = {};
  if (rules.usesPermissions) for (const t of RESOURCE_TYPES) permissions[t] = draft.permissions[t];
  return {
    settings: {
      name: draft.name,
      authType: draft.authType,
      tokenLifetime: Number(draft.tokenLifetime),
      permissions,
      redirectUris: rules.usesRedirects ? lists.redirectUris : [],
      postLogoutRedirectUris: rules.usesRedirects ? lists.postLogoutRedirectUris : [],
      corsOrigins: rules.usesRedirects ? lists.corsOrigins.map((o) => new URL(o).origin) : [],
      ...effectiveSwitches(draft.authType, draft),
    },
  };
}

/** Parts of the form that depend on the flow. */
export type FlowField = 'permissions' | 'redirects' | 'requireClientSecret' | 'requirePkce';

/** Whether a flow-dependent part is usable; when not, why, and the value it is held at. */
export interface FieldState {
  enabled: boolean;
  reason?: string;
  forced?: boolean;
}

/**
 * How the form shows each flow-dependent part for a flow (and the secret switch): the server
 * renders with it and the page's small script switches between its precomputed results.
 */
export function fieldStates(type: AuthType | '', requireClientSecret: boolean): Record<FlowField, FieldState> {
  const on: FieldState = { enabled: true };
  if (!type) return { permissions: on, redirects: on, requireClientSecret: on, requirePkce: on };
  const rules = APP_TYPES[type];
  const label = rules.label;
  const secretOn = effectiveSwitches(type, { requireClientSecret }).requireClientSecret;
  return {
    permissions: rules.usesPermissions
      ? on
      : { enabled: false, reason: `Not used by ${label} apps: they act with the rights of the signed-in user.` },
    redirects: rules.usesRedirects
      ? on
      : { enabled: false, reason: `Not used by ${label} apps: there is no sign-in screen to return from.` },
    requireClientSecret:
      rules.secret === 'always'
        ? { enabled: false, forced: true, reason: 'Always on: a Client Credentials app proves itself with its secret.' }
        : rules.secret === 'never'
          ? { enabled: false, forced: false, reason: 'Off: an Implicit app runs in the browser, which cannot keep a secret.' }
          : on,
    requirePkce:
      type === 'client_credentials'
        ? { enabled: false, forced: false, reason: 'Not used: Client Credentials has no authorization request.' }
        : type === 'implicit'
          ? { enabled: false, forced: false, reason: 'Not used: Implicit returns tokens directly, there is no code to protect.' }
          : secretOn
            ? on
            : { enabled: false, forced: true, reason: 'Always on when the app has no client secret (RFC 9700).' },
  };
}
