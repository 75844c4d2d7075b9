/**
 * Platform APIs under /api/<area>/v1/ (docs/platform.md). Each area is an OpenAPIHono sub-app built
 * by its routes module (src/platform/api/<surface>/routes.ts); here they get the shared core
 * (CORS, OPTIONS, problem 404s, case-insensitive paths).
 *
 * An area's module is loaded, and its schemas and routes built, on the first request under its
 * prefix: a new isolate pays only for the area it serves (start-up: docs/performance.md). The
 * import() below is that deferral, nothing else; the OpenAPI document loads all six.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { buildPlatformApp, type PlatformArea } from './core/area';
import { PLATFORM_AREAS, type PlatformAreaName } from './core/paths';
import type { PlatformBindings } from './core/tenancy';

const AREA_MODULES: Record<PlatformAreaName, () => Promise<PlatformArea>> = {
  storage: () => import('./api/storage/routes').then((m) => m.storageArea),
  processor: () => import('./api/processor/routes').then((m) => m.processorArea),
  atoms: () => import('./api/atoms/routes').then((m) => m.atomsArea),
  storefront: () => import('./api/storefront/routes').then((m) => m.storefrontArea),
  backoffice: () => import('./api/backoffice/routes').then((m) => m.backofficeArea),
  rendering: () => import('./api/rendering-jobs/routes').then((m) => m.renderingJobsArea),
};

/** One platform area ready to serve: its app and the path canonicalisation of its routes. */
export interface PlatformAreaApp {
  app: OpenAPIHono<PlatformBindings>;
  /** Literal path segments in their declared spelling (case-insensitive platform paths). */
  canonicalPath(path: string, method: string): string;
}

/** The app of one platform area with its own route table (the Worker builds it on the area's first request). */
export async function platformAreaApp(area: PlatformAreaName): Promise<PlatformAreaApp> {
  const platform = buildPlatformApp([await AREA_MODULES[area]()]);
  return { app: platform.app, canonicalPath: (path, method) => platform.table().canonical(path, method) };
}

/** Every area in one app, in the documented order: the source of /api/docs/platform.json. */
export async function platformDocumentApp(): Promise<OpenAPIHono<PlatformBindings>> {
  const areas = await Promise.all(PLATFORM_AREAS.map((a) => AREA_MODULES[a]()));
  return buildPlatformApp(areas).app;
}
