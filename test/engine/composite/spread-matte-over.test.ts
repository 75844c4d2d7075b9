import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { seeded } from '../../../src/engine/composite/gradient';
import { bandCoverage, chamferDistance, spreadMatte, useWasmEffectPasses } from '../../../src/engine/composite/morphology';
import { kernels } from '../../../src/engine/raster/kernels';
import { differing } from './float-fields';

/**
 * Issue 25 §1: past the WASM passes a spread holds the alpha, its peak and one chamfer field (not
 * also the ratio and a byte a pixel), runs the covered side's chamfer pass alone, and writes the
 * matte over the alpha when it is handed over. Every float is the definition's: the ratio
 * alpha ÷ peak, chamferDistance of it (both sides), max(alpha, band(d, −∞, radius) · peak), over
 * mattes with empty, partial, half and whole pixels, wholly covered and empty ones, lines, radii
 * from 0.2 (a band narrower than a pixel, where the empty side's ½ − c would show) to 60.
 */
function matte(seed: number, w: number, h: number): Float32Array {
  const rnd = seeded(seed);
  const a = new Float32Array(w * h);
  const kind = seed % 6;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const r = rnd();
      let v: number;
      if (kind === 0) v = r < 0.3 ? 0 : r < 0.6 ? 1 : r < 0.7 ? 0.5 : rnd();
      else if (kind === 1) v = Math.max(0, Math.min(1, 0.5 + 0.6 * Math.sin(x / 9) * Math.cos(y / 7)));
      else if (kind === 2) v = (x - w / 2) ** 2 + (y - h / 2) ** 2 < (w / 3) ** 2 ? (rnd() < 0.05 ? rnd() : 1) : rnd() < 0.01 ? rnd() : 0;
      else if (kind === 3) v = r < 0.002 ? 1 : r < 0.004 ? 0.5 : 0;
      else if (kind === 4) v = 0.6 * (x < w / 2 ? 1 : 0.5 + r / 2); // uniformly partial: the peak rules
      else v = seed % 12 === 5 ? 1 : 0; // wholly covered (no empty seed at all) or empty
      a[y * w + x] = v;
    }
  }
  return a;
}

/** The highest value within r px along each axis, naively. */
function boxMaxNaive(a: Float32Array, w: number, h: number, r: number): Float32Array {
  const t = new Float32Array(a.length);
  const out = new Float32Array(a.length);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let m = -Infinity;
      for (let j = Math.max(0, x - r); j <= Math.min(w - 1, x + r); j++) m = Math.max(m, a[y * w + j]);
      t[y * w + x] = m;
    }
  }
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let m = -Infinity;
      for (let j = Math.max(0, y - r); j <= Math.min(h - 1, y + r); j++) m = Math.max(m, t[j * w + x]);
      out[y * w + x] = m;
    }
  }
  return out;
}

/** The definition: the ratio's both-sided chamfer distance, the band to the radius, scaled by the peak. */
function reference(a: Float32Array, w: number, h: number, radius: number): Float32Array {
  const peak = boxMaxNaive(a, w, h, Math.ceil(radius + 1));
  const ratio = new Float32Array(a.length);
  for (let i = 0; i < a.length; i++) ratio[i] = peak[i] > 0 ? a[i] / peak[i] : 0;
  useWasmEffectPasses(false);
  const d = chamferDistance(ratio, w, h);
  useWasmEffectPasses(true);
  for (let i = 0; i < a.length; i++) d[i] = Math.max(a[i], bandCoverage(d[i], -Infinity, radius) * peak[i]);
  return d;
}

afterEach(() => useWasmEffectPasses(true));
beforeAll(async () => {
  await kernels();
});

const RADII = [0.2, 0.5, 1, 3.7, 19, 60];

describe('spreadMatte past the WASM passes', () => {
  it('gives the definition\'s floats, written over the alpha when handed over, on 12 random mattes', () => {
    for (let seed = 1; seed <= 12; seed++) {
      const [w, h] = [560 + seed * 13, 470 + seed * 7];
      const a = matte(seed, w, h);
      const radius = RADII[seed % RADII.length]!;
      const want = reference(a, w, h, radius);
      const kept = a.slice();
      const made = spreadMatte(a, w, h, radius);
      expect(differing(a, kept), `seed ${seed}: the alpha left as it was`).toBe(0);
      expect(differing(made, want), `seed ${seed}, radius ${radius}`).toBe(0);
      const over = spreadMatte(a, w, h, radius, true);
      expect(over).toBe(a); // over the alpha itself: no array of its size besides it
      expect(differing(over, want), `seed ${seed}, radius ${radius}, over`).toBe(0);
    }
  });

  it('gives those floats within the WASM size, with the WASM passes on and off, over lines and every radius', () => {
    for (const wasm of [true, false]) {
      for (let seed = 1; seed <= 12; seed++) {
        for (const [w, h] of [[40 + seed * 17, 30 + seed * 11], [1, 90], [90, 1]]) {
          const a = matte(seed, w!, h!);
          for (const radius of RADII) {
            const want = reference(a, w!, h!, radius);
            useWasmEffectPasses(wasm);
            const got = spreadMatte(a.slice(), w!, h!, radius, seed % 2 === 0);
            useWasmEffectPasses(true);
            expect(differing(got, want), `seed ${seed}, ${w} × ${h}, radius ${radius}, wasm ${wasm}`).toBe(0);
          }
        }
      }
    }
  });
});
