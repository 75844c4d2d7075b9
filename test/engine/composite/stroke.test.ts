import { describe, expect, it } from 'vitest';
import { bandCoverage, signedDistance } from '../../../src/engine/composite/morphology';

/**
 * The stroke effect's geometry: a band of `size` px along the shape's edge, measured from the
 * anti-aliased edge (a pixel of coverage a has the edge 0.5 − a px from its centre) and
 * anti-aliased by each pixel's share of the band.
 */

/** A w×1 row of coverages. */
const row = (...a: number[]) => Float32Array.from(a);

describe('signed distance to an anti-aliased edge', () => {
  it('is exact across a straight edge that cuts a pixel (edge at x = 5.3)', () => {
    // Pixels 0..4 covered, pixel 5 covered 30 % (the edge at 5.3), the rest empty.
    const a = row(1, 1, 1, 1, 1, 0.3, 0, 0, 0, 0);
    const d = signedDistance(a, a.length, 1);
    // Pixel centres at x + 0.5: the distance is (x + 0.5) − 5.3, negative inside.
    for (let x = 0; x < a.length; x++) expect(d[x]).toBeCloseTo(x + 0.5 - 5.3, 5);
  });

  it('is Euclidean from a corner (the rounded corner of a dilated square)', () => {
    const w = 12;
    const h = 12;
    const a = new Float32Array(w * h);
    for (let y = 0; y < 4; y++) for (let x = 0; x < 4; x++) a[y * w + x] = 1;
    const d = signedDistance(a, w, h);
    // The square's corner is at (4, 4); pixel (7, 8) has its centre at (7.5, 8.5), 5.70 px away
    // (within half a pixel on corners).
    expect(d[8 * w + 7]).toBeGreaterThan(Math.hypot(3.5, 4.5) - 0.5);
    expect(d[8 * w + 7]).toBeLessThan(Math.hypot(3.5, 4.5) + 0.5);
  });
});

describe('signed distance where partial pixels are nearer than the edge', () => {
  it('measures to the nearest empty square when a nearly full pixel is nearer by centre', () => {
    // A 5×5 field, full but for an empty last column and pixel (3, 3) at 97 %: from (2, 2) that
    // pixel is nearer (√2) than the empty column (2), but puts its edge 1.88 px off; the edge of
    // the empty column is 1.5 px away (where a curve meets a straight edge in
    // psdtools-fx-stroke-composite.psd, an inside stroke left a pixel of the layer showing).
    const w = 5;
    const a = new Float32Array(w * w).fill(1);
    for (let y = 0; y < w; y++) a[y * w + 4] = 0;
    a[3 * w + 3] = 0.97;
    const d = signedDistance(a, w, w);
    expect(d[2 * w + 2]).toBeCloseTo(-1.5, 5);
    // and the same from outside: the empty pixel next to the column's full rows
    const b = Float32Array.from(a, (v) => 1 - v);
    expect(signedDistance(b, w, w)[2 * w + 2]).toBeCloseTo(1.5, 5);
  });

  it('measures to a fuller pixel a little farther when the nearest by centre is a sliver', () => {
    // A 12×12 field, empty but for a column at x = 10 covered 75 % and one sliver (1/16, what
    // text anti-aliasing leaves) at (6, 9): from (4, 4) the sliver is nearer by centre (√29 =
    // 5.39) but puts its edge 5.83 px off; the column's edge is 5.75 px away (6 − 0.25). In
    // psdtools-layer-effects-all.psd Photoshop's 6 px outside stroke follows the fuller pixel.
    const w = 12;
    const a = new Float32Array(w * w);
    for (let y = 0; y < w; y++) a[y * w + 10] = 0.75;
    a[9 * w + 6] = 1 / 16;
    expect(signedDistance(a, w, w)[4 * w + 4]).toBeCloseTo(5.75, 5);
    // and the same from inside, the field inverted
    const b = Float32Array.from(a, (v) => 1 - v);
    expect(signedDistance(b, w, w)[4 * w + 4]).toBeCloseTo(-5.75, 5);
  });

  it('measures a wholly covered pixel behind a sliver as a straight edge, not to its square', () => {
    // From (2, 2): a sliver at (2, 7) is nearest by centre (5 px, its edge 5.44 off); the nearest
    // pixel at least half covered is a full one at (6, 6), diagonal: its edge is taken 0.5 px short
    // of its centre (5.16), not at its square's corner (4.95). On the stroke where a mask cuts a
    // circle in psdtools-fx-stroke-composite.psd the square drew the stroke a pixel too wide.
    const w = 12;
    const a = new Float32Array(w * w);
    a[6 * w + 6] = 1;
    a[7 * w + 2] = 1 / 16;
    expect(signedDistance(a, w, w)[2 * w + 2]).toBeCloseTo(Math.hypot(4, 4) - 0.5, 5);
    const b = Float32Array.from(a, (v) => 1 - v);
    expect(signedDistance(b, w, w)[2 * w + 2]).toBeCloseTo(0.5 - Math.hypot(4, 4), 5);
  });
});

describe('stroke band coverage', () => {
  // Straight edge at x = 5 (pixels 0..4 inside): a pixel's share of the band [lo, hi].
  const a = row(1, 1, 1, 1, 1, 0, 0, 0, 0, 0);
  const d = signedDistance(a, a.length, 1);
  const band = (lo: number, hi: number) => [...d].map((v) => +bandCoverage(v, lo, hi).toFixed(3));

  it('outside, 2 px: the two pixels beyond the edge', () => {
    expect(band(0, 2)).toEqual([0, 0, 0, 0, 0, 1, 1, 0, 0, 0]);
  });
  it('inside, 2 px: the two pixels within the edge', () => {
    expect(band(-2, 0)).toEqual([0, 0, 0, 1, 1, 0, 0, 0, 0, 0]);
  });
  it('centre, 3 px: 1.5 px each side, the half pixels anti-aliased', () => {
    expect(band(-1.5, 1.5)).toEqual([0, 0, 0, 0.5, 1, 1, 0.5, 0, 0, 0]);
  });
  it('a fractional width covers the last pixel by its share', () => {
    expect(band(0, 1.25)).toEqual([0, 0, 0, 0, 0, 1, 0.25, 0, 0, 0]);
  });
  it('an anti-aliased edge pixel is shared: the outside stroke takes what the shape leaves', () => {
    const soft = row(1, 1, 1, 1, 1, 0.4, 0, 0, 0, 0);
    const ds = signedDistance(soft, soft.length, 1);
    const out = [...ds].map((v) => +bandCoverage(v, 0, 2).toFixed(3));
    const inn = [...ds].map((v) => +bandCoverage(v, -2, 0).toFixed(3));
    // Edge at 5.4: the outside band [5.4, 7.4] covers 60 % of pixel 5, pixel 6, 40 % of pixel 7.
    expect(out).toEqual([0, 0, 0, 0, 0, 0.6, 1, 0.4, 0, 0]);
    // The inside band [3.4, 5.4]: 60 % of pixel 3, pixel 4, and the 40 % of pixel 5 the shape has.
    expect(inn).toEqual([0, 0, 0, 0.6, 1, 0.4, 0, 0, 0, 0]);
  });
});
