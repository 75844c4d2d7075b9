import { beforeAll, describe, expect, it } from 'vitest';
import { applyAdjustment } from '../../../src/engine/composite/adjust';
import { channelLutPixels, hueSaturationPixels, kernels, kernelsNow, type HueRangeChange } from '../../../src/engine/raster/kernels';
import { adjustedByTypescript, withoutAdjustmentKernels } from './kit';

/**
 * The adjustments' per-pixel loops in WASM. Hue/Saturation's (wasm/assembly/hue-saturation.ts, issue 25 §3) gives
 * the TypeScript's bytes (adjust.ts hueSaturation with the kernel turned off), for the master's
 * hue, lightness and saturation, colour ranges (lightness and saturation of their own, ranges
 * passing 0° or 360°), greys, odd counts, and colours repeated often enough to fill and overwrite
 * the kernel's colour cache. The channel tables (wasm/assembly/channel-luts.ts) give adjust.ts
 * applyLuts' bytes (Curves, Levels, Invert: through applyAdjustment with the kernels off).
 */

let seed = 12345;
const rnd = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;

/** As adjust.ts reads a Hue/Saturation record (unwrapRange, saturationAlpha, the master's 255ths). */
const unwrap = (a: number, b: number, c: number, d: number) => {
  while (b < a) b += 360;
  while (c < b) c += 360;
  while (d < c) d += 360;
  return { a, b, c, d };
};
const saturationAlpha = (s: number) => (s <= 0 ? Math.max(-1, s) : Math.min(127, s / (1 - s)));

type Range = { a: number; b: number; c: number; d: number; hue: number; saturation: number; lightness: number };

function pixels(n: number, palette: number): Uint8ClampedArray {
  const px = new Uint8ClampedArray(n * 4);
  const colours = Array.from({ length: palette }, () => [0, 0, 0].map(() => (rnd() < 0.1 ? pick([0, 255]) : Math.floor(rnd() * 256))));
  for (let i = 0; i < n; i++) {
    const c = palette ? pick(colours) : [0, 0, 0].map(() => Math.floor(rnd() * 256));
    px.set(c, i * 4);
    px[i * 4 + 3] = Math.floor(rnd() * 256);
    if (rnd() < 0.1) px[i * 4 + 1] = px[i * 4 + 2] = px[i * 4]!; // a grey
  }
  return px;
}

const differing = (a: Uint8ClampedArray, b: Uint8ClampedArray) => a.reduce((n, v, i) => n + (v !== b[i] ? 1 : 0), 0);

