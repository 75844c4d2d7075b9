/**
 * A stream of unknown length written into one R2 object as it arrives (issue 25 §1: uploads
 * stream into R2, processing reads from R2). R2's put wants a known length, so a stream that
 * turns out larger than one part becomes an R2 multipart upload of equal 8 MiB parts; a smaller
 * one is a single put. Shared by the platform's staging (src/platform/assets/blobs.ts) and the
 * Dynamic Image uploads (src/dynamic-image/staging.ts).
 */
import { freeNow } from '../engine/compiled/free';

/** R2 multipart parts: every part but the last has exactly this size (R2 wants them equal and ≥ 5 MiB). */
export const PART_BYTES = 8 * 1024 * 1024;
/** How many first bytes are kept for sniffing the content. */
export const HEAD_BYTES = 64 * 1024;

export interface StreamedObject {
  size: number;
  /** The first HEAD_BYTES bytes (for sniffing). */
  head: Uint8Array;
  /** The whole content, when `keep` asked for it: then nothing was written. */
  kept?: Uint8Array;
}

export interface StreamOptions {
  /** Past this many bytes `tooLarge()` is thrown (and the multipart upload aborted). */
  limit: number;
  tooLarge: () => Error;
  /** Sees every chunk in order before it is written (hashes); may be async. */
  onChunk?: (chunk: Uint8Array) => void | Promise<void>;
  /** Decided from the first 16 bytes: hold the whole content in memory and write nothing. */
  keep?: (head: Uint8Array) => boolean;
  /**
   * The stream's chunks are views whose buffers nothing else reads once a later buffer has come
   * (src/http/multipart.ts's file parts): written ones are freed even when they are not whole
   * buffers. Otherwise only chunks that are their buffer whole are (fetch and request bodies).
   */
  ownedViews?: boolean;
  /**
   * Content of at most this many bytes is held in memory and nothing written (`kept`); beyond it
   * everything goes to R2 as usual. Writing a small file to R2 only to read it back costs more
   * than holding it (the local R2 simulator's memory above all: docs/memory.md).
   */
  holdUpTo?: number;
  /** The object's HTTP metadata (content type). */
  httpMetadata?: R2HTTPMetadata;
}

/**
 * Reads `stream` to its end into `key` (or into memory, see `keep`). On any error nothing is left
 * at `key`: the multipart upload is aborted (a single put happens only at the end, once all is read).
 */
