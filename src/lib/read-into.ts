/**
 * One loop that reads a whole stream into one array (issue 25 §1), shared by the engine (a
 * compile's compressed blobs, src/engine/compiled/blob.ts) and the upload's body
 * (src/dynamic-image/multipart.ts). It lives in lib/ because both may import it: the engine may
 * not import src/http/ (test/engine/layering.test.ts), and request parsing should not reach into
 * the engine for a stream primitive.
 */

/**
 * A BYOB reader of `stream`, or undefined where it is not a byte stream: workerd's request
 * bodies and compression streams are; Node's compression streams and JS-made streams are not.
 */
export function byobReader(stream: ReadableStream<Uint8Array>): ReadableStreamBYOBReader | undefined {
  try {
    return stream.getReader({ mode: 'byob' });
  } catch {
    return undefined;
  }
}

/** What a full array reads next, to see the stream's end (or that it goes on). */
const PROBE_BYTES = 64 * 1024;

/**
 * Every byte of `stream` read into `into`, which is handed over: the result is a view of it, or
 * of a larger array when more came (doubled, at most `limit`). Where the stream is a byte stream
 * the bytes are read straight into the array (a BYOB reader), so no chunk is made and left for
 * the collector (a 10 MB body came as ~10 MB of chunks that stayed until V8 next collected;
 * a compile's compressed output as 4 KB chunks, then joined); otherwise chunks are copied in.
 * Once the array is full a small read tells its end from more, so an array of the right length
 * (a body's declared one) is never grown. Null as soon as more than `limit` bytes came: the rest
 * is left unread, the reader released (the caller drains or cancels).
 */
export function readInto(stream: ReadableStream<Uint8Array>, into: Uint8Array): Promise<Uint8Array>;
export function readInto(stream: ReadableStream<Uint8Array>, into: Uint8Array, limit: number): Promise<Uint8Array | null>;
export async function readInto(stream: ReadableStream<Uint8Array>, into: Uint8Array, limit = Infinity): Promise<Uint8Array | null> {
  const byob = byobReader(stream);
  const chunks = byob ? undefined : stream.getReader();
  let buffer = into;
  let total = 0;
  let probe: Uint8Array | undefined;
  /** Copies a chunk in, growing the array; false past the limit. */
  const append = (chunk: Uint8Array): boolean => {
    if (total + chunk.length > limit) return false;
    if (total + chunk.length > buffer.length) {
      const grown = new Uint8Array(Math.min(limit, Math.max(4096, buffer.length * 2, total + chunk.length)));
      grown.set(buffer.subarray(0, total));
      buffer = grown;
    }
    buffer.set(chunk, total);
    total += chunk.length;
    return true;
  };
  try {
    for (;;) {
      let read: ReadableStreamReadResult<Uint8Array>;
      if (byob && total < buffer.length) {
        const { byteOffset, length } = buffer;
        read = await byob.read(buffer.subarray(total));
        if (read.value) {
          // The same memory, handed back (the same span: `into` may be a view inside its buffer).
          buffer = new Uint8Array(read.value.buffer, byteOffset, length);
          total += read.value.length;
        }
      } else if (byob) {
        // A full array: its end, or more.
        read = await byob.read(probe ?? new Uint8Array(PROBE_BYTES));
        if (read.value) {
          probe = new Uint8Array(read.value.buffer);
          if (!append(read.value)) return null;
        }
      } else {
        read = await chunks!.read();
        if (read.value && !append(read.value)) return null;
      }
      if (read.done) return buffer.subarray(0, total);
    }
  } finally {
    (byob ?? chunks)!.releaseLock();
  }
}
