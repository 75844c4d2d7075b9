import { beforeAll, describe, expect, it } from 'vitest';
import { bilinearMove, blur, chamferDistance, movedBlur, useWasmEffectPasses } from '../../../src/engine/composite/morphology';
import { kernels, kernelsNow } from '../../../src/engine/raster/kernels';
import { switchedOff } from '../../helpers/switches';
import { differing, field } from './float-fields';

/**
 * The effects' float passes in WASM (wasm/assembly/effects.ts: the shadow's blur and move, issue
 * 25 §3) give the TypeScript's very floats: compared bit for bit.
 */
function typescriptOnly<T>(fn: () => T): T {
  return switchedOff(useWasmEffectPasses, fn);
}

describe('effect passes in WASM', () => {
  beforeAll(async () => {
    await kernels();
    expect(kernelsNow()).toBeDefined(); // else both sides would be the TypeScript
  });

  it("blur gives the TypeScript box passes' floats, for whole and half radii and radii past the array", () => {
    for (const [w, h] of [[97, 61], [1, 40], [33, 1], [300, 7]]) {
      const src = field(w, h, w * 31 + h);
      for (const radius of [0.5, 1, 2, 2.5, 3.5, 8, 17.25, 40, 400]) {
        const expected = typescriptOnly(() => blur(src, w, h, radius));
        const actual = blur(src, w, h, radius);
        expect(differing(actual, expected), `${w}×${h} radius ${radius}`).toBe(0);
      }
    }
  });

  it('blur gives the same floats over empty margins and rows (the row pass starts at the first value), with −0 among them', () => {
    for (const [w, h] of [[97, 61], [1, 40], [33, 1], [300, 7], [64, 9], [5, 5]]) {
      for (const seed of [1, 2, 3]) {
        const src = field(w, h, w * 17 + h + seed);
        // A shape in the middle: margins of exact zeros, some rows wholly empty, a −0 here and there.
        const l = Math.floor(w * (0.1 + 0.3 * ((seed * 7) % 3) / 3));
        const t = Math.floor(h * 0.3);
        for (let y = 0; y < h; y++) {
          for (let x = 0; x < w; x++) {
            const i = y * w + x;
            if (x < l || y < t || y >= h - t || (y % 5 === 2 && seed === 2)) src[i] = 0;
            if (seed === 3 && (x * 13 + y * 7) % 29 === 0 && src[i] === 0) src[i] = -0;
          }
        }
        for (const radius of [1, 2.5, 8, 17.25, 40]) {
          const expected = typescriptOnly(() => blur(src, w, h, radius));
          const actual = blur(src, w, h, radius);
          expect(differing(actual, expected), `${w}×${h} seed ${seed} radius ${radius}`).toBe(0);
        }
      }
    }
  });

  it("bilinearMove gives the TypeScript's floats, for whole, near-whole and fractional moves", () => {
    const w = 83;
    const h = 57;
    const src = field(w + 1, h + 1, 5);
    for (const [fx, fy] of [[0, 0], [0.5, 0.25], [1 - 1.1e-15, 0], [0.999, 0.001], [0.3, 1 - 1e-12], [0.123456789, 0.87654321]]) {
      const expected = typescriptOnly(() => bilinearMove(src, w, h, fx, fy));
      const actual = bilinearMove(src, w, h, fx, fy);
      expect(differing(actual, expected), `fx ${fx} fy ${fy}`).toBe(0);
    }
  });

  it('movedBlur (a shadow: move, then blur, on one array) gives blur(bilinearMove(…)) of the TypeScript', () => {
    const w = 120;
    const h = 75;
    const src = field(w + 1, h + 1, 77);
    const read = (into?: Float32Array) => (into ? (into.set(src), into) : src.slice());
    for (const [fx, fy, radius] of [[1 - 1.1e-15, 0, 12], [0.25, 0.5, 3.5], [0, 0, 1], [0.7, 0.1, 0.5], [0.5, 0.5, 60]]) {
      const expected = typescriptOnly(() => blur(bilinearMove(src, w, h, fx, fy), w, h, radius));
      const actual = movedBlur(read, w, h, fx, fy, radius);
      expect(differing(actual, expected), `fx ${fx} fy ${fy} radius ${radius}`).toBe(0);
      // Into a given array (a reused one, holding the last result): the same floats.
      const out = new Float32Array(w * h).fill(0.5);
      expect(movedBlur(read, w, h, fx, fy, radius, out)).toBe(out);
      expect(differing(out, expected), `into: fx ${fx} fy ${fy} radius ${radius}`).toBe(0);
    }
  });

  it("chamferDistance (the stroke's distance: both sides' raster passes) gives the TypeScript's floats", () => {
    // Odd and even sizes, single rows and columns, fields with no seed on a side (all 0, all 1),
    // coverages of exactly ½ (a seed at 0 on both sides) and out of range, and a text-like field.
    const cases: Array<[number, number, Float32Array]> = [];
    for (const [w, h] of [[1, 1], [1, 9], [9, 1], [2, 2], [3, 5], [97, 61], [430, 130], [301, 7], [64, 64], [5, 211]]) {
      for (const seed of [1, 2]) {
        const a = field(w, h, seed * 7 + w);
        if (seed === 2) for (let i = 0; i < a.length; i += 5) a[i] = 0.5;
        cases.push([w, h, a]);
      }
    }
    cases.push([40, 30, new Float32Array(1200)], [40, 30, new Float32Array(1200).fill(1)]);
    cases.push([7, 3, Float32Array.from({ length: 21 }, (_, i) => [-0.25, 1.5, 1e-30, 1 - 2 ** -24, 0.5 + 2 ** -24, 0.5 - 2 ** -25, 3e38][i % 7]!)]);
    for (const [w, h, a] of cases) {
      const expected = typescriptOnly(() => chamferDistance(a, w, h));
      const actual = chamferDistance(a, w, h);
      expect(differing(actual, expected), `${w}×${h}`).toBe(0);
    }
  });
});
