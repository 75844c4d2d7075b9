/**
 * What every rendering route does before its validators run: canonical names (canonical.ts),
 * body size limits, and the API key for writes. `renderingRoute()` attaches it, so a route file
 * only declares its schemas.
 */
import { createRoute, type RouteConfig } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler } from 'hono';
import type { AppBindings } from '../env';
import { ApiError, badRequest, forbidden } from '../errors';
import { DISCARD_BYTES, drain, readAll, readLimited } from '../http/read-limited';
import { freeNow } from '../engine/compiled/free';
import { entryOf, ServerTiming } from '../http/server-timing';
import { canonicalNames, canonicalQuery } from './canonical';
import { boundaryOf, MultipartError, readMultipart } from '../http/multipart';
import { dropStaged, HOLD_BYTES, StagedPart, stageUpload } from './staging';

export const MAX_JSON_BYTES = 1024 * 1024;
/** Far deeper than any request of ours; the schemas and our walkers recurse. */
export const MAX_JSON_DEPTH = 64;
export const MAX_UPLOAD_BYTES = 100 * 1024 * 1024;
/** Parts (files and fields) of one upload request. */
export const MAX_UPLOAD_PARTS = 1000;
export const API_KEY_HEADER = 'X-DynamicImageApiKey';

const tooLarge = (what: string, limit: number) =>
  new ApiError(413, 'payload_too_large', `${what} is larger than the limit of ${limit / 1024 / 1024} MB.`);

type Schema = Parameters<typeof canonicalQuery>[0];

/** Each request's Server-Timing, started before its body is read (see requestTiming). */
const timings = new WeakMap<Context, { timing: ServerTiming; started: number; taken?: boolean }>();

/**
 * The request's Server-Timing, with phase `request`: from the Worker's fetch entry to the handler
 * (routing, the app's middleware, body read, names canonicalised, schema validation). `total`
 * then spans the same.
 */
export function requestTiming(c: Context): ServerTiming {
  let entry = timings.get(c);
  if (!entry) timings.set(c, (entry = { timing: new ServerTiming(), started: Date.now() }));
  if (!entry.taken) {
    entry.taken = true;
    entry.timing.add('request', Date.now() - entry.started);
  }
  return entry.timing;
}

function normalise(route: RouteConfig): MiddlewareHandler<AppBindings> {
  const query = route.request?.query as Schema;
  const content = (route.request?.body?.content ?? {}) as Record<string, { schema?: unknown }>;
  const jsonSchema = content['application/json']?.schema as Schema;
  const formSchema = content['multipart/form-data']?.schema as Schema;
  return async (c, next) => {
    const started = entryOf(c.req.raw); // routing and the app's middleware count too
    timings.set(c, { timing: new ServerTiming(started), started });
    const url = new URL(c.req.url);
    const canonicalUrl = canonicalQuery(query, url);
    if (canonicalUrl) c.req.raw = new Request(canonicalUrl, c.req.raw);
    if (jsonSchema && c.req.raw.body) await normaliseJson(c, jsonSchema);
    const form = formSchema ? await normaliseForm(c, formSchema) : undefined;
    try {
      await next();
    } finally {
      // Stored (copied to its name) or refused: the staging objects go either way, and a body
      // read whole gives its pages back now, not at V8's next collection, so the request after
      // it reuses them (a 10,000² template's 10.8 MB, then its 5,000² preview: docs/memory.md).
      if (form) {
        await dropStaged(c.env.FILES, form.staged);
        if (form.whole) freeNow([form.whole]);
      }
    }
  };
}

