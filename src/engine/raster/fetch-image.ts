import { ApiError, badRequest, unprocessable } from '../../errors';
import { readLimited } from '../../http/read-limited';

export interface FetchImageOptions {
  /** Allow plain http (local development only). */
  allowHttp?: boolean;
  /** Error detail path, e.g. "data.Photo". */
  path?: string;
  timeoutMs?: number;
  maxBytes?: number;
  maxRedirects?: number;
}

export interface FetchedImage {
  bytes: Uint8Array;
  /** The URL finally answered (after redirects). */
  url: string;
  contentType: string | null;
}

export const FETCH_LIMITS = Object.freeze({ timeoutMs: 10_000, maxBytes: 25 * 1024 * 1024, maxRedirects: 3 });

/**
 * Downloads an image named by URL in personalisation data, under the contract's limits:
 * http(s) only (https unless `allowHttp`), 10 s for the whole exchange, at most 25 MB (counted
 * while streaming, so a lying or absent Content-Length cannot get more through), at most 3
 * redirects (followed by hand, each checked like the first URL).
 * Errors: 400 for a URL that is not acceptable, 422 for a remote that does not deliver.
 *
 * @example const { bytes } = await fetchImage('https://example.com/a.jpg', { path: 'data.Photo' });
 */
export async function fetchImage(url: string, options: FetchImageOptions = {}): Promise<FetchedImage> {
  const { path = 'url', allowHttp = false } = options;
  const timeoutMs = options.timeoutMs ?? FETCH_LIMITS.timeoutMs;
  const maxBytes = options.maxBytes ?? FETCH_LIMITS.maxBytes;
  const maxRedirects = options.maxRedirects ?? FETCH_LIMITS.maxRedirects;
  const invalid = (reason: string) => badRequest(`The image URL at ${path} is not acceptable: ${reason}`, [{ path, reason }]);
  const failed = (reason: string) => unprocessable(`The image at ${path} could not be fetched: ${reason}`, [{ path, reason }]);

  const check = (raw: string, base?: URL, redirected = false): URL => {
    let u: URL;
    try {
      u = new URL(raw, base);
    } catch {
      throw redirected ? failed('a redirect points to an invalid URL.') : invalid('not a valid absolute URL.');
    }
    const ok = u.protocol === 'https:' || (u.protocol === 'http:' && allowHttp);
    if (!ok) {
      const reason = u.protocol === 'http:' ? 'only https URLs are allowed.' : `the ${u.protocol} scheme is not allowed; use https.`;
      throw redirected ? failed(`a redirect leads to a URL that is not allowed: ${reason}`) : invalid(reason);
    }
    return u;
  };

  let current = check(url);
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    for (let redirects = 0; ; redirects++) {
      const res = await fetch(current, { redirect: 'manual', signal, headers: { accept: 'image/jpeg, image/png, image/*;q=0.8' } });
      if (res.status >= 300 && res.status < 400 && res.headers.has('location')) {
        await res.body?.cancel();
        if (redirects >= maxRedirects) throw failed(`more than ${maxRedirects} redirects.`);
        current = check(res.headers.get('location')!, current, true);
        continue;
      }
      if (!res.ok) {
        await res.body?.cancel();
        throw failed(`the server answered HTTP ${res.status}.`);
      }
      // Refuses a declared Content-Length over the cap at once, and counts while streaming
      // because a server may lie about it.
      const bytes = await readLimited(res, maxBytes, () => failed(`it is larger than ${maxBytes / 1024 / 1024} MB.`));
      return { bytes, url: current.href, contentType: res.headers.get('content-type') };
    }
  } catch (e) {
    if (e instanceof ApiError) throw e;
    if (signal.aborted) throw failed(`no complete answer within ${timeoutMs / 1000} s.`);
    throw failed(`the request failed (${e instanceof Error ? e.message : String(e)}).`);
  }
}
