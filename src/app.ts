import { Hono } from 'hono';
import type { AppBindings } from './env';
import { handleError, notFoundHandler } from './errors';
import { identityApp } from './identity';
import { getPath } from 'hono/utils/url';
import { canonicalRenderingPath, renderingApp } from './dynamic-image';
import { canonicalPlatformPath, platformApp } from './platform';
import { docsApp } from './openapi/docs';
import { VERSION } from './version';

export type ServiceArea = 'identity' | 'rendering' | 'platform';

const PLATFORM_PREFIX = /^\/api\/(atoms|processor|storage|storefront|backoffice|rendering)\/v1(\/|$)/i;
const RENDERING_PREFIX = /^\/api\/(info|resources|information|rendering|results)(\/|$)/i;

/** Which service area a path belongs to; docs belong to all. */
export function serviceAreaOf(path: string): ServiceArea | 'docs' {
  if (path === '/api/docs' || path.startsWith('/api/docs/')) return 'docs';
  if (PLATFORM_PREFIX.test(path)) return 'platform';
  if (RENDERING_PREFIX.test(path)) return 'rendering';
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

/** The whole Worker as one Hono app; SERVICES narrows which areas answer. */
export function createApp() {
  // The rendering area matches paths case-insensitively, trailing slash optional (src/dynamic-image/canonical.ts);
  // platform paths match their literal segments ignoring case (src/platform/core/paths.ts).
  const app = new Hono<AppBindings>({
    getPath: (req) => canonicalRenderingPath(canonicalPlatformPath(getPath(req), req.method), req.method),
  });
  app.onError(handleError);
  app.notFound(notFoundHandler);

  app.use('*', async (c, next) => {
    const area = serviceAreaOf(c.req.path);
    if (area !== 'docs' && !enabledAreas(c.env.SERVICES).has(area)) return notFoundHandler(c);
    await next();
  });

  app.route(
    '/api/docs',
    docsApp(
      [
        { name: 'identity', title: 'Identity (OAuth 2.0 / OpenID Connect)', description: 'Token issuance, sign-in and the admin panel.', app: identityApp },
        { name: 'rendering', title: 'Dynamic Image API', description: 'PSD templates rendered into previews and print PDFs.', app: renderingApp },
        { name: 'platform', title: 'Platform APIs', description: 'Assets, products, projects and processing pipelines.', app: platformApp },
      ],
      VERSION,
    ),
  );
  app.route('/', platformApp);
  app.route('/', renderingApp);
  app.route('/', identityApp);
  return app;
}
