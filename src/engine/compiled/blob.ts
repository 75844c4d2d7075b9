/**
 * Raw pixel blobs in R2, deflate-raw compressed with the platform's CompressionStream.
 * No header: a blob's size follows from the layer bounds kept in the tree.
 */
import { inflateSync } from 'fflate';
import { byobReader, readInto } from '../../lib/read-into';
import { ArrayPool } from '../memory/array-pool';
import { inflateRawInto } from './inflate';
import { freeNow } from './free';
import { packedBlob } from './packs';
import type { CompiledTemplate } from '../types';

export function deflate(data: Uint8Array): Promise<Uint8Array> {
  return deflateInto(data, new Uint8Array(Math.max(4096, data.length >> 4)));
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
  return (await new Packer().pack(raw)).bytes;
}

/** Input is handed to the compressor this much at a time (its output does not depend on it). */
const WRITE_PIECE = 1 << 20;
/** Free output arrays a Packer keeps for the next blobs, in bytes. */
const KEEP_BYTES = 16 * 1024 * 1024;

/**
 * pack() for many blobs (a template's compile), into output arrays it lends out and takes back:
 * the compressed bytes are read straight into them (a BYOB reader), not gathered from the
 * compressor's 4 KB chunks and joined. Those chunks and joins were about twice a template's
 * compressed size in garbage (24 MB for the 10,000² one), which workerd kept until V8 collected.
 * Same bytes as pack(). Call `release` once the blob's bytes are no longer read (its write done).
 */
export class Packer {
  private readonly outputs = new ArrayPool({ bytes: KEEP_BYTES });
  /** The three sample slices, and their compressed bytes (only counted); null while in use. */
  private sample: Uint8Array | null = new Uint8Array(3 * SAMPLE);
  private sampleOut: Uint8Array | null = new Uint8Array(4 * SAMPLE);
  /** For stream(): its sample's slices, and the piece handed to the compressor. */
  private streamSample: Uint8Array | null = null;
  private staging: Uint8Array | null = null;

  async pack(raw: Uint8Array): Promise<{ bytes: Uint8Array; release: () => void }> {
    const stored = raw.length > 8 * SAMPLE && !(await this.sampleShrinks(raw));
    const out = this.take(stored ? storedLength(raw.length) : Math.max(4096, raw.length >> 4));
    return this.lend(stored ? storedDeflateInto(raw, out) : await deflateInto(raw, out));
  }

  /** `bytes` (a view of an array of the pool) with the call that gives it back. */
  private lend(bytes: Uint8Array): { bytes: Uint8Array; release: () => void } {
    let released = false;
    return {
      bytes,
      release: () => {
        if (!released) this.outputs.give(bytes.buffer);
        released = true;
      },
    };
  }

  private async sampleShrinks(raw: Uint8Array): Promise<boolean> {
    const sample = this.sample ?? new Uint8Array(3 * SAMPLE);
    this.sample = null;
    addToSample(sample, raw.length, 0, raw);
    const shrinks = await this.shrinks(sample);
    this.sample = sample;
    return shrinks;
  }

  /** Whether the three slices in `sample` deflate below WORTH_IT. */
  private async shrinks(sample: Uint8Array): Promise<boolean> {
    const scratch = this.sampleOut ?? new Uint8Array(4 * SAMPLE);
    this.sampleOut = null;
    const compressed = await deflateInto(sample, scratch);
    this.sampleOut = new Uint8Array(compressed.buffer);
    return compressed.length <= sample.length * WORTH_IT;
  }

