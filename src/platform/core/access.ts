/**
 * Who may call a platform route (contract, "Auth & tenancy"), declared next to the route:
 *
 *   platformRoute(spec, { type: 'Assets', level: 'read' })   // Assets_read (or update/full)
 *   platformRoute(spec, 'public')                            // info, anonymous file URLs
 *   platformRoute(spec, 'anyToken')                          // stateless atoms helpers
 *
 * Type by group: public assets, folders, resources, processor, atoms → Assets; `private-*` and
 * `privateStorageOwner` calls → Private_assets; artifacts, output files → Artifacts; projects,
 * statuses, transitions, jobs → Projects; pipelines, secrets → ProcessingPipelines; catalogue →
 * Products; storefronts, tenant info and settings → Storefronts; storefront users →
 * StorefrontUsers; tenant-info/users → TenantUsers.
 * Level: reads and compute-without-storing calls → read; updates and actions → update; create,
 * import, copy, to-resource, delete → full.
 */
import type { Context } from 'hono';
import { decodeJwt } from 'jose';
import { authenticate, bearerToken, scopeSatisfies, type AuthContext } from '../../auth';
import { insufficientScopeError } from '../../auth/bearer';
import type { ResourceType } from '../../auth/scopes';
import { NotFoundError } from './errors';
import type { PlatformBindings } from './tenancy';

export type ScopeLevel = 'read' | 'update' | 'full';
export type Access = { type: ResourceType; level: ScopeLevel } | 'public' | 'anyToken';

export const scopeOf = (a: { type: ResourceType; level: ScopeLevel }): string => `${a.type}_${a.level}`;

/** Parameters that name a private-storage owner: naming one needs Private_assets too. */
export const OWNER_PARAMETERS = ['ownerId', 'privateStorageOwner', 'mockupOwnerId', 'resourceOwnerId'] as const;

/**
 * Authenticates the caller as the auth module's `requireScope` does (401 from `authenticate`,
 * 403 insufficient_scope, both with WWW-Authenticate), sets `c.var.auth` and returns it; typed
 * for the platform's context, so no cast to requireScope's bindings.
 */
export async function authenticateFor(c: Context<PlatformBindings>, ...scopes: string[]): Promise<AuthContext> {
  const auth = await authenticate(c);
  const missing = scopes.find((s) => !scopeSatisfies(auth.scopes, s));
  if (missing) throw insufficientScopeError(c.env, missing);
  c.set('auth', auth);
  return auth;
}

/**
 * The owner rule: a call naming any owner (query or top-level JSON body) also needs
 * Private_assets at the route's level. Areas whose owner sits deeper (multipart fields, nested
 * items) call `requireOwnerAccess` themselves.
 */
export function namesAnOwner(...sources: Array<Record<string, unknown> | URLSearchParams | undefined>): boolean {
  const owners = new Set(OWNER_PARAMETERS.map((p) => p.toLowerCase()));
  for (const source of sources) {
    if (!source) continue;
    const entries = source instanceof URLSearchParams ? [...source] : Object.entries(source);
    for (const [k, v] of entries) if (owners.has(k.toLowerCase()) && v !== null && v !== undefined && v !== '') return true;
  }
  return false;
}

/** At most this many characters in an owner id (the storefront's user ids are shorter). */
export const MAX_OWNER_ID = 256;

/**
 * Owner ids reach SQL, R2 keys and file names: any owner parameter given (query or top-level JSON
 * body) must be 1–256 characters without control characters (NUL, CR, LF, …), else a 400 at its
 * name. An empty value means "no owner" and is left to the route.
 */
export function checkOwnerValues(errors: Record<string, string[]>, ...sources: Array<Record<string, unknown> | URLSearchParams | undefined>): void {
  const owners = new Set(OWNER_PARAMETERS.map((p) => p.toLowerCase()));
  for (const source of sources) {
    if (!source) continue;
    const entries = source instanceof URLSearchParams ? [...source] : Object.entries(source);
    for (const [k, v] of entries) {
      if (!owners.has(k.toLowerCase()) || typeof v !== 'string' || v === '') continue;
      // eslint-disable-next-line no-control-regex
      if (/[\u0000-\u001f\u007f]/.test(v)) (errors[k] ??= []).push('An owner id cannot hold control characters (NUL, CR, LF, …).');
      else if (v.length > MAX_OWNER_ID) (errors[k] ??= []).push(`An owner id has at most ${MAX_OWNER_ID} characters.`);
    }
  }
}

/** Private_assets at `level` (the owner rule), for owners the route middleware cannot see. */
export async function requireOwnerAccess(c: Context<PlatformBindings>, level: ScopeLevel): Promise<void> {
  await authenticateFor(c, `Private_assets_${level}`);
}

/**
 * A storefront user's token (`GET /storefront-users/token`) carries `suid`: every owner
 * parameter defaults to it and must equal it. Read from AuthContext when the auth module sets
 * it, else from the (already verified) token's claims.
 */
export function storefrontUserOf(c: Context, auth: AuthContext): string | undefined {
  const fromAuth = (auth as AuthContext & { storefrontUserId?: string }).storefrontUserId;
  if (fromAuth) return fromAuth;
  const token = bearerToken(c);
  if (!token) return undefined;
  try {
    const suid = decodeJwt(token).suid;
    return typeof suid === 'string' && suid ? suid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The owner a call acts for. A storefront user's token confines it to that user: an absent
 * owner means the user, another owner answers 404 (as if it did not exist).
 *
 * @example const owner = effectiveOwner(c.var.tenant, query.ownerId); // undefined = public
 */
export function effectiveOwner(t: { storefrontUserId?: string }, given: string | null | undefined): string | undefined {
  const named = given === null || given === undefined || given === '' ? undefined : given;
  if (t.storefrontUserId) {
    if (named !== undefined && named !== t.storefrontUserId) throw new NotFoundError('No such owner.');
    return t.storefrontUserId;
  }
  return named;
}
