import { Hono } from 'hono';
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppBindings } from '../env';

export interface DocumentedService {
  /** Short name, used in the document URL: /api/docs/<name>.json */
  name: string;
  title: string;
  description: string;
  /** The service's app, whose routes make the document; loaded on the document's first request. */
  app: () => Promise<OpenAPIHono<any>>;
}

/**
 * Where the Worker's static assets hold Swagger UI: the pinned `swagger-ui-dist` from npm, copied
 * there by scripts/build/20-swagger-ui.mjs and served by the platform (wrangler `[assets]`), so the
 * page works offline and loads nothing from a third party.
 */
export const SWAGGER_UI_PATH = '/api/docs/swagger-ui';

/**
 * The docs page runs only same-origin scripts and styles, and fetches only our own documents.
 * Swagger UI sets element styles through the DOM (allowed without 'unsafe-inline'). The one
 * `<style>` element it writes, inside the top bar's SVG logo, is allowed by its hash:
 * `.logo_small_svg__cls-2{fill:#fff}.logo_small_svg__cls-3{fill:#85ea2d}` in swagger-ui-dist
 * 5.35.0 (test/browser/api-docs.test.ts fails on any violation, e.g. after an upgrade).
 */
const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w='",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const escapeAttr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

function page(urls: { url: string; name: string }[]): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>API documentation</title>
<link rel="icon" type="image/png" href="${SWAGGER_UI_PATH}/favicon-32x32.png">
<link rel="stylesheet" href="${SWAGGER_UI_PATH}/swagger-ui.css">
</head>
<body>
<div id="swagger-ui" data-urls="${escapeAttr(JSON.stringify(urls))}"></div>
<script src="${SWAGGER_UI_PATH}/swagger-ui-bundle.js"></script>
<script src="${SWAGGER_UI_PATH}/swagger-ui-standalone-preset.js"></script>
<script src="/api/docs/init.js"></script>
</body>
</html>
`;
}

/**
 * Starts Swagger UI with the documents listed on the page. A file, not an inline script, so the
 * page's policy needs no 'unsafe-inline'. `validatorUrl: null` keeps Swagger UI from sending our
 * documents to validator.swagger.io.
 */
const INIT_JS = `window.addEventListener('load', function () {
  var root = document.getElementById('swagger-ui');
  window.ui = SwaggerUIBundle({
    urls: JSON.parse(root.dataset.urls),
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    layout: 'StandaloneLayout',
  });
});
`;

/**
 * OpenAPI 3.1 JSON per service area plus one Swagger UI page listing them all. A document is
 * generated when asked for: its area's schemas and routes are not built before then.
 */
export function docsApp(services: DocumentedService[], version: string) {
  const docs = new Hono<AppBindings>();
  for (const s of services) {
    docs.get(`/${s.name}.json`, async (c) =>
      c.json(
        (await s.app()).getOpenAPI31Document({
          openapi: '3.1.0',
          info: { title: s.title, version, description: s.description },
          servers: [{ url: new URL(c.req.url).origin }],
        }),
      ),
    );
  }
  const urls = services.map((s) => ({ url: `/api/docs/${s.name}.json`, name: s.title }));
  docs.get('/init.js', (c) => {
    c.header('Content-Type', 'text/javascript; charset=utf-8');
    c.header('X-Content-Type-Options', 'nosniff');
    return c.body(INIT_JS);
  });
  docs.get('/', (c) => {
    c.header('Content-Security-Policy', DOCS_CSP);
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Referrer-Policy', 'no-referrer');
    return c.html(page(urls));
  });
  return docs;
}
