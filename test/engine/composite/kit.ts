/** Small pieces the compositor's tests share: colours, one-row images, a seeded generator. */
import { env } from 'cloudflare:workers';
import type { Layer } from 'ag-psd';
import { expect } from 'vitest';
import { compileTemplate, loadStoredComposite, renderTemplate, walkLayers, type CompiledTemplate, type LayerOverrides } from '../../../src/engine';
import { clearEngineCaches } from '../../../src/engine/cache';
import { applyAdjustment } from '../../../src/engine/composite/adjust';
import { effectKernelDraws, useEffectKernels, useEffectTileAreas, useFillByPixel } from '../../../src/engine/composite/effects';
import { seeded } from '../../../src/engine/composite/gradient';
import { Unprocessable } from '../../../src/engine/errors';
import { useWasmAdjustments } from '../../../src/engine/raster/kernels';
import { useUnitShortcuts } from '../../../src/engine/composite/compositor';
import { markOpaque } from '../../../src/engine/composite/surface';
import type { Tiling } from '../../../src/engine/composite/pattern';
import type { RGBAImage } from '../../../src/engine/types';
import { madeFixture } from '../../helpers/fixtures';
import { firstDifference } from '../../helpers/pixels';
import { switchedOff, switchedOffAwaiting } from '../../helpers/switches';

export type RGB = [number, number, number];

/** `fn` with the adjustment kernels off: what the TypeScript alone gives. */
export function withoutAdjustmentKernels<T>(fn: () => T): T {
  return switchedOff(useWasmAdjustments, fn);
}

/** An adjustment record applied by the TypeScript alone to a copy of `px`. */
export function adjustedByTypescript(adj: unknown, px: Uint8ClampedArray): Uint8ClampedArray {
  const expected = px.slice();
  withoutAdjustmentKernels(() => applyAdjustment(adj as never, expected));
  return expected;
}

/** An RGBA picture of w × h from a function of each pixel. */
export const image = (w: number, h: number, at: (x: number, y: number) => [number, number, number, number]) => {
  const data = new Uint8ClampedArray(w * h * 4);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) data.set(at(x, y), (y * w + x) * 4);
  return { width: w, height: h, data };
};

export type StrokePosition = 'outside' | 'inside' | 'center';

/** A Normal stroke effect of one colour, `size` px, as ag-psd writes it (`extra` overrides any field). */
export const colourStroke = (size: number, position: StrokePosition, c: RGB, extra: object = {}) => ({
  enabled: true,
  present: true,
  size: { units: 'Pixels' as const, value: size },
  position,
  fillType: 'color' as const,
  blendMode: 'normal' as const,
  opacity: 1,
  color: { r: c[0], g: c[1], b: c[2] },
  ...extra,
});

/** A black Normal drop shadow cast straight down (90°, not the global light), lengths in px, as ag-psd writes it. */
export const blackShadow = ({ distance, size, choke }: { distance: number; size: number; choke: number }) => ({
  enabled: true,
  present: true,
  blendMode: 'normal' as const,
  color: { r: 0, g: 0, b: 0 },
  opacity: 1,
  useGlobalLight: false,
  angle: 90,
  distance: { units: 'Pixels' as const, value: distance },
  size: { units: 'Pixels' as const, value: size },
  choke: { units: 'Pixels' as const, value: choke },
});

/** A w×1 opaque image of one colour, as ag-psd's `imageData`. */
export const solid = (c: RGB, w: number) => {
  const data = new Uint8ClampedArray(w * 4);
  for (let i = 0; i < w; i++) data.set([...c, 255], i * 4);
  return { width: w, height: 1, data };
};

/** A small deterministic generator (mulberry32), so a failing case can be rebuilt from its seed. */
export function random(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  return {
    next,
    int,
    /** -max..max, often an end of the range or 0. */
    slider: (max: number, min = -max) => (next() < 0.4 ? [min, max, 0][int(3)] : min + int(max - min + 1)),
    pick: <T>(xs: readonly T[]): T => xs[int(xs.length)],
    chance: (p: number) => next() < p,
  };
}
export type Random = ReturnType<typeof random>;

/** Where a fuzzed layer lies: its left and top on the canvas and its size. */
export type Placement = { left: number; top: number; w: number; h: number };

