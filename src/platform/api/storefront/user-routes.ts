/**
 * Storefronts, the tenant and storefront users (contract, "Storefront"), registered on the
 * storefront area by routes.ts.
 *
 *   GET  /storefronts[/{id}]                          PagedOfStorefrontDto | StorefrontDto
 *   GET  /tenant-info                                 TenantInfoDto
 *   GET  /tenant-info/users                           TenantUserDto[] (bare array)
 *   GET  /storefront-users?storefrontId&includeAnonymous   PagedOfStorefrontUserDto
 *   POST /storefront-users?storefrontId               201 StorefrontUserDto (an existing id: that user)
 *   POST /storefront-users/register?storefrontId      200 StorefrontUserDto
 *   POST /storefront-users/merge-anonymous?storefrontId   200 empty
 *   GET  /storefront-users/token?storefrontId&storefrontUserId   text/plain token
 *   GET  /storefront-users/{id}?storefrontId          StorefrontUserDto
 */
import { z } from '@hono/zod-openapi';
import { boolQuery, pagingQuery, platformRoute, problemResponses, type PlatformArea } from '../../core';
import {
  CreateStorefrontUserDto,
  ListStorefrontUsersQuery,
  MergeAnonymousDto,
  PagedOfStorefrontDto,
  PagedOfStorefrontUserDto,
  StorefrontDto,
  StorefrontIdQuery,
  StorefrontUserDto,
  TenantInfoDto,
  TenantUserDto,
  TokenQuery,
} from '../../projects/schemas';
import * as users from '../../projects/users';

const json = <T extends z.ZodType>(schema: T, description: string) => ({ description, content: { 'application/json': { schema } } });
const body = <T extends z.ZodType>(schema: T) => ({ body: { required: true, content: { 'application/json': { schema } } } });
const storefronts = { type: 'Storefronts', level: 'read' } as const;
const U = (level: 'read' | 'update' | 'full') => ({ type: 'StorefrontUsers', level }) as const;
const userTags = ['Storefront users'];

