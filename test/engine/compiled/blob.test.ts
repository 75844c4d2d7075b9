import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { deflate, getBlob, getBlobRange, pack, putBlob, storedDeflate } from '../../../src/engine/compiled/blob';

const bytes = (n: number, seed = 1) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed * 7 + (i >> 9)) & 255);

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
    let state = 2463534242;
    const noise = Uint8Array.from({ length: 200_000 }, () => {
      state ^= state << 13;
      state ^= state >>> 17;
      state ^= state << 5;
      return state & 255;
    });
    const smooth = bytes(200_000);
    expect(await pack(noise)).toEqual(storedDeflate(noise));
    expect(await pack(smooth)).toEqual(await deflate(smooth));
    for (const [name, data] of [['noise', noise], ['smooth', smooth]] as const) {
      await env.FILES.put(`blob-test/${name}`, await pack(data));
      expect(await getBlob(env.FILES, `blob-test/${name}`, data.length)).toEqual(data);
    }
  });
});
