import type { BevelStyle } from 'ag-psd';
import { describe, expect, it } from 'vitest';
import { bevelSize } from '../../../src/engine/composite/effects';

/**
 * Emboss and pillow emboss split their size across the edge in whole pixels, the half rounded
 * up: Photoshop's 41 px emboss in psdtools-layer-effects-all.psd lights the backdrop from 21 px
 * outside the letters' edge (within a level of its composite down a column through the E, where
 * half of 41 reached 19 px and was 1–4 levels darker), so it is drawn as a 42 px one.
 */
describe('bevel size', () => {
  const size = (style: BevelStyle, value: number) => bevelSize({ style, size: { value, units: 'Pixels' } });

  it('rounds an emboss or pillow emboss of odd size up to the next even one', () => {
    expect(size('emboss', 41)).toBe(42);
    expect(size('pillow emboss', 5)).toBe(6);
  });
  it('keeps even sizes, and every other style as it is', () => {
    expect(size('emboss', 40)).toBe(40);
    expect(size('inner bevel', 41)).toBe(41);
    expect(size('outer bevel', 7)).toBe(7);
    expect(size('stroke emboss', 3)).toBe(3);
  });
});
