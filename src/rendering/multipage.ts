/**
 * Several templates in one request.
 *
 *   POST /api/rendering/multipage/preview?disableCache=   MultipagePreviewModel → { results: [{ url }] }
 *   POST /api/rendering/multipage/hires?disableCache=     MultipageHiresModel   → { results: [{ url }] }
 *
 * Every page is checked (template, data) before anything is rendered; a failing page fails the
 * request with its index in the error paths (`pages[2].data.Title`), and results this request
 * created are deleted again, so no partial results stay behind. Each page (and a combined PDF as
 * a whole) is cached like a single render.
 */
import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { documentFingerprint, type PreparedPdfPage } from '../engine/pdf/prepare';
import type { PdfPage } from '../engine/pdf/document';
import { preparePreview, type PreparedRender } from '../engine/pipeline';
import type { AppBindings } from '../env';
import { ApiError, badRequest } from '../errors';
import { errorResponses } from '../openapi/app';
import type { ResultStore } from '../storage/results';
import { storesOf, type RenderingApp } from './app';
import { pipelineDeps } from './deps';
import { cachedPdf, HiresModel, prepareHiresPage, serverTiming } from './hires';
import { renderingRoute } from './request';
import { DisableCacheQuery, jsonBool, PreviewModel } from './schemas';
import { resultUrl } from './urls';

/** Upper bound on pages per request: each page is a full render. */
export const MAX_PAGES = 100;

const pages = <T extends z.ZodType>(page: T) => z.array(page).min(1, 'must list at least one page').max(MAX_PAGES);

export const MultipagePreviewModel = z.object({ pages: pages(PreviewModel) }).openapi('MultipagePreviewModel');
export const MultipageHiresModel = z
  .object({
    combine: jsonBool('true (default): one PDF whose pages follow `pages`; false: one PDF per page.').optional(),
    pages: pages(HiresModel),
  })
  .openapi('MultipageHiresModel');

const MultipageRenderingResponseModel = z
  .object({ results: z.array(z.object({ url: z.string() }).openapi('RenderingResponseModel')) })
  .openapi('MultipageRenderingResponseModel');

/** `pages.2.data.Title` (zod's path) → `pages[2].data.Title`. */
export const indexedPath = (path: ReadonlyArray<PropertyKey>): string =>
  path.reduce<string>((out, seg) => (typeof seg === 'number' ? `${out}[${seg}]` : out ? `${out}.${String(seg)}` : String(seg)), '');

/** Validation failures name the page as `pages[i]…`, like failures found while rendering. */
function validationHook(result: { success: boolean; error?: { issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }> } }): undefined {
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
  if (!(err instanceof ApiError)) return err;
  const prefix = `pages[${index}]`;
  const details = err.details?.length
    ? err.details.map((d) => ({ path: d.path ? `${prefix}.${d.path}` : prefix, reason: d.reason }))
    : [{ path: prefix, reason: err.message }];
  return new ApiError(err.status, err.code, `Page ${index} (${prefix}): ${err.message}`, details, err.headers);
}

async function atPage<T>(index: number, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw pageError(index, err);
  }
}

/** Prepares every page in order; the first failing page fails them all. */
async function prepareAll<P, T>(list: P[], prepare: (page: P) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (const [i, page] of list.entries()) out.push(await atPage(i, () => prepare(page)));
  return out;
}

/**
 * Runs `make` for each page, remembering the results it creates; if any page fails, those are
 * deleted (cache hits that existed before the request stay) and the error carries the page.
 */
async function allOrNothing<T>(results: ResultStore, list: T[], make: (item: T, index: number) => Promise<{ name: string; created: boolean }>): Promise<string[]> {
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
function pageLoader(page: PreparedPdfPage, index: number): () => Promise<PdfPage> {
  return () =>
    atPage(index, async () => {
      const loaded = await page.load();
      return { ...loaded, renderRows: (top, bottom, fresh) => atPage(index, () => loaded.renderRows(top, bottom, fresh)) };
    });
}

async function cachedPreview(results: ResultStore, prepared: PreparedRender, disableCache: boolean) {
  const hit = disableCache ? null : await results.lookup(prepared.fingerprint);
  if (hit) return { name: hit, created: false };
  const out = await prepared.render();
  return { name: await results.put(out.bytes, out.ext, out.contentType, prepared.fingerprint), created: true };
}

const respond = (c: Context<AppBindings>, names: string[]) => ({ results: names.map((name) => ({ url: resultUrl(c, name) })) });

export function registerMultipageRoutes(app: RenderingApp): void {
  const responses = {
    200: { description: 'One result URL per output file, in page order.', content: { 'application/json': { schema: MultipageRenderingResponseModel } } },
    ...errorResponses(400, 404, 413, 422),
  };

  app.openapi(
    renderingRoute({
      method: 'post',
      path: '/api/rendering/multipage/preview',
      tags: ['Rendering'],
      summary: 'Render several previews',
      description: 'One image result per page, in order; each page is a PreviewModel and is cached like a single preview.',
      request: { query: DisableCacheQuery, body: { required: true, content: { 'application/json': { schema: MultipagePreviewModel } } } },
      responses,
    }),
    async (c) => {
      const { disableCache } = c.req.valid('query');
      const { files, results } = storesOf(c);
      const deps = pipelineDeps(c);
      const prepared = await prepareAll(c.req.valid('json').pages, (p) => preparePreview(files, p, deps));
      const names = await allOrNothing(results, prepared, (p) => cachedPreview(results, p, disableCache));
      return c.json(respond(c, names), 200);
    },
    validationHook,
  );

  app.openapi(
    renderingRoute({
      method: 'post',
      path: '/api/rendering/multipage/hires',
      tags: ['Rendering'],
      summary: 'Render several print PDFs',
      description:
        '`combine` true (default): one PDF whose pages follow `pages`, each at its template’s physical size; false: one PDF per page. Pages are rendered exactly as by /api/rendering/hires.',
      request: { query: DisableCacheQuery, body: { required: true, content: { 'application/json': { schema: MultipageHiresModel } } } },
      responses,
    }),
    async (c) => {
      const { disableCache } = c.req.valid('query');
      const { combine, pages: requested } = c.req.valid('json');
      const { results } = storesOf(c);
      const prepared = await prepareAll(requested, (p) => prepareHiresPage(c, p));
      if (combine ?? true) {
        const pages = prepared.map((p, i) => ({ template: p.template, load: pageLoader(p, i) }));
        const out = await cachedPdf(results, await documentFingerprint(prepared), pages, disableCache);
        if (out.summary) c.header('Server-Timing', serverTiming(out.summary));
        return c.json(respond(c, [out.name]), 200);
      }
      // allOrNothing names the failing page; each PDF is exactly what /api/rendering/hires makes.
      const names = await allOrNothing(results, prepared, async (page) => {
        const out = await cachedPdf(results, page.fingerprint, [page], disableCache);
        return { name: out.name, created: !!out.summary };
      });
      return c.json(respond(c, names), 200);
    },
    validationHook,
  );
}

