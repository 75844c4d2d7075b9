import { bandCache, treeCache } from '../cache';
import type { Bounds, CompiledTemplate, LayerNode } from '../types';
import { ArrayPool } from '../memory/array-pool';
import { getBlob, getBlobRange, getPacked, inflateBlobInto } from './blob';
import { freeNow } from './free';
import { BAND, bandsFor, levelBounds } from './pyramid';

/**
 * R2 layout of a compiled template (prefix `compiled/<hash>/`, hash = SHA-256 hex of the PSD
 * bytes followed by ENGINE_VERSION):
 *
 *   tree.json          CompiledTemplate: size, ppi, levels, the LayerNode tree (written last:
 *                      its presence means the compile finished)
 *   px/<id>/<k>/<b>    layer <id> RGBA (straight alpha) at pyramid level k, band b, deflate-raw:
 *                      columns of levelBounds(node.pixelBounds, k), its rows within
 *                      [b·BAND, (b+1)·BAND) (level rows), so a strip reads only its bands
 *   mask/<id>/<k>/<b>  the layer's pixel mask, one byte per pixel, over levelBounds(node.mask.bounds, k)
 *   pack/<k>/<b>/<n>-<d> small px/ and mask/ bands of level k, band b (stored bytes ≤ 64 KB, inflating to
 *                      what the band cache keeps) one after the other, ~1 MB a pack (./packs.ts): such
 *                      a band has no object of its own; tree.json's `packs` lists each pack's bands
 *                      and their lengths; d: 8 hex digits of the pack's SHA-256 (one compile's
 *                      packs never read with another's that differ)
 *   pattern/<i>        the document's i-th pattern, RGBA, deflate-raw (pattern overlays)
 *   composite          Photoshop's stored composite, RGBA at level 0 (tests, fidelity)
 *   icc                the embedded ICC profile, as stored in the PSD
 */
export const prefix = (hash: string) => `compiled/${hash}/`;
export const treeKey = (hash: string) => `${prefix(hash)}tree.json`;
export const pixelKey = (hash: string, id: number, level: number, band: number) =>
  `${prefix(hash)}px/${id}/${level}/${band}`;
export const maskKey = (hash: string, id: number, level: number, band: number) =>
  `${prefix(hash)}mask/${id}/${level}/${band}`;
export const patternKey = (hash: string, index: number) => `${prefix(hash)}pattern/${index}`;
export const compositeKey = (hash: string) => `${prefix(hash)}composite`;
export const iccKey = (hash: string) => `${prefix(hash)}icc`;

/** The compiled tree as R2 has it now (null when absent); also refreshes the isolate's copy. */
export async function loadCompiledTemplate(bucket: R2Bucket, hash: string): Promise<CompiledTemplate | null> {
  const key = treeKey(hash);
  const obj = await bucket.get(key);
  if (!obj) return null;
  const text = await obj.text();
  const tree = JSON.parse(text) as CompiledTemplate;
  treeCache.set(key, tree, text.length * 2);
  return tree;
}

/**
 * The compiled tree, from the isolate's cache when this isolate has read it before (a compiled
 * template never changes under its hash). Renders use this; whoever must know whether R2 still
 * holds the template (compiling, deleting) uses loadCompiledTemplate. Callers must not mutate it.
 */
export async function loadCompiledTemplateCached(bucket: R2Bucket, hash: string): Promise<CompiledTemplate | null> {
  return (treeCache.get(treeKey(hash)) as CompiledTemplate | undefined) ?? loadCompiledTemplate(bucket, hash);
}

/**
 * A kept buffer's size for `length`: 1/32 more, so that a frame's first strip (short of the
 * unsharp mask's rows above it) makes buffers the later strips fit, not a second set of them.
 */
const withSpare = (length: number) => length + (length >> 5);

/** The most stored (packed) band bytes StripBuffers keeps for its layers' next strips. */
const PACKED_BYTES = 8 * 1024 * 1024;

