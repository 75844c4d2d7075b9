/**
 * Stored JSON values (custom fields, project fields, order data, pipeline parameters) are bound at
 * write time: at most MAX_JSON_DEPTH (32) levels deep and a given size, else a 400 naming the
 * path where the bound is broken. A value SQLite's JSON functions cannot walk (1,000 levels) would
 * otherwise make every later list filtering on it answer 500.
 */
import { z } from '@hono/zod-openapi';
import { jsonBoundProblem, MAX_JSON_DEPTH } from '../../lib/json';
import { ValidationError } from './errors';
import { jsonPath } from './problem';

/** `schema` refined: its value nests at most 32 deep and (when given) has at most `maxBytes` of JSON. */
export function storedJson<T extends z.ZodTypeAny>(schema: T, maxBytes?: number) {
  return schema.superRefine((value, ctx) => {
    const problem = jsonBoundProblem(value, MAX_JSON_DEPTH, maxBytes);
    if (problem) ctx.addIssue({ code: 'custom', path: problem.path, message: problem.message });
  });
}

/** The same bound for a value read outside zod: a ValidationError at `field` + the path within. */
export function checkStoredJson(value: unknown, field: string, maxBytes?: number): void {
  const problem = jsonBoundProblem(value, MAX_JSON_DEPTH, maxBytes);
  if (!problem) return;
  const inner = jsonPath(problem.path);
  const key = inner === '$' ? field : inner.startsWith('[') ? `${field}${inner}` : `${field}.${inner}`;
  throw new ValidationError({ [key]: [problem.message] });
}

/** Stored JSON text read back: the value, or `fallback` when it is missing or does not parse. */
export const parseJson = <T>(text: unknown, fallback: T): T => {
  if (typeof text !== 'string') return (text as T) ?? fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
};

/** A stored time (ms since the epoch; missing → 0) as the ISO text the DTOs carry. */
export const iso = (ms: number | null | undefined): string => new Date(ms ?? 0).toISOString();
