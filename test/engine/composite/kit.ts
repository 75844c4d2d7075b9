/** Small pieces the compositor's tests share: colours, one-row images, a seeded generator. */
import { env } from 'cloudflare:workers';
import type { Layer } from 'ag-psd';
import { compileTemplate, loadStoredComposite, renderTemplate, type CompiledTemplate, type LayerOverrides } from '../../../src/engine';
import { clearEngineCaches } from '../../../src/engine/cache';
import { effectKernelDraws, useEffectKernels } from '../../../src/engine/composite/effects';
import { Unprocessable } from '../../../src/engine/errors';
import { madeFixture } from '../../helpers/fixtures';

export type RGB = [number, number, number];

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
  useEffectKernels(false);
  try {
    return { fast, slow: await renderTemplate(env.FILES, compiled, options), tiles };
  } finally {
    useEffectKernels(true);
  }
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