/**
 * Buffers a frame drawn in strips keeps from strip to strip (issue 25 §1): a 5,000² preview of a
 * 10,000² template drew 24 strips, each with new arrays for the band rows it read and its canvas,
 * about 200 MB of garbage a request, which workerd's process kept resident as pages of freed
 * backing stores long after the isolate's heap let it go. `bytes`/`clamped` hand back the buffer
 * kept for `use`, cut to `length` (grown when too small): what the last take of that use held is
 * overwritten, so its bytes are good until the next take. One per request, never shared between
 * requests that run at the same time (their awaits interleave).
 */
export class StripBuffers {
  private readonly kept = new Map<string, ArrayBuffer>();
  /** The blob the 'band' buffer holds inflated. */
  private bandKey?: string;
  /** Surface buffers free to hand out, and those handed out in the strip being drawn (with their bytes). */
  private readonly surfaces: ArrayPool;
  private readonly lent: ArrayBuffer[] = [];
  private lentBytes = 0;
  /**
   * Surfaces of the strip being drawn past the pool: freed when it ends (compiled/free.ts), not
   * left to the collector. The poster's first print PDF (9 layers over 23 strips) made 64 MB of
   * them, which workerd kept until V8 collected (issue 25 §1).
   */
  private readonly unpooled: Uint8ClampedArray[] = [];

  /**
   * `poolBytes`: how many bytes of layer surfaces (`surface`) are kept for later strips, in all
   * (none by default); `layerBandBytes`: how many bytes of bands `layerBand` keeps (none by default).
   */
  constructor(
    private readonly poolBytes = 0,
    private readonly layerBandBytes = 0,
  ) {
    // A free surface dropped to make room for a longer one is freed too: nobody reads it.
    this.surfaces = new ArrayPool({ bytes: poolBytes, freeDropped: true });
  }

  /**
   * A zeroed array of `length` for a surface of the strip being drawn (a layer's rows), its own
   * until `nextStrip`. Up to poolBytes of them (free and lent) are kept and handed out again in
   * later strips; past that, a new array (garbage, as without a pool): so the first surfaces of
   * each strip (all of a one-layer template's) make no garbage, and a many-layer strip holds no
   * more than poolBytes of them beyond what it would. A surface no free one fits (a preview's
   * first strip lacks the unsharp mask's rows above it, so the later ones are longer) takes the
   * place of free ones too small: kept, the pool would have handed out new arrays for every later strip.
   */
  surface(length: number): Uint8ClampedArray {
    const free = this.surfaces.take(length);
    if (free) {
      this.lent.push(free);
      this.lentBytes += free.byteLength;
      return new Uint8ClampedArray(free, 0, length).fill(0);
    }
    // None fits: free ones, too small, make room for this one beside those lent in this strip.
    if (!this.surfaces.makeRoom(this.lentBytes + length, 0)) {
      const surface = new Uint8ClampedArray(length);
      this.unpooled.push(surface);
      return surface;
    }
    const buffer = new ArrayBuffer(Math.min(this.poolBytes - this.surfaces.bytes - this.lentBytes, withSpare(length)));
    this.lent.push(buffer);
    this.lentBytes += buffer.byteLength;
    return new Uint8ClampedArray(buffer, 0, length);
  }

  /**
   * A surface `surface` gave, done with before its strip ends (blended, and kept by nobody): its
   * buffer goes back to the pool for the strip's next layers, or is freed when the pool did not
   * lend it. A strip of large-poster-6000x4000's print PDF held all nine layers' surfaces until
   * it ended, one or two of them at a time when each goes back once blended (issue 25 §1).
   * Anything else (an array it did not lend, or one already back) is left as it is.
   */
  giveBack(array: ArrayBufferView | null | undefined): void {
    const buffer = array?.buffer;
    if (!buffer) return;
    const at = this.lent.indexOf(buffer as ArrayBuffer);
    if (at >= 0) {
      this.lent.splice(at, 1);
      this.lentBytes -= buffer.byteLength;
      this.surfaces.give(buffer);
      return;
    }
    const own = this.unpooled.findIndex((s) => s.buffer === buffer);
    if (own >= 0) freeNow(this.unpooled.splice(own, 1));
  }

