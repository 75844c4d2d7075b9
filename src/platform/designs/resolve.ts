/**
 * What a design's renders read, per tenant: font bytes through the one font lookup (tenant fonts,
 * then instance fonts) and image sources (`Storage` assets the caller can see, `Url` through the
 * outbound policy, `Embedded` keys under the tenant's own `p/<t>/embedded/`). Variables'
 * `allowedFolder` is enforced here, where the asset's folder is known.
 *
 * Bytes are cached per isolate by content hash (fonts, stored and embedded images), so a live
 * editor's previews of one design read R2 once per isolate, not once per request.
 */
import { outboundFetch, OutboundError } from '../../http/outbound';
import { sha256Hex } from '../../engine/hash';
import { sniffImage } from '../../engine/raster';
import { FileStore } from '../../dynamic-image/store';
import * as assets from '../assets';
import { NotFoundError, PayloadTooLargeError, tenantKey, UnprocessableError, ValidationError, type TenantContext } from '../core';
import type { FontLookup as ModelFontLookup, ImageLookup, ImageModel, ResolvedImage, SourceModel } from '../../engine/print-product';

/** Content-addressed bytes (fonts, blobs, embedded files): the key is a content hash, so entries never go stale. */
class ByteCache {
  private readonly map = new Map<string, Uint8Array>();
  private bytes = 0;
  constructor(private readonly limit: number) {}
  get(key: string): Uint8Array | undefined {
    const hit = this.map.get(key);
    if (hit) {
      this.map.delete(key);
      this.map.set(key, hit);
    }
    return hit;
  }
  set(key: string, value: Uint8Array): void {
    if (value.byteLength > this.limit / 4) return;
    this.map.set(key, value);
    this.bytes += value.byteLength;
    for (const [k, v] of this.map) {
      if (this.bytes <= this.limit) break;
      this.map.delete(k);
      this.bytes -= v.byteLength;
    }
  }
}

const CACHE = new ByteCache(48 * 1024 * 1024);

async function cachedR2(bucket: R2Bucket, key: string, cacheKey = key): Promise<Uint8Array | null> {
  const hit = CACHE.get(cacheKey);
  if (hit) return hit;
  const obj = await bucket.get(key);
  if (!obj) return null;
  const bytes = new Uint8Array(await obj.arrayBuffer());
  CACHE.set(cacheKey, bytes);
  return bytes;
}

/**
 * Renders' font lookups per tenant and isolate, for a few seconds: a live editor's previews then
 * skip the tenant's font query and the instance font index. A name the cached lookup does not
 * know is looked up afresh (a font uploaded a moment ago renders at once); a font deleted or
 * replaced can still render for up to LOOKUP_TTL_MS in an isolate that cached it. Validation
 * (what a design may name) always reads afresh.
 */
// The lookups themselves, not the queries' promises: a promise whose I/O belongs to one request
// must not be awaited by another (the runtime cancels it with its request; the other would hang).
const LOOKUPS = new Map<number, { lookup: assets.FontLookup; at: number }>();
const LOOKUP_TTL_MS = 5_000;

async function tenantLookup(t: TenantContext, fresh: boolean): Promise<assets.FontLookup> {
  const hit = LOOKUPS.get(t.tenantId);
  if (!fresh && hit && Date.now() - hit.at < LOOKUP_TTL_MS) return hit.lookup;
  const at = Date.now();
  const lookup = await assets.FontLookup.load(t.env, t.tenantId);
  LOOKUPS.set(t.tenantId, { lookup, at });
  return lookup;
}

/**
 * The font lookup of a tenant as the model's renderers and validator want it; `cached` (renders)
 * may answer from the per-isolate lookup above.
 */
export async function fontsOf(t: TenantContext, { cached = false } = {}): Promise<{ fonts: ModelFontLookup; fontExists: (name: string) => boolean }> {
  let lookup = await tenantLookup(t, !cached);
  const instance = new FileStore(t.env.FILES);
  const fonts: ModelFontLookup = async (name) => {
    let hit = lookup.find(name);
    if (!hit && cached) {
      lookup = await tenantLookup(t, true);
      hit = lookup.find(name);
    }
    if (!hit) return undefined;
    if (hit.source === 'tenant') return cachedR2(t.env.FILES, assets.blobKey(t.tenantId, hit.sha256), `sha:${hit.sha256}`);
    const known = hit.sha256 ? CACHE.get(`sha:${hit.sha256}`) : undefined;
    if (known) return known;
    const file = await instance.read('fonts', hit.key);
    if (file && hit.sha256) CACHE.set(`sha:${hit.sha256}`, file.bytes);
    return file?.bytes;
  };
  return { fonts, fontExists: (name) => !!lookup.find(name) };
}

