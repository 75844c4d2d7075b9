import { beforeAll, describe, expect, it } from 'vitest';
import { bandCoverage, blurInPlace, chamferDistance, spreadMatte, useWasmEffectPasses } from '../../../src/engine/composite/morphology';
import { kernels } from '../../../src/engine/raster/kernels';
import { switchedOff } from '../../helpers/switches';
import { differing, field } from './float-fields';

/**
 * Session 20 (issue 25 §3, fuzz seed 312: an inner glow with a choke and three strokes over a
 * 9,450 × 800 preview's effect tiles took 34 s in Node): blurInPlace runs its box passes in the
 * kernels over strips of whole rows and of whole columns where an array is past what they hold at
 * once, and spreadMatte's box maximum calls no function a value. Both give the very floats they gave.
 */

/** spreadMatte as it was before (its box maximum reading and writing through a closure a value). */
function spreadMatteBefore(a: Float32Array, w: number, h: number, radius: number): Float32Array {
  const tmp = new Float32Array(a.length);
  const r = Math.ceil(radius + 1);
  const peak = new Float32Array(a.length);
  const n = Math.max(w, h);
  const line = new Float32Array(n);
  const pre = new Float32Array(n);
  const suf = new Float32Array(n);
  const k = 2 * r + 1;
  const rangeMax = (lo: number, hi: number) => {
    let m = line[lo];
    for (let j = lo + 1; j <= hi; j++) if (line[j] > m) m = line[j];
    return m;
  };
  const pass = (len: number, read: (i: number) => number, write: (i: number, v: number) => void) => {
    for (let i = 0; i < len; i++) line[i] = read(i);
    for (let i = 0; i < len; i++) pre[i] = i % k === 0 ? line[i] : Math.max(pre[i - 1], line[i]);
    for (let i = len - 1; i >= 0; i--) suf[i] = i === len - 1 || (i + 1) % k === 0 ? line[i] : Math.max(suf[i + 1], line[i]);
    for (let i = 0; i < len; i++) {
      const lo = Math.max(0, i - r);
      const hi = Math.min(len - 1, i + r);
      if (Math.floor(lo / k) !== Math.floor(hi / k)) write(i, Math.max(suf[lo], pre[hi]));
      else if (lo % k === 0) write(i, pre[hi]);
      else if (hi === len - 1 || (hi + 1) % k === 0) write(i, suf[lo]);
      else write(i, rangeMax(lo, hi));
    }
  };
  for (let y = 0; y < h; y++) pass(w, (x) => a[y * w + x], (x, v) => (tmp[y * w + x] = v));
  for (let x = 0; x < w; x++) pass(h, (y) => tmp[y * w + x], (y, v) => (peak[y * w + x] = v));
  for (let i = 0; i < a.length; i++) tmp[i] = peak[i] > 0 ? a[i] / peak[i] : 0;
  const d = chamferDistance(tmp, w, h);
  for (let i = 0; i < a.length; i++) d[i] = Math.max(a[i], bandCoverage(d[i], -Infinity, radius) * peak[i]);
  return d;
}

describe('effect passes past the kernels\' size', () => {
  beforeAll(async () => {
    await kernels();
  });

  const shapes: Array<[number, number]> = [
    [700, 600], // 420,000 values: more than the kernels hold at once
    [3000, 90], // many rows a strip
    [90, 3000], // many columns a strip
    [131_072, 2], // a row as long as a strip
    [131_073, 2], // a row longer than a strip: the TypeScript
    [37, 41], // small: the TypeScript
    [600, 437], // just past the kernels' size
  ];
  for (const [w, h] of shapes) {
    it(`blurInPlace over ${w} × ${h}: the TypeScript's floats`, () => {
      for (const [seed, radius] of [[1, 0.5], [2, 3], [3, 17.5], [4, 250]] as const) {
        const a = field(w, h, seed * 7919 + w);
        const strips = blurInPlace(a.slice(), w, h, radius);
        const typescript = switchedOff(useWasmEffectPasses, () => blurInPlace(a.slice(), w, h, radius));
        expect(differing(strips, typescript), `radius ${radius}`).toBe(0);
      }
    });
  }

  it('spreadMatte: the floats of its box maximum through closures, for radii 0.5 to 60 over wide, tall and square fields', () => {
    for (const [w, h, radius, seed] of [[300, 40, 2, 1], [40, 300, 7.5, 2], [160, 130, 0.5, 3], [200, 150, 19, 4], [90, 70, 60, 5], [1, 50, 3, 6], [50, 1, 3, 7]] as const) {
      const a = field(w, h, seed);
      const now = switchedOff(useWasmEffectPasses, () => spreadMatte(a, w, h, radius));
      const before = switchedOff(useWasmEffectPasses, () => spreadMatteBefore(a, w, h, radius));
      expect(differing(now, before), `${w} × ${h} radius ${radius}`).toBe(0);
      expect(differing(spreadMatte(a, w, h, radius), spreadMatteBefore(a, w, h, radius)), `${w} × ${h} radius ${radius}, kernels`).toBe(0);
    }
  });
});
