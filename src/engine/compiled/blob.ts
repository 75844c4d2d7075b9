/**
 * Raw pixel blobs in R2, deflate-raw compressed with the platform's CompressionStream.
 * No header: a blob's size follows from the layer bounds kept in the tree.
 */
import { inflateSync } from 'fflate';

export async function deflate(data: Uint8Array): Promise<Uint8Array> {
  return pipe(data, new CompressionStream('deflate-raw'));
}

async function pipe(data: Uint8Array, transform: TransformStream<Uint8Array, Uint8Array>): Promise<Uint8Array> {
  const writer = transform.writable.getWriter();
  const done = collect(transform.readable);
  await writer.write(data);
  await writer.close();
  return done;
}

/** Every chunk of a stream whose length is not known in advance, joined. */
async function collect(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    total += value.length;
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/** A blob is trial-compressed on three slices this long (start, middle, end) before the rest. */
const SAMPLE = 16 * 1024;
/** The blob is compressed when the sample shrinks below this ratio (saves at least a fifth). */
const WORTH_IT = 0.8;

export async function putBlob(bucket: R2Bucket, key: string, raw: Uint8Array): Promise<void> {
  await bucket.put(key, await pack(raw));
}

/**
 * deflate-raw of a blob, or the same format made of stored blocks when a sample shows the data
 * hardly compresses (noise, grainy photos: an opaque RGBA band of noise deflates to 86 %, only
 * its alpha bytes shrink). Deflating such bytes costs about 80 ms per MB in workerd on this
 * machine for little gain, while stored blocks are one copy; both read back the same way.
 */
export async function pack(raw: Uint8Array): Promise<Uint8Array> {
  if (raw.length > 8 * SAMPLE) {
    const mid = (raw.length >> 1) - (SAMPLE >> 1);
    const sample = new Uint8Array(3 * SAMPLE);
    sample.set(raw.subarray(0, SAMPLE), 0);
    sample.set(raw.subarray(mid, mid + SAMPLE), SAMPLE);
    sample.set(raw.subarray(raw.length - SAMPLE), 2 * SAMPLE);
    if ((await deflate(sample)).length > sample.length * WORTH_IT) return storedDeflate(raw);
  }
  return deflate(raw);
}

/** RFC 1951 stored blocks (BTYPE 00): a 5-byte header per 65,535 bytes, no compression. */
export function storedDeflate(raw: Uint8Array): Uint8Array {
  const MAX = 0xffff;
  const blocks = Math.max(1, Math.ceil(raw.length / MAX));
  const out = new Uint8Array(raw.length + 5 * blocks);
  for (let b = 0, at = 0; b < blocks; b++) {
    const start = b * MAX;
    const len = Math.min(MAX, raw.length - start);
    out[at] = b === blocks - 1 ? 1 : 0; // BFINAL, BTYPE 00, then padding to the byte boundary
    out[at + 1] = len & 255;
    out[at + 2] = len >>> 8;
    out[at + 3] = ~len & 255;
    out[at + 4] = (~len >>> 8) & 255;
    out.set(raw.subarray(start, start + len), at + 5);
    at += 5 + len;
  }
  return out;
}

/**
 * Bytes [start, end) of a blob that inflates to `expected` bytes, without holding the rest: the
 * stream is read up to `end` and cancelled there (a band of a 10,000 px wide layer is 10 MB; a
 * strip needs 104 of its 256 rows). The one read of a stored blob (getBlob reads [0, expected)):
 * a blob shorter than `end`, or longer than `expected` when read to its end, throws.
 */
export async function getBlobRange(
  bucket: R2Bucket,
  key: string,
  expected: number,
  start: number,
  end: number,
  /** Where the bytes go (its first end - start bytes) instead of a new array. */
  into?: Uint8Array,
): Promise<Uint8Array | null> {
  const obj = await bucket.get(key);
  if (!obj) return null;
  const reader = obj.body.pipeThrough(new DecompressionStream('deflate-raw')).getReader();
  const out = into ? into.subarray(0, end - start) : new Uint8Array(end - start);
  let at = 0;
  while (at < end) {
    const { done, value } = await reader.read();
    if (done) break;
    const from = Math.max(start, at);
    const to = Math.min(end, at + value.length);
    if (to > from) out.set(value.subarray(from - at, to - at), from - start);
    at += value.length;
  }
  if (at < end) throw new Error(`compiled blob: expected ${expected} bytes, got ${at}`);
  if (at < expected) await reader.cancel();
  else if (at > expected || !(await reader.read()).done) throw new Error(`compiled blob: more than ${expected} bytes`);
  return out;
}

/** A whole blob that inflates to `expected` bytes (one allocation), or null when absent. */
export function getBlob(bucket: R2Bucket, key: string, expected: number): Promise<Uint8Array | null> {
  return getBlobRange(bucket, key, expected, 0, expected);
}

/**
 * A blob inflated whole into `into` (which must hold `expected` bytes and one more), without the
 * platform's DecompressionStream: that hands out its bytes in new 16 KB arrays, and a 10,000 px
 * wide page's print PDF inflated about 800 MB of them, which workerd's process kept resident
 * (issue 25 §1). The compressed object is read whole (a band of 10 MB packs to ~200 KB).
 */
export async function getBlobInto(bucket: R2Bucket, key: string, expected: number, into: Uint8Array): Promise<Uint8Array | null> {
  if (into.length <= expected) throw new RangeError(`getBlobInto: ${into.length} bytes cannot hold ${expected} and one more`);
  const obj = await bucket.get(key);
  if (!obj) return null;
  // One byte more than expected: a blob that inflates to more shows it.
  const out = inflateSync(new Uint8Array(await obj.arrayBuffer()), { out: into.subarray(0, expected + 1) });
  if (out.length !== expected) throw new Error(`compiled blob: expected ${expected} bytes, got ${out.length}${out.length > expected ? ' or more' : ''}`);
  return out;
}