async function normaliseJson(c: Context<AppBindings>, schema: Schema): Promise<void> {
  const bytes = await readLimited(c.req.raw, MAX_JSON_BYTES, () => tooLarge('The JSON body', MAX_JSON_BYTES));
  const text = new TextDecoder().decode(bytes);
  if (jsonDepth(text) > MAX_JSON_DEPTH) {
    throw badRequest(`The JSON body is nested more than ${MAX_JSON_DEPTH} levels deep.`, [{ path: 'body', reason: 'nested too deeply' }]);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw badRequest(`The body is not valid JSON: ${(e as Error).message}`, [{ path: 'body', reason: 'malformed JSON' }]);
  }
  const proto = protoKeyPath(value);
  if (proto !== null) {
    // A parsed object cannot keep this key (assigning it sets the prototype): it would vanish
    // silently instead of being reported like any other unknown name.
    throw badRequest('"__proto__" cannot be used as a name.', [{ path: proto, reason: 'the name "__proto__" is not allowed' }]);
  }
  // The validator reads the canonical text from the body cache (HonoRequest.json() parses it), not
  // from a body made of it again. It reads JSON only under a JSON content type: any other is
  // replaced, since the body was read as JSON whatever its type said (as every type was before).
  if (!JSON_MEDIA_TYPE.test(c.req.header('content-type') ?? '')) {
    const headers = new Headers(c.req.raw.headers);
    headers.set('content-type', 'application/json');
    headers.delete('content-length');
    c.req.raw = new Request(c.req.raw.url, { method: c.req.raw.method, headers });
  }
  // HonoRequest keeps bodies as promises (its #cachedBody stores and returns them), though its type
  // says values: a cached text cannot be typed (hono's own source casts there too), and the one
  // slot typed `any`, `json`, is read again through a new Response before the validator parses it.
  c.req.bodyCache = { text: Promise.resolve(JSON.stringify(canonicalNames(schema, value))) as unknown as string };
}

/**
 * The content types every JSON check of a route lets through as they would `application/json`:
 * @hono/zod-openapi's media-type gate (its jsonRequestRegex, on the whole header: a space before
 * `;` or a parameter without a value answers 415) and hono's validator (its jsonRegex, on the type
 * before any parameter), which this implies.
 */
const JSON_MEDIA_TYPE = /^application\/([a-z.-]+\+)?json(;\s*[a-zA-Z0-9-]+=([^;]+))*$/i;

/** Deepest nesting of arrays and objects in JSON text (strings skipped); no parsing, no recursion. */
export function jsonDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c) i++; // backslash: skip the escaped character
      else if (ch === 0x22) inString = false;
    } else if (ch === 0x22) inString = true;
    else if (ch === 0x7b || ch === 0x5b) max = Math.max(max, ++depth);
    else if (ch === 0x7d || ch === 0x5d) depth--;
  }
  return max;
}

/** The path of the first `__proto__` key in a parsed JSON value (`data.__proto__`), or null. */
export function protoKeyPath(value: unknown, path = ''): string | null {
  if (value === null || typeof value !== 'object') return null;
  for (const [key, v] of Object.entries(value)) {
    const here = Array.isArray(value) ? `${path}[${key}]` : path ? `${path}.${key}` : key;
    if (key === '__proto__' && !Array.isArray(value)) return here;
    const found = protoKeyPath(v, here);
    if (found !== null) return found;
  }
  return null;
}

/**
 * Streams the form's file parts into R2 staging as the body arrives (./staging.ts) and hands the
 * validator a FormData of StagedParts and text fields. The body is bounded by MAX_UPLOAD_BYTES:
 * past it 413, the rest drained (never cancelled: http/read-limited.ts). Returns the staging keys,
 * to be deleted when the request ends, whatever its outcome; on a refusal here they are gone already.
 */
