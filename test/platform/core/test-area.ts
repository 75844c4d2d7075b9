// A small platform area built with the shared core only, mounted like the real ones, so the core's
// behaviour is tested without depending on any area's routes.
import { z } from '@hono/zod-openapi';
import { env } from 'cloudflare:workers';
import { Hono } from 'hono';
import { getPath } from 'hono/utils/url';
import {
  ConflictError,
  buildPlatformApp,
  createPlatformArea,
  effectiveOwner,
  hexIdOr404,
  NotFoundError,
  paged,
  pagedOf,
  pagingQuery,
  platformRoute,
  problemResponses,
  arrayQuery,
} from '../../../src/platform/core';
import { errorResponses } from '../../../src/openapi/app';

const area = createPlatformArea('storage');

const Item = z.object({ id: z.string(), name: z.string() }).openapi('TestItem');
const ListQuery = pagingQuery(['name', 'lastModified']).extend({
  ownerId: z.string().optional(),
  kind: z.enum(['Psd', 'PrintProduct']).optional(),
  tags: arrayQuery(z.string()),
});
const CreateBody = z.object({
  name: z.string().min(1),
  quantity: z.number().int().min(1),
  designType: z.enum(['Psd', 'PrintProduct']).optional(),
  customFields: z.record(z.string(), z.unknown()).optional(),
  items: z.array(z.object({ designIds: z.array(z.string()) })).optional(),
});

area.openapi(
  platformRoute(
    { method: 'get', path: '/things', request: { query: ListQuery }, responses: { 200: { description: 'List', content: { 'application/json': { schema: pagedOf(Item, 'PagedOfTestItem') } } } } },
    { type: 'Assets', level: 'read' },
  ),
  (c) => {
    const q = c.req.valid('query');
    const t = c.var.tenant;
    return c.json({ ...paged(0, []), query: q, tenantId: t.tenantId, owner: effectiveOwner(t, q.ownerId) ?? null } as never, 200);
  },
);

area.openapi(
  platformRoute(
    {
      method: 'post',
      path: '/things',
      request: { body: { required: true, content: { 'application/json': { schema: CreateBody } } } },
      responses: { 201: { description: 'Created', content: { 'application/json': { schema: CreateBody } } }, ...problemResponses(409) },
    },
    { type: 'Assets', level: 'full' },
  ),
  (c) => {
    const body = c.req.valid('json');
    if (body.name === 'taken') throw new ConflictError('NameConflict', 'A thing named "taken" already exists.', { existing: 1 });
    return c.json(body, 201);
  },
);

area.openapi(
  platformRoute(
    { method: 'get', path: '/things/folders', responses: { 200: { description: 'Literal path' } } },
    { type: 'Assets', level: 'read' },
  ),
  (c) => c.json({ route: 'folders' }),
);

area.openapi(
  platformRoute(
    { method: 'get', path: '/things/{id}', request: { params: z.object({ id: z.string() }) }, responses: { 200: { description: 'One' } } },
    { type: 'Assets', level: 'read' },
  ),
  (c) => {
    const id = hexIdOr404(c.req.valid('param').id, 'thing');
    throw new NotFoundError(`No thing ${id}.`);
  },
);

area.openapi(
  platformRoute(
    { method: 'post', path: '/things/{id}/start', request: { params: z.object({ id: z.string() }) }, responses: { 204: { description: 'Bodyless action' } } },
    { type: 'Assets', level: 'update' },
  ),
  (c) => c.body(null, 204),
);

area.openapi(
  platformRoute(
    {
      method: 'post',
      path: '/things/optional-body',
      request: { body: { content: { 'application/json': { schema: z.object({ note: z.string().optional() }) } } } },
      responses: { 200: { description: 'Echo' } },
    },
    { type: 'Assets', level: 'update' },
  ),
  (c) => c.json({ body: c.req.valid('json') }),
);

area.openapi(
  platformRoute({ method: 'get', path: '/private-things', responses: { 200: { description: 'Private' } } }, { type: 'Private_assets', level: 'read' }),
  (c) => c.json({ ok: true }),
);

void errorResponses;

const built = buildPlatformApp([area]);

/** A root app like src/app.ts: platform paths canonicalised before routing. */
export const testApp = new Hono({ getPath: (req) => built.table().canonical(getPath(req), req.method) });
testApp.route('/', built.app);
export const testPlatform = built.app;

export function testCall(method: string, path: string, init: { token?: string; body?: BodyInit; headers?: Record<string, string> } = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  if (init.token) headers.set('authorization', `Bearer ${init.token}`);
  return Promise.resolve(testApp.request(`http://localhost${path}`, { method, headers, body: init.body }, env));
}