  /** A new strip begins: the surfaces of the last one are done with (its rows were copied out). */
  nextStrip(): void {
    for (const buffer of this.lent.splice(0)) this.surfaces.give(buffer);
    this.lentBytes = 0;
    freeNow(this.unpooled.splice(0));
  }

  /**
   * Blob `key` (inflating to `bytes`) whole, in the kept 'band' buffer: inflated only when that
   * does not hold it already (the strips of a page that fall in one band inflate it once), and
   * read from R2 only when its stored bytes are not kept (`packed`).
   */
  async band(key: string, bytes: number, bucket: R2Bucket, compiled?: CompiledTemplate): Promise<Uint8Array | null> {
    if (this.bandKey === key) return this.bytes('band', bytes + 1).subarray(0, bytes);
    this.bandKey = undefined;
    const held = this.packed.get(key);
    const packed = held ?? (await getPacked(bucket, key, compiled));
    if (!packed) return null;
    const data = inflateBlobInto(packed, bytes, this.bytes('band', bytes + 1));
    this.bandKey = key;
    if (held) {
      // The most recently read now: freed last.
      this.packed.delete(key);
      this.packed.set(key, held);
    } else this.keepPacked(key, packed);
    return data;
  }

  /**
   * The stored bytes of the blobs `band` read, the last one of each layer's level (its key less
   * the band): two layers in the same rows take the one band buffer in turn, and each read its
   * band from R2 again for every strip. large-poster-6000x4000's first print PDF read 57 MB for
   * 25 MB of blobs, and workerd's process grew with what went through its R2 reads (issue 25 §1).
   * At most PACKED_BYTES in all, the least recently read freed first.
   */
  private readonly packed = new Map<string, Uint8Array>();
  private packedBytes = 0;

  /** The band each layer's kept buffer holds (by its key less the band), and their bytes in all. */
  private readonly layerBands = new Map<string, string>();
  private layerBandsHeld = 0;

  /**
   * Blob `key` (inflating to `bytes`, within the band cache's entry limit) whole, in a buffer kept
   * for its layer's level (its key less the band), or null when those buffers would pass
   * layerBandBytes (the band cache's then). A print page reads each band of its layers once, top
   * to bottom: the band cache kept them all for the page's length (10.8 MB of small layers' bands
   * for large-poster-6000x4000's first PDF, beside its strips), where one band a layer serves.
   * Good until the layer's next band is read.
   */
  async layerBand(key: string, bytes: number, bucket: R2Bucket, compiled?: CompiledTemplate): Promise<Uint8Array | null> {
    const layer = key.slice(0, key.lastIndexOf('/') + 1);
    const use = `band ${layer}`;
    const held = this.kept.get(use)?.byteLength ?? 0;
    if (this.layerBands.get(layer) === key) {
      // The most recently read now: its buffer is taken last (takeLeastRecent).
      this.layerBands.delete(layer);
      this.layerBands.set(layer, key);
      return this.bytes(use, bytes + 1).subarray(0, bytes);
    }
    const grows = Math.max(0, withSpare(bytes + 1) - held);
    if (held < bytes + 1 && this.layerBandsHeld + grows > this.layerBandBytes && !this.takeLeastRecent(use, bytes + 1)) return null;
    this.layerBands.delete(layer);
    const packed = await getPacked(bucket, key, compiled);
    if (!packed) return null;
    const before = this.kept.get(use)?.byteLength ?? 0;
    const into = this.bytes(use, bytes + 1);
    this.layerBandsHeld += (this.kept.get(use)?.byteLength ?? 0) - before;
    try {
      const data = inflateBlobInto(packed, bytes, into);
      this.layerBands.set(layer, key);
      return data;
    } finally {
      freeNow([packed]);
    }
  }

