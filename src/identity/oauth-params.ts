// Reading OAuth parameters (form bodies and query strings) strictly (RFC 6749 §3.1/§3.2): parameters must not
// repeat, empty values count as absent, and token-style endpoints accept only POSTed forms.
import type { Context } from 'hono';
import { OAuthError } from '../errors';
import { readLimited } from '../http/read-limited';

export const MAX_FORM_BYTES = 64 * 1024;

export type Params = Map<string, string>;

/**
 * Client input quoted in an error_description, reduced to the characters RFC 6749 §5.2 allows
 * there (printable ASCII except `"` and `\`) and kept short.
 */
export const quoteInput = (value: string, max = 100): string => value.replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, '?').slice(0, max);

/** URL-encoded pairs → map; a repeated parameter is invalid_request (RFC 6749 §3.1). */
export function toParams(search: URLSearchParams): Params {
  const out: Params = new Map();
  const seen = new Set<string>();
  for (const [key, value] of search) {
    if (seen.has(key)) throw new OAuthError(400, 'invalid_request', `The parameter ${quoteInput(key)} was sent more than once.`);
    seen.add(key);
    if (value !== '') out.set(key, value);
  }
  return out;
}

/** The request body as text, refusing more than `limit` bytes without reading them all. */
export async function readLimitedText(req: Request, limit = MAX_FORM_BYTES): Promise<string> {
  const tooLarge = () => new OAuthError(400, 'invalid_request', `The request body exceeds ${limit} bytes.`);
  return new TextDecoder().decode(await readLimited(req, limit, tooLarge));
}

export const isFormRequest = (c: Context): boolean =>
  (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase() === 'application/x-www-form-urlencoded';

/** A POSTed `application/x-www-form-urlencoded` body, or invalid_request saying what is wrong. */
export async function readPostForm(c: Context): Promise<Params> {
  if (c.req.method !== 'POST') throw new OAuthError(400, 'invalid_request', `This endpoint accepts only POST, not ${c.req.method}.`);
  if (!isFormRequest(c)) {
    throw new OAuthError(400, 'invalid_request', 'The body must be application/x-www-form-urlencoded.');
  }
  return toParams(new URLSearchParams(await readLimitedText(c.req.raw)));
}

/**
 * Parameters of a browser-facing endpoint that takes GET (query) or POST (form): authorize and
 * end session. Returns the reason as a string when they cannot be read, for the error page.
 */
export async function readBrowserParams(c: Context): Promise<Params | string> {
  try {
    if (c.req.method !== 'POST') return toParams(new URL(c.req.url).searchParams);
    if (!isFormRequest(c)) return 'The body must be application/x-www-form-urlencoded.';
    return toParams(new URLSearchParams(await readLimitedText(c.req.raw)));
  } catch (err) {
    if (err instanceof OAuthError) return err.message;
    throw err;
  }
}
