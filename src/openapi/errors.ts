import { z } from '@hono/zod-openapi';

export const ErrorSchema = z
  .object({
    error: z.string().openapi({ example: 'invalid_request' }),
    message: z.string().openapi({ example: 'The request is not valid.' }),
    details: z
      .array(z.object({ path: z.string(), reason: z.string() }))
      .optional(),
  })
  .openapi('Error');

const errorContent = { 'application/json': { schema: ErrorSchema } };

/** Documented error responses, picked by status: `...errorResponses(400, 404)`. */
export function errorResponses(...statuses: number[]) {
  const text: Record<number, string> = {
    400: 'Invalid request: `details` names each offending field.',
    401: 'Missing or invalid credentials.',
    403: 'Credentials lack the required permission.',
    404: 'Unknown resource.',
    409: 'Conflict with the current state.',
    413: 'Payload too large.',
    422: 'The input is well-formed but cannot be processed.',
  };
  return Object.fromEntries(
    statuses.map((s) => [s, { description: text[s] ?? 'Error', content: errorContent }]),
  );
}