  /**
   * Room for `use`'s band of `length` bytes when layerBandBytes are all held: the buffer of the
   * layer read least recently whose size fits it (from `length` to twice that) becomes `use`'s, or
   * else the least recently read layers' buffers are freed until `use`'s fits (those layers read
   * their band again if they need it: a page's strips go down it, so they are most likely done).
   * Without it, every layer past the first few MB read its bands through the band cache, which
   * let them go to the collector: probe layers-1000's print PDF (1,000 small layers on 4,000²)
   * made 47 MB of them, and workerd's process grew by all of it (issue 25 §1). False when even
   * then it would not fit (the band cache's then).
   */
  private takeLeastRecent(use: string, length: number): boolean {
    for (const layer of this.layerBands.keys()) {
      const from = `band ${layer}`;
      const buffer = this.kept.get(from);
      if (from === use || !buffer || buffer.byteLength < length || buffer.byteLength > 2 * withSpare(length)) continue;
      const own = this.kept.get(use);
      if (own) {
        this.layerBandsHeld -= own.byteLength;
        freeNow([new Uint8Array(own)]);
      }
      this.kept.delete(from);
      this.kept.set(use, buffer);
      this.layerBands.delete(layer);
      return true;
    }
    if (withSpare(length) > this.layerBandBytes) return false; // no room would hold it
    const grows = withSpare(length) - (this.kept.get(use)?.byteLength ?? 0);
    for (const layer of [...this.layerBands.keys()]) {
      if (this.layerBandsHeld + grows <= this.layerBandBytes) break;
      const from = `band ${layer}`;
      const buffer = this.kept.get(from);
      if (from === use || !buffer) continue;
      this.layerBands.delete(layer);
      this.kept.delete(from);
      this.layerBandsHeld -= buffer.byteLength;
      freeNow([new Uint8Array(buffer)]);
    }
    return this.layerBandsHeld + grows <= this.layerBandBytes;
  }

  private keepPacked(key: string, packed: Uint8Array): void {
    // The layer's band before this one is read no more (a page's strips go down it in order).
    const layer = key.slice(0, key.lastIndexOf('/') + 1);
    for (const other of [...this.packed.keys()]) if (other.startsWith(layer) && other.lastIndexOf('/') === layer.length - 1) this.forget(other);
    if (packed.byteLength > PACKED_BYTES) return freeNow([packed]);
    while (this.packedBytes + packed.byteLength > PACKED_BYTES) this.forget(this.packed.keys().next().value!);
    this.packed.set(key, packed);
    this.packedBytes += packed.byteLength;
  }

  private forget(key: string): void {
    const packed = this.packed.get(key)!;
    this.packed.delete(key);
    this.packedBytes -= packed.byteLength;
    freeNow([packed]);
  }

  bytes(use: string, length: number): Uint8Array {
    return new Uint8Array(this.buffer(use, length), 0, length);
  }

  /**
   * Frees every buffer it holds now (./free.ts), kept and pooled, lent or not: once the frame is
   * coded and nothing reads them. Without it they stay until V8 next collects, and the request
   * after this one (a second upload after the 10,000² template's 5,000² preview, ~10 MB of them)
   * cannot reuse their pages (docs/memory.md). It can still be used after: it makes new ones.
   */
  release(): void {
    freeNow([...this.kept.values(), ...this.surfaces.clear(), ...this.lent.splice(0)].map((buffer) => new Uint8Array(buffer)));
    freeNow(this.unpooled.splice(0));
    this.kept.clear();
    this.lentBytes = 0;
    this.bandKey = undefined;
    for (const key of [...this.packed.keys()]) this.forget(key);
    this.layerBands.clear();
    this.layerBandsHeld = 0;
  }

  clamped(use: string, length: number): Uint8ClampedArray {
    return new Uint8ClampedArray(this.buffer(use, length), 0, length);
  }

  private buffer(use: string, length: number): ArrayBuffer {
    let buffer = this.kept.get(use);
    if (!buffer || buffer.byteLength < length) {
      buffer = new ArrayBuffer(withSpare(length));
      this.kept.set(use, buffer);
    }
    return buffer;
  }
}

export interface Pixels {
  /**
   * May be the isolate's cached band itself: read it, never write it. Read through `buffers`,
   * it may be their 'band rows' buffer: good until the next read through them.
   */
  data: Uint8Array;
  /** Coverage in level coordinates. */
  bounds: Bounds;
}

