import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { getBlob, getBlobInto, putBlob, storedDeflate } from '../../../src/engine/compiled/blob';
import { StripBuffers } from '../../../src/engine/compiled/store';

const bytes = (n: number, seed = 1) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed * 7 + (i >> 9)) & 255);

/** A bucket answering `blobs` as stored blobs, recording every key it is asked for. */
function countingBucket(blobs: Map<string, Uint8Array>) {
  const gets: string[] = [];
  const bucket = {
    get: async (key: string) => {
      gets.push(key);
      const data = blobs.get(key);
      return data ? { arrayBuffer: async () => storedDeflate(data).slice().buffer } : null;
    },
  } as unknown as R2Bucket;
  return { bucket, gets };
}

/** Strip buffers of a print page (issue 25 §1): a band inflated once into a kept buffer, layer surfaces pooled. */
describe('StripBuffers for wide pages', () => {
  it('getBlobInto inflates a blob (deflated or stored blocks) into the given buffer, as getBlob reads it', async () => {
    const data = bytes(300_000);
    await putBlob(env.FILES, 'strip-buffers/deflated', data);
    await env.FILES.put('strip-buffers/stored', storedDeflate(data));
    const into = new Uint8Array(data.length + 1);
    for (const key of ['strip-buffers/deflated', 'strip-buffers/stored']) {
      const got = await getBlobInto(env.FILES, key, data.length, into);
      expect(got!.buffer).toBe(into.buffer);
      expect(got).toEqual(await getBlob(env.FILES, key, data.length));
    }
    expect(await getBlobInto(env.FILES, 'strip-buffers/absent', 10, new Uint8Array(11))).toBeNull();
  });

  it('getBlobInto refuses a blob shorter or longer than expected, and a buffer without the spare byte', async () => {
    const data = bytes(70_000);
    await putBlob(env.FILES, 'strip-buffers/short', data);
    const into = new Uint8Array(80_000);
    await expect(getBlobInto(env.FILES, 'strip-buffers/short', data.length + 1, into)).rejects.toThrow(/expected 70001 bytes, got 70000/);
    await expect(getBlobInto(env.FILES, 'strip-buffers/short', data.length - 1, into)).rejects.toThrow(/expected 69999 bytes, got 70000/);
    await expect(getBlobInto(env.FILES, 'strip-buffers/short', data.length, new Uint8Array(data.length))).rejects.toThrow(RangeError);
  });

  it('band inflates a blob only when the band buffer does not hold it, and reads R2 only for a band whose stored bytes it did not keep', async () => {
    const buffers = new StripBuffers();
    const blobs = new Map([['px/1/0/0', bytes(100, 1)], ['px/1/0/1', bytes(100, 2)], ['px/2/0/0', bytes(100, 3)]]);
    const { bucket, gets } = countingBucket(blobs);
    const read = async (key: string) => expect(await buffers.band(key, 100, bucket)).toEqual(blobs.get(key));
    await read('px/1/0/0');
    await read('px/1/0/0');
    // Two layers in the same rows take the band buffer in turn: each inflated again, read once.
    await read('px/2/0/0');
    await read('px/1/0/0');
    expect(gets).toEqual(['px/1/0/0', 'px/2/0/0']);
    // A layer's next band: the one before it is kept no more.
    await read('px/1/0/1');
    await read('px/1/0/0');
    expect(gets).toEqual(['px/1/0/0', 'px/2/0/0', 'px/1/0/1', 'px/1/0/0']);
    // A read that finds nothing leaves no band held.
    expect(await buffers.band('px/3/0/0', 100, bucket)).toBeNull();
    await read('px/1/0/0');
    expect(gets.length).toBe(5);
    buffers.release();
    await read('px/1/0/0');
    expect(gets.length).toBe(6);
  });

  it('layerBand keeps one band a layer, read once, within layerBandBytes (none by default)', async () => {
    const blobs = new Map([['px/1/0/0', bytes(100, 1)], ['px/1/0/1', bytes(100, 2)], ['px/2/0/0', bytes(100, 3)], ['px/3/0/0', bytes(100, 4)]]);
    const { bucket, gets } = countingBucket(blobs);
    expect(await new StripBuffers().layerBand('px/1/0/0', 100, bucket)).toBeNull();
    expect(gets).toEqual([]);
    const buffers = new StripBuffers(0, 250); // room for two layers' bands (104 bytes each with the spare)
    const read = async (key: string) => expect(await buffers.layerBand(key, 100, bucket)).toEqual(blobs.get(key));
    await read('px/1/0/0');
    await read('px/2/0/0');
    await read('px/1/0/0');
    await read('px/2/0/0');
    expect(gets).toEqual(['px/1/0/0', 'px/2/0/0']);
    // The layer's next band goes into its buffer.
    await read('px/1/0/1');
    await read('px/2/0/0');
    expect(gets).toEqual(['px/1/0/0', 'px/2/0/0', 'px/1/0/1']);
    // A third layer's band would pass the room: it takes the buffer of the layer read least
    // recently (1), which reads its band again when it needs it (into 2's, now the least recent).
    await read('px/3/0/0');
    await read('px/1/0/1');
    await read('px/3/0/0');
    expect(gets).toEqual(['px/1/0/0', 'px/2/0/0', 'px/1/0/1', 'px/3/0/0', 'px/1/0/1']);
    // A band no held buffer fits (between its length and twice it): the least recent ones are
    // freed until its own fits in the room, or the band cache's when even then it would not.
    const big = new Map([['px/4/0/0', bytes(200, 5)], ['px/5/0/0', bytes(300, 6)]]);
    const more = countingBucket(big);
    expect(await buffers.layerBand('px/4/0/0', 200, more.bucket)).toEqual(big.get('px/4/0/0'));
    expect(await buffers.layerBand('px/5/0/0', 300, more.bucket)).toBeNull();
  });

  it('hands out zeroed layer surfaces, each its own until the next strip, pooling up to poolBytes', () => {
    const buffers = new StripBuffers(250);
    const a = buffers.surface(100).fill(7);
    const b = buffers.surface(100).fill(8);
    const c = buffers.surface(100); // past the pool: a new array of its own
    expect(new Set([a.buffer, b.buffer, c.buffer]).size).toBe(3);
    buffers.nextStrip();
    expect(c.buffer.byteLength).toBe(0); // freed once its strip is done, not left to the collector
    const a2 = buffers.surface(80);
    const b2 = buffers.surface(100);
    expect([a.buffer, b.buffer]).toContain(a2.buffer);
    expect([a.buffer, b.buffer]).toContain(b2.buffer);
    expect(a2.buffer).not.toBe(b2.buffer);
    expect(a2.every((v) => v === 0) && b2.every((v) => v === 0)).toBe(true);
    expect(buffers.surface(100).buffer).not.toBe(c.buffer);
    // No pool by default: every surface is a new array.
    const none = new StripBuffers();
    const x = none.surface(10);
    none.nextStrip();
    expect(none.surface(10).buffer).not.toBe(x.buffer);
  });

  it('giveBack returns a lent surface to the pool before its strip ends, frees one past the pool, and leaves others be', () => {
    const buffers = new StripBuffers(250);
    const a = buffers.surface(100).fill(7);
    const b = buffers.surface(100);
    const c = buffers.surface(100); // past the pool
    buffers.giveBack(c);
    expect(c.buffer.byteLength).toBe(0); // freed now
    buffers.giveBack(a);
    // The strip's next layer takes a's buffer, zeroed; b stays lent.
    const d = buffers.surface(90);
    expect(d.buffer).toBe(a.buffer);
    expect(d.every((v) => v === 0)).toBe(true);
    expect(d.buffer).not.toBe(b.buffer);
    // Given back twice, or not its own: nothing happens.
    buffers.giveBack(d);
    buffers.giveBack(d);
    const other = new Uint8ClampedArray(100);
    buffers.giveBack(other);
    buffers.giveBack(null);
    expect(other.buffer.byteLength).toBe(100);
    expect(buffers.surface(100).buffer).toBe(a.buffer);
    expect(buffers.surface(100).buffer).not.toBe(a.buffer); // a is lent again: another
    buffers.nextStrip();
    expect(b.buffer.byteLength).toBeGreaterThan(0); // b went back to the pool at the strip's end
  });

  it('release frees every buffer now, kept, pooled and lent, and makes new ones after', () => {
    const buffers = new StripBuffers(1 << 20);
    const band = buffers.bytes('band', 1000);
    const canvas = buffers.clamped('canvas', 500);
    const pooled = buffers.surface(300);
    buffers.nextStrip();
    const lent = buffers.surface(200);
    expect(lent.buffer).toBe(pooled.buffer);
    const free = buffers.surface(400); // none free fits: a new one
    buffers.release();
    for (const a of [band, canvas, pooled, lent, free]) expect(a.buffer.byteLength).toBe(0);
    const again = buffers.bytes('band', 1000);
    expect(again.length).toBe(1000);
    expect(buffers.surface(300).length).toBe(300);
  });
});

