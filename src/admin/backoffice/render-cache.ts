// Renders the back-office pages show (thumbnails, item previews) kept in the Cache API: a project
// page reloads itself every 2 s while its job runs, and a product page draws a tile per stored
// design, so each image would otherwise be drawn again on every view. Keys name the content
// (tenant, asset id, the asset's blob SHA, a hash of the data drawn), never the viewer: callers
// check access before they ask. A changed file has a new SHA and so a new key; a tenant font
// added later shows after the hour an entry lives.
const LIFETIME_S = 3600;
const ORIGIN = 'https://admin-render-cache.invalid';

export interface CachedImage {
  bytes: Uint8Array;
  mime: string;
  /** Extra facts kept with the image (e.g. which fields were drawn). */
  note: string;
  /** false: answer it, but draw it again next time (a fallback drawn without the data). */
  keep?: boolean;
}

/** The cached image under `parts`, else `make()` (kept for the next view; a cache failure only costs a render). */
export async function cachedRender(parts: Array<string | number>, make: () => Promise<CachedImage>): Promise<CachedImage> {
  const key = new Request(`${ORIGIN}/${parts.map((p) => encodeURIComponent(String(p))).join('/')}`);
  const cache = typeof caches === 'undefined' ? null : caches.default;
  const hit = await cache?.match(key).catch(() => undefined);
  if (hit) return { bytes: new Uint8Array(await hit.arrayBuffer()), mime: hit.headers.get('content-type') ?? 'application/octet-stream', note: decodeURIComponent(hit.headers.get('x-note') ?? '') };
  const made = await make();
  if (made.keep === false) return made;
  await cache
    ?.put(key, new Response(made.bytes, { headers: { 'content-type': made.mime, 'x-note': encodeURIComponent(made.note), 'cache-control': `max-age=${LIFETIME_S}` } }))
    .catch((e) => console.error('admin render cache: put failed', e));
  return made;
}
