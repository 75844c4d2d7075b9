import { describe, expect, it } from 'vitest';
import { NON_SEPARABLE, SEPARABLE } from '../../../src/engine/composite/blend';

/**
 * Blend modes at the ends of their ranges, as a port holds them to Photoshop's composites of the
 * psd-tools corpus (IT-BAER/photobaer docs/M1.md §3, mean ΔE2000 < 1 and max < 5 over every
 * pixel): vivid light's ends follow the source (0 at 0, 1 at 1, whatever the backdrop), not the
 * W3C burn and dodge ends; colour dodge 0 over a 0 backdrop, colour burn 1 over a 1 backdrop;
 * divide by 0 is 0 over 0, else 1; darker and lighter colour keep the backdrop on a luminosity
 * tie; hard mix on the line (8-bit values summing to 255) is 1 where the source is at most ½.
 */
const v = (n: number) => n / 255;

describe('blend modes at their ends (Photoshop, via a port held to the psd-tools corpus)', () => {
  it('vivid light: source 0 gives 0 and source 1 gives 1 over any backdrop', () => {
    for (const b of [0, 1, 64, 128, 254, 255].map(v)) {
      expect(SEPARABLE['vivid light'](b, 0)).toBe(0);
      expect(SEPARABLE['vivid light'](b, 1)).toBe(1);
    }
  });

  it('colour dodge over 0 is 0 (even with source 1); colour burn over 1 is 1 (even with source 0)', () => {
    expect(SEPARABLE['color dodge'](0, 1)).toBe(0);
    expect(SEPARABLE['color dodge'](v(10), 1)).toBe(1);
    expect(SEPARABLE['color burn'](1, 0)).toBe(1);
    expect(SEPARABLE['color burn'](v(245), 0)).toBe(0);
  });

  it('divide by 0: 0 over 0, else 1', () => {
    expect(SEPARABLE.divide(0, 0)).toBe(0);
    expect(SEPARABLE.divide(v(1), 0)).toBe(1);
  });

  it('hard mix on the line: 1 where the source is at most ½ (so the backdrop above it)', () => {
    for (let s = 0; s <= 255; s++) expect(SEPARABLE['hard mix'](v(255 - s), v(s)), `s ${s}`).toBe(s <= 127 ? 1 : 0);
    expect(SEPARABLE['hard mix'](v(100), v(156))).toBe(1);
    expect(SEPARABLE['hard mix'](v(100), v(154))).toBe(0);
  });

  it('darker and lighter colour keep the backdrop on a luminosity tie', () => {
    const out = new Float64Array(3);
    const b = Float64Array.from([v(100), v(100), v(100)]);
    // Another colour of the same luminosity (0.3R + 0.59G + 0.11B): +0.011 on red, −0.011 on blue.
    const other = Float64Array.from([v(100) + 0.011 / 0.3, v(100), v(100) - 0.1]);
    for (const mode of ['darker color', 'lighter color']) {
      NON_SEPARABLE[mode](b, other, out);
      expect([...out].map((x) => x.toFixed(9))).toEqual([...b].map((x) => x.toFixed(9)));
    }
  });
});
