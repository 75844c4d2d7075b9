import { describe, expect, it } from 'vitest';
import { bevelMaps, throughCurve, type BevelOptions } from '../../../src/engine/composite/bevel';

// A 40×40 opaque square in a 100×100 field, lit from straight above (90°) at 30° altitude: the
// flat face is lit at sin 30° = ½, the level between highlight and shadow.
const W = 100;
const H = 100;
const square = new Float32Array(W * H);
for (let y = 30; y < 70; y++) for (let x = 30; x < 70; x++) square[y * W + x] = 1;
const maps = (o: Partial<BevelOptions>, shape = square) =>
  bevelMaps(shape, W, H, { style: 'inner bevel', size: 10, depth: 1, up: true, soften: 0, angle: 90, altitude: 30, ...o });
const table = (f: (v: number) => number) => Uint8Array.from({ length: 256 }, (_, v) => Math.round(f(v)));
const at = (m: { hi: Float32Array; lo: Float32Array }, y: number, x = 50) => [m.hi[y * W + x], m.lo[y * W + x]];

describe('bevel gloss contour (applied to the shade after lighting)', () => {
  it('Linear changes nothing', () => {
    const plain = maps({});
    const linear = maps({ gloss: table((v) => v) });
    for (let i = 0; i < W * H; i++) {
      expect(linear.hi[i]).toBeCloseTo(plain.hi[i], 6);
      expect(linear.lo[i]).toBeCloseTo(plain.lo[i], 6);
    }
  });

  it('a curve held at white lights the whole face, flat middle included; held at black darkens it', () => {
    const white = maps({ gloss: table(() => 255) });
    const black = maps({ gloss: table(() => 0) });
    for (const y of [31, 40, 50, 68]) {
      expect(at(white, y)).toEqual([1, 0]);
      expect(at(black, y)).toEqual([0, 1]);
    }
    // Outside the shape an inner bevel draws nothing, whatever the curve.
    for (const y of [20, 29, 70, 80]) {
      expect(at(white, y)).toEqual([0, 0]);
      expect(at(black, y)).toEqual([0, 0]);
    }
  });

  it('an inverted curve turns the lighting over about the flat level (½ at 30°)', () => {
    const plain = maps({});
    const inv = maps({ gloss: table((v) => 255 - v) });
    const [topHi] = at(plain, 32);
    const [, botLo] = at(plain, 67);
    expect(topHi).toBeGreaterThan(0.2);
    expect(botLo).toBeGreaterThan(0.2);
    // Shade s → 1 − s: a highlight (s − ½)/½ becomes a shadow (½ − (1 − s))/½ of the same size.
    expect(at(inv, 32)[0]).toBe(0);
    expect(at(inv, 32)[1]).toBeCloseTo(topHi, 1);
    expect(at(inv, 67)[1]).toBe(0);
    expect(at(inv, 67)[0]).toBeCloseTo(botLo, 1);
    // The flat face stays at ½ (to the table's 8 bits).
    expect(at(inv, 50)[0] + at(inv, 50)[1]).toBeCloseTo(0, 2);
  });
});

describe('bevel Contour element (applied to the height before lighting)', () => {
  it('Linear changes nothing; a flat curve leaves nothing to light', () => {
    const plain = maps({});
    const linear = maps({ contour: table((v) => v) });
    for (let i = 0; i < W * H; i++) expect(linear.hi[i] + linear.lo[i]).toBeCloseTo(plain.hi[i] + plain.lo[i], 2);
    const flat = maps({ contour: table(() => 128) });
    for (let i = 0; i < W * H; i++) expect(flat.hi[i] + flat.lo[i]).toBe(0);
  });

  it('the slope of the curve scales the lit slope: h² steepens the top of the bevel, √h flattens it', () => {
    const plain = maps({});
    const square2 = maps({ contour: table((v) => (v / 255) ** 2 * 255) });
    const sqrt = maps({ contour: table((v) => Math.sqrt(v / 255) * 255) });
    // 8 px in, the blurred height is near its top (where d(h²)/dh ≈ 2 and d√h/dh ≈ ½).
    expect(at(plain, 38)[0]).toBeGreaterThan(0.01);
    expect(at(square2, 38)[0]).toBeGreaterThan(at(plain, 38)[0]);
    expect(at(sqrt, 38)[0]).toBeLessThan(at(plain, 38)[0]);
  });
});

describe('stroke emboss', () => {
  it('bevels both edges of the stroke band it is given, and nothing off the band', () => {
    // A 6 px band around the square (an outside stroke), as effects.ts passes it.
    const band = new Float32Array(W * H);
    for (let y = 24; y < 76; y++) for (let x = 24; x < 76; x++) band[y * W + x] = square[y * W + x] ? 0 : 1;
    const m = maps({ style: 'stroke emboss', size: 3 }, band);
    expect(at(m, 25)[0]).toBeGreaterThan(0.1); // the band's outer edge, facing the light
    expect(at(m, 28)[1]).toBeGreaterThan(0.1); // its inner edge, facing away
    for (const y of [20, 23, 30, 50, 69, 76]) expect(at(m, y)).toEqual([0, 0]);
  });
});

describe('throughCurve', () => {
  it('interpolates between table entries and clamps to 0..1', () => {
    const t = table((v) => v * 0.5);
    expect(throughCurve(t, 0)).toBe(0);
    expect(throughCurve(t, 1)).toBeCloseTo(128 / 255, 6);
    expect(throughCurve(t, 0.5)).toBeCloseTo((64 + (64 - 64) * 0.5) / 255, 2);
    expect(throughCurve(t, -1)).toBe(0);
    expect(throughCurve(t, 2)).toBeCloseTo(128 / 255, 6);
  });
});
