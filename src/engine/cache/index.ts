/**
 * The engine's per-isolate caches (a Worker isolate has 128 MB; these hold at most 74 MB, less
 * while a big picture is decoded: makeRoom).
 * Every key starts with the compiled template's content hash, so entries never go stale and a
 * template's data is only ever found under its own bytes' hash.
 */
import type { JpegRows } from '../raster/jpeg';
import type { Surface } from '../composite/surface';
import type { Bounds, RGBAImage } from '../types';
import { ByteLru, MB } from './lru';

export { ByteLru, MB } from './lru';

/** Parsed `tree.json` per compiled template (byte size estimated from the JSON text). */
export const treeCache = new ByteLru<unknown>(2 * MB);
/**
 * Inflated layer and mask bands (key = their R2 key). A band above 2 MB (a full-resolution band
 * of a wide template, as hi-res PDFs read) is not kept: previews read the small pyramid levels.
 */
export const bandCache = new ByteLru<Uint8Array>(16 * MB, 2 * MB);
/**
 * Packs of small blobs (compiled/packs.ts) by R2 key, as stored: the layers of a strip or a small
 * pyramid level read their bands from the same few packs. A pack is about 1 MB.
 */
export const packCache = new ByteLru<Uint8Array>(4 * MB, 1.1 * MB);
/** Partial canvases under the lowest personalised layer (see composite/compositor.ts). */
export const backdropCache = new ByteLru<Uint8ClampedArray>(12 * MB, 5 * MB);

/**
 * Finished preview frames (resampled and sharpened, before encoding) of templates drawn without
 * overrides, per output size and settings: a personalised preview redraws only the rows its
 * overrides reach (engine/frame.ts).
 */
export const frameCache = new ByteLru<Uint8ClampedArray>(12 * MB, 6 * MB);
/** Those frames coded as JPEG, one restart interval per MCU row, per quality (raster/jpeg.ts JpegRows). */
export const frameJpegCache = new ByteLru<JpegRows>(4 * MB, 1 * MB);

/**
 * Pictures from `data`, decoded and shrunk for a placement, by the content hash of their bytes
 * and the size they were decoded for (keys `image/<sha256>/<w>x<h>`). The entry cap admits a
 * picture covering 1000×1000 template pixels at full resolution (print PDFs of a 4000² template).
 */
export const imageCache = new ByteLru<RGBAImage>(12 * MB, 6 * MB);

/** Those pictures placed into their layers (perspective and all), keys `image/<sha256>/placed/<placement>`. */
export const placementCache = new ByteLru<{ pixels: RGBAImage; bounds: Bounds } | null>(8 * MB, 4.5 * MB);

/**
 * The cached value for `key`, else what `make` returns (then cached). Asked again while `make`
 * runs (two layers that take the same picture at the same size, in one request's concurrent
 * loads), the one `make` serves both: its value is shared as a cached one is (never mutated).
 */
export function cached<V extends { data: ArrayBufferView }>(cache: ByteLru<V>, key: string, make: () => Promise<V>): Promise<V> {
  const held = cache.get(key);
  if (held) return Promise.resolve(held);
  let making = inFlight.get(cache);
  if (!making) inFlight.set(cache, (making = new Map()));
  const pending = making.get(key) as Promise<V> | undefined;
  if (pending) return pending;
  const waiting = making;
  const made = (async () => {
    try {
      const value = await make();
      cache.set(key, value, value.data.byteLength);
      return value;
    } finally {
      waiting.delete(key);
    }
  })();
  waiting.set(key, made);
  return made;
}

/** What `cached` is making, per cache and key. */
const inFlight = new WeakMap<object, Map<string, Promise<unknown>>>();

/**
 * Adjustment layers' masks at a render scale over an output rectangle (keys
 * `compiled/<hash>/adjustment-mask/…`), cut to the box where they are not 0: the same for every
 * request, where a picture under four masked Hue/Saturation layers upscaled each mask 4× per
 * request (issue 25 §3; composite/compositor.ts adjustmentMask).
 */
export const adjustmentMaskCache = new ByteLru<AdjustmentMask>(4 * MB, 2 * MB);

/** An adjustment layer's mask over a rectangle, cut to `box` (the rectangle's pixels from 0) where it is not 0; `full`: a rectangle within the box (its pixels from 0) where it is 255, if any. */
export interface AdjustmentMask {
  data: Uint8ClampedArray;
  box: Bounds;
  full: Bounds | null;
}

/**
 * Stored layers' pixels resampled to a render scale over an output rectangle (keys
 * `compiled/<hash>/resampled/…`): a picture replacing a full-canvas layer redraws the frame each
 * request, and every upscaled layer above it was resampled again (issue 25 §3; compositor.ts
 * layerContent). Only read once made.
 */
export const resampledLayerCache = new ByteLru<Surface>(4 * MB, 1 * MB);

const all = () => [treeCache, packCache, frameJpegCache, imageCache, placementCache, bandCache, frameCache, adjustmentMaskCache, resampledLayerCache, backdropCache] as ByteLru<unknown>[];

/**
 * Makes room for a short-lived allocation of `bytes` (decoding a big photo takes ~8 B per source
 * pixel for a moment): the least recently used entries of all the caches go first, whichever
 * cache holds them, until what they hold plus `bytes` stays within half the 128 MB isolate (the
 * rest is the render's own working set). By recency, not by kind: a fixed order by kind emptied
 * the backdrops of the template being personalised (the last kind) on every new picture once
 * other templates' bands and frames filled the rest, and each request composited the whole
 * frame under its layer again (psdtools-adjust-curves: render 0.3 -> 17-20 ms in workerd).
 */
export function makeRoom(bytes: number): void {
  const allowed = Math.max(0, 64 * MB - bytes);
  const caches = all();
  let held = caches.reduce((sum, cache) => sum + cache.size, 0);
  while (held > allowed) {
    let oldest = caches[0]!;
    for (const cache of caches) if (cache.oldestUse() < oldest.oldestUse()) oldest = cache;
    const before = oldest.size;
    oldest.evictOldest();
    held -= before - oldest.size;
  }
}

/** Drops everything cached for a compiled template (it is being deleted). */
export function forgetTemplate(hash: string): void {
  for (const cache of all()) cache.evictPrefix(`compiled/${hash}/`);
}

/** Empties every cache (tests). */
export function clearEngineCaches(): void {
  for (const cache of all()) cache.clear();
}
