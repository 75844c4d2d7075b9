/**
 * JSON request bodies: ≤ 2 MB (413), parsed once, names canonicalised (names.ts) before zod
 * validates. The body stream is never cancelled when it is too large: cancelling a request body
 * in workerd can reset the connection before the 413 reaches the client, so it is left unread.
 */
import { readLimited } from '../../http/read-limited';
import { PayloadTooLargeError, UnsupportedMediaTypeError, ValidationError } from './errors';

export const MAX_JSON_BYTES = 2 * 1024 * 1024;

const JSON_TYPE = /^application\/([a-z0-9.+-]*\+)?json\s*(;|$)/i;

/** The body's bytes up to `limit`, else PayloadTooLargeError (the rest left unread). */
export function readBodyLimited(req: Request, limit: number, what = 'The JSON body'): Promise<Uint8Array> {
  return readLimited(req, limit, () => new PayloadTooLargeError(`${what} is larger than the limit of ${limit / 1024 / 1024} MB.`), 'leave');
}

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
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new ValidationError({ $: [`The body is not valid JSON: ${(e as Error).message}`] });
  }
}
