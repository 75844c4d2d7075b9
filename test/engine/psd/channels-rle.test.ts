import { describe, expect, it } from 'vitest';
import { channelRows } from '../../../src/engine/psd/channels';
import { packBits } from '../../helpers/packbits';

/** An RLE channel (row byte counts, then the rows) of these packed rows. */
function rle(packed: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(packed.length * 2 + packed.reduce((n, p) => n + p.length, 0));
  const view = new DataView(out.buffer);
  let at = packed.length * 2;
  packed.forEach((p, y) => {
    view.setUint16(y * 2, p.length);
    out.set(p, at);
    at += p.length;
  });
  return out;
}

/** PackBits of `row` without its last run (header and bytes): the row falls short by that run. */
function withoutLastRun(row: Uint8Array): { packed: Uint8Array; kept: number } {
  const packed = packBits(row);
  let i = 0;
  let o = 0;
  let last = { i: 0, o: 0 };
  while (i < packed.length) {
    last = { i, o };
    const n = packed[i];
    i += n < 128 ? n + 2 : 2;
    o += n < 128 ? n + 1 : 257 - n;
  }
  return { packed: packed.slice(0, last.i), kept: last.o };
}

/** Rows of runs 1 to 130 long (every length comes up, repeats and literals alike), from a seed. */
function runRows(width: number, height: number, seed: number): Uint8Array[] {
  let s = seed;
  const next = () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0);
  return Array.from({ length: height }, (_, y) => {
    const row = new Uint8Array(width);
    for (let x = 0; x < width; ) {
      const len = 1 + ((next() >>> 8) % (y % 3 === 0 ? 4 : y % 3 === 1 ? 20 : 130));
      const v = next() >>> 24;
      row.fill(v, x, x + len);
      x += len;
    }
    return row;
  });
}

// Session 28 (compile CPU): short runs are copied in a loop, long ones by fill / set; the row's
// end, where the runs fall short, stays zero.
describe('channelRows over RLE channels', () => {
  it('reads rows of every run length as they were packed', () => {
    for (const width of [1, 15, 16, 17, 300, 4001]) {
      const rows = runRows(width, 24, width);
      const reader = channelRows({ id: 0, compression: 1, data: rle(rows.map(packBits)) }, width, rows.length, false);
      for (const row of rows) expect(reader.next()).toEqual(row);
    }
  });

  it('leaves zeros where a row falls short, whatever the row before held', () => {
    const width = 200;
    const rows = runRows(width, 12, 7);
    const cut = rows.map(withoutLastRun);
    const reader = channelRows({ id: 0, compression: 1, data: rle(cut.map((c) => c.packed)) }, width, rows.length, false);
    rows.forEach((row, y) => {
      const expected = new Uint8Array(width);
      expected.set(row.subarray(0, cut[y].kept));
      expect(reader.next()).toEqual(expected);
    });
  });
});
