import {
  writePsdUint8Array,
  type AdjustmentLayer,
  type BlendMode,
  type ColorStop,
  type EffectNoiseGradient,
  type EffectSolidGradient,
  type Layer,
  type LayerEffectsInfo,
} from 'ag-psd';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, renderTemplate } from '../../../src/engine';
import { FileStore } from '../../../src/dynamic-image/store';
import { preparePreview } from '../../../src/engine/preview';
import { renderDeps } from '../pdf/helpers';
import { compileOrRefused, placeOnCanvasOr, random, rendersWholeAndStrip, type Placement, type Random } from './kit';
import { applyAdjustment } from '../../../src/engine/composite/adjust';
import { chamferDistance, useWasmEffectPasses } from '../../../src/engine/composite/morphology';
import { kernels, useWasmAdjustments } from '../../../src/engine/raster/kernels';
import { switchedOff } from '../../helpers/switches';

/**
 * Issue 25 ("no server errors", 128 MB): the render paths session 11 changed, at random extreme
 * and degenerate settings, on documents whose sizes are not multiples of four (the WASM kernels
 * run four pixels a step), 1 px wide or tall: gradient fill layers without pixels (every style,
 * one stop or none, noise, Scale 0 or huge, angles past a turn or not finite, offsets far off,
 * shapes whose path is a point), glows filled with gradients, satin at whole-pixel offsets with
 * a huge distance, bevels of size 0 and 250 on 1 px layers, "Blend Interior Effects as Group" at
 * Fill 0 with knockout and clipping, clipped layers over a base of alpha 0, feathered pixel masks
 * far outside their rectangle, Exposure/Levels/Curves/Hue-Saturation/Posterize/Invert at their
 * ends (the channel-table and Hue/Saturation kernels), strokes (the chamfer kernel) of every
 * size. Each document, written with ag-psd, must compile or be refused with a 422, then render
 * whole, scaled, as a strip and as a preview without throwing and without NaN reaching the
 * bytes. A failing seed rebuilds its file.
 */

const MODES: BlendMode[] = ['normal', 'multiply', 'screen', 'overlay', 'difference', 'color dodge', 'color burn', 'hard mix', 'vivid light', 'linear light', 'luminosity', 'dissolve', 'divide'];
const STYLES = ['linear', 'radial', 'angle', 'reflected', 'diamond'] as const;
const px = (value: number) => ({ units: 'Pixels' as const, value });
const rgb = (r: Random) => ({ r: r.int(256), g: r.int(256), b: r.int(256) });

/** No stops, one, stops at one place; smoothness 0 … 1. */
function solidGradient(r: Random): EffectSolidGradient {
  const n = r.pick([0, 1, 1, 2, 3]);
  const shared = r.chance(0.3) ? r.next() : undefined;
  const location = () => shared ?? r.pick([0, 1, r.next()]);
  const colorStops: ColorStop[] = Array.from({ length: n }, () => ({ color: rgb(r), location: location(), midpoint: r.pick([0, 0.5, 1, r.next()]) }));
  const opacityStops = Array.from({ length: r.pick([0, 1, 2]) }, () => ({ opacity: r.pick([0, 1, r.next()]), location: location(), midpoint: r.pick([0, 0.5, 1]) }));
  return { name: 'g', type: 'solid', smoothness: r.pick([0, 1, r.next()]), colorStops, opacityStops };
}
function noiseGradient(r: Random): EffectNoiseGradient {
  const range = () => Array.from({ length: 4 }, () => r.pick([0, 1, r.next()]));
  return { name: 'n', type: 'noise', roughness: r.pick([0, 1, r.next()]), colorModel: r.pick(['rgb', 'hsb', 'lab'] as const), randomSeed: r.int(2 ** 31), restrictColors: r.chance(0.5), addTransparency: r.chance(0.5), min: range(), max: range() };
}
const gradient = (r: Random) => (r.chance(0.25) ? noiseGradient(r) : solidGradient(r));
/** Angles at a turn's ends, past them, huge, and not finite. */
const angle = (r: Random) => r.pick([0, 90, -180, 180, 30, 720.5, -1e9, 1e300, Number.NaN, Number.POSITIVE_INFINITY, r.int(361) - 180]);
/** Scale 0, tiny, Photoshop's ends (10 %, 150 %: ag-psd's fractions), percent-like and huge. */
const scale = (r: Random) => r.pick([0, 0.0001, 0.1, 1, 1.5, 150, 1e6, -1, Number.NaN]);

