import { describe, expect, it } from 'vitest';
import { bevelMaps, type BevelOptions } from '../../../src/engine/composite/bevel';

// A 40×40 opaque square in the middle of an 100×100 field, lit from straight above (90°).
const W = 100;
const H = 100;
const square = new Float32Array(W * H);
for (let y = 30; y < 70; y++) for (let x = 30; x < 70; x++) square[y * W + x] = 1;
const maps = (o: Partial<BevelOptions>) =>
  bevelMaps(square, W, H, { style: 'inner bevel', size: 10, depth: 1, up: true, soften: 0, angle: 90, altitude: 30, ...o });
/** Highlight and shadow at column 50, row y. */
const at = (m: { hi: Float32Array; lo: Float32Array }, y: number) => [m.hi[y * W + 50], m.lo[y * W + 50]];
const shaded = (m: { hi: Float32Array; lo: Float32Array }, y: number) => at(m, y)[0] + at(m, y)[1];

describe('bevel and emboss', () => {
  it('inner bevel: lit inside the edge only, the top facing the light, the bottom away', () => {
    const m = maps({ style: 'inner bevel' });
    for (const y of [20, 27, 29, 70, 75]) expect(shaded(m, y)).toBe(0);
    const [topHi, topLo] = at(m, 31);
    const [botHi, botLo] = at(m, 68);
    expect(topHi).toBeGreaterThan(0.2);
    expect(topLo).toBe(0);
    expect(botLo).toBeGreaterThan(0.2);
    expect(botHi).toBe(0);
    expect(shaded(m, 50)).toBe(0); // flat middle
  });

  it('emboss splits the size across the edge: it reaches half the size outside, not the whole', () => {
    const m = maps({ style: 'emboss' });
    expect(shaded(m, 28)).toBeGreaterThan(0.1); // 2 px above the top edge
    expect(shaded(m, 31)).toBeGreaterThan(0.1); // 1 px inside it
    for (const y of [22, 23, 76, 77]) expect(shaded(m, y)).toBe(0); // 7 px out: beyond size / 2 and the blur's tail
    expect(shaded(m, 50)).toBe(0);
  });

  it('outer bevel lives outside the shape', () => {
    const m = maps({ style: 'outer bevel' });
    expect(shaded(m, 26)).toBeGreaterThan(0.1);
    for (const y of [31, 40, 50, 60, 68]) expect(shaded(m, y)).toBe(0);
  });

  it('outer bevel: the shape blurred over the size, lit outside it up to the size out and no farther (photocraft, bevel-outer-smooth.psd)', () => {
    // Size 10: two box passes of about 10 px reach 9 px past the edge (row 30), not 19 as the
    // shape grown by the size and then blurred did.
    const m = maps({ style: 'outer bevel' });
    expect(shaded(m, 21)).toBeGreaterThan(0); // 9 px out
    expect(shaded(m, 27)).toBeGreaterThan(0.1);
    for (const y of [11, 15, 19, 20, 80]) expect(shaded(m, y)).toBe(0);
    // The same slope as an inner bevel's at the edge, mirrored: the height is the one blur of the shape.
    const inner = maps({ style: 'inner bevel' });
    expect(at(m, 29)[0]).toBeCloseTo(at(inner, 30)[0], 1);
  });

  it('pillow emboss: the emboss height, its inside lit as an emboss, its outside turned over (photocraft, bevel-pillow-smooth.psd)', () => {
    const emboss = maps({ style: 'emboss' });
    const pillow = maps({ style: 'pillow emboss' });
    // Inside (alpha 1) a pillow is lit exactly as an emboss: the groove |2h − 1| sloped twice as steeply.
    for (const y of [31, 32, 33, 66, 68]) {
      expect(at(pillow, y)[0]).toBeCloseTo(at(emboss, y)[0], 6);
      expect(at(pillow, y)[1]).toBeCloseTo(at(emboss, y)[1], 6);
    }
    // Outside, the emboss's highlight above the top edge turns to shadow (and the reverse below).
    expect(at(emboss, 28)[0]).toBeGreaterThan(0.1);
    expect(at(pillow, 28)[0]).toBe(0);
    expect(at(pillow, 28)[1]).toBeGreaterThan(0.1);
    // A 1 % edge pixel takes the outside's shading.
    const soft = square.slice();
    for (let x = 30; x < 70; x++) soft[29 * W + x] = 0.01;
    const p = bevelMaps(soft, W, H, { style: 'pillow emboss', size: 10, depth: 1, up: true, soften: 0, angle: 90, altitude: 30 });
    expect(p.lo[29 * W + 50]).toBeGreaterThan(0.1);
    expect(p.hi[29 * W + 50]).toBeLessThan(0.02);
  });

  it('direction down turns the slopes over: highlight and shadow change sides', () => {
    const up = maps({ style: 'emboss' });
    const down = maps({ style: 'emboss', up: false });
    expect(at(up, 29)[0]).toBeGreaterThan(0.1);
    expect(at(down, 29)[0]).toBe(0);
    expect(at(down, 29)[1]).toBeGreaterThan(0.1);
  });

  it('pillow emboss stamps the edge in: outside the top edge faces away from the light, inside it faces the light', () => {
    const emboss = maps({ style: 'emboss' });
    const pillow = maps({ style: 'pillow emboss' });
    expect(at(emboss, 27)[0]).toBeGreaterThan(0.1); // emboss: the rise outside faces the light
    expect(at(pillow, 27)[1]).toBeGreaterThan(0.1); // pillow: it falls into the groove instead
    expect(at(pillow, 27)[0]).toBe(0);
    expect(at(pillow, 32)[0]).toBeGreaterThan(0.1);
  });

  it('depth 0 draws nothing; soften keeps the light where it was', () => {
    const flat = maps({ depth: 0 });
    expect(flat.hi.every((v) => v === 0)).toBe(true);
    expect(flat.lo.every((v) => v === 0)).toBe(true);
    const soft = maps({ soften: 4 });
    expect(at(soft, 31)[0]).toBeGreaterThan(0);
    expect(at(soft, 68)[1]).toBeGreaterThan(0);
  });
  it('chisel hard: flat facets from the distance to the edge, lit evenly along them', () => {
    // Inner bevel, 10 px: the height rises 1/10 per px from the top edge; slope gain 10 · depth 1
    // makes the facet's normal (0, −1, 1) against a light at 90°, altitude 30°: (0, −cos 30°, sin 30°).
    const m = maps({ style: 'inner bevel', technique: 'chisel hard' });
    const facet = ((Math.cos(Math.PI / 6) + 0.5) / Math.SQRT2 - 0.5) / 0.5;
    for (let y = 31; y <= 38; y++) expect(at(m, y)[0]).toBeCloseTo(facet, 4);
    expect(shaded(m, 45)).toBe(0); // the flat top
    // Emboss: the rise spans the whole size (half each side), scaled by the size as an inner bevel's
    // (photocraft's bevel_geom: depth × size for chisel): the same facet, normal (0, −1, 1). We
    // scaled it by half the size: half the slope, (0, −½, 1).
    const e = maps({ style: 'emboss', technique: 'chisel hard' });
    expect(at(e, 27)[0]).toBeCloseTo(facet, 4);
    expect(at(e, 32)[0]).toBeCloseTo(facet, 4);
    // Pillow: the same facet inside, turned over outside.
    const p = maps({ style: 'pillow emboss', technique: 'chisel hard' });
    expect(at(p, 32)[0]).toBeCloseTo(facet, 4);
    expect(at(p, 27)[0]).toBe(0);
    expect(at(p, 27)[1]).toBeGreaterThan(0.1);
    // Smooth, by contrast, is rounded: its light changes along the same rows.
    const smooth = maps({ style: 'inner bevel' });
    expect(Math.abs(at(smooth, 31)[0] - at(smooth, 36)[0])).toBeGreaterThan(0.05);
    // Chisel soft: the facets blurred, still lit on the top edge and flat in the middle.
    const soft = maps({ style: 'inner bevel', technique: 'chisel soft' });
    expect(at(soft, 34)[0]).toBeGreaterThan(0.5);
    expect(shaded(soft, 50)).toBe(0);
  });
});