async function normaliseForm(c: Context<AppBindings>, schema: Schema): Promise<{ staged: string[]; whole?: Uint8Array }> {
  const type = c.req.header('content-type') ?? '';
  if (!/^multipart\/form-data/i.test(type)) {
    throw badRequest('Upload the files as multipart/form-data in the field "file".', [
      { path: 'file', reason: 'expected a multipart/form-data body' },
    ]);
  }
  const malformed = (why: string) => badRequest(`The multipart body cannot be read: ${why}`, [{ path: 'file', reason: 'malformed multipart body' }]);
  const boundary = boundaryOf(type);
  if (!boundary) throw malformed('its content type names no boundary.');
  const uploadTooLarge = () => tooLarge('The upload', MAX_UPLOAD_BYTES);
  const body = c.req.raw.body;
  const declared = Number(c.req.header('content-length') ?? '0');
  if (body && Number.isSafeInteger(declared) && declared > MAX_UPLOAD_BYTES) {
    const reader = body.getReader();
    await drain(reader, DISCARD_BYTES);
    reader.releaseLock();
    throw uploadTooLarge();
  }
  const bucket = c.env.FILES;
  const staged: string[] = [];
  let held = 0;
  // A small body (HOLD_BYTES, declared) is read whole into one array, as before uploads streamed
  // (a BYOB read, no chunk made): its file parts are views of it, held, each put once. Staging
  // them in R2 and reading them back cost more memory than holding them (10,000² upload 105 MB
  // held, 125–153 MB staged, in the local runtime with its R2 simulator: session 29's upload report).
  let whole: Uint8Array | undefined;
  if (body && Number.isSafeInteger(declared) && declared > 0 && declared <= HOLD_BYTES) {
    whole = await readAll(body, HOLD_BYTES, uploadTooLarge, 'drain', declared);
  }
  let read: Awaited<ReturnType<typeof readMultipart<StagedPart>>>;
  try {
    read = await readMultipart(whole ? oneChunk(whole) : (body ?? new Blob([]).stream()), boundary, {
      isFile: (_field, filename) => filename !== undefined,
      onFile: async (part) => {
        const upload = await stageUpload(bucket, part.stream, MAX_UPLOAD_BYTES, uploadTooLarge, HOLD_BYTES - held);
        if (upload.bytes) held += upload.size;
        else staged.push(upload.key);
        return new StagedPart(upload, part.filename, part.contentType || 'application/octet-stream');
      },
      maxParts: MAX_UPLOAD_PARTS,
      limit: { bytes: MAX_UPLOAD_BYTES, tooLarge: uploadTooLarge },
    });
  } catch (e) {
    await dropStaged(bucket, staged);
    if (e instanceof MultipartError) throw malformed(e.field === undefined ? e.message : `${e.field}: ${e.message}`);
    throw e;
  }
  const parts: Array<[string, string | StagedPart]> = [...read.fields, ...read.files.map((f): [string, StagedPart] => [f.field, f.result])];
  const keys = [...new Set(parts.map(([key]) => key))];
  const names = Object.keys(canonicalNames(schema, Object.fromEntries(keys.map((k) => [k, null]))) as Record<string, null>);
  const out = new FormData();
  for (const key of keys) {
    const name = names.find((n) => n.toLowerCase() === key.toLowerCase()) ?? key;
    for (const [k, v] of parts) if (k === key) out.append(name, v);
  }
  c.req.bodyCache = { formData: out };
  return { staged, whole };
}

/** One array as a stream of itself (no copy). */
function oneChunk(bytes: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      controller.enqueue(bytes);
      controller.close();
    },
  });
}

async function digest(value: string): Promise<ArrayBuffer> {
  return crypto.subtle.digest('SHA-256', new TextEncoder().encode(value));
}

/** Writes need `X-DynamicImageApiKey` equal to RENDERING_API_KEY (compared in constant time). */
export const requireApiKey: MiddlewareHandler<AppBindings> = async (c, next) => {
  const expected = c.env.RENDERING_API_KEY;
  const given = c.req.header(API_KEY_HEADER);
  if (!expected || !given) throw forbidden(`This operation needs a valid API key in the ${API_KEY_HEADER} header.`);
  const [a, b] = await Promise.all([digest(given), digest(expected)]);
  if (!crypto.subtle.timingSafeEqual(a, b)) {
    throw forbidden(`The API key in the ${API_KEY_HEADER} header is not valid.`);
  }
  await next();
};

/**
 * createRoute() plus the rendering area's request handling; `write: true` adds the API key.
 *
 * @example
 * renderingApp.openapi(renderingRoute({ method: 'get', path: '/api/Info', ... }), handler)
 */
export function renderingRoute<R extends RouteConfig>(route: R, options: { write?: boolean } = {}) {
  // The key is checked before a (possibly large) body is read.
  const middleware = [...(options.write ? [requireApiKey] : []), normalise(route)];
  return createRoute({
    ...route,
    ...(options.write ? { security: [{ DynamicImageApiKey: [] }] } : {}),
    middleware,
  });
}
