/**
 * Endpoints whose name parameter comes either in the path or in the query (the spec documents
 * `/api/results/download/{file}`, usage passes `?file=`). Each such endpoint registers three
 * routes on the app, inline, each validated by its own schema: the query form, the path form,
 * and a hidden path form whose parameter may contain `/` (nested folders). This module gives
 * them their paths and parameter schemas.
 */
import { z } from '@hono/zod-openapi';
import { badRequest } from '../../errors';

/** The three paths of `path` with `param`: `?param=`, `/{param}`, and the hidden `/{param{.+}}`. */
export function dualPaths<const P extends string, const Path extends string>(path: Path, param: P) {
  return { query: path, path: `${path}/{${param}}` as const, nested: `${path}/{${param}{.+}}` as const };
}

const queryDescription = (description: string, required: boolean) => `${description}${required ? ' (Required, here or in the path)' : ''}`;
const pathParam = (name: string, description: string) => z.string().openapi({ param: { name, in: 'path' }, description });

/** `file` in the query (optional there: it may come in the path) and in the path. */
export function fileParam(description: string, required: boolean) {
  return {
    query: z.object({ file: z.string().optional().openapi({ description: queryDescription(description, required) }) }),
    path: z.object({ file: pathParam('file', description) }),
  };
}

/** `destination` in the query and in the path. */
export function destinationParam(description: string, required: boolean) {
  return {
    query: z.object({ destination: z.string().optional().openapi({ description: queryDescription(description, required) }) }),
    path: z.object({ destination: pathParam('destination', description) }),
  };
}

/** The parameter's value from either form; 400 when a required one is absent or empty. */
export function dualValue(param: string, value: string | undefined, required: boolean): string | undefined {
  if (required && !value) throw badRequest(`The parameter "${param}" is required.`, [{ path: param, reason: 'required' }]);
  return value || undefined;
}
