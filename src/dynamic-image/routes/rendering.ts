/**
 * Build info, template information, preview rendering, image thumbnails and result files.
 *
 *   GET    /api/Info                           BuildInfo
 *   POST   /api/information/template           FramesInfo
 *   POST   /api/rendering/preview              "<base>/api/results/download/<name>" (X-Preflight)
 *   POST   /api/rendering/preflight            PreflightReport
 *   GET    /api/resources/images/preview       image bytes (thumbnail, cached)
 *   GET    /api/results/download[/{file}]      result bytes
 *   DELETE /api/results/delete[/{file}]        200 (API key)
 */
import { bleedPixels } from '../../engine/pdf/bleed';
import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { templateInfoWithSettings } from '../../engine/preflight/layer-settings';
import { preflightPreview, preparePreview, resolveTemplate } from '../../engine/preview';
import type { AppBindings } from '../../env';
import { notFound } from '../../errors';
import { errorResponses } from '../../openapi/app';
import { fileName } from '../../engine/names';
import { APP_NAME, VERSION } from '../../version';
import { renderDeps, storesOf, type RenderingApp } from '../context';
import { renderingRoute, requestTiming } from '../request';
import {
  BuildInfo,
  DisableCacheQuery,
  FramesInfo,
  ImagePreviewQuery,
  InformationTemplateModel,
  PreflightReportModel,
  PREFLIGHT_HEADER,
  PreflightHeader,
  PreviewModel,
  ResultUrl,
  type PreviewRequest,
} from '../schemas';
import { cachedPreview } from '../outputs';
import { imageThumbnail } from '../thumbnails';
import { resultUrl } from '../urls';
import { dualPaths, dualValue, fileParam } from './dual';
import { binary, json, jsonBody } from './responses';

/**
 * When this build was made: `BUILD_DATE` if the deploy defines it (wrangler --define), else the
 * first request this isolate served (Workers freeze the clock while modules load).
 */
declare const BUILD_DATE: string | undefined;
let buildDate: string | undefined;
const getBuildDate = () => (buildDate ??= typeof BUILD_DATE === 'string' ? BUILD_DATE : new Date().toISOString());

