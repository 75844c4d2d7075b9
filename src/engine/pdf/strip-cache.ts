/**
 * Encoded PDF strips of a template drawn without overrides, kept for reuse (docs/pdf.md,
 * "Reused strips"). A strip whose rows a request's overrides cannot reach (dirtyBounds) is that
 * strip byte for byte, whichever request rendered it, so it is content-addressed like the
 * engine's other caches: the key carries the compiled template's hash (PSD bytes + engine
 * version), the writer version and the strip geometry, never anything from the request.
 *
 * Two tiers: a small per-isolate LRU, then R2 under the compiled template's prefix
 * (`compiled/<hash>/pdf-strips/…`, deleted with the compiled template).
 */
import { ByteLru, MB } from '../cache/lru';
import { RENDER_VERSION } from '../composite/version';
import { getBlob, putBlob } from '../compiled/blob';
import { freeNow } from '../compiled/free';
import { ENGINE_VERSION } from '../compiled/compile';
import { prefix } from '../compiled/store';
import { sha256Hex } from '../hash';
import type { BackdropStore } from '../composite/context';
import type { CompiledTemplate } from '../types';
import type { EncodedStrip, ImagePart } from './image';
import { PDF_WRITER_VERSION } from './version';

/** Where a strip sits on its page: page size, rows per strip, first row. */
export interface StripGeometry {
  width: number;
  height: number;
  rowsPerStrip: number;
  top: number;
  /** CMYK or grey output: names the ink conversion (RGB strips have none). */
  ink?: string;
}

/** A strip as written: `rows` drawn (its rows, plus the seam row when added); null when fully transparent. */
export interface StoredStrip {
  rows: number;
  encoded: EncodedStrip | null;
}

/** What writePage asks of a page's strip cache. */
export interface StripCache {
  /** Whether template rows [top, bottom) may differ from the template drawn without overrides. */
  dirty(top: number, bottom: number): boolean;
  get(g: StripGeometry): Promise<StoredStrip | null>;
  put(g: StripGeometry, strip: StoredStrip): Promise<void>;
  /**
   * Whether the isolate keeps `strip`, put under `g` (its arrays are then read later): one it
   * does not keep is read no more once written and put (put copies it before its first await).
   */
  held?(g: StripGeometry, strip: StoredStrip): boolean;
  /**
   * While a page's strips are written (until the call returned): the isolate keeps no more of
   * them than it held before, its R2 copies serving later requests.
   */
  hold?(): () => void;
}

/**
 * Encoded strips held by this isolate (a 4000² flat page is ~25 KB a strip; photographic JPEG
 * strips are larger, up to ~2 MB each at 12 MB of RGBA).
 */
export const stripLru = new ByteLru<StoredStrip>(8 * MB, 2 * MB);

/**
 * `hidden`: which layers the stored strips leave out (the layers every PDF of the template draws
 * as vector; `hiddenLayersKey`), so strips drawn from different bases never mix.
 */
export function stripKey(hash: string, g: StripGeometry, hidden: string): string {
  const engine = ENGINE_VERSION.replace(/[^\w.-]/g, '_');
  return `${prefix(hash)}pdf-strips/${engine}/r${RENDER_VERSION}/w${PDF_WRITER_VERSION}/${hidden}/${g.width}x${g.height}/${g.rowsPerStrip}/${g.top}${g.ink ? `/${g.ink.replace(/[^\w.-]/g, '_')}` : ''}`;
}

/** Key part naming a set of hidden layer ids: `h-` and a hash of the sorted ids, or `h-none`. */
export async function hiddenLayersKey(ids: number[]): Promise<string> {
  if (!ids.length) return 'h-none';
  return `h-${(await sha256Hex([...ids].sort((a, b) => a - b).join(','))).slice(0, 16)}`;
}

/**
 * The strip cache of one page of `compiled` drawn over the base `hidden` names (template without
 * overrides, those layers hidden); the page's overrides can change rows [dirtyTop, dirtyBottom)
 * of it (null: none).
 */
