import { describe, expect, it } from 'vitest';
import { applyAdjustment } from '../../../src/engine/composite/adjust';

/**
 * Colorize works each (max, min) byte pair out once (adjust.ts colorizeHsl): the same bytes as the
 * per-pixel HSL round trip it replaced (written out here as it was), over pixels that share and do
 * not share their extremes, for several settings (issue 25 §3, speed-huesat).
 */
function perPixel(d: Uint8ClampedArray, hue: number, saturation: number, lightness: number): void {
  const h = (((hue % 360) + 360) % 360) / 360;
  const s = Math.max(0, Math.min(1, saturation / 100));
  const l = Math.max(-1, Math.min(1, lightness / 100));
  for (let i = 0; i < d.length; i += 4) {
    const r = d[i] / 255, g = d[i + 1] / 255, b = d[i + 2] / 255;
    const mx = Math.max(r, g, b), mn = Math.min(r, g, b);
    const l0 = (mx + mn) / 2;
    const L = l > 0 ? l0 + (1 - l0) * l : l0 * (1 + l);
    if (s === 0) {
      d[i] = L * 255; d[i + 1] = L * 255; d[i + 2] = L * 255;
      continue;
    }
    const q = L < 0.5 ? L * (1 + s) : L + s - L * s;
    const p = 2 * L - q;
    const f = (t: number) => {
      t = ((t % 1) + 1) % 1;
      if (t < 1 / 6) return p + (q - p) * 6 * t;
      if (t < 1 / 2) return q;
      if (t < 2 / 3) return p + (q - p) * (2 / 3 - t) * 6;
      return p;
    };
    d[i] = f(h + 1 / 3) * 255; d[i + 1] = f(h) * 255; d[i + 2] = f(h - 1 / 3) * 255;
  }
}

describe('colorize', () => {
  it('gives the per-pixel bytes with its (max, min) memo', () => {
    let seed = 7;
    const rnd = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 24);
    const pixels = new Uint8ClampedArray(4 * 40000);
    for (let i = 0; i < pixels.length; i++) pixels[i] = i % 4 === 3 ? rnd() : i < 4 * 20000 ? rnd() : pixels[i - 4 * 20000 + 4] ?? 0;
    for (const [hue, saturation, lightness] of [[240, 40, 0], [0, 100, 50], [-30, 25, -80], [400, 0, 20], [120, 100, 100], [60, 55, -100]]) {
      const want = pixels.slice();
      perPixel(want, hue, saturation, lightness);
      const got = pixels.slice();
      const adj = { type: 'hue/saturation', master: { a: 256, b: hue, c: saturation, d: lightness, hue: 0, saturation: 0, lightness: 0 } };
      expect(applyAdjustment(adj as never, got)).toBe(true);
      expect(Buffer.from(got).equals(Buffer.from(want)), `${hue} ${saturation} ${lightness}`).toBe(true);
    }
  });
});
