import { beforeAll, describe, expect, it } from 'vitest';
import { blendSurface, fadeInto } from '../../../src/engine/composite/blend';
import type { Surface } from '../../../src/engine/composite/surface';
import { blendSurfaceWasm, fadeIntoWasm, useWasmBlending, WASM_BLEND_MODES } from '../../../src/engine/raster/blend';
import { kernels } from '../../../src/engine/raster/kernels';
import { noiseImage } from './helpers';

/** Noise with plenty of exact 0 and 255 alphas and channel values (the branchy cases). */
function surface(x: number, y: number, w: number, h: number, seed: number): Surface {
  const { data } = noiseImage(w, h, seed);
  for (let i = 0; i < data.length; i++) if (data[i]! % 7 === 0) data[i] = data[i]! % 2 ? 255 : 0;
  return { x, y, w, h, data };
}
const copy = (s: Surface): Surface => ({ ...s, data: new Uint8ClampedArray(s.data) });

/** The compositor's TypeScript loops, with the WASM path (which they now delegate to) off. */
function typescriptOnly<T>(fn: () => T): T {
  useWasmBlending(false);
  try {
    return fn();
  } finally {
    useWasmBlending(true);
  }
}

describe('blendSurfaceWasm', () => {
  beforeAll(async () => {
    await kernels();
  });

  it('is bit-identical to the compositor for every separable mode, with opacity, mask, clipping (atop) and excluded channels', () => {
    const dst = surface(0, 0, 61, 47, 3);
    const src = surface(-7, 5, 50, 50, 9); // overlaps partly
    const mask = noiseImage(50, 50, 11).data.filter((_, i) => i % 4 === 0);
    const cases = [
      { mask: null, opacity: 1, options: {} },
      { mask, opacity: 0.73, options: {} },
      { mask, opacity: 0.5, options: { atop: true } },
      { mask: null, opacity: 0.9, options: { excludedChannels: [1] } },
    ];
    for (const mode of [...Object.keys(WASM_BLEND_MODES), 'pass through']) {
      for (const c of cases) {
        const expected = copy(dst);
        typescriptOnly(() => blendSurface(expected, src, c.mask, c.opacity, mode, c.options));
        const actual = copy(dst);
        expect(blendSurfaceWasm(actual, src, c.mask, c.opacity, mode, c.options)).toBe(true);
        let mismatches = 0;
        for (let i = 0; i < actual.data.length; i++) if (actual.data[i] !== expected.data[i]) mismatches++;
        expect(mismatches, `${mode} ${JSON.stringify(c.options)} mask=${!!c.mask}`).toBe(0);
      }
    }
  });

  it('declines what it does not do, so the caller falls back', () => {
    const dst = surface(0, 0, 8, 8, 1);
    const src = surface(0, 0, 8, 8, 2);
    for (const mode of ['dissolve', 'hue', 'saturation', 'color', 'luminosity', 'darker color', 'lighter color']) {
      expect(blendSurfaceWasm(copy(dst), src, null, 1, mode)).toBe(false);
    }
    expect(blendSurfaceWasm(copy(dst), src, null, 1, 'normal', { gamma: 1.45 })).toBe(false);
    expect(blendSurfaceWasm(copy(dst), src, null, 1, 'normal', { blendIf: [{ source: [0, 0, 255, 255], dest: [0, 0, 255, 255] }] })).toBe(false);
    expect(blendSurfaceWasm(copy(dst), src, null, 1, 'normal', { someFutureOption: true } as never)).toBe(false);
  });

  it('fadeIntoWasm is bit-identical to the compositor\'s fadeInto, with and without a mask', () => {
    const dst = surface(4, 4, 300, 260, 21);
    const after = surface(4, 4, 300, 260, 22);
    const mask = noiseImage(300, 260, 23).data.filter((_, i) => i % 4 === 0);
    for (const [m, opacity] of [[null, 0.6], [mask, 1], [mask, 0.35]] as const) {
      const expected = copy(dst);
      typescriptOnly(() => fadeInto(expected, after, m, opacity));
      const actual = copy(dst);
      expect(fadeIntoWasm(actual, after, m, opacity)).toBe(true);
      let mismatches = 0;
      for (let i = 0; i < actual.data.length; i++) if (actual.data[i] !== expected.data[i]) mismatches++;
      expect(mismatches, `mask=${!!m} opacity=${opacity}`).toBe(0);
    }
  });

  it('handles layers taller than one strip (and logs TS vs WASM time)', () => {
    const dst = surface(0, 0, 1000, 700, 5);
    const src = surface(3, 2, 990, 690, 6);
    const opaque = { ...src, data: new Uint8ClampedArray(src.data).map((v, i) => (i % 4 === 3 ? 255 : v)) };
    const mask = noiseImage(990, 690, 4).data.filter((_, i) => i % 4 === 0);
    for (const [name, layer, m, opacity, mode] of [
      ['multiply+mask', src, mask, 0.8, 'multiply'],
      ['normal, opaque', opaque, null, 1, 'normal'],
    ] as const) {
      let expected = copy(dst);
      let actual = copy(dst);
      let jsMs = Infinity;
      let wasmMs = Infinity;
      for (let run = 0; run < 3; run++) {
        expected = copy(dst);
        let t = performance.now();
        typescriptOnly(() => blendSurface(expected, layer, m, opacity, mode));
        jsMs = Math.min(jsMs, performance.now() - t);
        actual = copy(dst);
        t = performance.now();
        blendSurfaceWasm(actual, layer, m, opacity, mode);
        wasmMs = Math.min(wasmMs, performance.now() - t);
      }
      console.log(`${name} 0.7 MP: TS ${jsMs.toFixed(0)} ms, WASM ${wasmMs.toFixed(0)} ms`);
      let mismatches = 0;
      for (let i = 0; i < actual.data.length; i++) if (actual.data[i] !== expected.data[i]) mismatches++;
      expect(mismatches, name).toBe(0);
    }
  });
});
