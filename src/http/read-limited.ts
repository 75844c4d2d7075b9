import { readInto } from '../lib/read-into';

/**
 * How much of an oversized request body is read and thrown away before answering 413. Cancelling
 * the body instead makes wrangler's local proxy (`npm run dev`) abort the exchange and answer its
 * own 500 "Network connection lost" before our 413 is sent, and some clients stop reading the
 * answer until they have sent everything. Beyond this bound the rest is left unread: the runtime
 * discards it when the response is done.
 */
export const DISCARD_BYTES = 64 * 1024 * 1024;

/**
 * What becomes of the rest of a stream found larger than its limit, before the error is thrown:
 * - `drain`: read and dropped up to DISCARD_BYTES in all, then left (request bodies: see above);
 * - `leave`: left unread, never cancelled (a request body whose client need not be heard out);
 * - `cancel`: cancelled (a stream of our own making, e.g. an inflater, whose rest is only cost).
 */
export type Excess = 'drain' | 'leave' | 'cancel';

/**
 * A request or response body read into memory up to `limit` bytes. Beyond that (or when
 * Content-Length already claims more) `tooLarge()` is thrown, so a client cannot make us buffer
 * an unbounded body whatever it declares. By default the stream is never cancelled: the excess
 * is read and discarded (up to DISCARD_BYTES, never held), then left. Each caller chooses the
 * error its protocol wants (413 JSON for the API, invalid_request for OAuth forms, …).
 */
export async function readLimited(
  message: { headers: Headers; body: ReadableStream<Uint8Array> | null },
  limit: number,
  tooLarge: () => Error,
  excess: Excess = 'drain',
): Promise<Uint8Array> {
  if (!message.body) return new Uint8Array(0);
  return readAll(message.body, limit, tooLarge, excess, Number(message.headers.get('content-length') ?? '0'));
}

/**
 * Every byte of `stream` in one array, at most `limit` of them: past that (or when `declared`,
 * the size the sender announced, already is) the rest is dealt with as `excess` says and
 * `tooLarge()` is thrown. The one bounded read of a whole stream: the bytes go into one array of
 * the declared length (grown if more come, src/lib/read-into.ts), read straight into it where
 * the stream is a byte stream.
 */
export async function readAll(stream: ReadableStream<Uint8Array>, limit: number, tooLarge: () => Error, excess: Excess, declared = 0): Promise<Uint8Array> {
  // A declared size that is no byte count is no promise: the array starts empty and grows.
  const known = Number.isSafeInteger(declared) && declared > 0 ? declared : 0;
  let seen = 0;
  if (known <= limit) {
    const bytes = await readInto(stream, new Uint8Array(known), limit);
    if (bytes) return bytes;
    seen = limit;
  }
  const reader = stream.getReader();
  try {
    if (excess === 'drain') await drain(reader, DISCARD_BYTES - seen);
    else if (excess === 'cancel') await reader.cancel();
    throw tooLarge();
  } finally {
    reader.releaseLock();
  }
}

/** Reads and drops up to `bound` bytes; stops early at the end of the stream or on an error. */
export async function drain(reader: ReadableStreamDefaultReader<Uint8Array>, bound: number): Promise<void> {
  let seen = 0;
  while (seen < bound) {
    const { done, value } = await reader.read().catch(() => ({ done: true as const, value: undefined }));
    if (done) return;
    seen += value.byteLength;
  }
}
