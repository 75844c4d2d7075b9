import { describe, expect, it } from 'vitest';
import { ColorMode } from '../../../src/engine/psd/color-modes';
import { readPatterns } from '../../../src/engine/psd/patterns';
import { type CraftPattern, patternPsd } from './pattern-craft';

/**
 * A pattern plane's own rectangle (four uint32 in its VMAL slot) is the file's word, not the
 * pattern's: psd/patterns.ts decoded every row and column of it (channelRows of `w` bytes, `h`
 * rows, a loop over each) whatever the pattern's rectangle, so a 3 × 2 pattern whose plane claims
 * 1 × 4,000,000,000 px ran minutes at upload, and one claiming 1,000,000,000 × 1 allocated a
 * 1 GB row (workerd: killed, a 500, not a 422). ag-psd refused such CMYK, Lab, 16-bit and ZIP
 * patterns before it got there (their upload compiled at 6bd320b). A plane must lie within its
 * pattern's rectangle; one that does not is named unreadable (a 422 when an effect uses it).
 */

const W = 3;
const H = 2;
const samples = new Uint8Array(W * H).fill(100);
const pattern = (mode: number, compression: number, rect: { top: number; left: number; bottom: number; right: number }): CraftPattern => ({
  mode,
  name: 'tile',
  id: `p-${mode}-${compression}`,
  width: W,
  height: H,
  planes: Array.from({ length: mode === ColorMode.CMYK ? 4 : 3 }, (_, slot) => ({ slot, samples, compression, ...(slot === 0 ? { rect } : {}) })),
});

describe('a pattern plane whose rectangle is not within its pattern', () => {
  it.each([
    ['raw CMYK, 20,000,000 rows', ColorMode.CMYK, 0, { top: 0, left: 0, bottom: 20_000_000, right: 1 }],
    ['ZIP RGB, 20,000,000 rows', ColorMode.RGB, 2, { top: 0, left: 0, bottom: 20_000_000, right: 1 }],
    ['raw RGB, 50,000,000 columns', ColorMode.RGB, 0, { top: 0, left: 0, bottom: 1, right: 50_000_000 }],
    ['raw RGB, a rectangle beside the pattern', ColorMode.RGB, 0, { top: 1_000_000, left: 0, bottom: 1_000_002, right: W }],
  ])('is named unreadable, not decoded row by row (%s)', (_, mode, compression, rect) => {
    const started = performance.now();
    const [p] = readPatterns(patternPsd([{ key: 'Patt', patterns: [pattern(mode, compression, rect)] }]));
    expect(p.data).toBeUndefined();
    expect(p.unread).toMatch(/rectangle/);
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('one within it (smaller, offset) is still placed by its own rectangle', () => {
    const [p] = readPatterns(patternPsd([{ key: 'Patt', patterns: [pattern(ColorMode.RGB, 0, { top: 1, left: 1, bottom: 2, right: 3 })] }]));
    expect(p.unread).toBeUndefined();
    expect([...p.data!].filter((_, i) => i % 4 === 0)).toEqual([0, 0, 0, 0, 100, 100]);
  });
});
