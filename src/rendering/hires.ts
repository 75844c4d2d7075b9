/**
 * Print PDFs.
 *
 *   POST /api/rendering/hires?disableCache=   HiresModel → "<base>/api/results/download/<name>.pdf"
 *
 * One page at the template's physical size; the rules are in docs/pdf.md. The PDF streams into
 * its result object while it is rendered (src/engine/pdf), and is cached like a preview.
 */
import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { writePdf, type PdfPage, type PdfSummary } from '../engine/pdf/document';
import { prepareHires, type PreparedPdfPage } from '../engine/pdf/prepare';
import { PersonalisationDataSchema } from '../engine/personalise/commands';
import type { AppBindings } from '../env';
import { errorResponses } from '../openapi/app';
import type { ResultStore } from '../storage/results';
import { storesOf, type RenderingApp } from './app';
import { pipelineDeps } from './deps';
import { renderingRoute } from './request';
import { DisableCacheQuery, jsonBool, ResultUrl } from './schemas';
import { resultUrl } from './urls';

export const TextOutputMode = z
  .string()
  .regex(/^(outlines|text)$/i, 'must be outlines or text')
  .transform((v) => v.toLowerCase() as 'outlines' | 'text')
  .openapi({
    type: 'string',
    enum: ['outlines', 'text'],
    default: 'outlines',
    description:
      'How vector text is written: `outlines` (default) draws glyph outlines; `text` embeds font subsets (selectable text) where the font allows embedding. Beyond the spec: the original service took this as PdfTextOutputMode.',
  });

export const HiresModel = z
  .object({
    template: z.string().min(1).openapi({ description: 'Template name; the extension is optional.', example: 'demo/psdtools-text' }),
    data: PersonalisationDataSchema.optional(),
    preloadImages: jsonBool('Fetch every image named in data concurrently before rendering.').optional(),
    textOutputMode: TextOutputMode.optional(),
  })
  .openapi('HiresModel');

export type HiresRequest = z.output<typeof HiresModel>;

export function registerHiresRoutes(app: RenderingApp): void {
  app.openapi(
    renderingRoute({
      method: 'post',
      path: '/api/rendering/hires',
      tags: ['Rendering'],
      summary: 'Render a print PDF',
      description:
        'Renders the template (personalised by `data`, exactly as a preview) into a one-page print PDF at the template’s physical size (pixels ÷ ppi × 72 pt) and returns the absolute URL of the result. Equal requests on unchanged inputs return the cached result unless disableCache=true.',
      request: { query: DisableCacheQuery, body: { required: true, content: { 'application/json': { schema: HiresModel } } } },
      responses: {
        200: { description: 'URL of the PDF.', content: { 'application/json': { schema: ResultUrl } } },
        ...errorResponses(400, 404, 413, 422),
      },
    }),
    async (c) => {
      const { disableCache } = c.req.valid('query');
      const page = await prepareHiresPage(c, c.req.valid('json'));
      const out = await cachedPdf(storesOf(c).results, page.fingerprint, [page], disableCache);
      if (out.summary) c.header('Server-Timing', serverTiming(out.summary));
      return c.json(resultUrl(c, out.name), 200);
    },
  );
}

export function prepareHiresPage(c: Context<AppBindings>, request: HiresRequest): Promise<PreparedPdfPage> {
  return prepareHires(storesOf(c).files, request, pipelineDeps(c));
}

/** The cached PDF for `fingerprint`, or a new one made of `pages` (with how it went). */
export async function cachedPdf(
  results: ResultStore,
  fingerprint: string,
  pages: Array<Pick<PreparedPdfPage, 'load' | 'template'>>,
  disableCache: boolean,
): Promise<{ name: string; summary?: PdfSummary }> {
  const hit = disableCache ? null : await results.lookup(fingerprint);
  if (hit) return { name: hit };
  return storePdf(results, fingerprint, pages.map((p) => p.load), pages[0]?.template.name);
}

/** `Server-Timing` (W3C) for a fresh PDF: where the time went. */
export function serverTiming(s: PdfSummary): string {
  const t = s.timing;
  const strips = `strips jpeg ${s.strips.jpeg} flate ${s.strips.flate} empty ${s.strips.empty} reused ${s.strips.reused}`;
  return `load;dur=${t.loadMs}, render;dur=${t.renderMs}, encode;dur=${t.encodeMs}, reuse;dur=${t.reuseMs}, pdf;dur=${t.totalMs};desc="${s.pages} page(s), ${s.bytes} bytes, ${strips}"`;
}

/** Streams a PDF into a new result (ResultStore.putStream) and records it in the cache index. */
async function storePdf(
  results: ResultStore,
  fingerprint: string,
  pages: Array<() => Promise<PdfPage>>,
  title?: string,
): Promise<{ name: string; summary: PdfSummary }> {
  const { name, value } = await results.putStream('pdf', 'application/pdf', fingerprint, (sink) => writePdf(sink, pages, { title }));
  return { name, summary: value };
}