function layout(r: Random) {
  return { style: r.pick(STYLES), angle: angle(r), scale: scale(r), reverse: r.chance(0.3), align: r.chance(0.5), offset: r.chance(0.3) ? { x: r.pick([-50, 50, 1e6]), y: r.pick([-50, 50, -1e6]) } : undefined, dither: r.chance(0.3) };
}

/** Sizes 0, 1, Photoshop's maximum (250) or between. */
const size = (r: Random) => px(r.pick([0, 0, 1, 250, r.int(30)]));
const contour = (r: Random) => ({ name: 'c', curve: r.pick([[{ x: 0, y: 0 }, { x: 255, y: 255 }], [{ x: 0, y: 255 }, { x: 128, y: 0 }, { x: 255, y: 255 }], [{ x: 0, y: 0 }]]) });

function effects(r: Random): LayerEffectsInfo {
  const fx: LayerEffectsInfo = {};
  const common = () => ({ enabled: true, present: true, blendMode: r.pick(MODES), opacity: r.pick([0, 1, r.next()]) });
  const glow = () => ({ ...common(), color: rgb(r), ...(r.chance(0.6) && { gradient: gradient(r) }), size: size(r), technique: r.pick(['precise', 'softer'] as const), choke: px(r.pick([0, 100, r.int(100)])), range: r.pick([0, 0.01, 1, r.next()]), noise: r.pick([0, 1]), jitter: r.pick([0, 1]), contour: contour(r) });
  if (r.chance(0.4)) fx.outerGlow = glow();
  if (r.chance(0.4)) fx.innerGlow = { ...glow(), source: r.pick(['edge', 'center'] as const) };
  if (r.chance(0.3)) fx.satin = { ...common(), color: rgb(r), size: size(r), distance: px(r.pick([0, 1, 250, 30000, 0.5, 2.7])), angle: angle(r), invert: r.chance(0.5), antialiased: r.chance(0.5), contour: contour(r) };
  if (r.chance(0.4)) {
    fx.bevel = {
      ...common(),
      style: r.pick(['outer bevel', 'inner bevel', 'emboss', 'pillow emboss', 'stroke emboss'] as const),
      technique: r.pick(['smooth', 'chisel hard', 'chisel soft'] as const),
      direction: r.pick(['up', 'down'] as const),
      size: px(r.pick([0, 250, 1, r.int(20)])),
      soften: px(r.pick([0, 16])),
      strength: r.pick([1, 1000, 100]),
      angle: angle(r),
      altitude: r.pick([0, 90, r.int(91)]),
      highlightColor: rgb(r),
      shadowColor: rgb(r),
      highlightBlendMode: r.pick(MODES),
      shadowBlendMode: r.pick(MODES),
      highlightOpacity: r.pick([0, 1]),
      shadowOpacity: r.pick([0, 1]),
      contour: contour(r),
    };
  }
  if (r.chance(0.35)) {
    fx.stroke = Array.from({ length: 1 + r.int(2) }, () => {
      const fillType = r.pick(['color', 'gradient'] as const);
      const l = layout(r);
      return { ...common(), size: size(r), position: r.pick(['inside', 'outside', 'center'] as const), fillType, color: rgb(r), ...(fillType === 'gradient' && { gradient: { ...gradient(r), style: l.style, angle: l.angle, scale: l.scale } }) };
    });
  }
  if (r.chance(0.35)) {
    const l = layout(r);
    fx.gradientOverlay = [{ ...common(), gradient: gradient(r), type: l.style, angle: l.angle, scale: l.scale, align: l.align, reverse: l.reverse, dither: l.dither, offset: l.offset ?? { x: 0, y: 0 } }];
  }
  if (r.chance(0.2)) fx.dropShadow = [{ ...common(), color: rgb(r), size: size(r), distance: px(r.pick([0, 3, 30000])), angle: angle(r), choke: px(r.pick([0, 100])) }];
  return fx;
}

