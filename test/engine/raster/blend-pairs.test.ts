import { beforeAll, describe, expect, it } from 'vitest';
import { fadeInto } from '../../../src/engine/composite/blend';
import type { Surface } from '../../../src/engine/composite/surface';
import { fadeIntoWasm } from '../../../src/engine/raster/blend';
import { typescriptBlending, wasmBlendMismatches } from './typescript-blending';
import { kernels } from '../../../src/engine/raster/kernels';

/**
 * The plain blends (no clipping, gamma or kept channels: a drop shadow's multiply, an opaque
 * layer's normal) run two pixels at a time on f64x2 lanes (wasm/assembly/blend.ts blendPairs,
 * issue 25 §3): bit-identical to the compositor's TypeScript on every pair of alphas, where a
 * lane has no coverage next to one that has, and at odd widths (the last pixel scalar).
 */

/** Every alpha beside every other (pairs of pixels that differ in coverage), channels varied. */
function grid(w: number, seed: number, transpose: boolean): Surface {
  const h = Math.ceil((256 * 256) / w);
  const data = new Uint8ClampedArray(w * h * 4);
  let s = seed;
  for (let i = 0; i < w * h; i++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    const k = i % 65536;
    const alpha = transpose ? k >> 8 : k & 255;
    data.set([s & 255, (s >>> 8) & 255, (s >>> 16) & 3 ? (s >>> 16) & 255 : 0, alpha], i * 4);
  }
  return { x: 0, y: 0, w, h, data };
}

describe('blendPairs (two pixels a lane pair)', () => {
  beforeAll(async () => {
    await kernels();
  });

  it('gives the compositor\'s bytes for normal, multiply and screen, with and without a mask, at opacity 1 and below', () => {
    for (const w of [256, 255]) {
      const dst = grid(w, 5, true);
      const src = grid(w, 11, false);
      const mask = new Uint8ClampedArray(grid(w, 17, false).data.filter((_, i) => i % 4 === 1));
      for (const mode of ['normal', 'multiply', 'screen']) {
        for (const [m, opacity] of [[null, 1], [null, 0.35], [mask, 1], [mask, 0.73]] as const) {
          expect(wasmBlendMismatches(dst, src, m, opacity, mode), `${mode} width ${w} mask ${!!m} opacity ${opacity}`).toBe(0);
        }
      }
    }
  });

  it("gives the compositor's bytes over an opaque backdrop (a shadow's multiply over a picture: the backdrop's alpha terms left out) at any opacity", () => {
    // Every source alpha at 24 opacities, where as + (1 − as) is 1 and where it is not; pairs
    // opaque on both sides and beside a translucent backdrop pixel.
    const w = 255;
    const src = grid(w, 41, false);
    const dst = grid(w, 43, false);
    for (let i = 0; i < dst.data.length; i += 4) dst.data[i + 3] = i % 2000 === 0 ? 200 : 255;
    const mask = new Uint8ClampedArray(grid(w, 47, false).data.filter((_, i) => i % 4 === 0));
    const opacities = [1, 0.75, 0.35, 0.01, 0.999, ...Array.from({ length: 19 }, (_, i) => ((i * 7919) % 1000) / 1000 + 0.0007)];
    for (const mode of ['multiply', 'screen']) {
      for (const opacity of opacities) {
        for (const m of [null, mask]) {
          expect(wasmBlendMismatches(dst, src, m, opacity, mode), `${mode} opacity ${opacity} mask ${!!m}`).toBe(0);
        }
      }
    }
  });

  it("fades (a group's opacity and mask) two pixels at a time to the compositor's bytes, on every pair of alphas", () => {
    for (const w of [256, 255]) {
      const dst = grid(w, 23, true);
      const after = grid(w, 29, false);
      const mask = new Uint8ClampedArray(grid(w, 31, false).data.filter((_, i) => i % 4 === 2));
      for (const [m, opacity] of [[null, 1], [null, 0.5], [null, 0], [mask, 1], [mask, 0.8]] as const) {
        const expected = { ...dst, data: new Uint8ClampedArray(dst.data) };
        typescriptBlending(() => fadeInto(expected, after, m, opacity));
        const actual = { ...dst, data: new Uint8ClampedArray(dst.data) };
        expect(fadeIntoWasm(actual, after, m, opacity)).toBe(true);
        let mismatches = 0;
        for (let i = 0; i < actual.data.length; i++) if (actual.data[i] !== expected.data[i]) mismatches++;
        expect(mismatches, `width ${w} mask ${!!m} opacity ${opacity}`).toBe(0);
      }
    }
  });
});