export function registerUserRoutes(area: PlatformArea): void {
  area.openapi(
    platformRoute(
      {
        method: 'get',
        path: '/storefronts',
        tags: ['Storefronts'],
        summary: 'List storefronts',
        request: { query: pagingQuery(['id', 'name', 'created']) },
        responses: { 200: json(PagedOfStorefrontDto, 'A page of storefronts.') },
      },
      storefronts,
    ),
    async (c) => c.json(await users.listStorefronts(c.var.tenant, c.req.valid('query')), 200),
  );
  area.openapi(
    platformRoute(
      {
        method: 'get',
        path: '/storefronts/{id}',
        tags: ['Storefronts'],
        summary: 'Get a storefront',
        request: { params: z.object({ id: z.string() }) },
        responses: { 200: json(StorefrontDto, 'The storefront.'), ...problemResponses(404) },
      },
      storefronts,
    ),
    async (c) => c.json(await users.getStorefront(c.var.tenant, c.req.valid('param').id), 200),
  );

  area.openapi(
    platformRoute(
      { method: 'get', path: '/tenant-info', tags: ['Tenant'], summary: 'The tenant', responses: { 200: json(TenantInfoDto, 'The tenant.') } },
      storefronts,
    ),
    async (c) => c.json(await users.tenantInfo(c.var.tenant), 200),
  );
  area.openapi(
    platformRoute(
      { method: 'get', path: '/tenant-info/users', tags: ['Tenant'], summary: "The tenant's users", responses: { 200: json(z.array(TenantUserDto), 'A bare array of users.') } },
      { type: 'TenantUsers', level: 'read' },
    ),
    async (c) => c.json(await users.tenantUsers(c.var.tenant), 200),
  );

  area.openapi(
    platformRoute(
      {
        method: 'get',
        path: '/storefront-users',
        tags: userTags,
        summary: 'List storefront users',
        description: 'Anonymous users only with `includeAnonymous=true`.',
        request: { query: ListStorefrontUsersQuery.extend({ includeAnonymous: boolQuery(false) }) },
        responses: { 200: json(PagedOfStorefrontUserDto, 'A page of users.'), ...problemResponses(404) },
      },
      U('read'),
    ),
    async (c) => {
      const q = c.req.valid('query');
      return c.json(await users.listUsers(c.var.tenant, q.storefrontId, { ...q, includeAnonymous: q.includeAnonymous === true }), 200);
    },
  );
  area.openapi(
    platformRoute(
      {
        method: 'post',
        path: '/storefront-users',
        tags: userTags,
        summary: 'Create a storefront user',
        description: 'An existing id answers 201 with that user, unchanged.',
        request: { query: StorefrontIdQuery, ...body(CreateStorefrontUserDto) },
        responses: { 201: json(StorefrontUserDto, 'The user.'), ...problemResponses(404) },
      },
      U('full'),
    ),
    async (c) => {
      const b = c.req.valid('json');
      return c.json(await users.createUser(c.var.tenant, c.req.valid('query').storefrontId, b.storefrontUserId, b.isAnonymous === true), 201);
    },
  );
  area.openapi(
    platformRoute(
      {
        method: 'post',
        path: '/storefront-users/register',
        tags: userTags,
        summary: 'Register a storefront user',
        description: 'Creates a regular user, or makes an anonymous user of that id regular.',
        request: { query: StorefrontIdQuery, ...body(CreateStorefrontUserDto) },
        responses: { 200: json(StorefrontUserDto, 'The user.'), ...problemResponses(404) },
      },
      U('update'),
    ),
    async (c) => c.json(await users.registerUser(c.var.tenant, c.req.valid('query').storefrontId, c.req.valid('json').storefrontUserId), 200),
  );
  area.openapi(
    platformRoute(
      {
        method: 'post',
        path: '/storefront-users/merge-anonymous',
        tags: userTags,
        summary: 'Merge an anonymous user into a regular one',
        description: "Moves the anonymous user's projects and private assets to the regular user, then removes the anonymous user.",
        request: { query: StorefrontIdQuery, ...body(MergeAnonymousDto) },
        responses: { 200: { description: 'Merged (empty body).' }, ...problemResponses(404, 409) },
      },
      U('update'),
    ),
    async (c) => {
      const b = c.req.valid('json');
      await users.mergeAnonymous(c.var.tenant, c.req.valid('query').storefrontId, b.anonymousStorefrontUserId, b.regularStorefrontUserId);
      return c.body(null, 200);
    },
  );
  area.openapi(
    platformRoute(
      {
        method: 'get',
        path: '/storefront-users/token',
        tags: userTags,
        summary: "A storefront user's token",
        description:
          "An access token of the caller's app for the design editor: `sub` = `suid` = the user, scope `Assets_read Private_assets_full` capped at the caller's levels, lifetime min(caller's, 3600 s).",
        request: { query: TokenQuery },
        responses: { 200: { description: 'The token.', content: { 'text/plain': { schema: z.string() } } }, ...problemResponses(404) },
      },
      U('full'),
    ),
    async (c) => {
      const q = c.req.valid('query');
      return c.text(await users.storefrontUserToken(c.var.tenant, q.storefrontId, q.storefrontUserId), 200);
    },
  );
  area.openapi(
    platformRoute(
      {
        method: 'get',
        path: '/storefront-users/{id}',
        tags: userTags,
        summary: 'Get a storefront user',
        request: { params: z.object({ id: z.string() }), query: StorefrontIdQuery },
        responses: { 200: json(StorefrontUserDto, 'The user.'), ...problemResponses(404) },
      },
      U('read'),
    ),
    async (c) => c.json(await users.getUser(c.var.tenant, c.req.valid('query').storefrontId, c.req.valid('param').id), 200),
  );
}
