import { describe, expect, it } from 'vitest';
import { colourTransformSync, defaultProfile, type PixelLayout } from '../../../src/engine/colour';

/**
 * Long strips of 8-bit RGB go through LittleCMS's transform sampled on a grid (rgb-lut.ts); short
 * ones through LittleCMS itself. Both must agree within one level on every channel, with alpha
 * kept as the layouts say.
 */
const LONG = 64 * 256; // above the grid evaluator's threshold
const SHORT = 1000; // below it

function pixels(size: 3 | 4): Uint8Array {
  const out = new Uint8Array(LONG * size);
  let seed = 7;
  for (let i = 0; i < out.length; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    out[i] = size === 4 && i % 4 === 3 ? (seed >> 16) & 255 : (seed >> 13) & 255;
  }
  // The corners of the cube too (grid nodes and edges).
  const corners = [0, 255];
  let p = 0;
  for (const r of corners) for (const g of corners) for (const b of corners) {
    out.set([r, g, b], p);
    p += size;
  }
  return out;
}

const cases: Array<[PixelLayout, PixelLayout, 'Rgb' | 'Cmyk' | 'Grayscale']> = [
  ['RGBA', 'CMYK', 'Cmyk'],
  ['RGB', 'CMYK', 'Cmyk'],
  ['RGBA', 'CMYK_INVERTED', 'Cmyk'],
  ['RGBA', 'GRAY', 'Grayscale'],
  ['RGBA', 'RGBA', 'Rgb'],
  ['RGB', 'RGBA', 'Rgb'],
];

describe('grid evaluation of 8-bit RGB transforms', () => {
  it.each(cases)('%s → %s agrees with LittleCMS within one level', (fromLayout, toLayout, space) => {
    const t = colourTransformSync({ from: defaultProfile('Rgb'), to: defaultProfile(space), fromLayout, toLayout });
    const fromSize = fromLayout === 'RGBA' ? 4 : 3;
    const toSize = { CMYK: 4, CMYK_INVERTED: 4, GRAY: 1, RGBA: 4, RGB: 3 }[toLayout as 'CMYK']!;
    const src = pixels(fromSize);
    const fast = new Uint8Array(LONG * toSize);
    t.apply(src, fast, LONG);
    const exact = new Uint8Array(LONG * toSize);
    for (let at = 0; at < LONG; at += SHORT) {
      const n = Math.min(SHORT, LONG - at);
      const part = new Uint8Array(n * toSize);
      t.apply(src.subarray(at * fromSize), part, n);
      exact.set(part, at * toSize);
    }
    let worst = 0;
    for (let i = 0; i < fast.length; i++) worst = Math.max(worst, Math.abs(fast[i]! - exact[i]!));
    expect(worst).toBeLessThanOrEqual(1);
    if (toLayout === 'RGBA') {
      for (let i = 0; i < LONG; i++) expect(fast[i * 4 + 3]).toBe(fromSize === 4 ? src[i * 4 + 3] : 255);
    }
  });

  it('keeps pure paper and full black exact (CMYK)', () => {
    const t = colourTransformSync({ from: defaultProfile('Rgb'), to: defaultProfile('Cmyk'), fromLayout: 'RGB', toLayout: 'CMYK' });
    const src = new Uint8Array(LONG * 3).fill(255);
    src.fill(0, 0, 3);
    const out = new Uint8Array(LONG * 4);
    t.apply(src, out, LONG);
    const small = new Uint8Array(8);
    t.apply(src.subarray(0, 6), small, 2);
    expect([...out.subarray(0, 8)]).toEqual([...small]);
  });
});