/** MIME type and natural size of image bytes (JPEG, PNG, GIF, WebP, SVG, PDF). */
export function imageFacts(bytes: Uint8Array): { mime: string; width: number; height: number } | null {
  const s = sniffImage(bytes);
  if (s) return { mime: `image/${s.format}`, width: s.orientation >= 5 ? s.height : s.width, height: s.orientation >= 5 ? s.width : s.height };
  const head = new TextDecoder().decode(bytes.subarray(0, 4096));
  if (head.startsWith('%PDF-')) return { mime: 'application/pdf', width: 0, height: 0 };
  if (/<svg[\s>]/i.test(head)) {
    const tag = /<svg\b[^>]*>/i.exec(head)?.[0] ?? '';
    const attr = (n: string) => new RegExp(`\\s${n}\\s*=\\s*["']([\\d.]+)`, 'i').exec(tag)?.[1];
    const box = /viewBox\s*=\s*["']([^"']*)["']/i.exec(tag)?.[1]?.trim().split(/[\s,]+/).map(Number);
    const w = Number(attr('width') ?? box?.[2] ?? 0);
    const h = Number(attr('height') ?? box?.[3] ?? 0);
    return { mime: 'image/svg+xml', width: w, height: h };
  }
  return null;
}

/** Image bytes at most this large are fetched from URLs (the images limit of asset storage). */
const URL_IMAGE_LIMIT = assets.LIMITS.image;

/** Downloads an image through the outbound policy; refusals are 400 (the URL) or 422 (the remote). */
export async function fetchImage(t: TenantContext, url: string, headers: Record<string, string> | undefined, path: string): Promise<Uint8Array> {
  try {
    const res = await outboundFetch(url, { env: t.env, headers, timeoutMs: assets.IMPORT_TIMEOUT_MS, maxBytes: URL_IMAGE_LIMIT });
    return res.bytes;
  } catch (e) {
    if (!(e instanceof OutboundError)) throw e;
    if (e.code === 'ERR_OUTBOUND_TOO_LARGE') throw new PayloadTooLargeError(`The image at ${path} is larger than ${URL_IMAGE_LIMIT / 1024 / 1024} MB.`);
    if (e.refused) throw new ValidationError({ [path]: [e.message] });
    throw new UnprocessableError(`The image at ${path} could not be fetched: ${e.message}`, { [path]: [e.message] });
  }
}

/** The stored image asset a `Storage` source names, as the caller may see it (404 otherwise). */
export async function storageImage(t: TenantContext, id: string, ownerId: string | undefined, path: string): Promise<assets.AssetRow> {
  const scope = assets.scopeFor(t, assets.assetKind('image', !!(ownerId || t.storefrontUserId)), ownerId);
  let row = await assets.findAsset(scope, id);
  // A storefront user's token sees public images too.
  if (!row && !ownerId && t.storefrontUserId) row = await assets.findAsset(assets.scopeFor(t, assets.assetKind('image', false), undefined), id);
  if (!row) throw new NotFoundError(`No image ${id} (named at ${path}).`, { [path]: [`no image ${id}`] });
  return row;
}

/**
 * Image rows that previews looked up in the last few seconds, per isolate and caller (tenant,
 * storefront user, owner): a live editor's previews then skip a row query per stored image. The
 * bytes are read by the row's content hash, so a replaced or deleted image can still show in a
 * preview for up to ROW_TTL_MS in an isolate that cached it; proofs and PDFs always read afresh.
 */
// Rows, not the queries' promises (see LOOKUPS).
const ROWS = new Map<string, { row: assets.AssetRow; at: number }>();
const ROW_TTL_MS = 5_000;
const ROWS_MAX = 1024;

async function recentStorageImage(t: TenantContext, id: string, ownerId: string | undefined, path: string): Promise<assets.AssetRow> {
  const key = `${t.tenantId}|${t.storefrontUserId ?? ''}|${ownerId ?? ''}|${id}`;
  const hit = ROWS.get(key);
  if (hit && Date.now() - hit.at < ROW_TTL_MS) return hit.row;
  const at = Date.now();
  const row = await storageImage(t, id, ownerId, path);
  ROWS.delete(key);
  ROWS.set(key, { row, at });
  if (ROWS.size > ROWS_MAX) ROWS.delete(ROWS.keys().next().value!);
  return row;
}

