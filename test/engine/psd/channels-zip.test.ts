import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { channelRows } from '../../../src/engine/psd/channels';

/** A plane of flat rows, repeated rows, periodic rows and noise (the matches psd/inflate.ts copies natively and byte by byte). */
function plane(width: number, height: number): Uint8Array {
  const out = new Uint8Array(width * height);
  let s = 11;
  for (let i = 0; i < out.length; i++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    const row = Math.floor(i / width);
    const kind = row % 5;
    out[i] = kind === 0 ? row & 255 : kind === 1 ? out[i - width] ?? 0 : kind === 2 ? (i % 3) * 40 : kind === 3 ? ((i >> 4) & 1) * 200 : s >>> 24;
  }
  return out;
}

// Session 28 (compile CPU): a ZIP channel's long matches are copied in the inflater's ring by
// fill / copyWithin when they neither wrap nor overlap; the rows are the same bytes as zlib's.
describe('channelRows over ZIP channels', () => {
  for (const [width, height] of [[4000, 40], [70_000, 3], [33, 2100], [1, 5000]] as const) {
    it(`reads ${width} × ${height} rows as they were deflated`, () => {
      const data = plane(width, height);
      for (const level of [1, 6, 9]) {
        const rows = channelRows({ id: 0, compression: 2, data: deflateSync(data, { level }) }, width, height, false);
        for (let y = 0; y < height; y++) {
          const row = rows.next();
          const expected = data.subarray(y * width, (y + 1) * width);
          if (row.findIndex((v, i) => v !== expected[i]) !== -1) expect({ level, y, row: [...row.slice(0, 16)] }).toEqual({ level, y, row: [...expected.slice(0, 16)] });
        }
        rows.finish();
      }
    });
  }
});