/**
 * A layer's pixels at pyramid level `level`, only the bands covering level rows [rows.top,
 * rows.bottom) when given. Null when the layer has none there.
 */
export async function loadLayerPixels(
  bucket: R2Bucket,
  compiled: CompiledTemplate,
  node: LayerNode,
  level: number,
  rows?: { top: number; bottom: number },
  buffers?: StripBuffers,
): Promise<Pixels | null> {
  if (!node.hasPixels || !node.pixelBounds) return null;
  return loadBands(bucket, compiled, levelBounds(node.pixelBounds, level), 4, rows, (b) => pixelKey(compiled.hash, node.id, level, b), buffers);
}

export async function loadMaskPixels(
  bucket: R2Bucket,
  compiled: CompiledTemplate,
  node: LayerNode,
  level: number,
  rows?: { top: number; bottom: number },
  buffers?: StripBuffers,
): Promise<Pixels | null> {
  if (!node.mask?.hasPixels) return null;
  return loadBands(bucket, compiled, levelBounds(node.mask.bounds, level), 1, rows, (b) => maskKey(compiled.hash, node.id, level, b), buffers);
}

async function loadBands(
  bucket: R2Bucket,
  compiled: CompiledTemplate,
  full: Bounds,
  channels: number,
  rows: { top: number; bottom: number } | undefined,
  key: (band: number) => string,
  buffers?: StripBuffers,
): Promise<Pixels | null> {
  const top = Math.max(full.top, rows?.top ?? full.top);
  const bottom = Math.min(full.bottom, rows?.bottom ?? full.bottom);
  if (bottom <= top) return null;
  const bands = bandsFor(top, bottom);
  const bounds = { left: full.left, right: full.right, top: Math.max(full.top, bands[0] * BAND), bottom: Math.min(full.bottom, (bands[bands.length - 1] + 1) * BAND) };
  const stride = (full.right - full.left) * channels;
  if (bands.length === 1) {
    const bytes = (bounds.bottom - bounds.top) * stride;
    // A band too big for the band cache, read for a frame's strips: inflated whole into the
    // strips' kept band buffer, once for the strips that fall in it.
    if (bytes > bandCache.maxEntryBytes && buffers) {
      const data = await buffers.band(key(bands[0]), bytes, bucket, compiled);
      if (!data) throw new Error(`compiled template: ${key(bands[0])} missing`);
      return { data, bounds };
    }
    // A band too big for the band cache is inflated anew for every strip that reads it: only
    // the rows asked for are kept (the same pixels, in rows [top, bottom) of `bounds`).
    if (bytes > bandCache.maxEntryBytes && (top > bounds.top || bottom < bounds.bottom)) {
      const [start, end] = [(top - bounds.top) * stride, (bottom - bounds.top) * stride];
      const data = await getBlobRange(bucket, key(bands[0]), bytes, start, end, buffers?.bytes('band rows', end - start));
      if (!data) throw new Error(`compiled template: ${key(bands[0])} missing`);
      return { data, bounds: { ...bounds, top, bottom } };
    }
    // One band (a small pyramid level): the cached band is the answer, no copy; or the layer's
    // own kept buffer (smallBand).
    return { data: await smallBand(bucket, compiled, key(bands[0]), bytes, buffers), bounds };
  }
  if (buffers) {
    // Read through a frame's strip buffers: the rows asked for (not the whole bands), joined in
    // their kept 'band rows' buffer, a band too big for the band cache inflated first into their
    // kept 'band' buffer (StripBuffers.band: the next strip, which starts in the band this one
    // ends in, does not inflate it again). One band after the other: one 'band' buffer. Without
    // them, each strip of bench-8000's 5,000² preview (its 8,000 px wide layers resampled from
    // level 0, two or three 8 MB bands a strip) made a new join and a new array for each band,
    // left to the collector: under a 128 MB limit, workerd was killed (issue 25 §1).
    const data = buffers.bytes('band rows', (bottom - top) * stride);
    for (const b of bands) {
      const bandTop = Math.max(full.top, b * BAND);
      const bandBottom = Math.min(full.bottom, (b + 1) * BAND);
      const bytes = (bandBottom - bandTop) * stride;
      const part = bytes > bandCache.maxEntryBytes ? await buffers.band(key(b), bytes, bucket, compiled) : await smallBand(bucket, compiled, key(b), bytes, buffers);
      if (!part) throw new Error(`compiled template: ${key(b)} missing`);
      const [from, to] = [Math.max(top, bandTop), Math.min(bottom, bandBottom)];
      data.set(part.subarray((from - bandTop) * stride, (to - bandTop) * stride), (from - top) * stride);
    }
    return { data, bounds: { ...bounds, top, bottom } };
  }
  const length = (bounds.bottom - bounds.top) * stride;
  const data = new Uint8Array(length);
  await Promise.all(
    bands.map(async (b) => {
      const bandTop = Math.max(full.top, b * BAND);
      const bandBottom = Math.min(full.bottom, (b + 1) * BAND);
      const part = await getBand(bucket, compiled, key(b), (bandBottom - bandTop) * stride);
      data.set(part, (bandTop - bounds.top) * stride);
    }),
  );
  return { data, bounds };
}

