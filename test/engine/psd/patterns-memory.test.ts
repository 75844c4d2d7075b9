import { describe, expect, it } from 'vitest';
import { ColorMode } from '../../../src/engine/psd/color-modes';
import { PATTERN_DECODE_MEMORY, PATTERN_MEMORY, readPatterns } from '../../../src/engine/psd/patterns';
import { type CraftPattern, patternPsd } from './pattern-craft';

/**
 * What a document's patterns may take (issue 25 §1: every accepted template inside a Worker's
 * 128 MB): each pattern's RGBA against what is left of PATTERN_MEMORY for the document, and with
 * what decoding it holds beside (a row reader: psd/patterns.ts decodes each plane into the RGBA
 * row by row) against that plus PATTERN_DECODE_MEMORY; checked before anything is allocated, the
 * pattern named unreadable with the bytes (a 422 when an effect draws it).
 */

const RGB = ColorMode.RGB;
/** A pattern side × side whose planes are 1 × 1 (cheap to write; its RGBA is still side² × 4). */
const big = (id: string, side: number, depth = 8): CraftPattern => ({
  mode: RGB,
  name: id,
  id,
  width: side,
  height: side,
  planes: [0, 1, 2].map((slot) => ({ slot, samples: new Uint8Array(depth / 8).fill(7), depth, rect: { top: 0, left: 0, bottom: 1, right: 1 } })),
});

describe('the memory a document’s patterns may take', () => {
  it('bounds the sum over its patterns: once one has taken its share, the next that does not fit is unread, a smaller one still read', () => {
    const side = 2900; // 33.6 MB of RGBA: one fits in 64 MB, two do not
    const read = readPatterns(patternPsd([{ key: 'Patt', patterns: [big('a', side), big('b', side), big('c', side), { ...big('small', 16), id: 'small' }] }]));
    expect(read.map((p) => [p.id, !!p.data])).toEqual([
      ['a', true],
      ['b', false],
      ['c', false],
      ['small', true],
    ]);
    expect(read[0].data!.length).toBe(side * side * 4);
    expect(read[1].unread).toBe("it needs 32.1 MB once decoded: more than 64 MB, the most a document's patterns may take together, 32.1 MB of it taken by its other patterns");
  });

  it('checks before allocating: a pattern of the whole budget passes the check (then fails on its missing planes), one pixel more does not', () => {
    const side = Math.sqrt(PATTERN_MEMORY / 4); // 4096
    const at = readPatterns(patternPsd([{ key: 'Patt', patterns: [{ ...big('at', side), planes: [] }] }]));
    expect(at[0].unread).toBe('it stores 0 of its 3 colour planes');
    const over = readPatterns(patternPsd([{ key: 'Patt', patterns: [{ ...big('over', side), width: side + 1, planes: [] }] }]));
    expect(over[0].unread).toMatch(/^it needs 64\.1 MB once decoded: more than 64 MB/);
  });

  it('counts the rows it is decoded through: a 32-bit pattern millions of pixels wide whose RGBA fits but not with its rows', () => {
    const width = 8_000_000; // RGBA 32 MB; a 32-bit row reader 8 + 32 MB: 72 MB, past 64 + 1
    const wide = (depth: number): CraftPattern => ({ ...big(`wide${depth}`, 1, depth), width, height: 1, planes: big('', 1, depth).planes.map((q) => ({ ...q, rect: { top: 0, left: 0, bottom: 1, right: width } })) });
    const [p] = readPatterns(patternPsd([{ key: 'Patt', patterns: [wide(32)] }]));
    expect(p.unread).toBe("it needs 30.6 MB once decoded and 38.2 MB more while decoding: more than 64 MB, the most a document's patterns may take together, and 1 MB to decode one");
    expect(4 * width + 5 * width).toBeGreaterThan(PATTERN_MEMORY + PATTERN_DECODE_MEMORY);
    // At 8 bits (an 8 MB row) it decodes: 32 + 8 MB.
    const [eight] = readPatterns(patternPsd([{ key: 'Patt', patterns: [wide(8)] }]));
    expect(eight.unread).toBeUndefined();
    expect(eight.data!.length).toBe(width * 4);
  });
});
