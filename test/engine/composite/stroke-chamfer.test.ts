import { describe, expect, it } from 'vitest';
import { bandCoverage, chamferDistance } from '../../../src/engine/composite/morphology';
import { random } from './kit';

/**
 * The stroke effect's distance as Photoshop measures it (docs/effects.md, "Strokes in the chamfer
 * metric"): from pixel centres in the 5 × 5 chamfer metric (steps 1, √2, √5), a pixel of coverage
 * a taken as an edge 0.5 − a beyond its centre. The cases are pixels of
 * psdtools-layer-effects-all.psd's 6 px white outside stroke, whose coverage Photoshop's
 * composite shows over grey 129 (level − 129, over 126).
 */

/** A w × h field, empty but for the given pixels' coverages. */
function field(w: number, h: number, pixels: Array<[number, number, number]>): Float32Array {
  const a = new Float32Array(w * h);
  for (const [x, y, c] of pixels) a[y * w + x] = c;
  return a;
}

/** The 6 px outside stroke's coverage at pixel (x, y). */
const outside6 = (d: Float32Array, w: number, x: number, y: number) => bandCoverage(d[y * w + x], 0, 6);

describe("Photoshop's stroke distance (5 × 5 chamfer)", () => {
  it('is exact across a straight edge that cuts a pixel, inside and out', () => {
    const a = Float32Array.from([1, 1, 1, 1, 1, 0.3, 0, 0, 0, 0]);
    const d = chamferDistance(a, a.length, 1);
    for (let x = 0; x < a.length; x++) expect(d[x]).toBeCloseTo(x + 0.5 - 5.3, 5);
  });

  it('follows the pixel straight across on a flat edge (Photoshop 0.27 where Euclid gives 0.42)', () => {
    // At (122, 554): the pixel 6 below is covered 25 %, its left neighbour 50 %. Euclid puts the
    // half pixel 6.08 px off (coverage 0.42); a knight's step and four straight ones make 6.24.
    const w = 9;
    const a = field(w, 8, [[3, 7, 0.5], [4, 7, 0.25]]);
    const d = chamferDistance(a, w, 8);
    expect(d[1 * w + 4]).toBeCloseTo(4 + Math.sqrt(5), 5);
    expect(outside6(d, w, 4, 1)).toBeCloseTo(0.264, 3);
  });

  it('rounds a square corner about the corner pixel centre, not its corner (Photoshop 0.29 at 3 across, 6 up)', () => {
    // At (202, 567): the nearest covered pixel is a wholly covered one 3 px across and 6 down:
    // three knight's steps less half a pixel, 6.21 (coverage 0.29; to its square, 5.70 and 0.80).
    const w = 10;
    const a = field(w, 8, [[0, 7, 1]]);
    const d = chamferDistance(a, w, 8);
    expect(d[1 * w + 3]).toBeCloseTo(3 * Math.sqrt(5) - 0.5, 5);
    expect(outside6(d, w, 3, 1)).toBeCloseTo(0.292, 3);
  });

  it('measures inside pixels to the empty side, negated', () => {
    // A 7 × 7 square: its centre pixel is 3 straight steps from the empty border, its edge 3.5 px.
    const w = 9;
    const a = new Float32Array(w * w);
    for (let y = 1; y < 8; y++) for (let x = 1; x < 8; x++) a[y * w + x] = 1;
    const d = chamferDistance(a, w, w);
    expect(d[4 * w + 4]).toBeCloseTo(-3.5, 5);
    expect(d[1 * w + 1]).toBeCloseTo(-0.5, 5);
    // Outside, diagonally off the corner: one diagonal step less half a pixel.
    expect(d[0]).toBeCloseTo(Math.SQRT2 - 0.5, 5);
  });

  it('keeps a partial pixel at its own edge', () => {
    const w = 5;
    const a = field(w, 1, [[0, 0, 1], [1, 0, 0.8], [2, 0, 0.3]]);
    const d = chamferDistance(a, w, 1);
    expect(d[1]).toBeCloseTo(-0.3, 5);
    expect(d[2]).toBeCloseTo(0.2, 5);
  });
});

describe('the two raster passes', () => {
  /** The chamfer length of (dx, dy): knight's moves while they fit the slope, then diagonals, then straight steps. */
  const chamfer = (dx: number, dy: number) => {
    let [a, b] = [Math.abs(dx), Math.abs(dy)];
    if (b > a) [a, b] = [b, a];
    const knights = Math.min(b, Math.max(0, a - b));
    const diagonals = b - knights;
    return knights * Math.sqrt(5) + diagonals * Math.SQRT2 + (a - 2 * knights - diagonals);
  };

  it('give every pixel the least seed plus chamfer length, as a search over all seeds does', () => {
    // Sparse partial pixels and a few solid ones, from a seeded generator.
    const { next } = random(7);
    const w = 23;
    const h = 17;
    const a = Float32Array.from({ length: w * h }, () => (next() < 0.06 ? (next() < 0.3 ? 1 : next()) : 0));
    const d = chamferDistance(a, w, h);
    for (let i = 0; i < a.length; i++) {
      if (a[i] !== 0) continue;
      let want = Infinity;
      for (let j = 0; j < a.length; j++) {
        if (a[j] > 0) want = Math.min(want, chamfer((i % w) - (j % w), Math.floor(i / w) - Math.floor(j / w)) + 0.5 - a[j]);
      }
      expect(d[i]).toBeCloseTo(want, 4);
    }
  });
});