  /**
   * pack() of a blob `length` bytes long that arrives in pieces (a pyramid's level-0 rows), so
   * the whole blob is never held: the pieces go to the compressor 1 MB at a time (the same
   * pieces deflateInto hands it, so the same bytes) while the sample's slices are copied out.
   * When the sample shows the blob hardly compresses, `finish` inflates the deflated bytes back
   * and stores them as stored blocks, as pack() would have. Only one blob streams at a time.
   * Why: the 10 MB level-0 band of a 10,000 px wide layer was most of what the upload added
   * during its compile, and the process keeps that peak (docs/memory.md, "The upload's peak").
   */
  stream(length: number): { add(piece: Uint8Array): Promise<void> | undefined; finish(): Promise<{ bytes: Uint8Array; release: () => void }> } {
    const sampled = length > 8 * SAMPLE;
    const sample = sampled ? (this.streamSample ??= new Uint8Array(3 * SAMPLE)) : null;
    const staging = (this.staging ??= new Uint8Array(WRITE_PIECE));
    const compressor = new CompressionStream('deflate-raw');
    const writer = compressor.writable.getWriter();
    const output = readInto(compressor.readable, this.take(Math.max(4096, length >> 4)));
    let at = 0;
    let filled = 0;
    const copy = (piece: Uint8Array, from: number): Promise<void> | undefined => {
      while (from < piece.length) {
        const n = Math.min(piece.length - from, WRITE_PIECE - filled);
        staging.set(piece.subarray(from, from + n), filled);
        filled += n;
        from += n;
        if (filled === WRITE_PIECE) {
          filled = 0;
          // The compressor has taken the piece in when the write resolves; then it is refilled.
          const rest = from;
          return writer.write(staging).then(() => copy(piece, rest));
        }
      }
      return undefined;
    };
    return {
      add: (piece) => {
        if (sample) addToSample(sample, length, at, piece);
        at += piece.length;
        return copy(piece, 0);
      },
      finish: async () => {
        if (at !== length) throw new RangeError(`Packer.stream: ${at} bytes of ${length}`);
        if (filled) await writer.write(staging.subarray(0, filled));
        await writer.close();
        const deflated = await output;
        let bytes = deflated;
        if (sample && !(await this.shrinks(sample))) {
          // Stored blocks, as pack() chooses for such bytes: the blob comes back from its deflate.
          const raw = inflateSync(deflated, { out: new Uint8Array(length) });
          bytes = storedDeflateInto(raw, this.take(storedLength(length)));
          this.outputs.give(deflated.buffer);
          freeNow([raw]);
        }
        return this.lend(bytes);
      },
    };
  }

  /** A free array, at least `bytes` long when one is (else a new one that long; deflate grows it). */
  private take(bytes: number): Uint8Array {
    return new Uint8Array(this.outputs.take(bytes) ?? new ArrayBuffer(bytes));
  }

  /** Frees the arrays it keeps now (./free.ts): once no more blobs are packed. */
  release(): void {
    freeNow([...this.outputs.clear().map((buffer) => new Uint8Array(buffer)), this.sample, this.sampleOut, this.streamSample, this.staging]);
    this.sample = this.sampleOut = this.streamSample = this.staging = null;
  }
}

/**
 * deflate-raw of `data` (the platform's CompressionStream) read into `out`, which is handed over:
 * the result is a view of it, or of a larger array when it did not fit.
 */
export async function deflateInto(data: Uint8Array, out: Uint8Array): Promise<Uint8Array> {
  const stream = new CompressionStream('deflate-raw');
  const writer = stream.writable.getWriter();
  const written = (async () => {
    for (let at = 0; at < data.length; at += WRITE_PIECE) await writer.write(data.subarray(at, at + WRITE_PIECE));
    await writer.close();
  })();
  const [, bytes] = await Promise.all([written, readInto(stream.readable, out)]);
  return bytes;
}

/**
 * Copies what of `piece` (bytes [at, at + piece.length) of a blob `length` long) falls in the
 * blob's three sample slices (start, middle, end; SAMPLE bytes each) into `sample`.
 */
function addToSample(sample: Uint8Array, length: number, at: number, piece: Uint8Array): void {
  const mid = (length >> 1) - (SAMPLE >> 1);
  for (const [start, into] of [[0, 0], [mid, SAMPLE], [length - SAMPLE, 2 * SAMPLE]]) {
    const from = Math.max(start, at);
    const to = Math.min(start + SAMPLE, at + piece.length);
    if (to > from) sample.set(piece.subarray(from - at, to - at), into + from - start);
  }
}

/** RFC 1951 stored blocks (BTYPE 00): a 5-byte header per 65,535 bytes, no compression. */
export function storedDeflate(raw: Uint8Array): Uint8Array {
  return storedDeflateInto(raw, new Uint8Array(storedLength(raw.length)));
}

const STORED_BLOCK = 0xffff;
const storedLength = (length: number) => length + 5 * Math.max(1, Math.ceil(length / STORED_BLOCK));

/** storedDeflate into `out` (at least storedLength long); returns the view written. */
function storedDeflateInto(raw: Uint8Array, out: Uint8Array): Uint8Array {
  const blocks = Math.max(1, Math.ceil(raw.length / STORED_BLOCK));
  let at = 0;
  for (let b = 0; b < blocks; b++) {
    const start = b * STORED_BLOCK;
    const len = Math.min(STORED_BLOCK, raw.length - start);
    out[at] = b === blocks - 1 ? 1 : 0; // BFINAL, BTYPE 00, then padding to the byte boundary
    out[at + 1] = len & 255;
    out[at + 2] = len >>> 8;
    out[at + 3] = ~len & 255;
    out[at + 4] = (~len >>> 8) & 255;
    out.set(raw.subarray(start, start + len), at + 5);
    at += 5 + len;
  }
  return out.subarray(0, at);
}

