import { afterEach, describe, expect, it } from 'vitest';
import { seeded } from '../../../src/engine/composite/gradient';
import { chamferDistance, chamferDistanceOver, useWasmEffectPasses } from '../../../src/engine/composite/morphology';

/**
 * A spread's distances written over its ratio (issue 25 §1: a fifth array of the tile less) are
 * chamferDistance's, every float: mattes with empty, partial, half and whole pixels, both past
 * the WASM passes' size (written over) and within it.
 */
function field(seed: number, w: number, h: number): Float32Array {
  const rnd = seeded(seed);
  const a = new Float32Array(w * h);
  const kind = seed % 4;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const r = rnd();
      let v: number;
      if (kind === 0) v = r < 0.3 ? 0 : r < 0.6 ? 1 : r < 0.7 ? 0.5 : rnd();
      else if (kind === 1) v = Math.max(0, Math.min(1, 0.5 + 0.6 * Math.sin(x / 9) * Math.cos(y / 7)));
      else if (kind === 2) v = (x - w / 2) ** 2 + (y - h / 2) ** 2 < (w / 3) ** 2 ? (rnd() < 0.05 ? rnd() : 1) : rnd() < 0.01 ? rnd() : 0;
      else v = r < 0.002 ? 1 : r < 0.004 ? 0.5 : 0;
      a[y * w + x] = v;
    }
  }
  return a;
}

const same = (a: Float32Array, b: Float32Array) => {
  if (a.length !== b.length) return -1;
  let differ = 0;
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) differ++;
  return differ;
};

afterEach(() => useWasmEffectPasses(true));

describe('chamferDistanceOver', () => {
  it('writes chamferDistance over the field past the WASM size, every float the same', () => {
    for (let seed = 1; seed <= 8; seed++) {
      const [w, h] = [600 + seed * 13, 460 + seed * 7];
      const a = field(seed, w, h);
      const want = chamferDistance(a, w, h);
      const over = a.slice();
      const got = chamferDistanceOver(over, w, h);
      expect(got).toBe(over); // over the field itself: no array of its size besides it
      expect(same(got, want)).toBe(0);
    }
  });

  it('gives chamferDistance within the WASM size and with the WASM passes off', () => {
    for (const wasm of [true, false]) {
      useWasmEffectPasses(wasm);
      for (let seed = 1; seed <= 8; seed++) {
        const [w, h] = [40 + seed * 17, 30 + seed * 11];
        const a = field(seed, w, h);
        expect(same(chamferDistanceOver(a.slice(), w, h), chamferDistance(a, w, h))).toBe(0);
      }
    }
  });
});