describe('adjustments in WASM', () => {
  beforeAll(async () => {
    await kernels();
    expect(kernelsNow()).toBeDefined();
  });

  it("gives the TypeScript's bytes, alpha untouched", () => {
    let compared = 0;
    for (let t = 0; t < 300; t++) {
      const n = pick([1, 2, 3, 7, 64, 1001, 4099]);
      const px = pixels(n, pick([0, 3, 50, 5000]));
      const master = { a: 0, b: 0, c: 0, d: 0, hue: pick([0, 8, -180, 180, 37, -97]), saturation: pick([0, 18, -100, 100, 55, -37, 99]), lightness: pick([0, 0, -37, 40, 100, -100, 20, -60]) };
      const adj: Record<string, unknown> = { type: 'hue/saturation', master };
      const changes: HueRangeChange[] = [];
      for (const name of ['reds', 'yellows', 'greens', 'cyans', 'blues', 'magentas']) {
        if (rnd() > 0.3) continue;
        const base = Math.floor(rnd() * 390) - 30;
        const range: Range = { a: base, b: base + Math.floor(rnd() * 30), c: base + 30 + Math.floor(rnd() * 30), d: (base + 90 + Math.floor(rnd() * 30)) % 360, hue: pick([0, 20, -60, 180]), saturation: pick([0, 30, -50, 100]), lightness: pick([0, 25, -80, 100]) };
        adj[name] = range;
        if (range.hue || range.saturation || range.lightness) changes.push({ ...unwrap(range.a, range.b, range.c, range.d), hue: range.hue, light: range.lightness / 100, alpha: saturationAlpha(range.saturation / 100) });
      }
      // The master's step in 255ths (adjust.ts): these lightnesses give whole 255ths however they are rounded.
      const light = Math.trunc((255 * master.lightness) / 100) / 255;
      const alpha = saturationAlpha(master.saturation / 100);
      if (!changes.length && !master.hue && !light && !alpha) continue;
      const actual = px.slice();
      expect(hueSaturationPixels(actual, master.hue, light, alpha, changes)).toBe(true);
      expect(differing(actual, adjustedByTypescript(adj, px)), JSON.stringify(adj)).toBe(0);
      compared++;
    }
    expect(compared).toBeGreaterThan(200);
  });

  it('applyAdjustment gives the same bytes with the kernels on and off (any master lightness)', () => {
    for (const lightness of [3, -3, 10, 28, -37, 99]) {
      const px = pixels(2001, 300);
      const adj = { type: 'hue/saturation', master: { a: 0, b: 0, c: 0, d: 0, hue: 15, saturation: 25, lightness }, blues: { a: 195, b: 225, c: 255, d: 285, hue: -30, saturation: 40, lightness: 10 } };
      const actual = px.slice();
      applyAdjustment(adj as never, actual);
      expect(differing(actual, adjustedByTypescript(adj, px)), `lightness ${lightness}`).toBe(0);
    }
  });

  it('leaves the pixels to the TypeScript when turned off', () => {
    expect(withoutAdjustmentKernels(() => hueSaturationPixels(new Uint8ClampedArray(8), 10, 0, 0, []))).toBe(false);
    expect(withoutAdjustmentKernels(() => channelLutPixels(new Uint8ClampedArray(8), null, null, null))).toBe(false);
  });

  it("channel tables give applyLuts' bytes (once adjust.ts calls them)", () => {
    const curve = () => [{ input: 0, output: Math.floor(rnd() * 60) }, { input: 60 + Math.floor(rnd() * 60), output: Math.floor(rnd() * 256) }, { input: 255, output: 200 + Math.floor(rnd() * 56) }];
    const level = () => ({ shadowInput: Math.floor(rnd() * 40), highlightInput: 215 + Math.floor(rnd() * 40), shadowOutput: 0, highlightOutput: 255, midtoneInput: 0.5 + rnd() });
    for (let t = 0; t < 60; t++) {
      const n = pick([1, 3, 64, 1001, 70_000]);
      const px = pixels(n, pick([0, 40]));
      const adj = pick([
        () => ({ type: 'curves', rgb: curve(), ...(rnd() < 0.5 ? { red: curve() } : {}), ...(rnd() < 0.5 ? { blue: curve() } : {}) }),
        () => ({ type: 'levels', rgb: level(), ...(rnd() < 0.5 ? { green: level() } : {}) }),
        () => ({ type: 'invert' }),
        () => ({ type: 'brightness/contrast', brightness: Math.floor(rnd() * 200) - 100, contrast: Math.floor(rnd() * 100) - 50 }),
      ])();
      const actual = px.slice();
      applyAdjustment(adj as never, actual);
      expect(differing(actual, adjustedByTypescript(adj, px)), JSON.stringify(adj)).toBe(0);
    }
  });

  it('channel tables: random tables, some channels without one, against the loop they replace', () => {
    const table = () => (rnd() < 0.3 ? null : Uint8Array.from({ length: 256 }, () => Math.floor(rnd() * 256)));
    for (let t = 0; t < 40; t++) {
      const px = pixels(pick([1, 2, 5, 999, 300_000]), 0);
      const [r, g, b] = [table(), table(), table()];
      const expected = px.slice();
      const d = expected;
      for (let i = 0; i < d.length; i += 4) {
        if (r) d[i] = r[d[i]!]!;
        if (g) d[i + 1] = g[d[i + 1]!]!;
        if (b) d[i + 2] = b[d[i + 2]!]!;
      }
      const actual = px.slice();
      expect(channelLutPixels(actual, r, g, b)).toBe(true);
      expect(differing(actual, expected)).toBe(0);
    }
  });
});
