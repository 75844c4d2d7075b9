/**
 * Storefront users, storefronts and the tenant as the storefront sees them (contract,
 * "Storefront" and "Auth & tenancy"), and the storefront-user token of the design editor.
 */
import { parseResourceScope } from '../../auth/scopes';
import { issueAccessToken } from '../../identity/tokens';
import { ConflictError, likePattern, NotFoundError, type SortKey, type TenantContext } from '../core';
import * as store from './store';

/** A storefront-user token lives at most this long (and never longer than the caller's). */
export const STOREFRONT_TOKEN_MAX_SECONDS = 3600;

const LEVELS = ['read', 'update', 'full'] as const;

async function storefrontOr404(t: TenantContext, storefrontId: number): Promise<void> {
  if (!(await store.storefrontExists(t.env.DB, t.tenantId, storefrontId))) {
    throw new NotFoundError(`No storefront ${storefrontId}.`, { storefrontId: [`No storefront ${storefrontId}.`] });
  }
}

/** A storefront-user token only sees itself. */
function confine(t: TenantContext, userId: string): void {
  if (t.storefrontUserId && t.storefrontUserId !== userId) throw new NotFoundError(`No storefront user ${userId}.`);
}

const USER_SORT: Record<string, string> = { userId: 'user_id', created: 'created' };

export async function listUsers(
  t: TenantContext,
  storefrontId: number,
  q: { includeAnonymous: boolean; search?: string; skip: number; take: number; sorting: SortKey[] },
) {
  await storefrontOr404(t, storefrontId);
  const orderBy = q.sorting.length ? [...q.sorting.map((s) => `${USER_SORT[s.field]} ${s.direction}`), 'user_id'].join(', ') : 'user_id';
  const { total, rows } = await store.listStorefrontUsers(t.env.DB, t.tenantId, storefrontId, {
    includeAnonymous: q.includeAnonymous,
    search: q.search ? likePattern(q.search) : undefined,
    skip: q.skip,
    take: q.take,
    orderBy,
  });
  const visible = t.storefrontUserId ? rows.filter((r) => r.user_id === t.storefrontUserId) : rows;
  return { total: t.storefrontUserId ? visible.length : total, items: visible.map(store.storefrontUserDto) };
}

export async function getUser(t: TenantContext, storefrontId: number, userId: string) {
  confine(t, userId);
  const row = await store.storefrontUser(t.env.DB, t.tenantId, storefrontId, userId);
  if (!row) throw new NotFoundError(`No storefront user ${userId} in storefront ${storefrontId}.`);
  return store.storefrontUserDto(row);
}

/** Creates the user; an existing id answers that user unchanged (idempotent). */
export async function createUser(t: TenantContext, storefrontId: number, userId: string, isAnonymous: boolean) {
  confine(t, userId);
  await storefrontOr404(t, storefrontId);
  return store.storefrontUserDto(await store.insertStorefrontUser(t.env.DB, t.tenantId, storefrontId, userId, isAnonymous));
}

/** Registers a regular user (an anonymous one of that id becomes regular). */
export async function registerUser(t: TenantContext, storefrontId: number, userId: string) {
  confine(t, userId);
  await storefrontOr404(t, storefrontId);
  return store.storefrontUserDto(await store.registerStorefrontUser(t.env.DB, t.tenantId, storefrontId, userId));
}

/** Moves the anonymous user's projects and private assets to the regular user. */
export async function mergeAnonymous(t: TenantContext, storefrontId: number, anonymousId: string, regularId: string): Promise<void> {
  await storefrontOr404(t, storefrontId);
  const db = t.env.DB;
  const [from, to] = await Promise.all([store.storefrontUser(db, t.tenantId, storefrontId, anonymousId), store.storefrontUser(db, t.tenantId, storefrontId, regularId)]);
  const errors: Record<string, string[]> = {};
  if (!from) errors.anonymousStorefrontUserId = [`No storefront user ${anonymousId}.`];
  if (!to) errors.regularStorefrontUserId = [`No storefront user ${regularId}.`];
  if (Object.keys(errors).length) throw new NotFoundError('No such storefront user.', errors);
  if (from!.is_anonymous !== 1) throw new ConflictError('GeneralConflict', `Storefront user ${anonymousId} is not anonymous.`);
  if (anonymousId === regularId) return;
  const clashes = await store.mergeClashes(db, t.tenantId, anonymousId, regularId);
  if (clashes) throw new ConflictError('NameConflict', `${clashes} private asset or folder names of ${anonymousId} already exist for ${regularId}.`);
  await store.mergeStorefrontUsers(db, t.tenantId, storefrontId, anonymousId, regularId);
}

/**
 * The design editor's token for one storefront user (contract, "Auth & tenancy"): an access
 * token of the caller's app, `sub` = `suid` = the user, scope `Assets_read Private_assets_full`
 * each capped at the caller's own level (dropped when the caller has none), lifetime
 * min(caller's, 3600 s).
 */
export async function storefrontUserToken(t: TenantContext, storefrontId: number, userId: string): Promise<string> {
  confine(t, userId);
  const row = await store.storefrontUser(t.env.DB, t.tenantId, storefrontId, userId);
  if (!row) throw new NotFoundError(`No storefront user ${userId} in storefront ${storefrontId}.`);
  const levelOf = (type: string) => {
    let best = -1;
    for (const s of t.auth.scopes) {
      const p = parseResourceScope(s);
      if (p && p.type === type) best = Math.max(best, LEVELS.indexOf(p.level));
    }
    return best;
  };
  const cap = (type: string, wanted: (typeof LEVELS)[number]) => {
    const have = levelOf(type);
    return have < 0 ? [] : [`${type}_${LEVELS[Math.min(have, LEVELS.indexOf(wanted))]}`];
  };
  const scopes = [...cap('Assets', 'read'), ...cap('Private_assets', 'full')];
  const lifetime = Math.max(1, Math.min(t.auth.exp - t.auth.iat, STOREFRONT_TOKEN_MAX_SECONDS));
  const { token } = await issueAccessToken(t.env, { clientId: t.auth.clientId, tenantId: t.tenantId, scopes, lifetime, storefrontUserId: userId });
  return token;
}

// --- storefronts and the tenant -------------------------------------------------------------------

const STOREFRONT_SORT: Record<string, string> = { id: 'id', name: 'name', created: 'created' };

export async function listStorefronts(t: TenantContext, q: { search?: string; skip: number; take: number; sorting: SortKey[] }) {
  const orderBy = q.sorting.length ? [...q.sorting.map((s) => `${STOREFRONT_SORT[s.field]} ${s.direction}`), 'id'].join(', ') : 'id';
  const { total, rows } = await store.listStorefronts(t.env.DB, t.tenantId, { search: q.search ? likePattern(q.search) : undefined, skip: q.skip, take: q.take, orderBy });
  return { total, items: rows.map(store.storefrontDto) };
}

export async function getStorefront(t: TenantContext, id: string) {
  const n = /^[1-9][0-9]{0,14}$/.test(id) ? Number(id) : 0;
  const row = n ? await store.storefrontById(t.env.DB, t.tenantId, n) : null;
  if (!row) throw new NotFoundError(`No storefront ${id}.`);
  return store.storefrontDto(row);
}

export async function tenantInfo(t: TenantContext) {
  const info = await store.tenantInfo(t.env.DB, t.tenantId);
  if (!info) throw new NotFoundError('No such tenant.');
  return info;
}

export const tenantUsers = (t: TenantContext) => store.tenantUsers(t.env.DB, t.tenantId);
