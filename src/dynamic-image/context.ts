/**
 * What a rendering route takes from its request context: the stores of the request and the
 * engine's dependencies. Routes call these instead of reading bindings themselves.
 */
import type { Context } from 'hono';
import type { createServiceApp } from '../openapi/app';
import { InputsTooLarge, InvalidInput, Unprocessable } from '../engine/errors';
import { UrlImages, type FetchImageBytes } from '../engine/inputs';
import type { RenderDeps } from '../engine/preview';
import { shippedProfile } from '../engine/pdf/output';
import type { AppBindings, Env } from '../env';
import { OutboundError, outboundFetch } from '../http/outbound';
import { FileStore, ResultStore, ThumbnailStore } from './store';

/** The rendering area's OpenAPIHono app (built in ./index.ts), as route files receive it. */
export type RenderingApp = ReturnType<typeof createServiceApp>;

/** The stores of one request. */
export function storesOf(c: Context<AppBindings>) {
  return {
    files: new FileStore(c.env.FILES),
    results: new ResultStore(c.env.FILES, c.env.RESULT_TTL_HOURS),
    thumbnails: new ThumbnailStore(c.env.FILES, c.env.RESULT_TTL_HOURS),
  };
}

/** The engine's dependencies for one request (one UrlImages: its budget covers every page). */
export function renderDeps(c: Context<AppBindings>): RenderDeps {
  // The rendering API is not tenant-scoped: its output profiles are the shipped ones.
  return { urlImages: new UrlImages(imageFetcher(c.env)), colourProfile: async (name) => shippedProfile(name) };
}

/**
 * Image URLs go through the outbound module (https only — http in local development —, no
 * internal hosts, 10 s, 3 redirects); its refusals become the engine's errors.
 */
export function imageFetcher(env: Env): FetchImageBytes {
  return async (url, { maxBytes, sniff, onBytes }) => {
    try {
      const res = await outboundFetch(url, { env, maxBytes, sniff, onBytes, headers: { accept: 'image/jpeg, image/png, image/*;q=0.8' } });
      return res.bytes;
    } catch (e) {
      if (!(e instanceof OutboundError)) throw e;
      const details = [{ path: 'url', reason: e.message }];
      if (e.refused) throw new InvalidInput(e.message, details);
      if (e.code === 'ERR_OUTBOUND_TOO_LARGE') throw new InputsTooLarge(e.message, details);
      throw new Unprocessable(e.message, details);
    }
  };
}
