// fx-text5 (issue 25 §3): an unturned pattern's colours (tilePattern's tileUpright) are worked out
// once per column and row, and a pixel whose row's and column's taps and weights repeat an
// earlier one's is copied. The bytes must be those of the loop it replaces, sample by sample, for
// the overlays a personalised text redraws: wide tiles (the pattern repeats many times across),
// whole-pixel and fractional origins, every scale the previews use.
import { describe, expect, it } from 'vitest';
import { tilePattern, type Tiling } from '../../../src/engine/composite/pattern';
import type { RGBAImage } from '../../../src/engine/types';
import { firstDifference } from '../../helpers/pixels';
import { seeded } from '../../../src/engine/composite/gradient';

const wrap = (v: number, n: number) => ((v % n) + n) % n;

/** tilePattern before fx-text5: every pixel summed sample by sample (turned or not). */
function loop(tile: RGBAImage, tiling: Tiling, x0: number, y0: number, w: number, h: number): Uint8ClampedArray {
  const out = new Uint8ClampedArray(w * h * 4);
  const { width: tw, height: th, data: td } = tile;
  if (tw <= 0 || th <= 0) return out;
  const { originX, originY, scale } = tiling;
  const rad = ((tiling.angle ?? 0) * Math.PI) / 180;
  const cos = Math.cos(rad);
  const sin = Math.sin(rad);
  const n = scale >= 1 ? 1 : Math.min(8, Math.ceil(1 / scale));
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let r = 0;
      let g = 0;
      let b = 0;
      let a = 0;
      for (let sy = 0; sy < n; sy++) {
        for (let sx = 0; sx < n; sx++) {
          const ox = x0 + x + (sx + 0.5) / n;
          const oy = y0 + y + (sy + 0.5) / n;
          const dx = ox - originX;
          const dy = oy - originY;
          const u = (dx * cos - dy * sin) / scale - 0.5;
          const v = (dx * sin + dy * cos) / scale - 0.5;
          const fu = Math.floor(u);
          const fv = Math.floor(v);
          const tx = u - fu;
          const ty = v - fv;
          const xa = wrap(fu, tw);
          const xb = wrap(fu + 1, tw);
          const ya = wrap(fv, th) * tw;
          const yb = wrap(fv + 1, th) * tw;
          for (let corner = 0; corner < 4; corner++) {
            const i = ((corner < 2 ? ya : yb) + (corner & 1 ? xb : xa)) * 4;
            const k = (corner & 1 ? tx : 1 - tx) * (corner < 2 ? 1 - ty : ty);
            if (k <= 0) continue;
            const c = (td[i + 3]! / 255) * k;
            r += td[i]! * c;
            g += td[i + 1]! * c;
            b += td[i + 2]! * c;
            a += c;
          }
        }
      }
      const o = (y * w + x) * 4;
      if (a > 0) {
        out[o] = r / a;
        out[o + 1] = g / a;
        out[o + 2] = b / a;
      }
      out[o + 3] = (a / (n * n)) * 255;
    }
  }
  return out;
}

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
      expect(firstDifference(tilePattern(tile, tiling, x0, y0, w, h), loop(tile, tiling, x0, y0, w, h)), `seed ${seed}`).toBe(-1);
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
      expect(firstDifference(tilePattern(tile, tiling, 94, 483, 565, 70), loop(tile, tiling, 94, 483, 565, 70))).toBe(-1);
    }
  });
});
