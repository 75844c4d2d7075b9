import { beforeAll, describe, expect, it } from 'vitest';
import type { Surface } from '../../../src/engine/composite/surface';
import { kernels } from '../../../src/engine/raster/kernels';
import { wasmBlendMismatches } from './typescript-blending';

/**
 * blendPairs takes its opaque-backdrop path only where both pixels of a lane pair have an opaque
 * backdrop (wasm/assembly/blend.ts): a pair with one translucent or bare backdrop, in either
 * lane, blends in full. Every pair of backdrop alphas from BACKDROP_ALPHAS, each lane in turn,
 * under every source alpha, against the compositor's TypeScript.
 */
const BACKDROP_ALPHAS = [255, 254, 128, 1, 0];

/** Pixel pairs running through every (lane 0, lane 1) pair of backdrop alphas, sources varied. */
function surfaces(w: number): { dst: Surface; src: Surface; mask: Uint8ClampedArray } {
  const h = Math.ceil((256 * 256) / w);
  const dst = new Uint8ClampedArray(w * h * 4);
  const src = new Uint8ClampedArray(w * h * 4);
  const mask = new Uint8ClampedArray(w * h);
  let s = 7;
  const next = () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) >>> 8;
  const n = BACKDROP_ALPHAS.length;
  for (let p = 0; p < w * h; p++) {
    const pair = p >> 1;
    const backdrop = BACKDROP_ALPHAS[p & 1 ? Math.floor(pair / n) % n : pair % n]!;
    dst.set([next() & 255, next() & 255, next() & 255, backdrop], p * 4);
    src.set([next() & 255, next() & 255, next() & 255, Math.floor(p / (2 * n * n)) & 255], p * 4);
    mask[p] = next() & 3 ? next() & 255 : 255;
  }
  return { dst: { x: 0, y: 0, w, h, data: dst }, src: { x: 0, y: 0, w, h, data: src }, mask };
}

describe("blendPairs' opaque-backdrop path", () => {
  beforeAll(async () => {
    await kernels();
  });

  it("is taken only where both lanes' backdrops are opaque: any other pair gives the compositor's bytes too", () => {
    for (const w of [256, 255]) {
      const { dst, src, mask } = surfaces(w);
      for (const mode of ['multiply', 'screen']) {
        for (const [m, opacity] of [[null, 1], [null, 0.6], [mask, 1], [mask, 0.35]] as const) {
          expect(wasmBlendMismatches(dst, src, m, opacity, mode), `${mode} width ${w} mask ${!!m} opacity ${opacity}`).toBe(0);
        }
      }
    }
  });
});