/** True when `folderPath` is `allowed` or below it (paths normalised, case ignored). */
function inFolder(folderPath: string, allowed: string): boolean {
  const norm = (p: string) => `/${p.split('/').filter(Boolean).join('/')}/`.replace(/^\/\/$/, '/').toLowerCase();
  return norm(folderPath).startsWith(norm(allowed));
}

async function folderPathOf(t: TenantContext, row: assets.AssetRow): Promise<string> {
  if (!row.folderId) return '/';
  const f = await assets.folderPathById(t.env.DB, t.tenantId, row.folderId);
  return f ? `${f.path.replace(/\/?$/, '/')}${f.name}/` : '/';
}

/** The bytes of one stored image row (a PDF page: its rasterised PNG when the import made one). */
async function rowImage(t: TenantContext, row: assets.AssetRow, pageIndex: number): Promise<ResolvedImage | undefined> {
  if (row.mimeType === 'application/pdf') {
    const page = await cachedR2(t.env.FILES, tenantKey(t.tenantId, 'assets', 'images', row.id, 'pages', `${pageIndex}.png`));
    const facts = page && imageFacts(page);
    return page && facts ? { bytes: page, ...facts } : undefined;
  }
  if (!row.blobSha) return undefined;
  const bytes = await cachedR2(t.env.FILES, assets.blobKey(t.tenantId, row.blobSha), `sha:${row.blobSha}`);
  const facts = bytes && imageFacts(bytes);
  return bytes && facts ? { bytes, ...facts } : undefined;
}

/** An embedded key must be the tenant's own (`p/<t>/embedded/…`). */
export const embeddedPrefix = (t: TenantContext) => tenantKey(t.tenantId, 'embedded', '');

/** Stores bytes under `p/<t>/embedded/<sha256>` (content-addressed) and returns the key. */
export async function storeEmbedded(t: TenantContext, bytes: Uint8Array): Promise<string> {
  const sha = await sha256Hex(bytes);
  const key = tenantKey(t.tenantId, 'embedded', sha);
  if (!(await t.env.FILES.head(key))) await t.env.FILES.put(key, bytes);
  CACHE.set(key, bytes);
  return key;
}

/** Bytes of any source (no allowedFolder check): extract-image and mockups. */
export async function sourceBytes(t: TenantContext, source: SourceModel, path: string, pageIndex = 0): Promise<ResolvedImage> {
  const resolved = await imageLookup(t)(source, { pageIndex });
  if (!resolved) throw new UnprocessableError(`The image at ${path} has no displayable content.`, { [path]: ['no displayable content'] });
  return resolved;
}

/**
 * The renderers' image lookup for a tenant. `path` names where a bad source is reported (the
 * model's item path is not known to the lookup, so errors name the item's name).
 */
export function imageLookup(t: TenantContext, { cachedRows = false } = {}): ImageLookup {
  return async (source, { item, pageIndex }) => {
    const where = item ? `item "${item.name || item.id}"` : 'source';
    const allowed = item?.isVariable ? (item as ImageModel).constraints?.allowedFolder : undefined;
    if (source.type === 'Storage') {
      const row = await (cachedRows ? recentStorageImage : storageImage)(t, source.id, source.ownerId, where);
      if (allowed !== undefined && !inFolder(await folderPathOf(t, row), allowed)) {
        throw new ValidationError({ variableData: [`image ${source.id} is not in the folder ${allowed} that variable "${item!.name}" allows`] });
      }
      return rowImage(t, row, pageIndex);
    }
    if (allowed !== undefined) {
      throw new ValidationError({ variableData: [`variable "${item!.name}" takes images from the folder ${allowed} only, not ${source.type === 'Url' ? 'URLs' : 'embedded files'}`] });
    }
    if (source.type === 'Embedded') {
      if (!source.key.startsWith(embeddedPrefix(t)) || source.key.includes('..')) throw new NotFoundError(`No embedded file ${source.key}.`, { [where]: ['no such embedded file'] });
      const bytes = await cachedR2(t.env.FILES, source.key);
      const facts = bytes && imageFacts(bytes);
      return bytes && facts ? { bytes, ...facts } : undefined;
    }
    const bytes = await fetchImage(t, source.url, source.headers, where);
    const facts = imageFacts(bytes);
    if (!facts) throw new UnprocessableError(`The image at ${source.url} is not a JPEG, PNG, GIF, WebP, SVG or PDF.`, { [where]: ['not an image'] });
    return { bytes, ...facts };
  };
}
