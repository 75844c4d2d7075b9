import { describe, expect, it } from 'vitest';
import { seeded } from '../../../src/engine/composite/gradient';
import { patternRows, tilePattern, type Tiling } from '../../../src/engine/composite/pattern';
import type { RGBAImage } from '../../../src/engine/types';
import { firstDifference } from '../../helpers/pixels';
import { randomPatternTile } from './kit';

/**
 * Issue 25 §1: a pattern's colours made band by band (patternRows: an overlay's or stroke's bands
 * of rows) are tilePattern's over the whole rectangle, every byte: random tiles, scales (shrunk,
 * whole, enlarged: the pattern's period repeating rows or not), angles (turned and not), origins,
 * rectangles and bands of 1 row up, with the rows later bands repeat kept, kept in part or not.
 */
describe('patternRows', () => {
  it('gives tilePattern\'s bytes band by band for 160 random patterns, tilings and bands', () => {
    for (let seed = 1; seed <= 160; seed++) {
      const rnd = seeded(seed);
      const int = (n: number) => Math.floor(rnd() * n);
      const { width: tw, height: th, data } = randomPatternTile(rnd, int);
      const tile: RGBAImage = { width: tw, height: th, data };
      const angle = [0, 0, 0, 360, -360, 90, 30, 180][int(8)]!;
      const tiling: Tiling = { originX: rnd() * 40 - 20, originY: int(2) ? int(30) - 15 : rnd() * 30 - 15, scale: [0.25, 0.37, 0.5, 1, 1, 1.5, 2, 3][int(8)]!, ...(angle ? { angle } : {}) };
      const [x0, y0, w, h] = [int(80) - 40, int(80) - 40, 1 + int(90), 1 + int(120)];
      const want = tilePattern(tile, tiling, x0, y0, w, h);
      for (const keep of [1 << 20, w * (1 + int(4)), 0]) {
        const rows = patternRows(tile, tiling, x0, y0, w, h, keep);
        const got = new Uint8ClampedArray(want.length);
        for (let top = y0; top < y0 + h; ) {
          const bottom = Math.min(y0 + h, top + 1 + int(int(2) ? 6 : 40));
          got.set(rows(top, bottom), (top - y0) * w * 4);
          top = bottom;
        }
        expect(firstDifference(got, want), `seed ${seed}, keep ${keep}`).toBe(-1);
      }
    }
  });
});
