/**
 * The ink compositor's two shortcuts (src/engine/pdf/ink-composite.ts) give the blend's pixels
 * exactly, the WASM kernel's and the TypeScript loop's: a plain first layer copied onto a blank
 * canvas (copyCovered) and an adjustment in Normal at full opacity, unmasked, applied in place
 * (adjustInks, covered) instead of blending an adjusted copy source-atop. Random pixels, alpha 0,
 * partial and 255 among them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blendSurface } from '../../../src/engine/composite/blend';
import { useWasmBlending } from '../../../src/engine/raster/blend';
import { kernels } from '../../../src/engine/raster/kernels';
import { cloneSurface, createSurface, type Surface } from '../../../src/engine/composite/surface';
import { adjustInks, copyCovered } from '../../../src/engine/pdf/ink-composite';
import type { Bounds } from '../../../src/engine/types';
import { firstDifference } from '../../helpers/pixels';

/** A deterministic generator (mulberry32). */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** C, M, Y (+ alpha) and K ×3 (+ the same alpha) over `r`: random stored values, alpha from 0, 1, 128, 254, 255 or any. */
function inkPair(r: Bounds, next: () => number): { cmy: Surface; k: Surface } {
  const cmy = createSurface(r);
  const k = createSurface(r);
  const alphas = [0, 1, 128, 254, 255, -1];
  for (let p = 0; p < cmy.data.length; p += 4) {
    const pick = alphas[Math.floor(next() * alphas.length)];
    const a = pick < 0 ? Math.floor(next() * 256) : pick;
    for (let c = 0; c < 3; c++) cmy.data[p + c] = Math.floor(next() * 256);
    k.data[p] = k.data[p + 1] = k.data[p + 2] = Math.floor(next() * 256);
    cmy.data[p + 3] = k.data[p + 3] = a;
  }
  return { cmy, k };
}

const table = (f: (v: number) => number) => Uint8Array.from({ length: 256 }, (_, v) => Math.max(0, Math.min(255, Math.round(f(v)))));

describe.each([
  ['the WASM kernel', true],
  ['the TypeScript loop', false],
])('the ink compositor\'s shortcuts give the blend\'s pixels (%s)', (_name, wasm) => {
  beforeAll(async () => {
    await kernels();
    useWasmBlending(wasm);
  });
  afterAll(() => useWasmBlending(true));

  it('a plain layer (Normal, full opacity, unmasked) onto a blank canvas: copied where covered, 0 elsewhere', () => {
    const next = random(7);
    const area = { left: 0, top: 0, right: 61, bottom: 23 };
    // The layer inside the canvas, across its edge, and covering it.
    for (const r of [{ left: 5, top: 3, right: 40, bottom: 20 }, { left: -9, top: -4, right: 30, bottom: 30 }, area]) {
      const src = inkPair(r, next);
      const blank = { cmy: createSurface(area), k: createSurface(area) };
      copyCovered(blank, src);
      const kernel = { cmy: createSurface(area), k: createSurface(area) };
      blendSurface(kernel.cmy, src.cmy, null, 1, 'normal', {});
      blendSurface(kernel.k, src.k, null, 1, 'normal', {});
      expect(firstDifference(blank.cmy.data, kernel.cmy.data)).toBe(-1);
      expect(firstDifference(blank.k.data, kernel.k.data)).toBe(-1);
    }
  });

  it('an adjustment in Normal at full opacity, unmasked, in place: the adjusted copy blended source-atop', () => {
    const next = random(11);
    const area = { left: 0, top: 0, right: 57, bottom: 31 };
    const curve = table((v) => 255 * Math.pow(v / 255, 0.7));
    const levels = table((v) => ((v - 20) * 255) / 215);
    for (const luts of [[curve, levels, curve, levels], [null, curve, null, null], [levels, null, null, curve]]) {
      const canvas = inkPair(area, next);
      const kernel = { cmy: cloneSurface(canvas.cmy), k: cloneSurface(canvas.k) };
      const after = { cmy: cloneSurface(canvas.cmy), k: cloneSurface(canvas.k) };
      adjustInks(after, luts, false);
      blendSurface(kernel.cmy, after.cmy, null, 1, 'normal', { atop: true });
      blendSurface(kernel.k, after.k, null, 1, 'normal', { atop: true });
      adjustInks(canvas, luts, true);
      expect(firstDifference(canvas.cmy.data, kernel.cmy.data)).toBe(-1);
      expect(firstDifference(canvas.k.data, kernel.k.data)).toBe(-1);
    }
  });
});
