import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { deflate, deflateInto, getBlob, getBlobRange, pack, Packer, putBlob, storedDeflate } from '../../../src/engine/compiled/blob';

const bytes = (n: number, seed = 1) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed * 7 + (i >> 9)) & 255);

/** Bytes that hardly compress (xorshift). */
function noiseBytes(n: number, seed: number): Uint8Array {
  let state = seed;
  return Uint8Array.from({ length: n }, () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return state & 255;
  });
}

describe('compiled blobs', () => {
  it('reads a whole blob back, and any range of it, from the same loop', async () => {
    const data = bytes(300_000);
    await putBlob(env.FILES, 'blob-test/whole', data);
    expect(await getBlob(env.FILES, 'blob-test/whole', data.length)).toEqual(data);
    expect(await getBlobRange(env.FILES, 'blob-test/whole', data.length, 1000, 250_000)).toEqual(data.subarray(1000, 250_000));
    expect(await getBlob(env.FILES, 'blob-test/absent', 10)).toBeNull();
    await env.FILES.put('blob-test/empty', storedDeflate(new Uint8Array(0)));
    expect(await getBlob(env.FILES, 'blob-test/empty', 0)).toEqual(new Uint8Array(0));
  });

  it('refuses a blob shorter or longer than expected', async () => {
    const data = bytes(70_000);
    await putBlob(env.FILES, 'blob-test/short', data);
    await expect(getBlob(env.FILES, 'blob-test/short', data.length + 1)).rejects.toThrow(/expected 70001 bytes, got 70000/);
    await expect(getBlob(env.FILES, 'blob-test/short', data.length - 1)).rejects.toThrow(/more than 69999 bytes/);
  });

  it('packs noise as stored blocks and the rest deflated, both read back the same way', async () => {
    const noise = noiseBytes(200_000, 2463534242);
    const smooth = bytes(200_000);
    expect(await pack(noise)).toEqual(storedDeflate(noise));
    expect(await pack(smooth)).toEqual(await deflate(smooth));
    for (const [name, data] of [['noise', noise], ['smooth', smooth]] as const) {
      await env.FILES.put(`blob-test/${name}`, await pack(data));
      expect(await getBlob(env.FILES, `blob-test/${name}`, data.length)).toEqual(data);
    }
  });

  it('a Packer packs the same bytes into arrays it lends and takes back', async () => {
    const noise = noiseBytes(300_000, 88172645);
    const smooth = bytes(2_000_000);
    const packer = new Packer();
    const first = await packer.pack(smooth);
    expect(first.bytes).toEqual(await pack(smooth));
    const buffer = first.bytes.buffer;
    first.release();
    const second = await packer.pack(bytes(2_000_000, 3));
    expect(buffer.byteLength).toBe(0); // lent again: the compressor read into it (and took it over)
    expect(second.bytes).toEqual(await pack(bytes(2_000_000, 3)));
    second.release();
    const stored = await packer.pack(noise);
    expect(stored.bytes).toEqual(storedDeflate(noise));
    stored.release();
    // An output array too small for the result is grown; the bytes are the same.
    const grown = await deflateInto(noise, new Uint8Array(10));
    expect(grown).toEqual(await deflate(noise));
    expect(await deflate(new Uint8Array(0))).toEqual(new Uint8Array([3, 0]));
  });

  const same = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((v, i) => v === b[i]);

  it('a Packer streams a blob in pieces to the same bytes as pack(), stored or deflated', async () => {
    // Pieces of rows (40,000 bytes: a 10,000 px RGBA row) straddle the 1 MB pieces the compressor
    // gets; noise comes back as stored blocks, half noise (the sample's middle) too, the rest deflated.
    const halfNoise = bytes(2_600_000, 5);
    halfNoise.set(noiseBytes(1_300_000, 362436069), 1_300_000);
    const cases = [bytes(2_600_000, 7), noiseBytes(2_600_000, 521288629), halfNoise, bytes(100_000, 2), noiseBytes(100_000, 7)];
    const packer = new Packer();
    for (const data of cases) {
      const sink = packer.stream(data.length);
      for (let at = 0; at < data.length; at += 40_000) await sink.add(data.subarray(at, at + 40_000));
      const streamed = await sink.finish();
      // Compared as one verdict: toEqual walks megabytes element by element (tens of seconds under load).
      expect(same(streamed.bytes, await pack(data))).toBe(true);
      if (data === cases[1]) expect(same(streamed.bytes, storedDeflate(data))).toBe(true); // came back from its deflate
      streamed.release();
    }
    const short = packer.stream(10);
    short.add(new Uint8Array(5));
    await expect(short.finish()).rejects.toThrow(RangeError);
    packer.release();
  });
});
