/**
 * Small blobs of a compiled template stored together, a few R2 objects ("packs") instead of one
 * each (issue 25 §1). A template of 1,000 layers of 150 × 100 px made 5,683 puts at upload (each
 * layer's five pyramid levels one object each) and its 4,000² preview 1,397 gets: in production
 * each R2 call is a subrequest with its own latency (a paid Worker may make 10,000 a request), and
 * under the R2 simulator each left ~60 KB of the runtime's memory behind.
 *
 * A blob goes into a pack when its stored (deflated) bytes are at most PACKED_BLOB_BYTES and it
 * inflates to what the band cache may keep (so it is only ever read whole: getBand or
 * StripBuffers.layerBand, never by range). A pack holds the blobs of one pyramid level and one
 * band of rows (`<level>/<band>`: level rows [band·256, (band+1)·256), the same rows for every
 * layer), so a strip reads the packs of the rows it covers and a preview at level k only level
 * k's. Layers, patterns, the composite and big bands are stored as before (./store.ts).
 */
import { bandCache, packCache } from '../cache';
import type { CompiledTemplate } from '../types';
import { freeNow } from './free';

/** The most stored bytes of a blob that goes into a pack. */
export const PACKED_BLOB_BYTES = 64 * 1024;
/** A pending pack is written once it holds this many bytes. */
export const PACK_BYTES = 1024 * 1024;
/** The most bytes a compile's pending packs hold in all: past it, the fullest is written as it is. */
export const PENDING_PACK_BYTES = 4 * 1024 * 1024;

/** Whether a blob inflating to `inflated` bytes and stored in `stored` bytes goes into a pack. */
export const packable = (inflated: number, stored: number) => inflated <= bandCache.maxEntryBytes && stored <= PACKED_BLOB_BYTES;

/**
 * Pack keys under a template's prefix: `pack/<level>/<band>/<n>`, and `-<digest>` (8 hex digits of
 * its bytes' SHA-256) when the writer names its packs by their bytes (compile.ts). Two uploads of
 * one file compile at once, each writing its packs and then its tree: a tree read with the other
 * compile's pack under the same key is right only while both wrote the same bytes in the same
 * order. Should they ever differ (a runtime whose deflate changed between them), a pack of another
 * length would be "missing" for good (the tree stands, and no compile runs again), one of the same
 * length the wrong pixels. Named by their bytes, packs of the same bytes are one object, as before,
 * and others another (review, session 28).
 */
const packName = (group: string, n: number) => `pack/${group}/${n}`;

