import { deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { inflateRawInto } from '../../../src/engine/compiled/inflate';

/** Flat rows, rows repeated, runs shorter and longer than 32 and overlapping matches, with noise between. */
function bands(n: number, width: number): Uint8Array {
  const out = new Uint8Array(n);
  let s = 7;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    const row = Math.floor(i / width);
    const kind = row % 5;
    out[i] =
      kind === 0 ? row & 255 // one value a row: matches at distance 1
      : kind === 1 ? out[i - width] ?? 0 // the row above: matches a row back
      : kind === 2 ? (i % 3) * 40 // a period of 3: overlapping matches longer than their distance
      : kind === 3 ? ((i >> 4) & 1) * 200 // runs of 16
      : s >>> 24; // noise: literals
  }
  return out;
}

// Session 28 (compile CPU): long matches are copied by fill / copyWithin; the same bytes as zlib's.
describe('inflateRawInto on runs', () => {
  for (const level of [1, 6, 9]) {
    it(`inflates zlib's deflate-raw (level ${level}) of flat, repeated and periodic rows`, () => {
      for (const width of [1, 3, 31, 33, 258, 4000]) {
        const data = bands(200_000, width);
        const packed = deflateRawSync(data, { level });
        const out = new Uint8Array(data.length);
        expect(inflateRawInto(packed, out)).toBe(data.length);
        expect(out.findIndex((v, i) => v !== data[i])).toBe(-1);
        // One byte short: it says so and stops, before writing past the end.
        expect(inflateRawInto(packed, new Uint8Array(data.length - 1))).toBe(data.length);
      }
    });
  }
});