/**
 * One of the placements every fuzzer draws from (somewhere on the W × H canvas, the whole canvas,
 * one pixel on it) or of its own `elsewhere` (off the canvas, in its own ways), picked by `r`.
 */
export function placeOnCanvasOr(r: Random, W: number, H: number, ...elsewhere: Array<() => Placement>): Placement {
  return r.pick([
    () => ({ left: r.int(W), top: r.int(H), w: 1 + r.int(W), h: 1 + r.int(H) }),
    () => ({ left: 0, top: 0, w: W, h: H }),
    () => ({ left: r.int(W), top: r.int(H), w: 1, h: 1 }),
    ...elsewhere,
  ])();
}

/** A w × h picture: random colours, opaque (and marked so, as a placed JPEG is: personalise/image.ts markOpaque), or with transparent and partly covered pixels. */
export function randomPicture(r: Random, w: number, h: number, opaque: boolean): Uint8ClampedArray {
  const data = new Uint8ClampedArray(w * h * 4);
  for (let i = 0; i < data.length; i += 4) {
    data[i] = r.int(256);
    data[i + 1] = r.int(256);
    data[i + 2] = r.int(256);
    data[i + 3] = opaque ? 255 : r.pick([0, 255, 255, 1 + r.int(254)]);
  }
  if (opaque) markOpaque(data, { left: 0, top: 0, right: w, bottom: h });
  return data;
}

/** The render with the compositor's unit shortcuts (its units kept for the next), then without them (nothing kept or read). */
export async function renderWithAndWithoutUnitShortcuts(compiled: CompiledTemplate, options: { scale: number; overrides: LayerOverrides; region?: { top: number; bottom: number; left?: number; right?: number } }) {
  const fast = await renderTemplate(env.FILES, compiled, options);
  return { fast, slow: await switchedOffAwaiting(useUnitShortcuts, () => renderTemplate(env.FILES, compiled, options)) };
}

/** A closed rectangular vector path (l, t)–(r, b), as ag-psd writes a vector mask's path. */
export const rectPath = (l: number, t: number, r: number, b: number) => ({
  open: false,
  operation: 'combine' as const,
  fillRule: 'even-odd' as const,
  knots: [[l, t], [r, t], [r, b], [l, b]].map(([x, y]) => ({ linked: true, points: [x, y, x, y, x, y] })),
});

/**
 * A made fixture (test/fixtures/psd-made) rendered at scale 1 against the merged image its script
 * worked out: PSNR over RGB and the largest difference in any channel. For fixtures held in their
 * own test until the lead lists them in the manifest (the fidelity test then holds them to a floor).
 */
export async function againstMergedImage(name: string): Promise<{ psnr: number; worst: number }> {
  const compiled = await compileTemplate(env.FILES, await madeFixture(name));
  const image = await renderTemplate(env.FILES, compiled, { scale: 1 });
  const stored = (await loadStoredComposite(env.FILES, compiled))!;
  let worst = 0;
  let sum = 0;
  let n = 0;
  for (let i = 0; i < image.data.length; i += 4) {
    for (let c = 0; c < 3; c++) {
      const d = image.data[i + c] - stored[i + c];
      worst = Math.max(worst, Math.abs(d));
      sum += d * d;
      n++;
    }
  }
  return { psnr: sum ? 10 * Math.log10((255 * 255) / (sum / n)) : 99, worst };
}

/**
 * A fuzzed document compiled, or null when it is refused with a 422 (Unprocessable): anything
 * else thrown is a 500 on an upload, reported with `what` (the seed) so the case can be rebuilt.
 */
export async function compileOrRefused(bytes: Uint8Array, what: string): Promise<CompiledTemplate | null> {
  try {
    return await compileTemplate(env.FILES, bytes);
  } catch (e) {
    if (e instanceof Unprocessable) return null;
    throw new Error(`${what}: compile threw ${(e as Error)?.constructor?.name}: ${(e as Error)?.message}\n${(e as Error)?.stack}`, { cause: e });
  }
}

/**
 * What every fuzzed document must survive first: drawn whole at each of `scales` and as the strip
 * of the one row `top`, each image as many bytes as its size says.
 */
