// The contract's count-per-sheet algorithm: margins, gaps, bleed, rotation and ties.
import { describe, expect, it } from 'vitest';
import { countPerSheet, unionOf } from '../../../src/engine/imposition/count-per-sheet';

const card = { width: 252, height: 144 }; // 3.5 × 2 in

describe('countPerSheet', () => {
  it('fills a sheet without margins or gaps', () => {
    expect(countPerSheet(card, 0, { sheetWidth: 612, sheetHeight: 792 })).toEqual({ count: 10, columns: 2, rows: 5, rotated: false, itemWidth: 252, itemHeight: 144 });
  });

  it('margins shrink the usable area', () => {
    const r = countPerSheet(card, 0, { sheetWidth: 612, sheetHeight: 792, margin: { left: 36, right: 36, top: 36, bottom: 36 } });
    expect(r).toMatchObject({ columns: 2, rows: 5, count: 10 });
    const tight = countPerSheet(card, 0, { sheetWidth: 612, sheetHeight: 792, margin: { left: 60, right: 60 } });
    expect(tight).toMatchObject({ columns: 1, count: 5 });
  });

  it('gaps sit between items only (n items need n-1 gaps)', () => {
    // 2·252 + 1·gap ≤ 612 ⇔ gap ≤ 108
    expect(countPerSheet(card, 0, { sheetWidth: 612, sheetHeight: 144, gapX: 108 }).columns).toBe(2);
    expect(countPerSheet(card, 0, { sheetWidth: 612, sheetHeight: 144, gapX: 108.01 }).columns).toBe(1);
    // (792 + 18) / (144 + 18) = 5 exactly: the tolerance keeps the fifth row.
    expect(countPerSheet(card, 0, { sheetWidth: 252, sheetHeight: 792, gapY: 18 })).toMatchObject({ rows: 5, count: 5 });
    expect(countPerSheet(card, 0, { sheetWidth: 252, sheetHeight: 792, gapY: 18.5 })).toMatchObject({ rows: 4, count: 4 });
  });

  it('bleed is added on every side', () => {
    const r = countPerSheet(card, 9, { sheetWidth: 612, sheetHeight: 792 });
    expect(r).toMatchObject({ itemWidth: 270, itemHeight: 162, columns: 2, rows: 4, count: 8 });
  });

  it('rotation is used only when it fits more; ties stay unrotated', () => {
    const sheet = { sheetWidth: 300, sheetHeight: 520 };
    expect(countPerSheet({ width: 250, height: 100 }, 0, sheet)).toMatchObject({ count: 5, rotated: false });
    expect(countPerSheet({ width: 250, height: 100 }, 0, { ...sheet, allowRotation: true })).toMatchObject({ count: 6, rotated: true, columns: 3, rows: 2 });
    // 2×3 = 3×2: a tie stays unrotated.
    expect(countPerSheet({ width: 150, height: 100 }, 0, { sheetWidth: 300, sheetHeight: 300, allowRotation: true })).toMatchObject({ count: 6, rotated: false, itemWidth: 150 });
    const wide = countPerSheet({ width: 500, height: 100 }, 0, { sheetWidth: 300, sheetHeight: 520, allowRotation: true });
    expect(wide).toMatchObject({ count: 3, rotated: true, columns: 3, rows: 1, itemWidth: 100, itemHeight: 500 });
    expect(countPerSheet({ width: 500, height: 100 }, 0, { sheetWidth: 300, sheetHeight: 520 })).toMatchObject({ count: 0 });
  });

  it('tolerates floating-point error and never goes negative', () => {
    expect(countPerSheet({ width: 0.1 * 3, height: 1 }, 0, { sheetWidth: 0.9, sheetHeight: 1 }).columns).toBe(3);
    expect(countPerSheet(card, 0, { sheetWidth: 100, sheetHeight: 100, margin: { left: 80, right: 80 } }).count).toBe(0);
  });

  it('the union of print areas', () => {
    expect(unionOf([{ x: 10, y: 10, width: 100, height: 50 }, { x: 150, y: 0, width: 20, height: 20 }])).toEqual({ width: 160, height: 60 });
  });
});
