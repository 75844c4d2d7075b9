/**
 * What the pipeline needs from outside: fetching images named by URL, and building
 * personalisation overrides. One place to wire them for every rendering route.
 */
import type { Context } from 'hono';
import type { FetchImage, PipelineDeps } from '../engine/pipeline';
import type { AppBindings } from '../env';
import { unprocessable } from '../errors';

const TIMEOUT_MS = 10_000;
const MAX_BYTES = 25 * 1024 * 1024;
const MAX_REDIRECTS = 3;

/**
 * Provisional URL fetch (rendering contract limits: http(s) only, https outside local
 * development, 10 s, 25 MB, ≤ 3 redirects); replaced by src/engine/raster's fetchImage.
 */
function fetchImageWith(allowHttp: boolean): FetchImage {
  return async (url) => {
    const fail = (reason: string) => unprocessable(`The image ${url} cannot be used: ${reason}.`, [{ path: 'data', reason }]);
    let target = url;
    for (let hop = 0; ; hop++) {
      const parsed = URL.canParse(target) ? new URL(target) : null;
      if (!parsed || !(parsed.protocol === 'https:' || (allowHttp && parsed.protocol === 'http:'))) throw fail('only https URLs are fetched');
      const res = await fetch(parsed, { redirect: 'manual', signal: AbortSignal.timeout(TIMEOUT_MS) }).catch((e: Error) => {
        throw fail(e.name === 'TimeoutError' ? 'it took longer than 10 s' : 'it could not be fetched');
      });
      if (res.status >= 300 && res.status < 400 && res.headers.get('location')) {
        if (hop >= MAX_REDIRECTS) throw fail('more than 3 redirects');
        target = new URL(res.headers.get('location')!, parsed).toString();
        continue;
      }
      if (!res.ok || !res.body) throw fail(`HTTP ${res.status}`);
      if (Number(res.headers.get('content-length')) > MAX_BYTES) throw fail('it is larger than 25 MB');
      const bytes = new Uint8Array(await res.arrayBuffer());
      if (bytes.byteLength > MAX_BYTES) throw fail('it is larger than 25 MB');
      return bytes;
    }
  };
}

export function pipelineDeps(c: Context<AppBindings>): PipelineDeps {
  return { fetchImage: fetchImageWith(c.env.REGION === 'local') };
}