export function templateStrips(
  bucket: R2Bucket,
  compiled: CompiledTemplate,
  dirtyRows: { top: number; bottom: number } | null,
  hidden: string,
): StripCache {
  const keyOf = (g: StripGeometry) => stripKey(compiled.hash, g, hidden);
  return {
    dirty: (top, bottom) => dirtyRows !== null && top < dirtyRows.bottom && bottom > dirtyRows.top,
    async get(g) {
      const key = keyOf(g);
      const held = stripLru.get(key);
      if (held) return held;
      const obj = await bucket.get(key);
      if (!obj) return null;
      const strip = decodeStoredStrip(new Uint8Array(await obj.arrayBuffer()), g);
      if (strip) stripLru.set(key, strip, storedBytes(strip));
      return strip;
    },
    async put(g, strip) {
      const key = keyOf(g);
      stripLru.set(key, strip, storedBytes(strip));
      const bytes = encodeStoredStrip(strip);
      try {
        await bucket.put(key, bytes);
      } finally {
        freeNow([bytes]); // stored: a copy of the strip's parts, read no more (issue 25 §1)
      }
    },
    held: (g, strip) => stripLru.peek(keyOf(g)) === strip,
    // The poster's first PDF put its 23 encoded strips (4.4 MB) into stripLru beside its own
    // working set, for later requests (issue 25 §1): new strips now displace older ones only.
    hold: () => stripLru.hold(stripLru.size),
  };
}

const storedBytes = (s: StoredStrip) => 64 + (s.encoded?.image.data.byteLength ?? 0) + (s.encoded?.smask?.data.byteLength ?? 0);

interface Header {
  rows: number;
  kind?: EncodedStrip['kind'];
  width?: number;
  height?: number;
  image?: Omit<ImagePart, 'data'> & { length: number };
  smask?: Omit<ImagePart, 'data'> & { length: number };
}

/** R2 object: u32 header length (big-endian), JSON header, image data, soft-mask data. */
export function encodeStoredStrip(s: StoredStrip): Uint8Array {
  const e = s.encoded;
  const meta = (p: ImagePart) => ({ filter: p.filter, colors: p.colors, predictor: p.predictor, length: p.data.byteLength });
  const header: Header = e
    ? { rows: s.rows, kind: e.kind, width: e.width, height: e.height, image: meta(e.image), smask: e.smask && meta(e.smask) }
    : { rows: 0 };
  const head = new TextEncoder().encode(JSON.stringify(header));
  const parts = e ? [e.image.data, ...(e.smask ? [e.smask.data] : [])] : [];
  const out = new Uint8Array(4 + head.length + parts.reduce((n, p) => n + p.byteLength, 0));
  new DataView(out.buffer).setUint32(0, head.length);
  out.set(head, 4);
  let at = 4 + head.length;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

/** The strip stored by encodeStoredStrip, or null when the bytes do not fit `g` (treated as a miss). */
export function decodeStoredStrip(bytes: Uint8Array, g: StripGeometry): StoredStrip | null {
  try {
    const n = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(0);
    const h = JSON.parse(new TextDecoder().decode(bytes.subarray(4, 4 + n))) as Header;
    if (!h.image) return h.rows === 0 ? { rows: 0, encoded: null } : null;
    let at = 4 + n;
    const part = (m: NonNullable<Header['image']>): ImagePart => {
      const data = bytes.subarray(at, at + m.length);
      at += m.length;
      return { filter: m.filter, colors: m.colors, predictor: m.predictor, data };
    };
    const image = part(h.image);
    const smask = h.smask ? part(h.smask) : undefined;
    if (at !== bytes.byteLength || h.width !== g.width || h.height !== h.rows || !h.kind) return null;
    return { rows: h.rows, encoded: { kind: h.kind, width: h.width, height: h.height, image, smask } };
  } catch {
    return null;
  }
}

/**
 * Full-resolution backdrops of dirty strips (the template's units below the lowest overridden
 * one), kept in R2 deflated: a personalised page then draws only the overridden units and what
 * lies above them. Too big for the isolate's backdrop cache at print sizes, and kept out of it.
 */
export function persistedBackdrops(bucket: R2Bucket): BackdropStore {
  return {
    get: (key, bytes) => getBlob(bucket, key, bytes).catch(() => null),
    set: (key, data) => putBlob(bucket, key, new Uint8Array(data.buffer, data.byteOffset, data.byteLength)).catch(() => undefined),
  };
}

/** Keeps no backdrop (clean strips: their encoded strip is what is kept). */
export const noBackdrops: BackdropStore = { get: async () => null, set: async () => undefined };