export async function rendersWholeAndStrip(compiled: CompiledTemplate, scales: number[], top: number): Promise<void> {
  for (const scale of scales) {
    const image = await renderTemplate(env.FILES, compiled, { scale });
    expect(image.data.length).toBe(image.width * image.height * 4);
  }
  const strip = await renderTemplate(env.FILES, compiled, { scale: 1, region: { top, bottom: top + 1 } });
  expect(strip.height).toBe(1);
}

/**
 * A template rendered twice from cleared caches: with the effects' kernels and cuts (`fast`) and
 * by the TypeScript passes over the whole extent (`slow`, useEffectKernels(false)), for tests that
 * hold the first to the second's bytes; `tiles`: the effect tiles the kernels drew in the first.
 */
export async function renderBothWays(compiled: CompiledTemplate, options: Parameters<typeof renderTemplate>[2]) {
  clearEngineCaches();
  const before = effectKernelDraws.tiles;
  const fast = await renderTemplate(env.FILES, compiled, options);
  const tiles = effectKernelDraws.tiles - before;
  clearEngineCaches();
  return { fast, slow: await switchedOffAwaiting(useEffectKernels, () => renderTemplate(env.FILES, compiled, options)), tiles };
}

/** A W × H opaque, patterned 'ground' layer and a 20 × 10 white 'Headline' over it with `effects`: what the personalised-effect byte tests personalise. */
export function groundAndHeadline(W: number, H: number, effects: Layer['effects'], extra: Partial<Layer> = {}): [Layer, Layer] {
  const ground: Layer = { name: 'ground', left: 0, top: 0, right: W, bottom: H, imageData: { width: W, height: H, data: new Uint8ClampedArray(W * H * 4).map((_, i) => (i % 4 === 3 ? 255 : (i * 13) & 255)) } };
  const text: Layer = { name: 'Headline', left: 10, top: 10, right: 30, bottom: 20, imageData: { width: 20, height: 10, data: new Uint8ClampedArray(800).fill(255) }, effects, ...extra };
  return [ground, text];
}

/** Overrides putting `pixels` (pw × ph RGBA) in place of layer `id`'s, at (left, top) of the render. */
export function rasterAt(id: number, pixels: Uint8ClampedArray, left: number, top: number, pw: number, ph: number): LayerOverrides {
  return new Map([[id, { pixels: { width: pw, height: ph, data: pixels }, bounds: { left, top, right: left + pw, bottom: top + ph } }]]);
}

/** A fuzzed document compiled (a refusal fails the test, naming `what`) and its 'Headline' layer. */
export async function compiledHeadline(bytes: Uint8Array, what: string) {
  const compiled = await compileOrRefused(bytes, what);
  expect(compiled, `${what}: refused`).not.toBeNull();
  const node = [...walkLayers(compiled!.layers)].find((n) => n.name === 'Headline')!;
  return { compiled: compiled!, node };
}

/**
 * For each place [left, top, width, height] of a personalised raster on layer `id` (its pixels
 * from `pixels`, drawn in the places' order), rendered whole and as the rows around it (`h`: the
 * render's height): the kernels' render equals the TypeScript passes' to the byte. Returns the
 * effect tiles the kernels drew.
 */
export async function expectPlacesBothWays(
  compiled: CompiledTemplate,
  { id, scale, h, places, pixels, what }: { id: number; scale: number; h: number; places: ReadonlyArray<readonly [number, number, number, number]>; pixels: (w: number, h: number) => Uint8ClampedArray; what: string },
): Promise<number> {
  let tiles = 0;
  for (const [left, top, pw, ph] of places) {
    const overrides = rasterAt(id, pixels(pw, ph), left, top, pw, ph);
    for (const region of [undefined, { top: Math.max(0, top - 3), bottom: Math.min(h, top + ph + 5) }]) {
      const both = await renderBothWays(compiled, { scale, overrides, ...(region ? { region } : {}) });
      tiles += both.tiles;
      expect(firstDifference(both.fast.data, both.slow.data), `${what} scale ${scale} at ${left},${top} ${pw}x${ph} region ${JSON.stringify(region)}`).toBe(-1);
    }
  }
  return tiles;
}

/**
 * A w × h yellow raster like a line of glyphs: random empty margins, gaps between the glyphs (and
 * inside them unless `inner` is false), edge pixels of random alpha.
 */
