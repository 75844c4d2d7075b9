// A pattern overlay's or pattern stroke's colours (tilePattern): bilinear at pattern coordinates,
// wrapping, with n × n samples per output pixel when shrinking. speed-wide (issue 25 §3) sums
// them in locals instead of a closure and an array per sample (/tmp/team/tasks13/speed-wide-pattern.patch);
// the bytes must be those of this per-sample definition for any tile, scale, angle and origin.
import { describe, expect, it } from 'vitest';
import { tilePattern, type Tiling } from '../../../src/engine/composite/pattern';
import { firstDifference } from '../../helpers/pixels';
import { seeded } from '../../../src/engine/composite/gradient';
import { patternByDefinition, randomPatternTile } from './kit';

describe('tilePattern', () => {
  it('gives the bytes of the per-sample definition for 200 random tiles, scales, angles and origins', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const rnd = seeded(seed);
      const int = (n: number) => Math.floor(rnd() * n);
      const { width: tw, height: th, data } = randomPatternTile(rnd, int);
      const tiling: Tiling = {
        originX: rnd() * 40 - 20,
        originY: rnd() * 40 - 20,
        scale: [1, 0.5, 0.3, 0.125, 0.07, 1.6, 2, 3.125, 0.8][int(9)]!,
        ...(rnd() < 0.3 ? { angle: [30, 90, -45, 180, 12.5][int(5)]! } : {}),
      };
      const x0 = int(60) - 30;
      const y0 = int(60) - 30;
      const w = 1 + int(30);
      const h = 1 + int(30);
      const tile = { width: tw, height: th, data };
      expect(firstDifference(tilePattern(tile, tiling, x0, y0, w, h), patternByDefinition(tile, tiling, x0, y0, w, h)), `seed ${seed}`).toBe(-1);
    }
  });
});
