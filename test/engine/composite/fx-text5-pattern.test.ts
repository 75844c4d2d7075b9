// fx-text5 (issue 25 §3): an unturned pattern's colours (tilePattern's tileUpright) are worked out
// once per column and row, and a pixel whose row's and column's taps and weights repeat an
// earlier one's is copied. The bytes must be those of the definition, sample by sample (the loop it
// replaced: kit.ts' patternByDefinition), for
// the overlays a personalised text redraws: wide tiles (the pattern repeats many times across),
// whole-pixel and fractional origins, every scale the previews use.
import { describe, expect, it } from 'vitest';
import { tilePattern, type Tiling } from '../../../src/engine/composite/pattern';
import { firstDifference } from '../../helpers/pixels';
import { seeded } from '../../../src/engine/composite/gradient';
import { patternByDefinition } from './kit';

describe('tilePattern, unturned (fx-text5)', () => {
  it('gives the bytes of the sample-by-sample loop over wide tiles, 300 random patterns, origins and scales', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const rnd = seeded(seed * 7919);
      const int = (n: number) => Math.floor(rnd() * n);
      const tw = 1 + int(24);
      const th = 1 + int(24);
      const data = new Uint8ClampedArray(tw * th * 4);
      const opaque = rnd() < 0.5;
      for (let i = 0; i < data.length; i++) data[i] = (i & 3) === 3 && opaque ? 255 : int(256);
      // Whole-pixel origins (a layer's reference point at scale 1), fractional ones, and a render
      // scale's (a reference point times 0.37, 0.25, …).
      const kind = int(3);
      const renderScale = [1, 0.5, 0.25, 0.37, 0.125, 2][int(6)]!;
      const origin = () => (kind === 0 ? int(400) - 100 : kind === 1 ? rnd() * 400 - 100 : (int(800) + int(4) / 4) * renderScale);
      const tiling: Tiling = {
        originX: origin(),
        originY: origin(),
        scale: [1, 1, 0.5, 0.3, 0.125, 0.07, 1.6, 2, 3.125, 0.8][int(10)]! * (kind === 2 ? renderScale : 1),
        ...(rnd() < 0.1 ? { angle: [30, 90, -45, 180][int(4)]! } : {}),
      };
      const x0 = int(900) - 100;
      const y0 = int(700) - 100;
      const w = 1 + int(seed % 5 ? 120 : 600);
      const h = 1 + int(seed % 5 ? 40 : 90);
      const tile = { width: tw, height: th, data };
      expect(firstDifference(tilePattern(tile, tiling, x0, y0, w, h), patternByDefinition(tile, tiling, x0, y0, w, h)), `seed ${seed}`).toBe(-1);
    }
  });

  it('gives those bytes at a personalised preview\'s pattern overlay (an 8 × 8 tile from the layer\'s corner, 560 × 70 px)', () => {
    const rnd = seeded(25);
    const data = new Uint8ClampedArray(8 * 8 * 4).map(() => Math.floor(rnd() * 256));
    const tile = { width: 8, height: 8, data };
    for (const tiling of [
      { originX: 99, originY: 488, scale: 1 },
      { originX: 99.5, originY: 488.25, scale: 1 },
      { originX: 24.75, originY: 122, scale: 0.25 },
    ]) {
      expect(firstDifference(tilePattern(tile, tiling, 94, 483, 565, 70), patternByDefinition(tile, tiling, 94, 483, 565, 70))).toBe(-1);
    }
  });
});
