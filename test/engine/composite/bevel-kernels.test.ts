import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bevelMaps, type BevelOptions } from '../../../src/engine/composite/bevel';
import { useWasmEffectPasses } from '../../../src/engine/composite/morphology';
import { kernels, kernelsNow } from '../../../src/engine/raster/kernels';

/**
 * The bevel blurs its height in the kernels where the tile fits them (issue 25 §3): the same
 * floats as the TypeScript passes, for every style, technique, soften and curve.
 */
const W = 131;
const H = 77;
const shape = new Float32Array(W * H);
for (let y = 0; y < H; y++) {
  for (let x = 0; x < W; x++) {
    const d = Math.hypot((x + 0.5 - 60) / 40, (y + 0.5 - 38) / 25);
    shape[y * W + x] = Math.max(0, Math.min(1, (1 - d) * 19 + 0.5)) * (0.7 + 0.3 * Math.sin(x * 0.37));
  }
}
const ring = new Uint8Array(256).map((_, i) => Math.round(255 * Math.abs(Math.sin((i / 255) * Math.PI * 1.5))));
const cove = new Uint8Array(256).map((_, i) => Math.round(255 * (i / 255) ** 2));
const same = (a: Float32Array, b: Float32Array) => a.length === b.length && a.every((v, i) => Object.is(v, b[i]));

describe('the bevel in the kernels', () => {
  beforeAll(async () => {
    await kernels();
    expect(kernelsNow()).toBeDefined(); // else both sides would be the TypeScript
  });
  afterAll(() => useWasmEffectPasses(true));

  it('gives the TypeScript passes’ highlight and shadow to the bit', () => {
    let n = 0;
    for (const style of ['inner bevel', 'outer bevel', 'emboss', 'pillow emboss', 'stroke emboss']) {
      for (const technique of ['smooth', 'chisel soft']) {
        for (const [soften, gloss, contour, size] of [
          [0, null, null, 41],
          [2.5, ring, null, 9],
          [0, null, cove, 2.5],
          [0, null, null, 1],
        ] as const) {
          const o: BevelOptions = { style, technique, size, depth: 1.3, up: n % 2 === 0, soften, angle: 120, altitude: 30, gloss, contour };
          useWasmEffectPasses(false);
          const ts = bevelMaps(shape, W, H, o);
          useWasmEffectPasses(true);
          const k = bevelMaps(shape, W, H, o);
          expect(same(k.hi, ts.hi) && same(k.lo, ts.lo), JSON.stringify({ style, technique, soften, size })).toBe(true);
          n++;
        }
      }
    }
    expect(n).toBe(40);
  });
});