export function glyphRaster(r: Random, w: number, h: number, inner = true): Uint8ClampedArray {
  const data = new Uint8ClampedArray(w * h * 4);
  const [ml, mt, mr, mb] = [r.int(w >> 1), r.int(h >> 1), r.int(w >> 2), r.int(h >> 2)];
  for (let y = mt; y < h - mb; y++) {
    for (let x = ml; x < w - mr; x++) {
      if ((x >> 2) % 3 === 2 || (inner && (y + x) % 7 === 0)) continue;
      const edge = x === ml || y === mt || x === w - mr - 1 || y === h - mb - 1;
      data.set([250, 240, 20, edge ? 1 + r.int(254) : 255], (y * w + x) * 4);
    }
  }
  return data;
}


/**
 * The band tests' mask of case `kind` on `layer` (its left, top and imageData's size): none (0); a pixel
 * mask, an uneven ramp over part of the layer, at least `least` px a side (1); a vector mask, an ellipse
 * of Béziers with radii (0.3 + rnd·`spread`) of the layer's, past the canvas when the layer is (2).
 * Drawn with the case's `int` and `rnd`, in one order, so a seed makes one document.
 */
export function maskByKind(layer: Layer, kind: number, int: (lo: number, hi: number) => number, rnd: () => number, { least = 20, spread = 0.3 } = {}): void {
  const left = layer.left!;
  const top = layer.top!;
  const { width: lw, height: lh } = layer.imageData!;
  if (kind === 1) {
    const mw = int(least, lw);
    const mh = int(least, lh);
    const m = new Uint8ClampedArray(mw * mh * 4);
    for (let i = 0; i < mw * mh; i++) m.fill(((i % mw) * 255) / mw, i * 4, i * 4 + 4);
    const ml = left + int(0, lw - mw);
    const mt = top + int(0, lh - mh);
    layer.mask = { left: ml, top: mt, right: ml + mw, bottom: mt + mh, defaultColor: int(0, 1) * 255, imageData: { width: mw, height: mh, data: m } };
  } else if (kind === 2) {
    const cx = left + lw / 2;
    const cy = top + lh / 2;
    const rx = lw * (0.3 + rnd() * spread);
    const ry = lh * (0.3 + rnd() * spread);
    const k = 0.55;
    const knot = (x: number, y: number, hx: number, hy: number) => ({ linked: true, points: [x - hx, y - hy, x, y, x + hx, y + hy] });
    layer.vectorMask = {
      paths: [{ open: false, operation: 'combine', fillRule: 'non-zero', knots: [knot(cx, cy - ry, rx * k, 0), knot(cx + rx, cy, 0, ry * k), knot(cx, cy + ry, -rx * k, 0), knot(cx - rx, cy, 0, -ry * k)] }],
    } as Layer['vectorMask'];
  }
}

/**
 * The band tests' random case `seed`: a W × H canvas (120–260 px a side) and a soft layer of 40–90 % of
 * it, anywhere from inside to half off the canvas (a vector mask past its edge reads whole), its alpha a
 * smooth wave; with the case's `rnd` and `int` for what the test draws next.
 */
export function softLayerCase(seed: number) {
  const rnd = seeded(seed);
  const int = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));
  const W = int(120, 260);
  const H = int(120, 260);
  const lw = int(Math.round(W * 0.4), Math.round(W * 0.9));
  const lh = int(Math.round(H * 0.4), Math.round(H * 0.9));
  const left = int(-lw / 3, W - (2 * lw) / 3);
  const top = int(-lh / 3, H - (2 * lh) / 3);
  const data = new Uint8ClampedArray(lw * lh * 4);
  const f = 4 + rnd() * 30;
  for (let y = 0; y < lh; y++) {
    for (let x = 0; x < lw; x++) {
      const v = 0.5 + 0.5 * Math.sin(x / f) * Math.cos(y / (f * 0.7));
      data.set([int(0, 255), 120, 60, Math.round(255 * Math.min(1, v * 1.4))], (y * lw + x) * 4);
    }
  }
  return { rnd, int, W, H, lw, lh, left, top, data };
}

/**
 * The band tests' comparison: `compiled` rendered at `scale` with its fills read over whole rectangles
 * and then by pixel in bands (useFillByPixel's `bandSeed`), at small tiles (a tile's fill then differs
 * from its arrays') and at one tile; what differs, as lines naming the seed and the tiles.
 */
