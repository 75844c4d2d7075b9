/**
 * `platformRoute(spec, access)`: createRoute() plus what every platform route does before its
 * handler, in this order:
 *
 *   1. the token and its scope (`requireScope` of src/auth: 401/403 keep WWW-Authenticate);
 *   2. `tenantId` (absent or the token's tenant, else 403) → `c.var.tenant`;
 *   3. query names, JSON property names and enum values in their declared spelling (names.ts),
 *      the JSON body ≤ 2 MB (body.ts); a route without a body still reads one sent (≤ 2 MB, else 413);
 *   4. the owner rule (naming an owner needs Private_assets at the same level);
 *   5. every schema problem of query and body at once (400 with `errors` by JSON path).
 *
 * Documentation comes with it: `security` with the scope, a "Scope:" line, the `tenantId`
 * query parameter and the problem responses.
 *
 * @example
 * area.openapi(
 *   platformRoute({ method: 'get', path: '/designs', request: { query: ListDesignsQuery }, responses: … },
 *                 { type: 'Assets', level: 'read' }),
 *   async (c) => c.json(await listDesigns(c.var.tenant, c.req.valid('query')), 200));
 */
import { createRoute, z, type RouteConfig } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler } from 'hono';
import { authenticateFor, checkOwnerValues, namesAnOwner, requireOwnerAccess, scopeOf, storefrontUserOf, type Access } from './access';
import { ignoreBody, readJsonBody } from './body';
import { ValidationError, type ErrorsByPath } from './errors';
import { canonicalJson, canonicalQuery } from './names';
import { errorsFromIssues, problemResponses } from './problem';
import { baseUrlOf, checkTenantQuery, TenantIdQuery, type PlatformBindings } from './tenancy';

type Zod = z.ZodType;

/** Routes registered with their access, so tests and docs can enumerate them. */
export const ROUTE_ACCESS = new WeakMap<object, Access>();

function jsonSchemaOf(route: RouteConfig): { schema?: Zod; required: boolean; others: string[] } {
  const content = (route.request?.body?.content ?? {}) as Record<string, { schema?: unknown }>;
  const key = Object.keys(content).find((k) => /json/i.test(k));
  return {
    schema: key ? (content[key]!.schema as Zod) : undefined,
    required: route.request?.body?.required === true,
    // Other media types the route takes (multipart uploads): those bodies are the route's own.
    others: Object.keys(content).filter((k) => k !== key).map((k) => k.toLowerCase()),
  };
}

function queryObject(search: URLSearchParams): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const key of new Set(search.keys())) {
    const all = search.getAll(key);
    out[key] = all.length === 1 ? all[0]! : all;
  }
  return out;
}

function prepare(route: RouteConfig, access: Access): MiddlewareHandler<PlatformBindings> {
  const querySchema = route.request?.query as Zod | undefined;
  const json = jsonSchemaOf(route);
  return async (c, next) => {
    const url = new URL(c.req.url);
    if (access !== 'public') {
      const auth = await authenticateFor(c, ...(access === 'anyToken' ? [] : [scopeOf(access)]));
      checkTenantQuery(url.searchParams, auth.tenantId);
      c.set('tenant', {
        tenantId: auth.tenantId,
        auth,
        storefrontUserId: storefrontUserOf(c, auth),
        env: c.env,
        baseUrl: baseUrlOf(c),
      });
    }

    const errors: ErrorsByPath = {};
    let search = url.searchParams;
    if (querySchema) {
      const canonical = canonicalQuery(querySchema, search, errors);
      if (canonical) {
        search = canonical;
        url.search = canonical.toString();
        c.req.raw = new Request(url, c.req.raw);
      }
    }

    let body: unknown;
    const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    const jsonBody = json.schema !== undefined && !json.others.includes(type);
    if (jsonBody) {
      body = await readJsonBody(c.req.raw);
      if (body !== undefined) body = canonicalJson(json.schema!, body, errors);
      else if (json.required) errors.$ = ['A JSON body is required.'];
    } else if (json.schema === undefined && json.others.length === 0) {
      await ignoreBody(c.req.raw);
    }

    const top = body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
    if (access !== 'public' && (access === 'anyToken' || access.type !== 'Private_assets')) {
      if (namesAnOwner(search, top)) await requireOwnerAccess(c, access === 'anyToken' ? 'read' : access.level);
    }
    checkOwnerValues(errors, search, top);

    if (querySchema) {
      const result = querySchema.safeParse(queryObject(search));
      if (!result.success) errorsFromIssues(result.error.issues, errors);
    }
    if (jsonBody && body !== undefined) {
      const result = json.schema!.safeParse(body);
      if (!result.success) errorsFromIssues(result.error.issues, errors);
    }
    if (Object.keys(errors).length) throw new ValidationError(errors);

    if (jsonBody) {
      // Hand the validators the canonical value; an empty body reaches them as no body at all.
      const headers = new Headers(c.req.raw.headers);
      headers.delete('content-length');
      if (body === undefined) headers.delete('content-type');
      else headers.set('content-type', 'application/json');
      c.req.raw = new Request(c.req.raw.url, {
        method: c.req.raw.method,
        headers,
        body: body === undefined ? null : JSON.stringify(body),
      });
      c.req.bodyCache = {};
    }
    await next();
  };
}

