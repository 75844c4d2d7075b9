// A pattern overlay's or pattern stroke's colours (tilePattern): bilinear at pattern coordinates,
// wrapping, with n × n samples per output pixel when shrinking. speed-wide (issue 25 §3) sums
// them in locals instead of a closure and an array per sample (/tmp/team/tasks13/speed-wide-pattern.patch);
// the bytes must be those of this per-sample definition for any tile, scale, angle and origin.
import { describe, expect, it } from 'vitest';
import { tilePattern, type Tiling } from '../../../src/engine/composite/pattern';
import type { RGBAImage } from '../../../src/engine/types';
import { firstDifference } from '../../helpers/pixels';
import { seeded } from '../../../src/engine/composite/gradient';
import { randomPatternTile } from './kit';

const wrap = (v: number, n: number) => ((v % n) + n) % n;

/** The definition, sample by sample (the corners in the order the kernel must keep). */
function reference(tile: RGBAImage, tiling: Tiling, x0: number, y0: number, w: number, h: number): Uint8ClampedArray {
  const out = new Uint8ClampedArray(w * h * 4);
  const { width: tw, height: th, data: td } = tile;
  if (tw <= 0 || th <= 0) return out;
  const { originX, originY, scale } = tiling;
  const rad = ((tiling.angle ?? 0) * Math.PI) / 180;
  const cos = Math.cos(rad);
  const sin = Math.sin(rad);
  const n = scale >= 1 ? 1 : Math.min(8, Math.ceil(1 / scale));
  const acc = new Float64Array(4);
  const sample = (u: number, v: number) => {
    const fu = Math.floor(u);
    const fv = Math.floor(v);
    const tx = u - fu;
    const ty = v - fv;
    const xa = wrap(fu, tw);
    const xb = wrap(fu + 1, tw);
    const ya = wrap(fv, th) * tw;
    const yb = wrap(fv + 1, th) * tw;
    const corners = [
      [(ya + xa) * 4, (1 - tx) * (1 - ty)],
      [(ya + xb) * 4, tx * (1 - ty)],
      [(yb + xa) * 4, (1 - tx) * ty],
      [(yb + xb) * 4, tx * ty],
    ];
    for (const [i, k] of corners) {
      if (k! <= 0) continue;
      const a = (td[i! + 3]! / 255) * k!;
      acc[0] += td[i!]! * a;
      acc[1] += td[i! + 1]! * a;
      acc[2] += td[i! + 2]! * a;
      acc[3] += a;
    }
  };
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      acc.fill(0);
      for (let sy = 0; sy < n; sy++) {
        for (let sx = 0; sx < n; sx++) {
          const dx = x0 + x + (sx + 0.5) / n - originX;
          const dy = y0 + y + (sy + 0.5) / n - originY;
          sample((dx * cos - dy * sin) / scale - 0.5, (dx * sin + dy * cos) / scale - 0.5);
        }
      }
      const o = (y * w + x) * 4;
      const a = acc[3]!;
      if (a > 0) {
        out[o] = acc[0]! / a;
        out[o + 1] = acc[1]! / a;
        out[o + 2] = acc[2]! / a;
      }
      out[o + 3] = (a / (n * n)) * 255;
    }
  }
  return out;
}

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
      expect(firstDifference(tilePattern(tile, tiling, x0, y0, w, h), reference(tile, tiling, x0, y0, w, h)), `seed ${seed}`).toBe(-1);
    }
  });
});
