// The resource types and permission levels of the platform: ONE table the token endpoint, the
// resource-server middleware and the admin panel all read.

/** Every resource type a token can grant access to (scope prefix). */
export const RESOURCE_TYPES = [
  'Assets',
  'Private_assets',
  'Artifacts',
  'Projects',
  'ProcessingPipelines',
  'Templates',
  'Storefronts',
  'StorefrontUsers',
  'TenantUsers',
  // The platform catalogue (products … workflows); apps that existed before it have No Access.
  'Products',
] as const;
export type ResourceType = (typeof RESOURCE_TYPES)[number];

/** Permission levels, weakest first; each level includes the ones before it. */
export const PERMISSION_LEVELS = ['none', 'read', 'update', 'full'] as const;
export type PermissionLevel = (typeof PERMISSION_LEVELS)[number];

/** Labels for the admin panel's Permissions matrix. */
export const PERMISSION_LEVEL_LABELS: Record<PermissionLevel, string> = {
  none: 'No Access',
  read: 'Read',
  update: 'Update',
  full: 'Full',
};

export type Permissions = Partial<Record<ResourceType, PermissionLevel>>;

/** OpenID Connect scopes the identity service supports beside the resource scopes. */
export const IDENTITY_SCOPES = ['openid', 'profile', 'email', 'offline_access'] as const;

const SCOPE_LEVELS = ['read', 'update', 'full'] as const;
type ScopeLevel = (typeof SCOPE_LEVELS)[number];

export const resourceScope = (type: ResourceType, level: ScopeLevel): string => `${type}_${level}`;

/** Every resource scope, in table order: Assets_read, Assets_update, Assets_full, … */
export const RESOURCE_SCOPES: readonly string[] = RESOURCE_TYPES.flatMap((t) => SCOPE_LEVELS.map((l) => resourceScope(t, l)));

/** What discovery advertises in scopes_supported. */
export const SUPPORTED_SCOPES: readonly string[] = [...IDENTITY_SCOPES, ...RESOURCE_SCOPES];

const levelRank = (level: string): number => PERMISSION_LEVELS.indexOf(level as PermissionLevel);

/** Splits `Projects_update` into its type and level; undefined for anything else. */
export function parseResourceScope(scope: string): { type: ResourceType; level: ScopeLevel } | undefined {
  const cut = scope.lastIndexOf('_');
  if (cut < 0) return undefined;
  const type = scope.slice(0, cut) as ResourceType;
  const level = scope.slice(cut + 1) as ScopeLevel;
  if (!RESOURCE_TYPES.includes(type) || !SCOPE_LEVELS.includes(level)) return undefined;
  return { type, level };
}

/** The scopes a permission level allows: Update → `_read` and `_update`. */
export function scopesForLevel(type: ResourceType, level: PermissionLevel): string[] {
  return SCOPE_LEVELS.filter((l) => levelRank(l) <= levelRank(level)).map((l) => resourceScope(type, l));
}

/** Every resource scope a permissions map allows, in table order. */
export function scopesForPermissions(permissions: Permissions): string[] {
  return RESOURCE_TYPES.flatMap((t) => scopesForLevel(t, permissions[t] ?? 'none'));
}

/** A normalised permissions map: every type present, unknown levels read as 'none'. */
export function normalizePermissions(input: Record<string, unknown> | null | undefined): Record<ResourceType, PermissionLevel> {
  const out = {} as Record<ResourceType, PermissionLevel>;
  for (const t of RESOURCE_TYPES) {
    const level = input?.[t];
    out[t] = PERMISSION_LEVELS.includes(level as PermissionLevel) ? (level as PermissionLevel) : 'none';
  }
  return out;
}

export type UserRole = 'admin' | 'user';

/** What a role may do: admin Full on every type; user Read on every type except TenantUsers. */
export function permissionsForRole(role: UserRole): Record<ResourceType, PermissionLevel> {
  const out = {} as Record<ResourceType, PermissionLevel>;
  for (const t of RESOURCE_TYPES) out[t] = role === 'admin' ? 'full' : t === 'TenantUsers' ? 'none' : 'read';
  return out;
}

/**
 * Does a token's scope list satisfy a route's required scope? A route needing `X_read` accepts
 * `X_update` and `X_full`; one needing `X_update` accepts `X_full`. Other scopes match exactly.
 */
export function scopeSatisfies(granted: readonly string[], required: string): boolean {
  const need = parseResourceScope(required);
  if (!need) return granted.includes(required);
  return granted.some((s) => {
    const have = parseResourceScope(s);
    return have !== undefined && have.type === need.type && levelRank(have.level) >= levelRank(need.level);
  });
}

/** Scope parameter → list (RFC 6749 §3.3: space-delimited, order irrelevant, duplicates dropped). */
export function parseScopeParam(scope: string | undefined): string[] {
  return [...new Set((scope ?? '').split(' ').filter(Boolean))];
}
