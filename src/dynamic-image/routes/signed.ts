/**
 * Signed preview URLs (src/dynamic-image/signed.ts): one GET that carries the request, usable as
 * `<img src>`, and the helper that builds them.
 *
 *   GET  /api/rendering/preview?r=…&sig=…   image bytes (ETag, 304, Cache API, R2)
 *   POST /api/rendering/preview/url         { url } for a PreviewModel body (API key)
 *
 * A GET is answered from the Workers Cache API of this location when it can be; else from the
 * result store (R2, shared by every location) by the request's fingerprint; else rendered. The
 * copies for the next viewer (Cache API, R2) are written after the answer (waitUntil).
 */
import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { preparePreview } from '../../engine/preview';
import type { AppBindings } from '../../env';
import { badRequest, detailsFromIssues, notFound } from '../../errors';
import type { ServerTiming } from '../../http/server-timing';
import { errorResponses } from '../../openapi/app';
import { contentEtag } from '../store';
import { canonicalNames } from '../canonical';
import { renderDeps, storesOf, type RenderingApp } from '../context';
import { jsonDepth, MAX_JSON_DEPTH, protoKeyPath, renderingRoute, requestTiming } from '../request';
import { PREFLIGHT_HEADER, PreflightHeader, PreviewModel } from '../schemas';
import { earlyLookups, PREFLIGHT_META, renderedPreflight } from '../outputs';
import { checkSignature, decodePreviewRequest, encodePreviewRequest, etagMatches, signPreviewRequest } from '../signed';
import { baseUrl } from '../urls';
import { binary, json, jsonBody } from './responses';

/** A URL naming the template's content (`v`) never changes meaning: cache it for a year. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** Without `v` a re-uploaded template changes what the URL shows: short, then revalidate (ETag). */
const UNPINNED = 'public, max-age=300';

const SignedQuery = z.object({
  r: z.string().min(1).openapi({ description: 'The PreviewModel body as base64url(deflate-raw(JSON)).' }),
  sig: z.string().optional().openapi({ description: 'base64url(HMAC-SHA256(secret, "preview.v1." + r)). Required unless PREVIEW_ALLOW_UNSIGNED=true.' }),
});

const SignedUrl = z
  .object({
    url: z.string().openapi({ description: 'Absolute GET URL of the preview, for `<img src>`.' }),
    r: z.string(),
    sig: z.string(),
  })
  .openapi('SignedPreviewUrl');

export function registerSignedPreviewRoutes(app: RenderingApp): void {
  app.openapi(
    renderingRoute({
      method: 'get',
      path: '/api/rendering/preview',
      tags: ['Rendering'],
      summary: 'Render a preview from a signed URL',
      description:
        'One round trip: the request travels in the URL (`r`), signed by the storefront back end (`sig`). Answers the image with a strong ETag (304 on If-None-Match) and long-lived Cache-Control when the URL pins the template version.',
      request: { query: SignedQuery },
      responses: {
        200: { ...binary('The preview.', ['image/jpeg', 'image/png']), headers: PreflightHeader },
        304: { description: 'Not modified (If-None-Match).' },
        ...errorResponses(400, 401, 403, 404, 422),
      },
    }),
    (c) => signedPreview(c, c.req.valid('query')),
  );

  app.openapi(
    renderingRoute(
      {
        method: 'post',
        path: '/api/rendering/preview/url',
        tags: ['Rendering'],
        summary: 'Build a signed preview URL',
        description:
          'For the storefront back end (API key): checks the request as POST /api/rendering/preview would (template, size, data, the images it names), pins the template version and returns the signed GET URL. Nothing is rendered.',
        request: { body: jsonBody(PreviewModel) },
        responses: { 200: json(SignedUrl, 'The signed URL.'), ...errorResponses(400, 403, 404, 413) },
      },
      { write: true },
    ),
    async (c) => {
      const body = (await c.req.json()) as Record<string, unknown>;
      // The inputs too (image names, URLs), as the render would: a URL built here never answers 4xx later.
      const prepared = await preparePreview(storesOf(c).files, c.req.valid('json'), renderDeps(c));
      prepared.giveUp(); // checked, not rendered
      const { template } = prepared;
      const r = await encodePreviewRequest({ ...body, v: template.file.sha256.slice(0, 16) });
      const sig = await signPreviewRequest(c.env, r);
      return c.json({ url: `${baseUrl(c)}/api/rendering/preview?r=${r}&sig=${sig}`, r, sig }, 200);
    },
  );
}