/** Every table the channel-LUT kernel and the Hue/Saturation kernel take, at their ends. */
function adjustment(r: Random): AdjustmentLayer {
  const levels = () => ({ shadowInput: r.pick([0, 255, 254, r.int(256)]), highlightInput: r.pick([0, 255, 1, r.int(256)]), shadowOutput: r.pick([0, 255]), highlightOutput: r.pick([0, 255]), midtoneInput: r.pick([0.1, 1, 9.99]) });
  const hue = () => ({ a: r.pick([0, 359, r.int(360)]), b: r.int(360), c: r.int(360), d: r.pick([0, 359, r.int(360)]), hue: r.slider(180), saturation: r.slider(100), lightness: r.slider(100) });
  return r.pick<() => AdjustmentLayer>([
    () => ({ type: 'exposure', exposure: r.pick([-20, 20, 0, 0.5]), offset: r.pick([-0.5, 0.5, 0]), gamma: r.pick([0.01, 9.99, 1]) }),
    () => ({ type: 'levels', rgb: levels(), ...(r.chance(0.5) && { red: levels(), green: levels(), blue: levels() }) }),
    () => ({ type: 'curves', rgb: Array.from({ length: r.pick([0, 1, 2, 4]) }, () => ({ input: r.pick([0, 255, r.int(256)]), output: r.int(256) })) }),
    () => ({ type: 'hue/saturation', colorize: r.chance(0.2), master: hue(), ...(r.chance(0.6) && { reds: hue(), yellows: hue(), blues: hue(), magentas: hue() }) }),
    () => ({ type: 'posterize', levels: r.pick([0, 1, 2, 255, r.int(256)]) }),
    () => ({ type: 'invert' }),
    () => ({ type: 'brightness/contrast', brightness: r.slider(150), contrast: r.slider(100, -50), useLegacy: r.chance(0.5) }),
  ])();
}

function pixels(r: Random, w: number, h: number, alpha = r.pick([255, 255, 128, 0])) {
  const data = new Uint8ClampedArray(w * h * 4);
  const [c1, c2] = [rgb(r), rgb(r)];
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) {
    const c = (x * 7 + y * 3) % 5 ? c1 : c2;
    data.set([c.r, c.g, c.b, (x + y) % 2 ? alpha : 255], (y * w + x) * 4);
  }
  return { width: w, height: h, data };
}

/** On the canvas, 1×1, wholly or partly off it, or far off. */
function place(r: Random, W: number, H: number): Placement {
  return placeOnCanvasOr(
    r,
    W,
    H,
    () => ({ left: -r.int(2 * W) - 1, top: -r.int(H), w: 1 + r.int(W), h: 1 + r.int(2 * H) }),
    () => ({ left: r.pick([-3000, W + 2000]), top: r.pick([-3000, H + 900]), w: 1 + r.int(6), h: 1 + r.int(6) }),
  );
}

/** A closed path through points, as ag-psd writes a vector mask's. */
const path = (points: number[][]) => ({
  open: false,
  operation: 'combine' as const,
  fillRule: 'even-odd' as const,
  knots: points.map(([x, y]) => ({ linked: true, points: [x, y, x, y, x, y] })),
});
function vectorPath(r: Random, W: number, H: number) {
  return r.pick([
    () => [path([[1, 1], [W - 0.5, 1.5], [W - 1, H - 0.5], [0.5, H - 1]])],
    () => [path([[2, 2], [2, 2], [2, 2]])], // a point: a zero-size box
    () => [path([[0, 1], [W, 1], [W, 1]])], // a line
    () => [path([[-1e5, -1e5], [1e5, -1e5], [1e5, 1e5], [-1e5, 1e5]])],
    () => [],
  ])();
}