export async function bytesMovedByBands(compiled: CompiledTemplate, scale: number, bandSeed: number, seed: number): Promise<string[]> {
  const moved: string[] = [];
  for (const tiles of [[64 * 64, 64 * 64, 4], [2 ** 30, 2 ** 30, 8]] as const) {
    useEffectTileAreas(...tiles);
    useFillByPixel(false);
    clearEngineCaches();
    const whole = await renderTemplate(env.FILES, compiled, { scale });
    useFillByPixel(true, bandSeed);
    clearEngineCaches();
    const banded = await renderTemplate(env.FILES, compiled, { scale });
    expect([banded.width, banded.height]).toEqual([whole.width, whole.height]);
    let differ = 0;
    for (let i = 0; i < whole.data.length; i++) if (whole.data[i] !== banded.data[i]) differ++;
    if (differ) moved.push(`seed ${seed} (tiles ${tiles[0]}): ${differ} bytes`);
  }
  return moved;
}

/** The pattern tests' random tile: 1–20 px a side, opaque or with random alpha, drawn with the case's `rnd` and `int`. */
export function randomPatternTile(rnd: () => number, int: (n: number) => number): { width: number; height: number; data: Uint8ClampedArray } {
  const width = 1 + int(20);
  const height = 1 + int(20);
  const data = new Uint8ClampedArray(width * height * 4);
  const opaque = rnd() < 0.5;
  for (let i = 0; i < data.length; i++) data[i] = (i & 3) === 3 && opaque ? 255 : int(256);
  return { width, height, data };
}

const wrap = (v: number, n: number) => ((v % n) + n) % n;

/**
 * A pattern's colours by their definition (tilePattern's): sample by sample, the corners in the
 * order the kernel must keep; what pattern-bytes and fx-text5-pattern hold tilePattern to.
 */
export function patternByDefinition(tile: RGBAImage, tiling: Tiling, x0: number, y0: number, w: number, h: number): Uint8ClampedArray {
  const out = new Uint8ClampedArray(w * h * 4);
  const { width: tw, height: th, data: td } = tile;
  if (tw <= 0 || th <= 0) return out;
  const { originX, originY, scale } = tiling;
  const rad = ((tiling.angle ?? 0) * Math.PI) / 180;
  const cos = Math.cos(rad);
  const sin = Math.sin(rad);
  const n = scale >= 1 ? 1 : Math.min(8, Math.ceil(1 / scale));
  const acc = new Float64Array(4);
  const sample = (u: number, v: number) => {
    const fu = Math.floor(u);
    const fv = Math.floor(v);
    const tx = u - fu;
    const ty = v - fv;
    const xa = wrap(fu, tw);
    const xb = wrap(fu + 1, tw);
    const ya = wrap(fv, th) * tw;
    const yb = wrap(fv + 1, th) * tw;
    const corners = [
      [(ya + xa) * 4, (1 - tx) * (1 - ty)],
      [(ya + xb) * 4, tx * (1 - ty)],
      [(yb + xa) * 4, (1 - tx) * ty],
      [(yb + xb) * 4, tx * ty],
    ];
    for (const [i, k] of corners) {
      if (k! <= 0) continue;
      const a = (td[i! + 3]! / 255) * k!;
      acc[0] += td[i!]! * a;
      acc[1] += td[i! + 1]! * a;
      acc[2] += td[i! + 2]! * a;
      acc[3] += a;
    }
  };
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      acc.fill(0);
      for (let sy = 0; sy < n; sy++) {
        for (let sx = 0; sx < n; sx++) {
          const dx = x0 + x + (sx + 0.5) / n - originX;
          const dy = y0 + y + (sy + 0.5) / n - originY;
          sample((dx * cos - dy * sin) / scale - 0.5, (dx * sin + dy * cos) / scale - 0.5);
        }
      }
      const o = (y * w + x) * 4;
      const a = acc[3]!;
      if (a > 0) {
        out[o] = acc[0]! / a;
        out[o + 1] = acc[1]! / a;
        out[o + 2] = acc[2]! / a;
      }
      out[o + 3] = (a / (n * n)) * 255;
    }
  }
  return out;
}
