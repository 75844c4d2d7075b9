/**
 * Endpoints whose name parameter comes either in the path or in the query (the spec documents
 * `/api/results/download/{file}`, usage passes `?file=`): one declaration registers both forms,
 * plus a hidden path form whose parameter may contain `/` (nested folders).
 */
import { z, type RouteConfig } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppBindings } from '../../env';
import { badRequest } from '../../errors';
import type { RenderingApp } from '../context';
import { renderingRoute } from '../request';

type Query = z.ZodObject<z.ZodRawShape>;

export interface DualRoute {
  method: 'get' | 'post' | 'delete';
  /** Path without the parameter, e.g. `/api/results/download`. */
  path: string;
  param: string;
  paramDescription: string;
  /** Whether the parameter must be given (in one of the two forms). */
  required: boolean;
  /** Other query parameters. */
  query?: Query;
  body?: RouteConfig['request'] extends infer R ? (R extends { body?: infer B } ? B : never) : never;
  write?: boolean;
  tags: string[];
  summary: string;
  description?: string;
  responses: RouteConfig['responses'];
}

export function registerDual(
  app: RenderingApp,
  spec: DualRoute,
  handler: (c: Context<AppBindings>, value: string | undefined) => Promise<Response>,
): void {
  const { param, query = z.object({}) } = spec;
  const queryForm = query.extend({
    [param]: z.string().optional().openapi({ description: `${spec.paramDescription}${spec.required ? ' (Required, here or in the path)' : ''}` }),
  });
  const pathParams = z.object({
    [param]: z.string().openapi({ param: { name: param, in: 'path' }, description: spec.paramDescription }),
  });
  const common = {
    method: spec.method,
    tags: spec.tags,
    summary: spec.summary,
    description: spec.description,
    responses: spec.responses,
  };
  const read = (c: Context<AppBindings>, from: 'query' | 'param'): string | undefined => {
    const value = (c.req.valid(from as never) as Record<string, string | undefined>)[param];
    if (spec.required && !value) {
      throw badRequest(`The parameter "${param}" is required.`, [{ path: param, reason: 'required' }]);
    }
    return value || undefined;
  };
  const withBody = spec.body ? { body: spec.body } : {};
  const options = { write: spec.write };

  app.openapi(
    renderingRoute({ ...common, path: spec.path, request: { query: queryForm, ...withBody } }, options),
    (c) => handler(c, read(c, 'query')),
  );
  for (const [path, hide] of [
    [`${spec.path}/{${param}}`, false],
    [`${spec.path}/{${param}{.+}}`, true],
  ] as const) {
    app.openapi(
      { ...renderingRoute({ ...common, path, request: { params: pathParams, query, ...withBody } }, options), hide },
      (c) => handler(c, read(c, 'param')),
    );
  }
}
