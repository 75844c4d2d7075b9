/**
 * Several templates in one request.
 *
 *   POST /api/rendering/multipage/preview?disableCache=   MultipagePreviewModel → { results: [{ url }] }
 *   POST /api/rendering/multipage/hires?disableCache=     MultipageHiresModel   → { results: [{ url }] }
 *
 * Every page is checked (template, data) before anything is fetched or rendered; then pages are
 * made one at a time, each released before the next (a combined PDF fetches every page's URL
 * images first, since its cache key covers them all; the PDF writer still renders page by page).
 * All pages share one UrlImages: a URL named by several pages is fetched once, and all URL images
 * of the request together stay within 32 MB. A failing page fails the request with its index in
 * the error paths (`pages[2].data.Title`), and results this request created are deleted again
 * (src/dynamic-image/pages.ts). Each page (and a combined PDF as a whole) is cached like a single
 * render.
 */
import type { Context } from 'hono';
import { documentFingerprint, prepareHires } from '../../engine/pdf/prepare';
import { InvalidInput } from '../../engine/errors';
import { checkPreview, checkRequest, preparePreview } from '../../engine/preview';
import type { AppBindings } from '../../env';
import { errorResponses } from '../../openapi/app';
import { renderDeps, storesOf, type RenderingApp } from '../context';
import { cachedPdf, cachedPreview, combinedPreflight, pdfServerTiming } from '../outputs';
import { allOrNothing, eachPage, pageLoader, pagesValidationHook } from '../pages';
import { renderingRoute } from '../request';
import { DisableCacheQuery, MultipageHiresModel, MultipagePreviewModel, MultipageRenderingResponseModel, PREFLIGHT_HEADER, PreflightHeader } from '../schemas';
import { resultUrl } from '../urls';

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
      description:
        'One image result per page, in order; each page is a PreviewModel and is cached like a single preview. `X-Preflight` adds up the errors and warnings of all pages.',
      request: { query: DisableCacheQuery, body: { required: true, content: { 'application/json': { schema: MultipagePreviewModel } } } },
      responses: { ...responses, 200: { ...responses[200], headers: PreflightHeader } },
    }),
    async (c) => {
      const { disableCache } = c.req.valid('query');
      const { files, results } = storesOf(c);
      const deps = renderDeps(c);
      const { pages } = c.req.valid('json');
      await eachPage(pages, (p) => checkPreview(files, p));
      const verdicts: string[] = [];
      const names = await allOrNothing(results, pages, async (p) => {
        // Each page's early lookups are its own, so a page equal to an earlier one finds that one's result.
        const out = await cachedPreview(results, (lookahead) => preparePreview(files, p, deps, undefined, lookahead), disableCache);
        verdicts.push(out.preflight);
        return out;
      });
      c.header(PREFLIGHT_HEADER, combinedPreflight(verdicts));
      return c.json(respond(c, names), 200);
    },
    pagesValidationHook,
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
      const { files, results } = storesOf(c);
      const deps = renderDeps(c);
      await eachPage(requested, (p) => checkRequest(files, p));
      if (combine ?? true) {
        const prepared = await eachPage(requested, (p) => prepareHires(files, p, deps));
        // One PDF has one output condition (colour space, format, profile, intent).
        const other = prepared.findIndex((p) => p.colour.key !== prepared[0].colour.key);
        if (other > 0) {
          throw new InvalidInput('The pages of a combined PDF must ask for the same output colour (colorSpace, colorProfile, pdfFormat).', [
            { path: `pages[${other}]`, reason: 'its output colour differs from pages[0]' },
          ]);
        }
        const pages = prepared.map((p, i) => ({ template: p.template, output: p.output, load: pageLoader(p, i) }));
        const out = await cachedPdf(results, await documentFingerprint(prepared), pages, disableCache);
        if (out.summary) c.header('Server-Timing', pdfServerTiming(out.summary));
        return c.json(respond(c, [out.name]), 200);
      }
      // allOrNothing names the failing page; each PDF is exactly what /api/rendering/hires makes.
      const names = await allOrNothing(results, requested, async (p) => {
        const page = await prepareHires(files, p, deps);
        const out = await cachedPdf(results, page.fingerprint, [page], disableCache);
        return { name: out.name, created: !!out.summary };
      });
      return c.json(respond(c, names), 200);
    },
    pagesValidationHook,
  );
}
