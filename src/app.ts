/**
 * The Worker's composition: which areas answer which paths, what each area is given, and when it
 * is built. Nothing registers itself by being imported; this file says who uses what.
 *
 * An area's app (its routes, schemas and the modules behind them) is built on the area's first
 * request, once per createApp(), and the OpenAPI documents on their first request: a new isolate
 * starts without building any of it (docs/performance.md, Start-up). The import() calls below are
 * that deferral.
 *
 * To add an area: an entry in `areas` (before the one whose paths it narrows) and, if it is
 * documented, one in `documents`.
 */
import { Hono, type Context } from 'hono';
import { getPath } from 'hono/utils/url';
import { useTokenSources } from './auth/sources';
import { canonicalRenderingPath } from './dynamic-image/canonical';
import type { AppBindings } from './env';
import { handleError, notFoundHandler } from './errors';
import { ADMIN_LOGIN_PATH } from './identity/paths';
import { docsApp } from './openapi/docs';
import { PLATFORM_PATH, platformAreaOf, type PlatformAreaName } from './platform/core/paths';
import { VERSION } from './version';

export type ServiceArea = 'identity' | 'rendering' | 'platform';

const RENDERING_PATH = /^\/api\/(info|resources|information|rendering|results)(\/|$)/i;
const DOCS_PATH = /^\/api\/docs(\/|$)/;
const ADMIN_PATH = /^\/admin(\/|$)/;

/** Which service area a path belongs to; docs belong to all. */
export function serviceAreaOf(path: string): ServiceArea | 'docs' {
  if (DOCS_PATH.test(path)) return 'docs';
  if (PLATFORM_PATH.test(path)) return 'platform';
  if (RENDERING_PATH.test(path)) return 'rendering';
  return 'identity';
}

export function enabledAreas(services: string | undefined): Set<string> {
  return new Set(
    (services || 'identity,rendering,platform')
      .split(',')
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean),
  );
}

/** An area as the Worker serves it (areaRoot). */
type AreaRoot = Hono<AppBindings>;
type CanonicalPath = (path: string, method: string) => string;

/**
 * An area's app under the Worker's error and 404 handling, mounted `at` its path (default `/`),
 * with its paths canonicalised before routing.
 */
function areaRoot(area: Hono<any, any, any>, options: { at?: string; canonicalPath?: CanonicalPath } = {}): AreaRoot {
  const canonicalPath = options.canonicalPath ?? ((path) => path);
  const root = new Hono<AppBindings>({ getPath: (req) => canonicalPath(getPath(req), req.method) });
  root.onError(handleError);
  root.notFound(notFoundHandler);
  root.route(options.at ?? '/', area);
  return root;
}

/** `load(key)`, called once per key: later calls share its result (a failure is retried by the next call). */
function oncePer<K, T>(load: (key: K) => Promise<T>): (key: K) => Promise<T> {
  const loaded = new Map<K, Promise<T>>();
  return (key) => {
    let result = loaded.get(key);
    if (!result) {
      result = load(key);
      loaded.set(key, result);
      result.catch(() => loaded.delete(key));
    }
    return result;
  };
}

const once = <T>(load: () => Promise<T>): (() => Promise<T>) => {
  const loaded = oncePer(load);
  return () => loaded(undefined);
};

/**
 * What the areas need from one another, handed over here. The resource servers (platform,
 * rendering, identity's own userinfo) check access tokens against identity's signing keys and
 * token state, loaded when the first token is checked.
 */
function wireAreas(): void {
  useTokenSources({
    verificationKeys: async (env, kid) => (await import('./identity/keys')).verificationKeySet(env, kid),
    tokenIsLive: async (env, claims) => (await import('./identity/store')).tokenState.isLive(env.DB, claims),
  });
}

/** The whole Worker as one Hono app; SERVICES narrows which areas answer. */
export function createApp() {
  wireAreas();

  const identityApp = once(() => import('./identity').then((m) => m.identityApp));
  // Rendering paths match case-insensitively, trailing slash optional (src/dynamic-image/canonical.ts).
  const renderingApp = once(() => import('./dynamic-image').then((m) => m.createRenderingApp()));
  // Each platform area is its own app: the first request under /api/<area>/v1 builds that area
  // only; its literal path segments match ignoring case (src/platform/core/paths.ts).
  const platformArea = oncePer((name: PlatformAreaName) =>
    import('./platform').then((m) => m.platformAreaApp(name)).then((a) => areaRoot(a.app, { canonicalPath: a.canonicalPath })),
  );

  /** First match wins; the last area takes every other path. */
  const areas: Array<{ claims(path: string): boolean; root(path: string): Promise<AreaRoot> }> = [
    { claims: (path) => PLATFORM_PATH.test(path), root: (path) => platformArea(platformAreaOf(path)!) },
    { claims: (path) => RENDERING_PATH.test(path), root: once(async () => areaRoot(await renderingApp(), { canonicalPath: canonicalRenderingPath })) },
    // The admin panel (src/admin) under /admin; its sign-in page, /admin/login, stays identity's.
    { claims: (path) => ADMIN_PATH.test(path) && path !== ADMIN_LOGIN_PATH, root: once(async () => areaRoot((await import('./admin')).adminPanel, { at: '/admin' })) },
    { claims: () => true, root: once(async () => areaRoot(await identityApp())) },
  ];

  const documents = [
    { name: 'identity', title: 'Identity (OAuth 2.0 / OpenID Connect)', description: 'Token issuance, sign-in and the admin panel.', app: identityApp },
    { name: 'rendering', title: 'Dynamic Image API', description: 'PSD templates rendered into previews and print PDFs.', app: renderingApp },
    {
      name: 'platform',
      title: 'Platform APIs',
      description: 'Assets, products, projects and processing pipelines.',
      app: once(() => import('./platform').then((m) => m.platformDocumentApp())),
    },
  ];

  const app = new Hono<AppBindings>();
  app.onError(handleError);
  app.notFound(notFoundHandler);

  app.use('*', async (c, next) => {
    const area = serviceAreaOf(c.req.path);
    if (area !== 'docs' && !enabledAreas(c.env.SERVICES).has(area)) return notFoundHandler(c);
    await next();
  });
  app.route('/api/docs', docsApp(documents, VERSION));
  app.all('*', async (c) => {
    if (serviceAreaOf(c.req.path) === 'docs') return notFoundHandler(c);
    const area = areas.find((a) => a.claims(c.req.path))!;
    return (await area.root(c.req.path)).fetch(c.req.raw, c.env, executionContextOf(c));
  });
  return app;
}

/** The request's ExecutionContext, when it has one (app.request() in tests passes none). */
function executionContextOf(c: Context) {
  try {
    return c.executionCtx;
  } catch {
    return undefined;
  }
}
