/**
 * One platform area = one OpenAPIHono sub-app under `/api/<area>/v1`, built by
 * `createPlatformArea(area)`: problem-details errors, the validation hook and `GET`/`HEAD /info`
 * come with it. `buildPlatformApp(areas)` mounts the areas with CORS, OPTIONS and the platform
 * 404, and returns the route table the app's getPath uses for case-insensitive paths. The Worker
 * builds one such app per area, on the area's first request, and one with all six for the
 * OpenAPI document (src/platform/index.ts).
 *
 * Areas register ALL their routes at module load, before they are mounted (Hono and the OpenAPI
 * registry copy routes when `route()` is called). Register literal paths before parameter paths
 * that could shadow them (`/designs/folders` before `/designs/{id}`).
 */
import { OpenAPIHono, createRoute } from '@hono/zod-openapi';
import { settleBody } from './body';
import { platformCors } from './cors';
import { buildInfo, InfoDto } from './info';
import { PLATFORM_AREAS, PlatformRouteTable, type PlatformAreaName } from './paths';
import { platformErrorHandler, platformNotFound, platformValidationHook } from './problem';
import type { PlatformBindings } from './tenancy';

export type PlatformArea = OpenAPIHono<PlatformBindings>;

export const AREA_TITLES: Record<PlatformAreaName, string> = {
  storage: 'Asset storage',
  processor: 'Asset processor',
  atoms: 'Design atoms',
  storefront: 'Storefront',
  backoffice: 'Back office',
  rendering: 'Rendering jobs',
};

const AREA_OF = new WeakMap<PlatformArea, PlatformAreaName>();

/** A new area app with its problem handling and `/info` (paths relative to `/api/<area>/v1`). */
export function createPlatformArea(area: PlatformAreaName): PlatformArea {
  const app = new OpenAPIHono<PlatformBindings>({ defaultHook: platformValidationHook });
  app.onError(platformErrorHandler);
  app.notFound(platformNotFound);
  AREA_OF.set(app, area);
  const info = {
    path: '/info',
    summary: 'Build information',
    description: 'No token needed. Version, build date, configuration and application name' +
      (area === 'atoms' || area === 'processor' ? ', plus the design-atoms versions.' : '.'),
    security: [] as Array<Record<string, string[]>>,
  };
  app.openapi(
    createRoute({
      method: 'get',
      ...info,
      responses: { 200: { description: 'Build information.', content: { 'application/json': { schema: InfoDto } } } },
    }),
    (c) => c.json(buildInfo(area, c.env), 200),
  );
  // HEAD is answered by the GET route (Hono); documented on its own.
  app.openAPIRegistry.registerPath({ method: 'head', ...info, responses: { 200: { description: 'Headers only.' } } });
  return app;
}

/** Tags every route of the area with the area's title (sub-tags become "<title>: <tag>"). */
function tagRoutes(app: PlatformArea, area: PlatformAreaName): void {
  const title = AREA_TITLES[area];
  for (const def of app.openAPIRegistry.definitions) {
    if (def.type !== 'route') continue;
    const own = def.route.tags ?? [];
    def.route.tags = own.length ? own.map((t) => (t.startsWith(title) ? t : `${title}: ${t}`)) : [title];
  }
}

/** The platform app: areas mounted under `/api/<area>/v1`, CORS and OPTIONS, a problem 404. */
export function buildPlatformApp(areas: PlatformArea[]): { app: OpenAPIHono<PlatformBindings>; table: () => PlatformRouteTable } {
  const app = new OpenAPIHono<PlatformBindings>({ defaultHook: platformValidationHook });
  app.onError(platformErrorHandler);
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearer', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'An access token of the identity service. Each operation lists the resource scope it needs.',
  });

  let table: PlatformRouteTable | undefined;
  const getTable = () =>
    (table ??= new PlatformRouteTable(
      app.openAPIRegistry.definitions.flatMap((d) => (d.type === 'route' ? [{ method: d.route.method, path: d.route.path }] : [])),
    ));

  const prefix = `/api/:area{${PLATFORM_AREAS.join('|')}}/v1`;
  app.use(prefix, settleBody, platformCors(getTable));
  app.use(`${prefix}/*`, settleBody, platformCors(getTable));
  for (const area of areas) {
    const name = AREA_OF.get(area);
    if (!name) throw new Error('buildPlatformApp: not an area of createPlatformArea()');
    tagRoutes(area, name);
    app.route(`/api/${name}/v1`, area);
  }
  app.all(prefix, platformNotFound);
  app.all(`${prefix}/*`, platformNotFound);
  return { app, table: getTable };
}