/** The carried request: decoded, checked like a POST body; `v` is the pinned template version. */
async function carriedRequest(r: string) {
  const value = await decodePreviewRequest(r);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw badRequest('The request in "r" must be a JSON object (a PreviewModel).', [{ path: 'r', reason: 'not an object' }]);
  }
  if (jsonDepth(JSON.stringify(value)) > MAX_JSON_DEPTH) {
    throw badRequest(`The request in "r" is nested more than ${MAX_JSON_DEPTH} levels deep.`, [{ path: 'r', reason: 'nested too deeply' }]);
  }
  const proto = protoKeyPath(value);
  if (proto !== null) throw badRequest('"__proto__" cannot be used as a name.', [{ path: `r.${proto}`, reason: 'the name "__proto__" is not allowed' }]);
  const { v, ...body } = value as Record<string, unknown>;
  if (v !== undefined && (typeof v !== 'string' || !/^[0-9a-f]{16}$/.test(v))) {
    throw badRequest('"v" must be the first 16 hex digits of the template\'s SHA-256.', [{ path: 'r.v', reason: 'malformed version' }]);
  }
  const parsed = PreviewModel.safeParse(canonicalNames(PreviewModel, body));
  if (!parsed.success) throw badRequest('The request in "r" is not valid.', detailsFromIssues(parsed.error.issues, 'r'));
  return { request: parsed.data, version: v as string | undefined };
}

/**
 * Whether a rendered GET is also kept in R2 for the other locations (PREVIEW_R2_COPY, default
 * on, and on in every deployed environment). Only a one-location setup turns it off: `npm run
 * dev`, where the Cache API copy serves the next viewer and no other location exists to read
 * the R2 copy, whose emulated write would compete with the next request for the same cores.
 */
const r2CopyOn = (env: { PREVIEW_R2_COPY?: string }) => !/^false$/i.test(env.PREVIEW_R2_COPY?.trim() ?? '');

/** Work that must not hold up the answer (copies for the next viewer). */
function afterAnswer(c: Context<AppBindings>, work: Promise<unknown>): void {
  const logged = work.catch((e) => console.error('signed preview: keeping the result failed', e));
  try {
    c.executionCtx.waitUntil(logged);
  } catch {
    // No execution context (called outside a Worker invocation): the promise still runs.
  }
}

async function signedPreview(c: Context<AppBindings>, { r, sig }: z.infer<typeof SignedQuery>): Promise<Response> {
  const timing = requestTiming(c);
  await timing.time('verify', () => checkSignature(c.env, r, sig));
  // Keyed without `sig`: equal requests share one entry whoever signed them.
  const cacheKey = new Request(`${new URL(c.req.url).origin}/api/rendering/preview?r=${r}`);
  const edge = await timing.time('edge', () => caches.default.match(cacheKey));
  if (edge) {
    timing.note('cache', 'edge hit');
    return answer(c, edge.body, edge.headers, timing);
  }

  const { request, version } = await timing.time('decode', () => carriedRequest(r));
  const { results } = storesOf(c);
  // The result lookup starts with the template's head when this isolate can tell the fingerprint ahead.
  const early = earlyLookups(results);
  const prepared = await preparePreview(storesOf(c).files, request, renderDeps(c), timing, early.start);
  const sha = prepared.template.file.sha256;
  if (version && !sha.startsWith(version)) {
    prepared.giveUp();
    throw notFound(`The template "${prepared.template.name}" has changed since this URL was made; build a new URL.`);
  }
  const headers = new Headers({ 'cache-control': version ? IMMUTABLE : UNPINNED });
  let bytes: Uint8Array;
  const stored = await timing.time('lookup', async () => {
    const found = await early.find(prepared.fingerprint);
    // A result stored before results kept their verdict is rendered again.
    const preflight = found?.meta[PREFLIGHT_META];
    const open = preflight ? await results.open(found.name) : null;
    return open && preflight ? { ...open, preflight } : null;
  });
  if (stored) {
    prepared.giveUp(); // not rendered: a picture opened for the render is not read
    timing.note('cache', 'result store hit');
    const body = stored.body;
    bytes = body instanceof Uint8Array ? body : new Uint8Array(await timing.time('read', () => new Response(body).arrayBuffer()));
    headers.set('content-type', stored.contentType);
    headers.set('etag', await contentEtag(bytes)); // the same whoever stored it (POST results too)
    headers.set(PREFLIGHT_HEADER, stored.preflight);
  } else {
    timing.note('cache', 'miss');
    const out = await prepared.render(timing);
    bytes = out.bytes;
    const etag = await contentEtag(bytes);
    const preflight = renderedPreflight(prepared);
    headers.set('content-type', out.contentType);
    headers.set('etag', etag);
    headers.set(PREFLIGHT_HEADER, preflight);
    if (r2CopyOn(c.env)) {
      const meta = { etag, [PREFLIGHT_META]: preflight };
      afterAnswer(c, results.putLater(bytes, out.ext, out.contentType, prepared.fingerprint, meta).then((stored) => stored.written));
    }
  }
  headers.set('content-length', String(bytes.byteLength));
  afterAnswer(c, caches.default.put(cacheKey, new Response(bytes, { headers })));
  return answer(c, bytes, headers, timing);
}

/** 200 with the image, or 304 when If-None-Match names its ETag; Server-Timing on both. */
function answer(c: Context<AppBindings>, body: BodyInit | null, stored: Headers, timing: ServerTiming): Response {
  const headers = new Headers(stored);
  headers.set('server-timing', timing.header());
  if (etagMatches(c.req.header('if-none-match'), headers.get('etag') ?? '')) {
    headers.delete('content-length');
    headers.delete('content-type');
    if (body instanceof ReadableStream) void body.cancel();
    return new Response(null, { status: 304, headers });
  }
  return new Response(body, { headers });
}
