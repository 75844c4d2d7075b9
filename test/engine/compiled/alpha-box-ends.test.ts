import { describe, expect, it } from 'vitest';
import { AlphaBox } from '../../../src/engine/compiled/alpha-box';

/** What AlphaBox found before session 28: every alpha of the row looked at. */
function scanned(rows: Uint8Array[], left: number, top: number) {
  let l = Infinity, r = -Infinity, t = Infinity, b = -Infinity;
  rows.forEach((row, i) => {
    for (let x = 0, a = 3; a < row.length; x++, a += 4) {
      if (!row[a]) continue;
      l = Math.min(l, left + x);
      r = Math.max(r, left + x + 1);
      t = Math.min(t, top + i);
      b = top + i + 1;
    }
  });
  return r <= l ? null : { left: l, top: t, right: r, bottom: b };
}

// Session 28 (compile CPU): each row is searched from both ends for its first non-zero alpha.
describe('AlphaBox from both ends', () => {
  it('finds the box a full scan finds, on rows clear, opaque and sparse', () => {
    let s = 3;
    for (let n = 0; n < 300; n++) {
      const width = 1 + (n % 37);
      const crop = { left: 10, top: 20, right: 10 + width, bottom: 20 + 5 };
      const rows = Array.from({ length: 5 }, () => {
        const row = new Uint8Array(width * 4);
        for (let a = 3; a < row.length; a += 4) {
          s = (Math.imul(s, 1103515245) + 12345) >>> 0;
          row[a] = (s >>> 24) < (n % 4) * 20 ? s & 255 : 0;
        }
        return row;
      });
      const box = new AlphaBox(crop);
      rows.forEach((row, i) => box.add(crop.top + i, row));
      // The layer's box is the crop itself: sides at its edges stay as found.
      expect(box.result(crop)).toEqual(scanned(rows, crop.left, crop.top));
    }
  });
});