async function digestName(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return [...digest.subarray(0, 4)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

interface Pending {
  buffer: Uint8Array;
  length: number;
  /** `key:length` of each blob in it, keys under the prefix. */
  blobs: string[];
}

/**
 * A compile's packs: blobs added to the pending pack of their group (copied, so the caller's
 * array is free at once), each pack handed to `write` once full, the rest by `finish`. `packs`
 * is what the tree records (CompiledTemplate.packs).
 */
export class PackWriter {
  readonly packs: NonNullable<CompiledTemplate['packs']> = [];
  private readonly pending = new Map<string, Pending>();
  private pendingBytes = 0;
  private readonly next = new Map<string, number>();
  /** Group of each blob still in a pending pack, by its key under the prefix (shorter than the full key). */
  private readonly pendingKeys = new Map<string, string>();

  constructor(
    /** The template's prefix (compiled/<hash>/): keys are recorded under it. */
    private readonly prefix: string,
    /** Writes a full pack (its full key); `release` once its bytes are written. */
    private readonly write: (key: string, packed: { bytes: Uint8Array; release: () => void }) => Promise<void>,
    /** Whether each pack's key ends in a digest of its bytes (packName). */
    private readonly byDigest = false,
  ) {}

  /**
   * Copies blob `key`'s stored bytes into the pending pack of `group` (`<level>/<band>`). Returns
   * the write of the pack this filled, if any (or of the fullest, past PENDING_PACK_BYTES).
   */
  add(group: string, key: string, stored: Uint8Array): Promise<void> | undefined {
    let p = this.pending.get(group);
    if (!p) {
      this.pending.set(group, (p = { buffer: new Uint8Array(Math.max(16 * 1024, stored.length)), length: 0, blobs: [] }));
      this.pendingBytes += p.buffer.length;
    }
    if (p.length + stored.length > p.buffer.length) {
      // Grown by doubling up to a full pack (one blob may pass it): the old array is freed now.
      const grown = new Uint8Array(Math.max(p.length + stored.length, Math.min(2 * p.buffer.length, PACK_BYTES + PACKED_BLOB_BYTES)));
      grown.set(p.buffer.subarray(0, p.length));
      freeNow([p.buffer]);
      this.pendingBytes += grown.length - p.buffer.length;
      p.buffer = grown;
    }
    p.buffer.set(stored, p.length);
    p.length += stored.length;
    const name = key.slice(this.prefix.length);
    p.blobs.push(`${name}:${stored.length}`);
    this.pendingKeys.set(name, group);
    if (p.length >= PACK_BYTES) return this.flush(group);
    if (this.pendingBytes > PENDING_PACK_BYTES) {
      let fullest = group;
      for (const [g, q] of this.pending) if (q.length > this.pending.get(fullest)!.length) fullest = g;
      return this.flush(fullest);
    }
    return undefined;
  }

  /**
   * Takes blobs back (a layer found fully transparent once written): those at the end of their
   * pending pack are cut from it; one in a pack already written stays there, unread (rare: a
   * pack filled while the layer was written). Returns the keys it did not hold (stored alone).
   */
  drop(keys: string[]): string[] {
    const alone: string[] = [];
    for (const key of [...keys].reverse()) {
      const name = key.slice(this.prefix.length);
      const group = this.pendingKeys.get(name);
      const p = group === undefined ? undefined : this.pending.get(group);
      const last = p?.blobs[p.blobs.length - 1];
      if (p && last?.startsWith(`${name}:`)) {
        p.blobs.pop();
        p.length -= Number(last.slice(last.lastIndexOf(':') + 1));
        this.pendingKeys.delete(name);
      } else if (group === undefined && !this.written.has(name)) alone.push(key);
    }
    return alone.reverse();
  }

  /** Blobs in packs already written, by key under the prefix. */
  private readonly written = new Set<string>();

  /** Writes every pending pack (in the order their groups began); `packs` is complete once it resolves. */
  async finish(): Promise<void> {
    for (const group of [...this.pending.keys()]) await this.flush(group);
  }

  private flush(group: string): Promise<void> | undefined {
    const p = this.pending.get(group)!;
    this.pending.delete(group);
    this.pendingBytes -= p.buffer.length;
    for (const entry of p.blobs) {
      const blob = entry.slice(0, entry.lastIndexOf(':'));
      this.pendingKeys.delete(blob);
      this.written.add(blob);
    }
    if (!p.length) {
      freeNow([p.buffer]);
      return undefined;
    }
    const n = this.next.get(group) ?? 0;
    this.next.set(group, n + 1);
    const entry = { key: packName(group, n), blobs: p.blobs.join(' ') };
    this.packs.push(entry); // in the order packs are made, whenever their digests come
    const packed = { bytes: p.buffer.subarray(0, p.length), release: () => freeNow([p.buffer]) };
    if (!this.byDigest) return this.write(this.prefix + entry.key, packed);
    return digestName(packed.bytes).then((digest) => {
      entry.key += `-${digest}`;
      return this.write(this.prefix + entry.key, packed);
    });
  }

  /** Frees the pending packs' arrays (a compile that failed). */
  release(): void {
    freeNow([...this.pending.values()].map((p) => p.buffer));
    this.pending.clear();
    this.pendingBytes = 0;
  }
}

/** A pack of a compiled tree: its full key and its length (a pack of another length is not the one written). */
interface Pack {
  key: string;
  length: number;
}

/** Where a packed blob's stored bytes are. */
interface Where {
  pack: Pack;
  offset: number;
  length: number;
}

/**
 * Each compiled tree's packed blobs by key under its prefix, made when first read. Kept beside
 * the tree (treeCache counts only its text): one full key string per pack, not per blob, and the
 * blobs' keys sliced from the tree's own strings (~680 KB for 5,700 blobs, was ~1.1 MB; review).
 */
const indexes = new WeakMap<CompiledTemplate, Map<string, Where>>();

function indexOf(compiled: CompiledTemplate): Map<string, Where> | undefined {
  if (!compiled.packs?.length) return undefined;
  let index = indexes.get(compiled);
  if (index) return index;
  index = new Map();
  const prefix = `compiled/${compiled.hash}/`;
  for (const p of compiled.packs) {
    const entries = p.blobs.split(' ');
    const pack: Pack = { key: prefix + p.key, length: 0 };
    for (const entry of entries) pack.length += Number(entry.slice(entry.lastIndexOf(':') + 1));
    let offset = 0;
    for (const entry of entries) {
      const at = entry.lastIndexOf(':');
      const length = Number(entry.slice(at + 1));
      index.set(entry.slice(0, at), { pack, offset, length });
      offset += length;
    }
  }
  indexes.set(compiled, index);
  return index;
}

/**
 * The stored bytes of blob `key` when it is in one of `compiled`'s packs: a copy of its slice of
 * the pack (the caller's own, to free), or null when the pack is missing or is not the one
 * written (its length differs): the caller then answers as for a missing blob. Undefined when the
 * blob is not packed (it is an object of its own).
 */
export async function packedBlob(bucket: R2Bucket, compiled: CompiledTemplate, key: string): Promise<Uint8Array | null | undefined> {
  const prefix = `compiled/${compiled.hash}/`;
  const where = key.startsWith(prefix) ? indexOf(compiled)?.get(key.slice(prefix.length)) : undefined;
  if (!where) return undefined;
  const pack = await loadPack(bucket, where.pack.key);
  if (!pack || pack.length !== where.pack.length) return null;
  return pack.slice(where.offset, where.offset + where.length);
}

/** Packs being read, by key: the layers of one strip read the same packs at once. */
const loading = new Map<string, Promise<Uint8Array | null>>();

/**
 * A pack's bytes, from the isolate's pack cache or R2 (cached afterwards). Never freed when let
 * go (a reader may still copy from it): left to the collector.
 */
function loadPack(bucket: R2Bucket, key: string): Promise<Uint8Array | null> {
  const held = packCache.get(key);
  if (held) return Promise.resolve(held);
  let pending = loading.get(key);
  if (!pending) {
    pending = (async () => {
      try {
        const obj = await bucket.get(key);
        if (!obj) return null;
        const bytes = new Uint8Array(await obj.arrayBuffer());
        packCache.set(key, bytes, bytes.byteLength);
        return bytes;
      } finally {
        loading.delete(key);
      }
    })();
    loading.set(key, pending);
  }
  return pending;
}
