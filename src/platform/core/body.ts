/**
 * The one reader of platform request bodies. JSON bodies: ≤ 2 MB (413), parsed once, names
 * canonicalised (names.ts) before zod validates. A body is never cancelled nor left unread when
 * we answer early (413, 415, 401, 404…): wrangler's local proxy turns a request body the Worker
 * did not read to its end into its own 500 "Network connection lost" before our answer reaches
 * the client. So a body found too large is read to its end and dropped (bounded by
 * DISCARD_BYTES, src/http/read-limited.ts), and `settleBody` drains whatever a route left.
 */
import type { MiddlewareHandler } from 'hono';
import { DISCARD_BYTES, drain, readLimited } from '../../http/read-limited';
import { jsonBoundProblem, MAX_JSON_DEPTH } from '../../lib/json';
import { PayloadTooLargeError, UnsupportedMediaTypeError, ValidationError } from './errors';
import { jsonPath } from './problem';

export const MAX_JSON_BYTES = 2 * 1024 * 1024;

/**
 * How deep a request body may nest. Bodies carry stored values (each bound to MAX_JSON_DEPTH, 32,
 * where it is stored: storedJson) a few levels down, and design models nest groups; past this the
 * body is a 400 naming where, before any recursive code (name canonicalisation, zod, the pipeline
 * validator) or SQLite's JSON functions (1,000 levels) meet it.
 */
export const MAX_BODY_DEPTH = 2 * MAX_JSON_DEPTH;

const JSON_TYPE = /^application\/([a-z0-9.+-]*\+)?json\s*(;|$)/i;

/** The body's bytes up to `limit`, else PayloadTooLargeError once the rest has been read and dropped. */
export function readBodyLimited(req: Request, limit: number, what = 'The JSON body'): Promise<Uint8Array> {
  return readLimited(req, limit, () => new PayloadTooLargeError(`${what} is larger than the limit of ${limit / 1024 / 1024} MB.`), 'drain');
}

/**
 * A route that takes no body still hears one out: up to MAX_JSON_BYTES is read and ignored,
 * beyond that 413 (after draining, as above).
 */
export async function ignoreBody(req: Request): Promise<void> {
  if (req.body) await readBodyLimited(req, MAX_JSON_BYTES, 'The body (this endpoint takes none)');
}

/**
 * Middleware for every platform request: once the answer is made, whatever of the request body
 * nobody read (an early 401/404/415, a route that read only part) is read and dropped, up to
 * DISCARD_BYTES, so the client is heard out and the proxy sees a complete exchange.
 */
export const settleBody: MiddlewareHandler = async (c, next) => {
  await next();
  const body = c.req.raw.body;
  if (!body || body.locked) return;
  const reader = body.getReader();
  try {
    await drain(reader, DISCARD_BYTES);
  } finally {
    reader.releaseLock();
  }
};

/**
 * The request's JSON value, or `undefined` when the body is empty (whatever its content type:
 * bodyless calls may send an empty form). A non-empty body must be JSON (content type JSON or
 * absent), else 415; malformed JSON is a 400 at `$`.
 */
export async function readJsonBody(req: Request): Promise<unknown> {
  const type = req.headers.get('content-type');
  if (!req.body || req.headers.get('content-length') === '0') return undefined;
  const text = new TextDecoder().decode(await readBodyLimited(req, MAX_JSON_BYTES));
  if (!text.trim()) return undefined;
  if (type && !JSON_TYPE.test(type)) throw new UnsupportedMediaTypeError(`This endpoint takes application/json, not ${type.split(';')[0]}.`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new ValidationError({ $: [`The body is not valid JSON: ${(e as Error).message}`] });
  }
  const deep = jsonBoundProblem(value, MAX_BODY_DEPTH);
  if (deep) throw new ValidationError({ [jsonPath(deep.path)]: [deep.message] });
  return value;
}

/**
 * Bytes for `c.body(…)`: the engines hand out `Uint8Array` over any ArrayBufferLike, a body takes
 * one over an ArrayBuffer. A view on the same memory (no copy); a SharedArrayBuffer (never in a
 * Worker) would be copied.
 */
export function bodyBytes(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  const { buffer, byteOffset, byteLength } = bytes;
  return buffer instanceof ArrayBuffer ? new Uint8Array(buffer, byteOffset, byteLength) : bytes.slice();
}