function options(r: Random, W: number, H: number, adjustmentLayer = false): Partial<Layer> {
  const o: Partial<Layer> = {};
  if (r.chance(0.3)) {
    // Pixel masks, often feathered, often far from what they cover.
    const at = r.chance(0.5) ? place(r, W, H) : { left: r.pick([-2000, W + 700, 0]), top: r.pick([-900, H + 3000, 0]), w: 1 + r.int(5), h: 1 + r.int(5) };
    const data = r.chance(0.2) ? undefined : { width: at.w, height: at.h, data: new Uint8ClampedArray(at.w * at.h * 4).map((_, i) => (i % 4 === 3 ? 255 : (i * 37) & 255)) };
    o.mask = { left: at.left, top: at.top, ...(data ? { imageData: data } : { right: at.left, bottom: at.top }), defaultColor: r.pick([0, 255]), disabled: r.chance(0.05) };
    if (r.chance(0.6)) o.mask.userMaskFeather = r.pick([0.3, 0.5, 1, 2.5, 250, 1000]);
    if (r.chance(0.2)) o.mask.userMaskDensity = r.pick([0, 1, r.next()]);
  }
  if (r.chance(0.2)) o.opacity = r.pick([0, 1, r.int(256) / 255]);
  if (r.chance(0.4)) o.fillOpacity = r.pick([0, 0, 1, r.int(256) / 255]);
  if (r.chance(0.35)) o.clipping = true;
  if (r.chance(adjustmentLayer ? 0.05 : 0.6)) o.effects = effects(r);
  if (!adjustmentLayer && r.chance(0.2)) o.knockout = true;
  if (r.chance(0.2)) o.blendClippendElements = false;
  if (r.chance(0.35)) o.blendInteriorElements = true;
  if (r.chance(0.15)) o.transparencyShapesLayer = false;
  if (r.chance(0.1)) o.layerMaskAsGlobalMask = true;
  return o;
}

function layer(r: Random, W: number, H: number, depth: number, i: number): Layer {
  const kind = depth > 1 ? r.pick(['pixels', 'gradient', 'clear']) : r.pick(['pixels', 'pixels', 'clear', 'gradient', 'gradient', 'gradient', 'adjustment', 'adjustment', 'group']);
  const name = `${kind} ${depth}.${i}`;
  const blendMode = r.chance(0.5) ? 'normal' : r.pick(MODES);
  if (kind === 'group') {
    const mode = r.pick<BlendMode>(['pass through', 'pass through', 'normal', 'multiply']);
    return { name, blendMode: mode, opened: true, ...options(r, W, H), children: Array.from({ length: r.pick([0, 1, 3]) }, (_, j) => layer(r, W, H, depth + 1, j)) };
  }
  if (kind === 'adjustment') return { name, adjustment: adjustment(r), blendMode, ...options(r, W, H, true) };
  const at = place(r, W, H);
  if (kind === 'gradient') {
    // A gradient fill layer: stored without pixels (as in 16/32-bit documents) or with them, a shape now and then.
    const l = layout(r);
    const withPixels = r.chance(0.25);
    return {
      name,
      blendMode,
      left: at.left,
      top: at.top,
      ...(withPixels ? { imageData: pixels(r, at.w, at.h) } : { right: at.left, bottom: at.top }),
      vectorFill: { ...gradient(r), style: l.style, angle: l.angle, scale: l.scale, reverse: l.reverse, align: l.align, dither: l.dither, ...(l.offset && { offset: l.offset }) },
      ...(r.chance(0.4) && { vectorMask: { invert: r.chance(0.15), paths: vectorPath(r, W, H) } }),
      ...options(r, W, H),
    };
  }
  // 'clear': a base of alpha 0 (or nearly) under clipped layers; 'pixels': anything.
  return { name, blendMode, left: at.left, top: at.top, imageData: pixels(r, at.w, at.h, kind === 'clear' ? r.pick([0, 1]) : undefined), ...options(r, W, H) };
}

