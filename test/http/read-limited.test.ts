/**
 * The one bounded reader of whole streams (src/http/read-limited.ts) that request bodies, the
 * platform's JSON bodies, uploads and the signed preview URL's inflater go through: what it
 * returns, and what becomes of the rest of a stream past its limit (drained, left or cancelled).
 */
import { describe, expect, it } from 'vitest';
import { DISCARD_BYTES, readAll, readLimited } from '../../src/http/read-limited';
import { readBodyLimited } from '../../src/platform/core/body';
import { decodePreviewRequest, encodePreviewRequest, MAX_REQUEST_JSON_BYTES } from '../../src/dynamic-image/signed';
import { ApiError } from '../../src/errors';

/** A stream of `count` chunks of `size` bytes (chunk i filled with i), recording what was pulled and whether it was cancelled. */
function chunks(count: number, size: number) {
  const seen = { pulled: 0, cancelled: false };
  let i = 0;
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (i === count) return controller.close();
        seen.pulled++;
        controller.enqueue(new Uint8Array(size).fill(i++));
      },
      cancel() {
        seen.cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, seen };
}

class TooLarge extends Error {}
const tooLarge = () => new TooLarge('too large');

describe('readAll', () => {
  it('joins every chunk in order', async () => {
    const { stream } = chunks(3, 4);
    expect([...(await readAll(stream, 12, tooLarge, 'drain'))]).toEqual([0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2]);
    const one = new Uint8Array([7, 8, 9]);
    const single = new ReadableStream<Uint8Array>({ start: (c) => (c.enqueue(one), c.close()) });
    expect(await readAll(single, 3, tooLarge, 'leave')).toEqual(one);
    expect((await readAll(chunks(0, 1).stream, 0, tooLarge, 'cancel')).byteLength).toBe(0);
  });

  it('past the limit, drain reads the rest (bounded) and does not cancel', async () => {
    const { stream, seen } = chunks(10, 4);
    await expect(readAll(stream, 8, tooLarge, 'drain')).rejects.toBeInstanceOf(TooLarge);
    expect(seen).toEqual({ pulled: 10, cancelled: false });
  });

  it('past the limit, leave stops reading and does not cancel', async () => {
    const { stream, seen } = chunks(10, 4);
    await expect(readAll(stream, 8, tooLarge, 'leave')).rejects.toBeInstanceOf(TooLarge);
    expect(seen).toEqual({ pulled: 3, cancelled: false });
    expect(stream.locked).toBe(false);
  });

  it('past the limit, cancel cancels the stream', async () => {
    const { stream, seen } = chunks(10, 4);
    await expect(readAll(stream, 8, tooLarge, 'cancel')).rejects.toBeInstanceOf(TooLarge);
    expect(seen).toEqual({ pulled: 3, cancelled: true });
  });

  it('a declared size over the limit is refused before anything is kept', async () => {
    const left = chunks(10, 4);
    await expect(readAll(left.stream, 8, tooLarge, 'leave', 40)).rejects.toBeInstanceOf(TooLarge);
    expect(left.seen.pulled).toBe(0);
    const drained = chunks(10, 4);
    await expect(readAll(drained.stream, 8, tooLarge, 'drain', 40)).rejects.toBeInstanceOf(TooLarge);
    expect(drained.seen).toEqual({ pulled: 10, cancelled: false });
  });

  it('drains at most DISCARD_BYTES', async () => {
    const size = 1024 * 1024;
    const { stream, seen } = chunks(DISCARD_BYTES / size + 20, size);
    await expect(readAll(stream, 0, tooLarge, 'drain')).rejects.toBeInstanceOf(TooLarge);
    expect(seen.pulled).toBe(DISCARD_BYTES / size + 1); // the chunk found past the limit, then DISCARD_BYTES
    expect(seen.cancelled).toBe(false);
  });
});

describe('its callers', () => {
  it('readLimited takes a Content-Length over the limit at its word', async () => {
    const { stream, seen } = chunks(2, 4);
    const req = new Request('http://x/', { method: 'POST', body: stream, headers: { 'content-length': '100' }, duplex: 'half' } as RequestInit);
    await expect(readLimited(req, 8, tooLarge)).rejects.toBeInstanceOf(TooLarge);
    expect(seen.cancelled).toBe(false);
  });

  it('readBodyLimited answers 413 naming the limit, and reads nothing past it', async () => {
    const big = new Request('http://x/', { method: 'POST', body: 'x'.repeat(3 * 1024 * 1024) });
    await expect(readBodyLimited(big, 2 * 1024 * 1024)).rejects.toMatchObject({ status: 413, message: 'The JSON body is larger than the limit of 2 MB.' });
    const small = new Request('http://x/', { method: 'POST', body: '{"a":1}' });
    expect(new TextDecoder().decode(await readBodyLimited(small, 1024))).toBe('{"a":1}');
  });

  it('a signed preview request that inflates past its bound is a 400 naming it; one within round-trips', async () => {
    const body = { template: 'x', text: 'a'.repeat(MAX_REQUEST_JSON_BYTES) };
    const r = await encodePreviewRequest(body);
    const e = await decodePreviewRequest(r).then(() => null, (err: unknown) => err);
    expect(e).toBeInstanceOf(ApiError);
    expect(e).toMatchObject({ status: 400, message: `The request in "r" inflates to more than ${MAX_REQUEST_JSON_BYTES / 1024} KB.` });
    const fits = { template: 'x', text: 'b'.repeat(1000) };
    expect(await decodePreviewRequest(await encodePreviewRequest(fits))).toEqual(fits);
  });
});
