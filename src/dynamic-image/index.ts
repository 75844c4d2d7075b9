import { createServiceApp } from '../openapi/app';
import { API_KEY_HEADER } from './request';
import { registerRenderingRoutes } from './routes/rendering';
import { registerResourceRoutes } from './routes/resources';
import { renderingErrorHandler } from './errors';
import { registerHiresRoutes } from './routes/hires';
import { registerMultipageRoutes } from './routes/multipage';
import { registerSignedPreviewRoutes } from './routes/signed';

export { canonicalRenderingPath } from './canonical';

/**
 * The Dynamic Image API: resources, template information, rendering and results. Built by the
 * Worker (src/app.ts) on the area's first request; paths reach it canonicalised
 * (`canonicalRenderingPath`, src/dynamic-image/canonical.ts).
 */
export function createRenderingApp() {
  const app = createServiceApp();
  // Engine errors become their 4xx here (src/dynamic-image/errors.ts); set before the app is mounted.
  app.onError(renderingErrorHandler);
  app.openAPIRegistry.registerComponent('securitySchemes', 'DynamicImageApiKey', {
    type: 'apiKey',
    in: 'header',
    name: API_KEY_HEADER,
    description: 'Required for every write: uploads, fonts/reload and deletes.',
  });
  registerRenderingRoutes(app);
  registerResourceRoutes(app);
  registerHiresRoutes(app);
  registerMultipageRoutes(app);
  registerSignedPreviewRoutes(app);
  return app;
}
