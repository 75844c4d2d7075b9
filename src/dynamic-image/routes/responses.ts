import type { z } from '@hono/zod-openapi';

/** OpenAPI response/body declarations shared by the rendering routes. */
export const json = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { 'application/json': { schema } },
});

export const jsonBody = <T extends z.ZodType>(schema: T) => ({ required: true, content: { 'application/json': { schema } } });

export const binary = (description: string, types: string[]) => ({
  description,
  content: Object.fromEntries(types.map((t) => [t, { schema: { type: 'string' as const, format: 'binary' } }])),
});