export function registerRenderingRoutes(app: RenderingApp): void {
  app.openapi(
    renderingRoute({
      method: 'get',
      path: '/api/Info',
      tags: ['Info'],
      summary: 'Build information',
      responses: { 200: json(BuildInfo, 'Version, build date, configuration and application name.') },
    }),
    (c) =>
      c.json(
        { version: VERSION, buildDate: getBuildDate(), configuration: c.env.REGION === 'local' ? 'Development' : 'Release', appName: APP_NAME },
        200,
      ),
  );

  app.openapi(
    renderingRoute({
      method: 'post',
      path: '/api/information/template',
      tags: ['Templates'],
      summary: 'Describe a template',
      description:
        'Size and the layer tree in panel order (top first); groups carry `layers`. Text and image layers carry `settings`: what the markers in their names set for copyfitting and preflight (`<TOS_fitToBox>`, `<FMIN_7>`, `<MW_600>`, `<REQ>`, `<PPI_300>`), defaults filled in.',
      request: { body: jsonBody(InformationTemplateModel) },
      responses: { 200: json(FramesInfo, 'The template.'), ...errorResponses(400, 404, 413, 422) },
    }),
    async (c) => {
      const { template, fullInfo } = c.req.valid('json');
      const resolved = await resolveTemplate(storesOf(c).files, template);
      const bleed = resolved.file.meta.bleed;
      const info = templateInfoWithSettings(resolved.compiled, fullInfo ?? false);
      const pixels = bleed ? bleedPixels(bleed, resolved.compiled.resolution) : 0;
      return c.json({ ...info, ...(bleed ? { bleed: { value: bleed, pixels: Math.round(pixels * 100) / 100 } } : {}) } as z.infer<typeof FramesInfo>, 200);
    },
  );

  app.openapi(
    renderingRoute({
      method: 'post',
      path: '/api/rendering/preview',
      tags: ['Rendering'],
      summary: 'Render a preview',
      description:
        'Renders the template (personalised by `data`) into a JPEG or PNG and returns the absolute URL of the result. Equal requests on unchanged inputs return the cached result unless disableCache=true.',
      request: { query: DisableCacheQuery, body: jsonBody(PreviewModel) },
      responses: { 200: { ...json(ResultUrl, 'URL of the rendered preview.'), headers: PreflightHeader }, ...errorResponses(400, 404, 413, 422) },
    }),
    async (c) => {
      const { disableCache } = c.req.valid('query');
      const { name, preflight } = await renderPreview(c, c.req.valid('json'), disableCache);
      c.header(PREFLIGHT_HEADER, preflight);
      return c.json(resultUrl(c, name), 200);
    },
  );

  app.openapi(
    renderingRoute({
      method: 'post',
      path: '/api/rendering/preflight',
      tags: ['Rendering'],
      summary: 'Check a preview request before printing',
      description:
        'Takes the body of /api/rendering/preview and answers the problems its render would have (text that does not fit or was shrunk, missing glyphs, substituted fonts, pictures below the print resolution or enlarged, content outside the trim, required fields left empty) without rendering: text is laid out at print size and pictures are measured. `ok` is false when there is an error; warnings alone leave it true. Refuses what the preview refuses, with the same status.',
      request: { body: jsonBody(PreviewModel) },
      responses: { 200: json(PreflightReportModel, 'The problems found (none: `ok` and an empty list).'), ...errorResponses(400, 404, 413, 422) },
    }),
    async (c) => {
      const timing = requestTiming(c);
      try {
        const report = await preflightPreview(storesOf(c).files, c.req.valid('json'), renderDeps(c), timing);
        c.header('Server-Timing', timing.header());
        return c.json(report, 200);
      } catch (err) {
        c.header('Server-Timing', timing.header());
        throw err;
      }
    },
  );

  app.openapi(
    renderingRoute({
      method: 'get',
      path: '/api/resources/images/preview',
      tags: ['Images'],
      summary: 'Thumbnail of a stored image',
      description: 'Fits the image into width×height (never enlarged). Made from a cached copy per image content and size bucket unless disableCache=true.',
      request: { query: ImagePreviewQuery },
      responses: { 200: binary('The thumbnail.', ['image/jpeg', 'image/png']), ...errorResponses(400, 404, 422) },
    }),
    async (c) => {
      const { file, disableCache, ...options } = c.req.valid('query');
      const { files, thumbnails } = storesOf(c);
      const out = await imageThumbnail(files, thumbnails, fileName(file), options, disableCache);
      return new Response(out.bytes, { headers: { 'content-type': out.contentType } });
    },
  );

  // GET /api/results/download[/{file}]: the query form, the path form, and the hidden nested path form.
  const resultFile = fileParam('Result name, as in the URL rendering returned.', true);
  const downloadPaths = dualPaths('/api/results/download', 'file');
  const download = {
    method: 'get' as const,
    tags: ['Results'],
    summary: 'Download a result',
    responses: { 200: binary('The result file.', ['image/jpeg', 'image/png', 'application/pdf']), ...errorResponses(400, 404) },
  };
  app.openapi(renderingRoute({ ...download, path: downloadPaths.query, request: { query: resultFile.query } }), (c) => downloadResult(c, c.req.valid('query').file));
  app.openapi(renderingRoute({ ...download, path: downloadPaths.path, request: { params: resultFile.path, query: z.object({}) } }), (c) => downloadResult(c, c.req.valid('param').file));
  app.openapi(
    { ...renderingRoute({ ...download, path: downloadPaths.nested, request: { params: resultFile.path, query: z.object({}) } }), hide: true },
    (c) => downloadResult(c, c.req.valid('param').file),
  );

  // DELETE /api/results/delete[/{file}]: the same three forms.
  const deletedFile = fileParam('Result name.', true);
  const deletePaths = dualPaths('/api/results/delete', 'file');
  const remove = {
    method: 'delete' as const,
    tags: ['Results'],
    summary: 'Delete a result',
    description: 'Needs the API key. Also removes the result from the cache.',
    responses: { 200: json(z.object({ deleted: z.string() }), 'Deleted.'), ...errorResponses(400, 403, 404) },
  };
  app.openapi(renderingRoute({ ...remove, path: deletePaths.query, request: { query: deletedFile.query } }, { write: true }), (c) => deleteResult(c, c.req.valid('query').file));
  app.openapi(
    renderingRoute({ ...remove, path: deletePaths.path, request: { params: deletedFile.path, query: z.object({}) } }, { write: true }),
    (c) => deleteResult(c, c.req.valid('param').file),
  );
  app.openapi(
    { ...renderingRoute({ ...remove, path: deletePaths.nested, request: { params: deletedFile.path, query: z.object({}) } }, { write: true }), hide: true },
    (c) => deleteResult(c, c.req.valid('param').file),
  );
}

async function downloadResult(c: Context<AppBindings>, file: string | undefined): Promise<Response> {
  const name = fileName(dualValue('file', file, true));
  const result = await storesOf(c).results.open(name);
  if (!result) throw notFound(`There is no result "${name}" (results expire after ${c.env.RESULT_TTL_HOURS || 24} h).`);
  return new Response(result.body, {
    headers: {
      'content-type': result.contentType,
      'content-length': String(result.size),
      'cache-control': `private, max-age=${result.remainingSeconds}`,
      etag: result.etag,
    },
  });
}

async function deleteResult(c: Context<AppBindings>, file: string | undefined) {
  const name = fileName(dualValue('file', file, true));
  if (!(await storesOf(c).results.delete(name))) throw notFound(`There is no result "${name}".`);
  return c.json({ deleted: name }, 200);
}

/** Renders (or finds in the cache) a preview; returns the result name and its X-Preflight value. */
async function renderPreview(c: Context<AppBindings>, request: PreviewRequest, disableCache: boolean): Promise<{ name: string; preflight: string }> {
  const { files, results } = storesOf(c);
  const timing = requestTiming(c);
  try {
    // The URL is answered before the result lands in R2; downloads find it meanwhile (ResultStore.open).
    const keep = (written: Promise<void>) => keepAfterAnswer(c, written);
    return await cachedPreview(results, (lookahead) => preparePreview(files, request, renderDeps(c), timing, lookahead), disableCache, timing, keep);
  } finally {
    c.header('Server-Timing', timing.header());
  }
}

/** Writes that must finish but not hold up the answer; a failure is logged (the URL then 404s). */
function keepAfterAnswer(c: Context<AppBindings>, work: Promise<unknown>): void {
  const logged = work.catch((e) => console.error('preview: storing the result failed', e));
  try {
    c.executionCtx.waitUntil(logged);
  } catch {
    // No execution context (called outside a Worker invocation): the promise still runs.
  }
}
