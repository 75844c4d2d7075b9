import { Hono } from 'hono';
import { swaggerUI } from '@hono/swagger-ui';
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppBindings } from '../env';

export interface DocumentedService {
  /** Short name, used in the document URL: /api/docs/<name>.json */
  name: string;
  title: string;
  description: string;
  app: OpenAPIHono<any>;
}

/** OpenAPI 3.1 JSON per service area plus one Swagger UI page listing them all. */
export function docsApp(services: DocumentedService[], version: string) {
  const docs = new Hono<AppBindings>();
  for (const s of services) {
    docs.get(`/${s.name}.json`, (c) =>
      c.json(
        s.app.getOpenAPI31Document({
          openapi: '3.1.0',
          info: { title: s.title, version, description: s.description },
          servers: [{ url: new URL(c.req.url).origin }],
        }),
      ),
    );
  }
  docs.get(
    '/',
    swaggerUI({
      urls: services.map((s) => ({ url: `/api/docs/${s.name}.json`, name: s.title })),
      title: 'API documentation',
    }),
  );
  return docs;
}