/**
 * Bytes [start, end) of a blob that inflates to `expected` bytes, without holding the rest: the
 * stream is read up to `end` and cancelled there (a band of a 10,000 px wide layer is 10 MB; a
 * strip needs 104 of its 256 rows). The one read of a stored blob (getBlob reads [0, expected)):
 * a blob shorter than `end`, or longer than `expected` when read to its end, throws. Never a
 * packed blob (./packs.ts): those inflate to what the band cache may hold, and are read whole.
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
  // Read through one small array of our own (a BYOB reader), not the inflater's 16 KB chunks:
  // a strip through a 10,000 px wide band left ~5 MB of them per read for the collector.
  const reader = pieceReader(obj.body.pipeThrough(new DecompressionStream('deflate-raw')));
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

/** What getBlobRange reads at a time. */
const READ_PIECE = 64 * 1024;

/**
 * A stream read through one array of READ_PIECE bytes (each result a view of it, good until the
 * next read), or chunk by chunk where the stream is not a byte stream.
 */
function pieceReader(stream: ReadableStream<Uint8Array>): { read(): Promise<ReadableStreamReadResult<Uint8Array>>; cancel(): Promise<void> } {
  const byob = byobReader(stream);
  if (!byob) return stream.getReader();
  let piece = new Uint8Array(READ_PIECE);
  return {
    async read() {
      const result = await byob.read(piece);
      if (result.value) piece = new Uint8Array(result.value.buffer); // the same memory, handed back
      return result;
    },
    cancel: () => byob.cancel(),
  };
}

/**
 * A whole blob that inflates to `expected` bytes (one allocation), or null when absent: its
 * stored bytes read whole and inflated here (./inflate.ts), not through the platform's
 * DecompressionStream, whose output comes in new 16 KB arrays (issue 25 §1).
 */
export async function getBlob(bucket: R2Bucket, key: string, expected: number, compiled?: CompiledTemplate): Promise<Uint8Array | null> {
  const packed = await getPacked(bucket, key, compiled);
  if (!packed) return null;
  try {
    const out = new Uint8Array(expected);
    const length = inflateRawInto(packed, out);
    if (length < expected) throw new Error(`compiled blob: expected ${expected} bytes, got ${length}`);
    if (length > expected) throw new Error(`compiled blob: more than ${expected} bytes`);
    return out;
  } finally {
    freeNow([packed]); // read no more: its pages go back now
  }
}

/**
 * A blob inflated whole into `into` (which must hold `expected` bytes and one more), without the
 * platform's DecompressionStream: that hands out its bytes in new 16 KB arrays, and a 10,000 px
 * wide page's print PDF inflated about 800 MB of them, which workerd's process kept resident
 * (issue 25 §1). The compressed object is read whole (a band of 10 MB packs to ~200 KB).
 */
export async function getBlobInto(bucket: R2Bucket, key: string, expected: number, into: Uint8Array): Promise<Uint8Array | null> {
  if (into.length <= expected) throw new RangeError(`getBlobInto: ${into.length} bytes cannot hold ${expected} and one more`);
  const packed = await getPacked(bucket, key);
  if (!packed) return null;
  try {
    return inflateBlobInto(packed, expected, into);
  } finally {
    // Read no more: its pages go back now, for the next band's read (20 of ~160 KB for a 5,000²
    // preview were new memory on a runtime that had not collected since the upload before it).
    freeNow([packed]);
  }
}

/**
 * A blob's bytes as stored (deflate-raw), read whole, or null when absent: from its pack when
 * `compiled` packed it (./packs.ts; null too when the pack is missing), else its own object.
 * The array is the caller's (free it once read).
 */
export async function getPacked(bucket: R2Bucket, key: string, compiled?: CompiledTemplate): Promise<Uint8Array | null> {
  const packed = compiled && (await packedBlob(bucket, compiled, key));
  if (packed !== undefined) return packed;
  const obj = await bucket.get(key);
  return obj && new Uint8Array(await obj.arrayBuffer());
}

/**
 * A blob's stored bytes (getPacked) inflated into `into`, which must hold `expected` bytes and one
 * more: a blob that inflates to more shows it by filling that byte. `packed` is only read.
 */
export function inflateBlobInto(packed: Uint8Array, expected: number, into: Uint8Array): Uint8Array {
  if (into.length <= expected) throw new RangeError(`getBlobInto: ${into.length} bytes cannot hold ${expected} and one more`);
  const length = Math.min(expected + 1, inflateRawInto(packed, into.subarray(0, expected + 1)));
  if (length !== expected) throw new Error(`compiled blob: expected ${expected} bytes, got ${length}${length > expected ? ' or more' : ''}`);
  return into.subarray(0, expected);
}
