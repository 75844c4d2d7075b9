import { describe, expect, it } from 'vitest';
import { channelRows } from '../../../src/engine/psd/channels';

/** PackBits of one row as Photoshop writes it: repeats of 2 to 128, literal runs of 1 to 128. */
function packBits(row: Uint8Array): number[] {
  const out: number[] = [];
  for (let i = 0; i < row.length; ) {
    let run = 1;
    while (i + run < row.length && run < 128 && row[i + run] === row[i]) run++;
    if (run >= 2) {
      out.push(257 - run, row[i]);
      i += run;
      continue;
    }
    let n = 1;
    while (i + n < row.length && n < 128 && !(i + n + 1 < row.length && row[i + n] === row[i + n + 1])) n++;
    out.push(n - 1, ...row.subarray(i, i + n));
    i += n;
  }
  return out;
}

/** An RLE channel (row byte counts, then the rows) of `rows`; `cut` drops bytes from each row's end. */
function rle(rows: Uint8Array[], cut = 0): Uint8Array {
  const packed = rows.map((r) => packBits(r).slice(0, Math.max(0, packBits(r).length - cut)));
  const out = new Uint8Array(rows.length * 2 + packed.reduce((n, p) => n + p.length, 0));
  const view = new DataView(out.buffer);
  let at = rows.length * 2;
  packed.forEach((p, y) => {
    view.setUint16(y * 2, p.length);
    out.set(p, at);
    at += p.length;
  });
  return out;
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
      const reader = channelRows({ id: 0, compression: 1, data: rle(rows) }, width, rows.length, false);
      for (const row of rows) expect(reader.next()).toEqual(row);
    }
  });

  it('leaves zeros where a row is cut short, whatever the row before held', () => {
    const width = 200;
    const rows = runRows(width, 12, 7);
    const reader = channelRows({ id: 0, compression: 1, data: rle(rows, 3) }, width, rows.length, false);
    for (const row of rows) {
      const got = reader.next();
      const packed = packBits(row);
      // What the cut rows decode to: the same packing without its last 3 bytes, the rest zeros.
      const expected = new Uint8Array(width);
      let o = 0;
      for (let i = 0; i < packed.length - 3 && o < width; ) {
        const n = packed[i++];
        if (n < 128) {
          const count = Math.min(n + 1, width - o, packed.length - 3 - i);
          expected.set(packed.slice(i, i + count), o);
          i += n + 1;
          o += count;
        } else if (n > 128) {
          const count = Math.min(257 - n, width - o);
          expected.fill(packed[i++], o, o + count);
          o += count;
        }
      }
      expect(got).toEqual(expected);
    }
  });
});
