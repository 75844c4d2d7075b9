import { describe, expect, it } from 'vitest';
import { colourTransformSync, defaultProfile, type PixelLayout } from '../../../src/engine/colour';

/**
 * 8-bit RGB goes through LittleCMS's transform sampled on a grid (rgb-lut.ts). Against LittleCMS
 * evaluating the same transform at 16 bits (rounded to 8), every channel is within one level,
 * alpha kept as the layouts say, and any strip length gives the same values.
 */
const COUNT = 20_000;

function pixels(size: 3 | 4): Uint8Array {
  const out = new Uint8Array(COUNT * size);
  let seed = 7;
  for (let i = 0; i < out.length; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    out[i] = (seed >> 13) & 255;
  }
  // The corners of the cube too (grid nodes).
  let p = 0;
  for (const r of [0, 255]) for (const g of [0, 255]) for (const b of [0, 255]) {
    out.set([r, g, b], p);
    p += size;
  }
  return out;
}

const WIDE = { CMYK: 'CMYK16', CMYK_INVERTED: 'CMYK16', GRAY: 'GRAY16', RGBA: 'RGB16', RGB: 'RGB16' } as const;
const CHANNELS = { CMYK: 4, CMYK_INVERTED: 4, GRAY: 1, RGBA: 3, RGB: 3 } as const;

const cases: Array<['RGB' | 'RGBA', keyof typeof WIDE, 'Rgb' | 'Cmyk' | 'Grayscale']> = [
  ['RGBA', 'CMYK', 'Cmyk'],
  ['RGB', 'CMYK', 'Cmyk'],
  ['RGBA', 'CMYK_INVERTED', 'Cmyk'],
  ['RGBA', 'GRAY', 'Grayscale'],
  ['RGBA', 'RGBA', 'Rgb'],
  ['RGB', 'RGBA', 'Rgb'],
];

describe('grid evaluation of 8-bit RGB transforms', () => {
  it.each(cases)('%s → %s is within one level of LittleCMS at 16 bits', (fromLayout, toLayout, space) => {
    const options = { from: defaultProfile('Rgb'), to: defaultProfile(space) };
    const t = colourTransformSync({ ...options, fromLayout, toLayout: toLayout as PixelLayout });
    const wide = colourTransformSync({ ...options, fromLayout: 'RGB16', toLayout: WIDE[toLayout] });
    const fromSize = fromLayout === 'RGBA' ? 4 : 3;
    const toSize = CHANNELS[toLayout] + (toLayout === 'RGBA' ? 1 : 0);
    const src = pixels(fromSize);
    const ours = new Uint8Array(COUNT * toSize);
    t.apply(src, ours, COUNT);
    const src16 = new Uint16Array(COUNT * 3);
    for (let i = 0; i < COUNT; i++) for (let c = 0; c < 3; c++) src16[i * 3 + c] = src[i * fromSize + c]! * 257;
    const exact16 = new Uint16Array(COUNT * CHANNELS[toLayout]);
    wide.apply(new Uint8Array(src16.buffer), new Uint8Array(exact16.buffer), COUNT);
    let worst = 0;
    for (let i = 0; i < COUNT; i++)
      for (let c = 0; c < CHANNELS[toLayout]; c++) {
        let exact = Math.round(exact16[i * CHANNELS[toLayout] + c]! / 257);
        if (toLayout === 'CMYK_INVERTED') exact = 255 - exact;
        worst = Math.max(worst, Math.abs(ours[i * toSize + c]! - exact));
      }
    expect(worst).toBeLessThanOrEqual(1);
    if (toLayout === 'RGBA') for (let i = 0; i < COUNT; i++) expect(ours[i * 4 + 3]).toBe(fromSize === 4 ? src[i * 4 + 3] : 255);
  });

  it('gives the same values whatever the strip length', () => {
    const t = colourTransformSync({ from: defaultProfile('Rgb'), to: defaultProfile('Cmyk'), fromLayout: 'RGBA', toLayout: 'CMYK' });
    const src = pixels(4);
    const whole = new Uint8Array(COUNT * 4);
    t.apply(src, whole, COUNT);
    const parts = new Uint8Array(COUNT * 4);
    for (let at = 0; at < COUNT; at += 7) {
      const n = Math.min(7, COUNT - at);
      const part = new Uint8Array(n * 4);
      t.apply(src.subarray(at * 4), part, n);
      parts.set(part, at * 4);
    }
    expect(parts).toEqual(whole);
  });
});
