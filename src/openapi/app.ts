import { OpenAPIHono } from '@hono/zod-openapi';
import type { AppBindings } from '../env';
import { validationHook } from '../errors';

/**
 * Every service builds its routes on this: request schemas validate at the edge of the route
 * (failures become our uniform 400) and the same schemas generate the OpenAPI document.
 */
export function createServiceApp<E extends AppBindings = AppBindings>() {
  return new OpenAPIHono<E>({ defaultHook: validationHook });
}

/** Error body schema shared by all documented error responses. */
export { errorResponses, ErrorSchema } from './errors';
