import { concat } from '../engine/raster/bytes';

/**
 * A request or response body read into memory up to `limit` bytes. Beyond that (or when
 * Content-Length already claims more) the stream is cancelled and `tooLarge()` is thrown, so a
 * client cannot make us buffer an unbounded body whatever it declares. Each caller chooses the
 * error its protocol wants (413 JSON for the API, invalid_request for OAuth forms, …).
 */
export async function readLimited(
  message: { headers: Headers; body: ReadableStream<Uint8Array> | null },
  limit: number,
  tooLarge: () => Error,
): Promise<Uint8Array> {
  if (Number(message.headers.get('content-length') ?? '0') > limit) {
    await message.body?.cancel().catch(() => {});
    throw tooLarge();
  }
  if (!message.body) return new Uint8Array(0);
  const reader = message.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  return chunks.length === 1 ? chunks[0]! : concat(chunks);
}
