import { beforeAll, describe, expect, it } from 'vitest';
import { blendSurface, fadeInto } from '../../../src/engine/composite/blend';
import type { Surface } from '../../../src/engine/composite/surface';
import { blendSurfaceWasm, fadeIntoWasm, textSpace, WASM_BLEND_MODES } from '../../../src/engine/raster/blend';
import { typescriptBlending as typescriptOnly } from './typescript-blending';
import { kernels } from '../../../src/engine/raster/kernels';
import { noiseImage } from './helpers';

/** Noise with plenty of exact 0 and 255 alphas and channel values (the branchy cases). */
function surface(x: number, y: number, w: number, h: number, seed: number): Surface {
  const { data } = noiseImage(w, h, seed);
  for (let i = 0; i < data.length; i++) if (data[i]! % 7 === 0) data[i] = data[i]! % 2 ? 255 : 0;
  return { x, y, w, h, data };
}
const copy = (s: Surface): Surface => ({ ...s, data: new Uint8ClampedArray(s.data) });

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

  it('blends with the text gamma (through the sRGB curve) in normal mode bit-identically to the compositor, with opacity, mask, clipping and excluded channels', () => {
    const dst = surface(0, 0, 97, 83, 31);
    const src = surface(-5, 3, 90, 90, 37);
    const mask = noiseImage(90, 90, 41).data.filter((_, i) => i % 4 === 0);
    // Every source byte over every backdrop byte, at alphas from the edges of a glyph to opaque.
    const grid = (alpha: number, backdropAlpha: number) => {
      const s = new Uint8ClampedArray(256 * 256 * 4);
      const d = new Uint8ClampedArray(256 * 256 * 4);
      for (let y = 0, o = 0; y < 256; y++) {
        for (let x = 0; x < 256; x++, o += 4) {
          s.set([x, 255 - x, (x * 7) & 255, alpha], o);
          d.set([y, (y * 13) & 255, 255 - y, backdropAlpha], o);
        }
      }
      return { src: { x: 0, y: 0, w: 256, h: 256, data: s }, dst: { x: 0, y: 0, w: 256, h: 256, data: d } };
    };
    const cases: Array<{ dst: Surface; src: Surface; mask: Uint8ClampedArray | null; opacity: number; options: { atop?: boolean; excludedChannels?: number[] } }> = [
      { dst, src, mask: null, opacity: 1, options: {} },
      { dst, src, mask, opacity: 0.73, options: {} },
      { dst, src, mask, opacity: 0.5, options: { atop: true } },
      { dst, src, mask: null, opacity: 0.9, options: { excludedChannels: [2] } },
      ...[[1, 255], [77, 255], [200, 128], [255, 255], [255, 3], [128, 0]].map(([a, b]) => ({ ...grid(a, b), mask: null, opacity: 1, options: {} })),
      { ...grid(150, 255), mask: null, opacity: 0.61, options: {} },
    ];
    for (const gamma of [1.45, 2.2, 0.8]) {
      expect(textSpace(gamma).table, `gamma ${gamma}`).not.toBeNull();
      for (const c of cases) {
        const options = { ...c.options, textGamma: gamma };
        const expected = copy(c.dst);
        typescriptOnly(() => blendSurface(expected, c.src, c.mask, c.opacity, 'normal', options));
        const actual = copy(c.dst);
        expect(blendSurfaceWasm(actual, c.src, c.mask, c.opacity, 'normal', options)).toBe(true);
        let mismatches = 0;
        for (let i = 0; i < actual.data.length; i++) if (actual.data[i] !== expected.data[i]) mismatches++;
        expect(mismatches, `gamma ${gamma} ${JSON.stringify(c.options)} ${c.dst.w}×${c.dst.h} mask=${!!c.mask}`).toBe(0);
      }
    }
  });

  it("text gamma thresholds give the compositor's byte near every threshold and at random", () => {
    const space = textSpace(1.45);
    const thresholds = space.table!.subarray(256, 512);
    const clamped = new Uint8ClampedArray(1);
    const byteOf = (x: number) => ((clamped[0] = space.back(x) * 255), clamped[0]);
    const search = (x: number) => thresholds.reduce((n, t, k) => (k > 0 && t <= x ? n + 1 : n), 0);
    const word = new Float64Array(1);
    const bits = new BigInt64Array(word.buffer);
    for (let k = 1; k < 256; k++) {
      for (let ulps = -64; ulps <= 64; ulps++) {
        word[0] = thresholds[k]!;
        bits[0] += BigInt(ulps);
        const x = word[0];
        expect(byteOf(x) >= k, `threshold ${k} ${ulps} ulps`).toBe(ulps >= 0);
        expect(search(x)).toBe(byteOf(x));
      }
    }
    let seed = 7;
    for (let i = 0; i < 20000; i++) {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      const x = (seed / 2 ** 32) * 1.0000001;
      expect(search(x), String(x)).toBe(byteOf(x));
    }
  });

  it('declines what it does not do, so the caller falls back', () => {
    const dst = surface(0, 0, 8, 8, 1);
    const src = surface(0, 0, 8, 8, 2);
    for (const mode of ['dissolve', 'hue', 'saturation', 'color', 'luminosity', 'darker color', 'lighter color']) {
      expect(blendSurfaceWasm(copy(dst), src, null, 1, mode)).toBe(false);
    }
    // A text gamma outside normal mode takes the mode's result through the space: TypeScript's.
    expect(blendSurfaceWasm(copy(dst), src, null, 1, 'multiply', { textGamma: 1.45 })).toBe(false);
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
