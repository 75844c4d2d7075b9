import { createServiceApp } from '../openapi/app';
import { API_KEY_HEADER } from './request';
import { registerRenderingRoutes } from './routes/rendering';
import { registerResourceRoutes } from './routes/resources';
import { renderingErrorHandler } from './errors';
import { registerHiresRoutes } from './routes/hires';
import { registerMultipageRoutes } from './routes/multipage';
import { registerSignedPreviewRoutes } from './routes/signed';

export { canonicalRenderingPath } from './canonical';

/** The Dynamic Image API: resources, template information, rendering and results. */
export const renderingApp = createServiceApp();
// Engine errors become their 4xx here (src/dynamic-image/errors.ts); set before the app is mounted.
renderingApp.onError(renderingErrorHandler);

renderingApp.openAPIRegistry.registerComponent('securitySchemes', 'DynamicImageApiKey', {
  type: 'apiKey',
  in: 'header',
  name: API_KEY_HEADER,
  description: 'Required for every write: uploads, fonts/reload and deletes.',
});
registerRenderingRoutes(renderingApp);
registerResourceRoutes(renderingApp);
registerHiresRoutes(renderingApp);
registerMultipageRoutes(renderingApp);
registerSignedPreviewRoutes(renderingApp);
