/**
 * Print PDFs.
 *
 *   POST /api/rendering/hires?disableCache=   HiresModel → "<base>/api/results/download/<name>.pdf"
 *
 * One page at the template's physical size; the rules are in docs/pdf.md. The PDF streams into
 * its result object while it is rendered (src/engine/pdf), and is cached like a preview. Output
 * colour (`colorSpace`, `colorProfile`, `keepOriginalColors`, `pdfFormat`): RGB templates default
 * to today's RGB PDF, CMYK templates to CMYK PDF/X-4 with their own ink values.
 */
import { prepareHires } from '../../engine/pdf/prepare';
import { errorResponses } from '../../openapi/app';
import { renderDeps, storesOf, type RenderingApp } from '../context';
import { cachedPdf, pdfServerTiming } from '../outputs';
import { renderingRoute } from '../request';
import { DisableCacheQuery, HiresModel, ResultUrl } from '../schemas';
import { resultUrl } from '../urls';

export function registerHiresRoutes(app: RenderingApp): void {
  app.openapi(
    renderingRoute({
      method: 'post',
      path: '/api/rendering/hires',
      tags: ['Rendering'],
      summary: 'Render a print PDF',
      description:
        'Renders the template (personalised by `data`, exactly as a preview) into a one-page print PDF at the template’s physical size (pixels ÷ ppi × 72 pt) and returns the absolute URL of the result. `colorSpace` cmyk or grayscale converts through the output profile (`colorProfile`, else the default) and writes PDF/X-4 (or `pdfFormat`); a CMYK template with no colour options gives CMYK PDF/X-4 keeping its own ink values. Equal requests on unchanged inputs return the cached result unless disableCache=true.',
      request: { query: DisableCacheQuery, body: { required: true, content: { 'application/json': { schema: HiresModel } } } },
      responses: {
        200: { description: 'URL of the PDF.', content: { 'application/json': { schema: ResultUrl } } },
        ...errorResponses(400, 404, 413, 422),
      },
    }),
    async (c) => {
      const { disableCache } = c.req.valid('query');
      const { files, results } = storesOf(c);
      const page = await prepareHires(files, c.req.valid('json'), renderDeps(c));
      const out = await cachedPdf(results, page.fingerprint, [page], disableCache);
      if (out.summary) c.header('Server-Timing', pdfServerTiming(out.summary));
      return c.json(resultUrl(c, out.name), 200);
    },
  );
}
