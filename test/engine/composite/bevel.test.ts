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
});