function describeAccess(access: Access): string {
  if (access === 'public') return 'No token needed.';
  if (access === 'anyToken') return 'Any valid access token.';
  const owner = access.type === 'Private_assets' ? '' : ` Naming an owner (ownerId, privateStorageOwner, mockupOwnerId, resourceOwnerId) also needs \`Private_assets_${access.level}\`.`;
  return `**Scope:** \`${scopeOf(access)}\` (or a higher level).${owner}`;
}

/** createRoute() for a platform area: see the file comment. */
export function platformRoute<R extends RouteConfig>(route: R, access: Access): R {
  const query = route.request?.query as unknown;
  // Documents `tenantId` on every route that takes a token (a non-object query schema is kept as is).
  const withTenant =
    access === 'public' ? query : query === undefined ? z.object({ tenantId: TenantIdQuery }) : query instanceof z.ZodObject ? query.extend({ tenantId: TenantIdQuery }) : query;
  // A query schema without parameters (a collection that takes no owner) is no input either.
  const takesQuery = query instanceof z.ZodObject ? Object.keys(query.shape).length > 0 : query !== undefined;
  const hasInput = takesQuery || Boolean(route.request?.body);
  const documented = {
    ...(hasInput ? problemResponses(400) : {}),
    ...(access === 'public' ? {} : problemResponses(401, 403)),
    ...(route.request?.body ? problemResponses(413) : {}),
    ...route.responses,
  };
  const created = createRoute({
    ...route,
    request: { ...route.request, ...(withTenant ? { query: withTenant } : {}) },
    responses: documented,
    description: [describeAccess(access), route.description].filter(Boolean).join('\n\n'),
    ...(access === 'public' ? { security: [] } : { security: [{ bearer: access === 'anyToken' ? [] : [scopeOf(access)] }] }),
    middleware: [prepare(route, access), ...asArray(route.middleware)] as unknown as R['middleware'],
  }) as unknown as R;
  ROUTE_ACCESS.set(created, access);
  return created;
}

const asArray = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** The tenant context of a handler (set by platformRoute for every non-public route). */
export const tenantOf = (c: Context<PlatformBindings>) => c.var.tenant;

// --- OpenAPI pieces every area repeats, typed so that Hono's inference survives them -----------------

/**
 * A hand-written OpenAPI schema, for what zod does not describe: raw bytes in an answer, and the
 * fields of a multipart body that the handler reads itself (no validator may read that stream
 * first). Literal `type`s keep it assignable to the route config without a cast.
 */
export interface PlainSchema {
  type: 'string' | 'integer' | 'number' | 'boolean' | 'object' | 'array';
  format?: string;
  description?: string;
  enum?: string[];
  items?: PlainSchema;
  properties?: Record<string, PlainSchema>;
  required?: string[];
}

/** Bytes: a file answer or a multipart file field. */
export const BINARY = { type: 'string', format: 'binary' } as const satisfies PlainSchema;

/** A JSON answer; the schema's type reaches `c.json(…)` of the handler. */
export const jsonContent = <T extends z.ZodType>(schema: T, description: string) => ({ description, content: { 'application/json': { schema } } });

/** A JSON request body; the schema's type reaches `c.req.valid('json')`. */
export const jsonBody = <T extends z.ZodType>(schema: T, required = true) => ({ required, content: { 'application/json': { schema } } });

/** A file answer in any of the given media types. */
export const fileContent = (description: string, ...types: string[]) => ({ description, content: Object.fromEntries(types.map((t) => [t, { schema: BINARY }])) });

/** A multipart body the handler reads itself, documented by its fields. */
export const multipartBody = (properties: Record<string, PlainSchema>, required: string[]) => ({
  required: true,
  content: { 'multipart/form-data': { schema: { type: 'object', properties, required } satisfies PlainSchema } },
});