function document(seed: number) {
  const r = random(seed);
  const [width, height] = r.pick([[1, 1], [1, 7], [7, 1], [5, 3], [13, 9], [17, 2], [33, 6]]);
  const children: Layer[] = r.chance(0.7) ? [{ name: 'bg', left: 0, top: 0, imageData: pixels(r, width, height) }] : [];
  for (let i = 0, n = 1 + r.int(5); i < n; i++) children.push(layer(r, width, height, 0, i));
  return { bytes: writePsdUint8Array({ width, height, children }, { psb: r.chance(0.1), generateThumbnail: false }), width, height };
}

const FIRST = 11_000;
const COUNT = 24;
const SEEDS = Array.from({ length: COUNT }, (_, i) => FIRST + i);
let refused = 0;

describe('random documents through the render paths session 11 changed', () => {
  it.each(SEEDS)('seed %i compiles or is refused with a 422, then renders whole, scaled, as a strip and as a preview', async (seed) => {
    const { bytes, width, height } = document(seed);
    const compiled = await compileOrRefused(bytes, `seed ${seed}`);
    if (!compiled) {
      refused++;
      return;
    }
    let step = 'render or strip';
    try {
      await rendersWholeAndStrip(compiled, [1, 0.5, 2.3], Math.floor(height / 2));
      step = 'transparent';
      await renderTemplate(env.FILES, compiled, { scale: 1, background: 'transparent' });
      if (seed % 3 === 0) {
        step = 'preview';
        const store = new FileStore(env.FILES);
        const name = `fuzz-session11/${seed}.psd`;
        await store.put('templates', name, bytes, { contentType: 'image/vnd.adobe.photoshop' });
        const prepared = await preparePreview(store, { template: name, format: 'png', size: { width: width * 3, height: height * 3 }, jpegQuality: 90, unsharpMask: null }, renderDeps());
        expect((await prepared.render()).bytes.length).toBeGreaterThan(0);
      }
    } catch (e) {
      throw new Error(`seed ${seed}: ${step} threw ${(e as Error)?.constructor?.name}: ${(e as Error)?.message}\n${(e as Error)?.stack}`, { cause: e });
    }
  }, 20_000);

  it('most documents compile', () => {
    console.log(`FUZZ-S11 refused ${refused} of ${COUNT}`);
    expect(refused).toBeLessThan(COUNT / 2);
  });
});

/** The longest typed array of `T` made while `body` runs (the engine makes its arrays with `new`). */
async function largestArray<R>(names: string[], body: () => Promise<R>): Promise<{ result: R; largest: number }> {
  const g = globalThis as unknown as Record<string, new (...a: unknown[]) => ArrayLike<number>>;
  const saved = names.map((n) => g[n]);
  let largest = 0;
  names.forEach((n, i) => {
    const Base = saved[i];
    g[n] = class extends (Base as new (...a: unknown[]) => object) {
      constructor(...a: unknown[]) {
        super(...a);
        if (typeof a[0] === 'number') largest = Math.max(largest, a[0]);
      }
    } as never;
  });
  try {
    return { result: await body(), largest };
  } finally {
    names.forEach((n, i) => (g[n] = saved[i]));
  }
}