export async function streamIntoR2(bucket: R2Bucket, key: string, stream: ReadableStream<Uint8Array>, options: StreamOptions): Promise<StreamedObject> {
  const reader = stream.getReader();
  let kept: Uint8Array[] | undefined;
  let decided = false;
  const pending: Uint8Array[] = [];
  let pendingBytes = 0;
  let size = 0;
  let head = new Uint8Array(0);
  let upload: R2MultipartUpload | undefined;
  const parts: R2UploadedPart[] = [];
  /**
   * The first `length` pending bytes as one array (an R2 part); the chunks they came from are
   * given back at once (engine/compiled/free.ts: V8 would keep them until its next collection,
   * and a 100 MB upload's would pile up in the runtime's memory), except the newest chunk's
   * buffer, which its producer may still be reading from (the multipart reader's current array).
   */
  const take = (length: number) => {
    // One chunk that is all of it (a body read whole, its file part a view) goes as it is.
    if (pending.length === 1 && pending[0]!.byteLength === length) {
      pendingBytes -= length;
      return pending.shift()!;
    }
    if (length === 0) return new Uint8Array(0);
    const out = new Uint8Array(length);
    let at = 0;
    const done: Uint8Array[] = [];
    while (at < length) {
      const p = pending[0]!;
      const n = Math.min(p.byteLength, length - at);
      out.set(p.subarray(0, n), at);
      at += n;
      if (n === p.byteLength) done.push(pending.shift()!);
      else pending[0] = p.subarray(n);
    }
    pendingBytes -= length;
    const newest = lastBuffer;
    freeNow(done.filter((d) => d.buffer !== newest && (options.ownedViews || (d.byteOffset === 0 && d.byteLength === d.buffer.byteLength))));
    return out;
  };
  let lastBuffer: ArrayBufferLike | undefined;
  const joined = (chunks: Uint8Array[]) => {
    const out = new Uint8Array(size);
    let at = 0;
    for (const k of chunks) {
      out.set(k, at);
      at += k.byteLength;
    }
    return out;
  };
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > options.limit) throw options.tooLarge();
      if (head.length < HEAD_BYTES) {
        const more = value.subarray(0, HEAD_BYTES - head.length);
        const h = new Uint8Array(head.length + more.length);
        h.set(head);
        h.set(more, head.length);
        head = h;
      }
      if (!decided && (head.length >= 16 || value.byteLength === 0)) {
        decided = true;
        // Everything seen so far is still in `pending` (parts are cut at 8 MiB, far later).
        if (options.keep?.(head)) kept = pending.slice();
      }
      await options.onChunk?.(value);
      if (kept) {
        kept.push(value);
        continue;
      }
      pending.push(value);
      pendingBytes += value.byteLength;
      lastBuffer = value.buffer;
      // R2 wants every part but the last of one size: cut exact PART_BYTES parts, keep the rest.
      while (pendingBytes >= PART_BYTES && size > (options.holdUpTo ?? 0)) {
        upload ??= await bucket.createMultipartUpload(key, { httpMetadata: options.httpMetadata });
        const chunk = pending[0];
        const part = take(PART_BYTES);
        parts.push(await upload.uploadPart(parts.length + 1, part));
        if (part !== chunk) freeNow([part]);
      }
    }
    if (!decided && options.keep?.(head)) kept = pending.slice();
    if (kept) return { size, head, kept: joined(kept) };
    if (!upload && size <= (options.holdUpTo ?? -1)) return { size, head, kept: take(pendingBytes) };
    const chunk = pending[0];
    const rest = take(pendingBytes);
    if (upload) {
      if (rest.byteLength) parts.push(await upload.uploadPart(parts.length + 1, rest));
      await upload.complete(parts);
    } else {
      await bucket.put(key, rest, { httpMetadata: options.httpMetadata });
    }
    if (rest !== chunk) freeNow([rest]);
    return { size, head };
  } catch (e) {
    await upload?.abort().catch(() => {});
    throw e;
  } finally {
    reader.releaseLock();
  }
}

/** A running hash: chunks in order, then the digest. */
export interface Hasher {
  add(chunk: Uint8Array): Promise<void>;
  finish(): Promise<string>;
}

/**
 * A hash taken only of content whose first bytes pass `test` (a PSD's `8BPS`): chunks are held
 * until `needs` bytes are seen, then fed to `make()`'s hasher or dropped. `finish` answers
 * undefined for other content.
 */
export function hashWhen(test: (first: Uint8Array) => boolean, make: () => Hasher, needs = 4): { add(chunk: Uint8Array): Promise<void>; finish(): Promise<string | undefined> } {
  let early: Uint8Array[] | undefined = [];
  let seen = 0;
  let hasher: Hasher | undefined;
  const decide = async () => {
    const first = new Uint8Array(Math.min(needs, seen));
    let at = 0;
    for (const c of early!) {
      const take = c.subarray(0, first.length - at);
      first.set(take, at);
      at += take.length;
      if (at === first.length) break;
    }
    if (test(first)) {
      hasher = make();
      for (const c of early!) await hasher.add(c);
    }
    early = undefined;
  };
  return {
    async add(chunk) {
      if (!early) return hasher?.add(chunk);
      early.push(chunk);
      seen += chunk.byteLength;
      if (seen >= needs) await decide();
    },
    async finish() {
      if (early) await decide();
      return hasher?.finish();
    },
  };
}