/**
 * A band the band cache could hold, read for a frame's strips: in the layer's own kept buffer
 * (when they have room: StripBuffers.layerBand) unless the cache has it, not the band cache. A
 * print page's strips, and a streamed preview's: bench-8000's 5,000² preview made 35 MB of small
 * layers' and masks' bands a request through the 16 MB cache, read top to bottom so none was read
 * from it again, and what it let go was left to the collector: under a 128 MB limit without a
 * collection, a second such request on the same runtime grew by 25–40 MB (issue 25 §1).
 */
async function smallBand(bucket: R2Bucket, compiled: CompiledTemplate, key: string, bytes: number, buffers?: StripBuffers): Promise<Uint8Array> {
  const own = buffers && !bandCache.get(key) && (await buffers.layerBand(key, bytes, bucket, compiled));
  return own || getBand(bucket, compiled, key, bytes);
}

/**
 * One inflated band, from the isolate's band cache or R2 (its own object or its pack; cached
 * afterwards). Never mutate it.
 */
async function getBand(bucket: R2Bucket, compiled: CompiledTemplate, key: string, bytes: number): Promise<Uint8Array> {
  const held = bandCache.get(key);
  if (held) return held;
  const part = await getBlob(bucket, key, bytes, compiled);
  if (!part) throw new Error(`compiled template: ${key} missing`);
  bandCache.set(key, part, part.byteLength);
  return part;
}

/**
 * A document pattern's pixels by pattern id, or null when the template has no such pattern. Kept
 * in the isolate's band cache like a layer's bands (its key is the template's content): a pattern
 * overlay read it from R2 and inflated it on every request, which was most of a personalised
 * text's time under one (psdtools-layer-effects-all "Pattern Overlay": ~25 of 38 ms in Node).
 * Never mutate it (tilePattern only reads).
 */
export async function loadPattern(bucket: R2Bucket, compiled: CompiledTemplate, id: string) {
  const p = compiled.patterns?.find((q) => q.id === id);
  if (!p) return null;
  const bytes = p.width * p.height * 4;
  let data: Uint8Array | null | undefined = bandCache.get(p.key);
  if (!data) {
    data = await getBlob(bucket, p.key, bytes);
    if (data) bandCache.set(p.key, data, data.byteLength);
  }
  return data && { width: p.width, height: p.height, data: new Uint8ClampedArray(data.buffer, data.byteOffset, data.byteLength) };
}

/** Photoshop's own composite (RGBA, full size), when the compiled template kept one. */
export async function loadStoredComposite(bucket: R2Bucket, compiled: CompiledTemplate): Promise<Uint8Array | null> {
  if (!compiled.compositeKey) return null;
  return getBlob(bucket, compiled.compositeKey, compiled.width * compiled.height * 4);
}
