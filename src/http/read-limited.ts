import { concat } from '../engine/raster/bytes';

/**
 * How much of an oversized request body is read and thrown away before answering 413. Cancelling
 * the body instead makes wrangler's local proxy (`npm run dev`) abort the exchange and answer its
 * own 500 "Network connection lost" before our 413 is sent, and some clients stop reading the
 * answer until they have sent everything. Beyond this bound the rest is left unread: the runtime
 * discards it when the response is done.
 */
export const DISCARD_BYTES = 64 * 1024 * 1024;

/**
 * A request or response body read into memory up to `limit` bytes. Beyond that (or when
 * Content-Length already claims more) `tooLarge()` is thrown, so a client cannot make us buffer
 * an unbounded body whatever it declares. The stream is never cancelled: the excess is read and
 * discarded (up to DISCARD_BYTES, never held), then left. Each caller chooses the error its
 * protocol wants (413 JSON for the API, invalid_request for OAuth forms, …).
 */
export async function readLimited(
  message: { headers: Headers; body: ReadableStream<Uint8Array> | null },
  limit: number,
  tooLarge: () => Error,
): Promise<Uint8Array> {
  if (!message.body) return new Uint8Array(0);
  const reader = message.body.getReader();
  try {
    if (Number(message.headers.get('content-length') ?? '0') > limit) {
      await discard(reader, DISCARD_BYTES);
      throw tooLarge();
    }
    const chunks: Uint8Array[] = [];
    let total = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > limit) {
        chunks.length = 0;
        await discard(reader, DISCARD_BYTES - total);
        throw tooLarge();
      }
      chunks.push(value);
    }
    return chunks.length === 1 ? chunks[0]! : concat(chunks);
  } finally {
    reader.releaseLock();
  }
}

/** Reads and drops up to `bound` bytes; stops early at the end of the stream. */
async function discard(reader: ReadableStreamDefaultReader<Uint8Array>, bound: number): Promise<void> {
  let seen = 0;
  while (seen < bound) {
    const { done, value } = await reader.read().catch(() => ({ done: true as const, value: undefined }));
    if (done) return;
    seen += value.byteLength;
  }
}