describe('what this fuzzing found', () => {
  it('a shape drawn from its path with a shadow or satin thousands of px away rasterises its path over what it reads, not from the canvas to there', async () => {
    // Seed 11222: a 7 × 1 document, a shape layer without pixels (its path a point) with a drop
    // shadow and a satin 30,000 px long at a slant: effects.ts pastCanvas rasterised the path over
    // the union of the rectangle read (30,000 px off) and the canvas's edge, 155 M floats (820 MB,
    // 20 s a render in Node; workerd's runtime crashed). Here 3,000 px: 4.5 M floats before.
    const point = { linked: true, points: [2, 0.5, 2, 0.5, 5, 0.5] };
    const shadow = { enabled: true, present: true, blendMode: 'multiply' as const, opacity: 0.5, color: { r: 0, g: 0, b: 0 }, size: px(8), distance: px(3000), angle: 45, useGlobalLight: false, choke: px(0) };
    const satin = { enabled: true, present: true, blendMode: 'normal' as const, opacity: 1, color: { r: 0, g: 0, b: 0 }, size: px(3), distance: px(3000), angle: -30, invert: true };
    const shape: Layer = {
      name: 'shape',
      // An empty record whose rectangle lies off the canvas (the effects then trace the layer past it).
      left: 2007,
      top: 901,
      right: 2007,
      bottom: 901,
      vectorFill: { type: 'color', color: { r: 200, g: 0, b: 0 } },
      vectorMask: { paths: [{ open: false, operation: 'combine', fillRule: 'even-odd', knots: [point, point, { linked: true, points: [6, 0.5, 6, 0.5, 6, 0.5] }] }] },
      effects: { dropShadow: [shadow], satin },
    };
    const bytes = writePsdUint8Array({ width: 7, height: 1, children: [{ name: 'bg', left: 0, top: 0, imageData: pixels(random(1), 7, 1, 255) }, shape] }, { generateThumbnail: false });
    const compiled = await compileTemplate(env.FILES, bytes);
    for (const scale of [1, 2.3]) {
      const { result, largest } = await largestArray(['Float32Array', 'Uint8ClampedArray'], () => renderTemplate(env.FILES, compiled, { scale }));
      expect(result.width).toBe(Math.round(7 * scale));
      expect(largest).toBeLessThan(100_000);
    }
  });
});

describe("this session's WASM kernels at the sizes the fuzzing reaches", () => {
  /** `body` with the kernels switched off (the TypeScript they replace), then back on. */
  const typescript = switchedOff;
  it('chamferDistance on empty, 1 px and tail-sized fields gives the TypeScript floats', async () => {
    await kernels();
    const r = random(3);
    for (const [w, h] of [[0, 0], [0, 5], [5, 0], [1, 1], [1, 2], [2, 1], [3, 3], [5, 7], [7, 5]]) {
      const a = Float32Array.from({ length: w * h }, () => r.pick([0, 1, 0.5, r.next()]));
      expect([...chamferDistance(a, w, h)]).toEqual([...typescript(useWasmEffectPasses, () => chamferDistance(a, w, h))]);
    }
  });
  it('channel tables and Hue/Saturation on 0 to 9 pixels and across a chunk edge give the TypeScript bytes', async () => {
    await kernels();
    const r = random(4);
    const hue = () => ({ a: r.pick([0, 359, r.int(360)]), b: r.int(360), c: r.int(360), d: r.pick([0, 359, r.int(360)]), hue: r.slider(180), saturation: r.slider(100), lightness: r.slider(100) });
    const adjustments: AdjustmentLayer[] = [
      { type: 'exposure', exposure: 20, offset: -0.5, gamma: 0.01 },
      { type: 'levels', rgb: { shadowInput: 255, highlightInput: 0, shadowOutput: 255, highlightOutput: 0, midtoneInput: 9.99 } },
      { type: 'posterize', levels: 1 },
      { type: 'hue/saturation', master: hue(), reds: hue(), blues: hue() },
    ];
    for (const adj of adjustments) {
      for (const n of [0, 1, 2, 3, 5, 9, (1 << 18) + 3]) {
        const d = Uint8ClampedArray.from({ length: n * 4 }, () => r.int(256));
        const ours = d.slice();
        applyAdjustment(adj, ours);
        const theirs = d.slice();
        typescript(useWasmAdjustments, () => applyAdjustment(adj, theirs));
        expect(ours.every((v, i) => v === theirs[i])).toBe(true);
      }
    }
  });
});
