import { deflateSync, inflateSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { deflate, storedDeflate } from '../../../src/engine/compiled/blob';
import { inflateRawInto } from '../../../src/engine/compiled/inflate';

/** Smooth runs with noise between: dynamic blocks with long matches and literals. */
function sample(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n);
  let s = seed;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    out[i] = (i >> 6) % 7 === 0 ? s >>> 24 : ((i * 3) >> 4) & 255;
  }
  return out;
}

// Issue 25 §1: the stored bands are inflated with tables kept from call to call (fflate made new
// ones per dynamic block: 69 MB of garbage for the poster's first print PDF). Same bytes as fflate.
describe('inflateRawInto', () => {
  it('inflates what the platform, fflate (fixed and dynamic blocks) and storedDeflate write, as fflate does', async () => {
    const streams: Uint8Array[] = [];
    for (const [n, seed] of [[300_000, 1], [70_000, 2], [1_000, 3], [0, 4]] as const) {
      const data = sample(n, seed);
      streams.push(await deflate(data), deflateSync(data, { level: 1 }), deflateSync(data, { level: 9 }), storedDeflate(data));
    }
    // A short text: fflate codes it in a fixed-Huffman block.
    streams.push(deflateSync(new TextEncoder().encode('abcabcabcabc hello hello hello')));
    for (const packed of streams) {
      const expected = inflateSync(packed);
      const out = new Uint8Array(expected.length + 1);
      expect(inflateRawInto(packed, out)).toBe(expected.length);
      expect(out.subarray(0, expected.length)).toEqual(expected);
      // One byte short: it says so (length + 1), and stops.
      if (expected.length) expect(inflateRawInto(packed, new Uint8Array(expected.length - 1))).toBe(expected.length);
    }
  });

  it('throws on data cut short or corrupt', async () => {
    const packed = await deflate(sample(50_000, 5));
    expect(() => inflateRawInto(packed.subarray(0, packed.length >> 1), new Uint8Array(60_000))).toThrow(/ends early|invalid|distance/);
    expect(() => inflateRawInto(Uint8Array.of(0xff, 0xff, 0xff), new Uint8Array(10))).toThrow();
    expect(() => inflateRawInto(new Uint8Array(0), new Uint8Array(10))).toThrow(/ends early/);
  });
});
