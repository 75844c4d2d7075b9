/**
 * Multipage requests, page by page: every failure names its page (`pages[2].data.Title`), and a
 * failing page removes the results the request created before it, so no partial results stay.
 */
import type { PdfPage } from '../engine/pdf/document';
import type { PreparedPdfPage } from '../engine/pdf/prepare';
import { ApiError, badRequest } from '../errors';
import type { ResultStore } from './store/results';
import { toApiError } from './errors';

/** `pages.2.data.Title` (zod's path) → `pages[2].data.Title`. */
export const indexedPath = (path: ReadonlyArray<PropertyKey>): string =>
  path.reduce<string>((out, seg) => (typeof seg === 'number' ? `${out}[${seg}]` : out ? `${out}.${String(seg)}` : String(seg)), '');

/** Validation failures name the page as `pages[i]…`, like failures found while rendering. */
export function pagesValidationHook(result: {
  success: boolean;
  error?: { issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }> };
}): undefined {
  if (!result.success && result.error) {
    throw badRequest(
      'The request is not valid.',
      result.error.issues.map((i) => ({ path: indexedPath(i.path.map((s) => (typeof s === 'string' && /^\d+$/.test(s) ? Number(s) : s))), reason: i.message })),
    );
  }
  return undefined;
}

/** An error raised for page `index`, with the page in its message and detail paths. */
export function pageError(index: number, err: unknown): unknown {
  const api = toApiError(err);
  if (!(api instanceof ApiError)) return err;
  const prefix = `pages[${index}]`;
  const details = api.details?.length
    ? api.details.map((d) => ({ path: d.path ? `${prefix}.${d.path}` : prefix, reason: d.reason }))
    : [{ path: prefix, reason: api.message }];
  return new ApiError(api.status, api.code, `Page ${index} (${prefix}): ${api.message}`, details, api.headers);
}

export async function atPage<T>(index: number, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw pageError(index, err);
  }
}

/** Runs `work` for each page in order; the first failing page fails them all. */
export async function eachPage<P, T>(list: P[], work: (page: P, index: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (const [i, page] of list.entries()) out.push(await atPage(i, () => work(page, i)));
  return out;
}

/**
 * Runs `make` for each page, remembering the results it creates; if any page fails, those are
 * deleted (cache hits that existed before the request stay) and the error carries the page.
 */
export async function allOrNothing<T>(
  results: ResultStore,
  list: T[],
  make: (item: T, index: number) => Promise<{ name: string; created: boolean }>,
): Promise<string[]> {
  const names: string[] = [];
  const created: string[] = [];
  try {
    for (const [i, item] of list.entries()) {
      const out = await atPage(i, () => make(item, i));
      names.push(out.name);
      if (out.created) created.push(out.name);
    }
    return names;
  } catch (err) {
    for (const name of created) await results.delete(name).catch(() => false);
    throw err;
  }
}

/** A page's PDF loader whose failures (overrides, rendering) name the page. */
export function pageLoader(page: PreparedPdfPage, index: number): () => Promise<PdfPage> {
  return () =>
    atPage(index, async () => {
      const loaded = await page.load();
      return { ...loaded, renderRows: (top, bottom, fresh) => atPage(index, () => loaded.renderRows(top, bottom, fresh)) };
    });
}
