/**
 * Tenancy: every platform call acts inside the caller's tenant. `tenantId` in the query may be
 * omitted (= the token's tenant) or name the token's tenant; another tenant → 403. Handlers get
 * a tenant-scoped context (`c.var.tenant`) and pass it, not the Context, to their services.
 */
import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AuthContext } from '../../auth';
import type { Env } from '../../env';
import { ForbiddenError, ValidationError } from './errors';

export interface TenantContext {
  tenantId: number;
  auth: AuthContext;
  /** Set for storefront-user tokens (`suid`): owner parameters are confined to this user. */
  storefrontUserId?: string;
  env: Env;
  /** Origin for URLs handed out in this response (`<base>/api/storage/v1/…`). */
  baseUrl: string;
}

export type PlatformVariables = { auth: AuthContext; tenant: TenantContext };
export type PlatformBindings = { Bindings: Env; Variables: PlatformVariables };

export const TenantIdQuery = z
  .string()
  .optional()
  .openapi({ description: "The caller's tenant; omitted = the token's tenant, another tenant → 403.", example: '1' });

/** Throws unless the request's `tenantId` query (any spelling) is absent or the token's tenant. */
export function checkTenantQuery(search: URLSearchParams, tenantId: number): void {
  for (const [key, value] of search) {
    if (key.toLowerCase() !== 'tenantid') continue;
    if (value === '') continue;
    if (!/^\d{1,15}$/.test(value)) throw new ValidationError({ tenantId: ['Expected an integer tenant id.'] });
    if (Number(value) !== tenantId) throw new ForbiddenError(`The token belongs to tenant ${tenantId}; it cannot act in tenant ${value}.`);
  }
}

/** Base URL of URLs handed out: PUBLIC_BASE_URL when set, else the request's origin. */
export function baseUrlOf(c: Context<any>): string {
  return c.env.PUBLIC_BASE_URL ? c.env.PUBLIC_BASE_URL.replace(/\/+$/, '') : new URL(c.req.url).origin;
}

/** The R2 key root of a tenant: every platform object lives under `p/<tenantId>/`. */
export const tenantKeyPrefix = (tenantId: number): string => `p/${tenantId}/`;

/** `tenantKey(3, 'blobs', sha)` → `p/3/blobs/<sha>`. */
export const tenantKey = (tenantId: number, ...parts: string[]): string => tenantKeyPrefix(tenantId) + parts.join('/');
