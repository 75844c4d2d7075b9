import { beforeAll, describe, expect, it } from 'vitest';
import { applyAdjustment } from '../../../src/engine/composite/adjust';
import { kernels } from '../../../src/engine/raster/kernels';
import { adjustedByTypescript } from './kit';

/**
 * Issue 25 §3 (picture-redraw): the Hue/Saturation kernel works out, per pair of pixels, only the
 * colour ranges their hues may fall in (wasm/assembly/hue-saturation.ts hueBins: half-degree bins
 * of hue, each with the ranges that reach it, 1e-6 around both). Held to the TypeScript on every
 * colour whose hue lies within a degree of a range's ends (and the wrap at 0°/360°), for ranges
 * as Photoshop stores them (whole degrees, wrapping, as wide as 330°) and every master setting kind.
 */

/** Colours (r, g, b) of every hue near `ends` (degrees), at several chromas and lightnesses. */
function nearHues(ends: number[]): Uint8ClampedArray {
  const out: number[] = [];
  for (let r = 0; r < 256; r += 3) {
    for (let g = 0; g < 256; g += 1) {
      for (let b = 0; b < 256; b += 5) {
        const mx = Math.max(r, g, b), mn = Math.min(r, g, b);
        if (mx === mn) continue;
        const d = mx - mn;
        const h6 = mx === r ? (g - b) / d : mx === g ? (b - r) / d + 2 : (r - g) / d + 4;
        const h = (h6 * 60 + 360) % 360;
        if (ends.some((e) => Math.abs(((h - e + 540) % 360) - 180) <= 1)) out.push(r, g, b, 255);
      }
    }
  }
  return Uint8ClampedArray.from(out);
}

const differing = (a: Uint8ClampedArray, b: Uint8ClampedArray) => a.reduce((n, v, i) => n + (v !== b[i] ? 1 : 0), 0);

describe('Hue/Saturation ranges by hue bins (issue 25 §3)', () => {
  beforeAll(async () => {
    await kernels();
  });

  const cases = [
    { reds: { a: 315, b: 345, c: 15, d: 90, hue: 19, saturation: 14, lightness: 26 }, blues: { a: 222, b: 260, c: 353, d: 23, hue: 38, saturation: -78, lightness: 43 } },
    { magentas: { a: 275, b: 311, c: 50, d: 137, hue: 36, saturation: 0, lightness: -26 }, cyans: { a: 135, b: 165, c: 195, d: 225, hue: -17, saturation: 20, lightness: -91 } },
    { greens: { a: 0, b: 0, c: 0, d: 0, hue: 10, saturation: 50, lightness: 0 }, yellows: { a: 359, b: 0, c: 1, d: 2, hue: -40, saturation: -20, lightness: 10 } },
    { reds: { a: 30, b: 31, c: 300, d: 359, hue: 180, saturation: 100, lightness: -100 } },
  ];
  const masters = [
    { hue: 0, saturation: 0, lightness: 0 },
    { hue: -27, saturation: 0, lightness: 10 },
    { hue: 122, saturation: 100, lightness: -37 },
    { hue: 0, saturation: -97, lightness: 28 },
  ];

  it.each(cases.map((c, i) => [i, c] as const))('case %i: the TypeScript bytes near every range end', (_, ranges) => {
    const ends = Object.values(ranges).flatMap((r) => [r.a, r.b, r.c, r.d, 0]);
    const px = nearHues(ends);
    expect(px.length).toBeGreaterThan(4000);
    for (const m of masters) {
      const adj = { type: 'hue/saturation', master: { a: 0, b: 0, c: 0, d: 0, ...m }, ...ranges };
      const actual = px.slice();
      applyAdjustment(adj as never, actual); // the kernel (ranges ≥ 1: hueBins)
      expect(differing(actual, adjustedByTypescript(adj, px)), JSON.stringify(adj)).toBe(0);
    }
  });
});
