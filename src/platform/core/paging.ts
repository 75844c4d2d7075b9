/**
 * Lists (contract, Conventions): `{total, items}`; query `skip` 0 (≥ 0), `take` 100 (0–1000),
 * `sorting` "name ASC, lastModified DESC" over the DTO's sortable names, `search`
 * (case-insensitive substring), `customFields` (a JSON object; every pair must be equal).
 *
 * @example
 * export const ListDesignsQuery = pagingQuery(['name', 'lastModified']).extend({ path: z.string().optional() });
 * export const PagedOfDesignDto = pagedOf(DesignDto, 'PagedOfDesignDto');
 * // handler: const q = c.req.valid('query'); … c.json(paged(total, items), 200)
 */
import { z } from '@hono/zod-openapi';

/** An integer query parameter: digits only (no `1e2`, no `-0`), within [min, max]. */
export function intQuery(min: number, max: number, fallback: number) {
  return z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '') return fallback;
      if (!/^-?\d{1,10}$/.test(v)) {
        ctx.addIssue({ code: 'custom', message: `Expected an integer from ${min} to ${max}.` });
        return z.NEVER;
      }
      const n = Number(v);
      if (n < min || n > max) {
        ctx.addIssue({ code: 'custom', message: `Expected an integer from ${min} to ${max}.` });
        return z.NEVER;
      }
      return n;
    })
    .openapi({ type: 'integer', minimum: min, maximum: max, default: fallback });
}

/** A boolean query parameter: true/false (any case), 1/0. */
export function boolQuery(fallback?: boolean) {
  return z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '') return fallback;
      const s = v.toLowerCase();
      if (s === 'true' || s === '1') return true;
      if (s === 'false' || s === '0') return false;
      ctx.addIssue({ code: 'custom', message: 'Expected true or false.' });
      return z.NEVER;
    })
    .openapi({ type: 'boolean', ...(fallback !== undefined ? { default: fallback } : {}) });
}

/** A repeated query parameter (`tags=a&tags=b`); one occurrence is a one-element array. */
export function arrayQuery<T extends z.ZodType>(item: T) {
  return z.preprocess((v) => (v === undefined ? undefined : Array.isArray(v) ? v : [v]), z.array(item).optional());
}

export interface SortKey<N extends string = string> {
  field: N;
  direction: 'ASC' | 'DESC';
}

/** `sorting`: "name ASC, lastModified DESC" → keys over the given names (matched ignoring case). */
export function sortingQuery<const N extends string>(sortable: readonly N[]) {
  const byLower = new Map(sortable.map((n) => [n.toLowerCase(), n]));
  return z
    .string()
    .optional()
    .transform((v, ctx): SortKey<N>[] => {
      if (!v || !v.trim()) return [];
      const keys: SortKey<N>[] = [];
      for (const part of v.split(',')) {
        const m = /^\s*([A-Za-z0-9_.]+)(?:\s+(asc|desc))?\s*$/i.exec(part);
        const field = m ? byLower.get(m[1]!.toLowerCase()) : undefined;
        if (!m || !field) {
          ctx.addIssue({ code: 'custom', message: `Cannot sort by "${part.trim()}": use "<name> ASC|DESC" with one of ${sortable.join(', ')}.` });
          return z.NEVER;
        }
        keys.push({ field, direction: (m[2] ?? 'ASC').toUpperCase() as 'ASC' | 'DESC' });
      }
      return keys;
    })
    .openapi({ type: 'string', description: `Comma-separated "<name> ASC|DESC"; names: ${sortable.join(', ')}.`, example: `${sortable[0]} ASC` });
}

/** `customFields`: a JSON object; every pair must equal the asset's. */
export const customFieldsQuery = z
  .string()
  .optional()
  .transform((v, ctx): Record<string, unknown> | undefined => {
    if (v === undefined || v === '') return undefined;
    let parsed: unknown;
    try {
      parsed = JSON.parse(v);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'Expected a JSON object, e.g. {"color":"red"}.' });
      return z.NEVER;
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      ctx.addIssue({ code: 'custom', message: 'Expected a JSON object, e.g. {"color":"red"}.' });
      return z.NEVER;
    }
    return parsed as Record<string, unknown>;
  })
  .openapi({ type: 'string', description: 'JSON object: items whose custom fields contain every pair.', example: '{"color":"red"}' });

export const MAX_TAKE = 1000;

/**
 * Longest `search`: no stored name is longer (names ≤ 255), and SQLite refuses LIKE patterns past
 * 50,000 bytes with an error, so a longer one is a 400 here rather than a 500 from D1.
 */
export const MAX_SEARCH = 1000;

/** `search`: a case-insensitive substring of `what`, at most MAX_SEARCH characters. */
export const searchQuery = (what = 'the name') =>
  z.string().max(MAX_SEARCH, `At most ${MAX_SEARCH} characters.`).optional().openapi({ description: `Case-insensitive substring of ${what} (at most ${MAX_SEARCH} characters).` });

/** skip, take, sorting, search, customFields for a DTO whose sortable names are given. */
export function pagingQuery<const N extends string>(sortable: readonly N[]) {
  return z.object({
    skip: intQuery(0, Number.MAX_SAFE_INTEGER, 0),
    take: intQuery(0, MAX_TAKE, 100),
    sorting: sortingQuery(sortable),
    search: searchQuery(),
    customFields: customFieldsQuery,
  });
}

export type Paging<N extends string = string> = {
  skip: number;
  take: number;
  sorting: SortKey<N>[];
  search?: string;
  customFields?: Record<string, unknown>;
};

/** `{total, items}` schema named for the OpenAPI document (`PagedOfDesignDto`). */
export function pagedOf<T extends z.ZodType>(item: T, name: string) {
  return z.object({ total: z.number().int(), items: z.array(item) }).openapi(name);
}

export const paged = <T>(total: number, items: T[]): { total: number; items: T[] } => ({ total, items });

/** `LIKE` pattern for a case-insensitive substring search (escape char `\`). */
export const likePattern = (search: string): string => `%${search.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
