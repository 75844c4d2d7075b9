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
import { makePdf } from '../pdf/helpers';
import { compileOrRefused, placeOnCanvasOr, random, rendersWholeAndStrip, type Placement, type Random } from './kit';
import { effectArrays } from '../../../src/engine/composite/effects';

/**
 * The features this session added, mixed at random settings, extreme and degenerate ones
 * included: colour balance, vibrance, selective colour and colour lookup (LUTs with values past
 * the cube, one-node and malformed tables), every other adjustment at its slider ends, gradients
 * with one stop, stops at one location, smoothness 0 and noise gradients, bevels in every style
 * and technique, precise and softer glows, effects at size 0 and at Photoshop's maximum, masks
 * with no pixels or off the canvas, empty and zero-size layers, layers wholly off the canvas,
 * groups with no children, clipping with nothing to clip, knockout, "Blend Clipped Layers as
 * Group" and "Transparency Shapes Layer" off, "Layer Mask Hides Effects", 1×1 documents, PSB.
 * Each document, written with ag-psd, must compile or be refused with a 422 (Unprocessable),
 * and once compiled render whole, scaled, as a strip and through the print PDF path without
 * throwing: anything else is a 500 on an upload or a preview. A failing seed rebuilds its file.
 */

const MODES: BlendMode[] = ['normal', 'multiply', 'screen', 'overlay', 'difference', 'color dodge', 'color burn', 'hard mix', 'vivid light', 'linear light', 'luminosity', 'color', 'dissolve', 'divide', 'subtract'];
const px = (value: number) => ({ units: 'Pixels' as const, value });
const rgb = (r: Random) => ({ r: r.int(256), g: r.int(256), b: r.int(256) });
const cmyk = (r: Random) => ({ c: r.slider(100), m: r.slider(100), y: r.slider(100), k: r.slider(100) });

/** Gradients with one stop, stops sharing a location, midpoints at the ends, smoothness 0 … 1. */
function solidGradient(r: Random): EffectSolidGradient {
  const n = r.pick([1, 1, 2, 3, 5]);
  const shared = r.chance(0.3) ? r.next() : undefined;
  const location = () => (shared ?? r.pick([0, 1, r.next()]));
  const colorStops: ColorStop[] = Array.from({ length: n }, () => ({ color: rgb(r), location: location(), midpoint: r.pick([0, 0.5, 1, r.next()]) }));
  const opacityStops = Array.from({ length: r.pick([0, 1, 2, 3]) }, () => ({ opacity: r.pick([0, 1, r.next()]), location: location(), midpoint: r.pick([0, 0.5, 1]) }));
  return { name: 'g', type: 'solid', smoothness: r.pick([0, 1, r.next()]), colorStops, opacityStops };
}
function noiseGradient(r: Random): EffectNoiseGradient {
  const range = () => Array.from({ length: 4 }, () => r.pick([0, 1, r.next()]));
  return {
    name: 'n',
    type: 'noise',
    roughness: r.pick([0, 1, r.next()]),
    colorModel: r.pick(['rgb', 'hsb', 'lab'] as const),
    randomSeed: r.int(2 ** 31),
    restrictColors: r.chance(0.5),
    addTransparency: r.chance(0.5),
    min: range(),
    max: range(),
  };
}
const gradient = (r: Random) => (r.chance(0.25) ? noiseGradient(r) : solidGradient(r));

const bytes = (s: string) => new TextEncoder().encode(s);
/** .cube, .3dl and 1D tables at and past their edges, one node a side, and text that is no table. */
function lut(r: Random): AdjustmentLayer {
  const kind = r.int(7);
  const v = () => r.pick([0, 1, -0.5, 1.5, r.next()]).toFixed(4);
  const cube = (n: number) => `LUT_3D_SIZE ${n}\n${r.chance(0.3) ? 'DOMAIN_MIN 0.2 0 0\nDOMAIN_MAX 0.8 1 1\n' : ''}${Array.from({ length: n ** 3 }, () => `${v()} ${v()} ${v()}`).join('\n')}\n`;
  const text = [
    cube(2),
    cube(r.pick([1, 3])),
    `LUT_1D_SIZE 2\n${v()} ${v()} ${v()}\n${v()} ${v()} ${v()}\n`,
    `3DMESH\nMesh 1 12\n0 1023\n${Array.from({ length: 8 }, () => `${r.int(5000)} ${r.int(4096)} ${r.int(4096)}`).join('\n')}\n`,
    `0 512 1023\n${Array.from({ length: 27 }, () => `${r.int(1024)} ${r.int(1024)} ${r.int(1024)}`).join('\n')}\n`,
    'LUT_3D_SIZE 2\n0 0 0\n1 1\n',
    '',
  ][kind];
  const format = kind === 3 || kind === 4 ? '3dl' : 'cube';
  return {
    type: 'color lookup',
    lookupType: '3dlut',
    name: `t.${format}`,
    lutFormat: format,
    dataOrder: r.pick(['rgb', 'bgr'] as const),
    tableOrder: r.pick(['rgb', 'bgr'] as const),
    ...(kind === 6 && r.chance(0.5) ? {} : { lut3DFileName: `t.${format}`, lut3DFileData: bytes(text) }),
  };
}

/** Every adjustment ag-psd writes, its sliders often at their ends. */
function adjustment(r: Random): AdjustmentLayer {
  const levels = () => ({ shadowInput: r.pick([0, 255, r.int(256)]), highlightInput: r.pick([0, 255, r.int(256)]), shadowOutput: r.pick([0, 255]), highlightOutput: r.pick([0, 255]), midtoneInput: r.pick([0.1, 1, 9.99]) });
  const curve = () => Array.from({ length: r.pick([0, 1, 2, 3, 6]) }, () => ({ input: r.pick([0, 255, 128, r.int(256)]), output: r.int(256) }));
  const balance = () => ({ cyanRed: r.slider(100), magentaGreen: r.slider(100), yellowBlue: r.slider(100) });
  const hue = () => ({ a: r.int(360), b: r.int(360), c: r.int(360), d: r.int(360), hue: r.slider(180), saturation: r.slider(100), lightness: r.slider(100) });
  const mixer = () => ({ red: r.slider(200), green: r.slider(200), blue: r.slider(200), constant: r.slider(200) });
  return r.pick<() => AdjustmentLayer>([
    () => ({ type: 'color balance', shadows: balance(), midtones: balance(), highlights: balance(), preserveLuminosity: r.chance(0.5) }),
    () => ({ type: 'vibrance', vibrance: r.slider(100), saturation: r.slider(100) }),
    () => ({ type: 'selective color', mode: r.pick(['relative', 'absolute'] as const), reds: cmyk(r), yellows: cmyk(r), greens: cmyk(r), cyans: cmyk(r), blues: cmyk(r), magentas: cmyk(r), whites: cmyk(r), neutrals: cmyk(r), blacks: cmyk(r) }),
    () => lut(r),
    () => ({ type: 'brightness/contrast', brightness: r.slider(150), contrast: r.slider(100, -50), useLegacy: r.chance(0.5) }),
    () => ({ type: 'levels', rgb: levels(), ...(r.chance(0.5) && { red: levels(), blue: levels() }) }),
    () => ({ type: 'curves', rgb: curve(), ...(r.chance(0.5) && { green: curve() }) }),
    () => ({ type: 'exposure', exposure: r.pick([-20, 20, 0]), offset: r.pick([-0.5, 0.5, 0]), gamma: r.pick([0.01, 9.99, 1]) }),
    () => ({ type: 'hue/saturation', master: hue(), ...(r.chance(0.5) && { reds: hue(), blues: hue() }) }),
    () => ({ type: 'black & white', reds: r.slider(300, -200), yellows: r.slider(300, -200), greens: r.slider(300, -200), cyans: r.slider(300, -200), blues: r.slider(300, -200), magentas: r.slider(300, -200), useTint: r.chance(0.5), tintColor: rgb(r) }),
    () => ({ type: 'photo filter', color: rgb(r), density: r.pick([0, 1, r.next()]), preserveLuminosity: r.chance(0.5) }),
    () => ({ type: 'channel mixer', monochrome: r.chance(0.3), red: mixer(), green: mixer(), blue: mixer(), gray: mixer() }),
    () => ({ type: 'invert' }),
    () => ({ type: 'posterize', levels: r.pick([2, 255, 1 + r.int(255)]) }),
    () => ({ type: 'threshold', level: r.pick([1, 255, r.int(256)]) }),
    () => {
      const g = solidGradient(r);
      return { type: 'gradient map', gradientType: 'solid', smoothness: g.smoothness, colorStops: g.colorStops, opacityStops: g.opacityStops, reverse: r.chance(0.3) };
    },
  ])();
}

/** Sizes 0, 1, Photoshop's maximum (250) or between. */
const size = (r: Random) => px(r.pick([0, 0, 1, 250, r.int(40)]));
const contour = (r: Random) => ({ name: 'c', curve: r.pick([[{ x: 0, y: 0 }, { x: 255, y: 255 }], [{ x: 0, y: 255 }, { x: 128, y: 0 }, { x: 255, y: 255 }], [{ x: 0, y: 0 }]]) });

function effects(r: Random): LayerEffectsInfo {
  const fx: LayerEffectsInfo = {};
  const common = () => ({ enabled: true, present: true, showInDialog: true, blendMode: r.pick(MODES), opacity: r.pick([0, 1, r.next()]) });
  const shadow = () => ({ ...common(), color: rgb(r), size: size(r), distance: px(r.chance(0.04) ? 30000 : r.pick([0, 5, 30])), angle: r.int(361) - 180, choke: px(r.pick([0, 100])), useGlobalLight: r.chance(0.3), contour: contour(r), layerConceals: r.chance(0.5) });
  const glow = () => ({ ...common(), color: rgb(r), size: size(r), technique: r.pick(['precise', 'softer'] as const), choke: px(r.pick([0, 100, r.int(100)])), range: r.pick([0.01, 1, r.next()]), noise: r.pick([0, 1]), jitter: r.pick([0, 1]), contour: contour(r) });
  if (r.chance(0.3)) fx.dropShadow = Array.from({ length: 1 + r.int(2) }, shadow);
  if (r.chance(0.2)) fx.innerShadow = [shadow()];
  if (r.chance(0.35)) fx.outerGlow = glow();
  if (r.chance(0.3)) fx.innerGlow = { ...glow(), source: r.pick(['edge', 'center'] as const) };
  if (r.chance(0.4)) {
    fx.bevel = {
      ...common(),
      style: r.pick(['outer bevel', 'inner bevel', 'emboss', 'pillow emboss', 'stroke emboss'] as const),
      technique: r.pick(['smooth', 'chisel hard', 'chisel soft'] as const),
      direction: r.pick(['up', 'down'] as const),
      size: size(r),
      soften: px(r.pick([0, 16, r.int(16)])),
      strength: r.pick([1, 1000, 100]),
      angle: r.int(361) - 180,
      altitude: r.pick([0, 90, r.int(91)]),
      useGlobalLight: r.chance(0.3),
      highlightColor: rgb(r),
      shadowColor: rgb(r),
      highlightBlendMode: r.pick(MODES),
      shadowBlendMode: r.pick(MODES),
      highlightOpacity: r.pick([0, 1, r.next()]),
      shadowOpacity: r.pick([0, 1, r.next()]),
      contour: contour(r),
    };
  }
  if (r.chance(0.3)) {
    fx.stroke = Array.from({ length: 1 + r.int(3) }, () => {
      const fillType = r.pick(['color', 'gradient'] as const);
      return { ...common(), size: size(r), position: r.pick(['inside', 'outside', 'center'] as const), fillType, color: rgb(r), ...(fillType === 'gradient' && { gradient: { ...gradient(r), style: r.pick(['linear', 'radial', 'angle', 'reflected', 'diamond'] as const), angle: r.int(361) - 180, scale: r.pick([0.1, 1, 1.5]) } }) };
    });
  }
  if (r.chance(0.3)) {
    fx.gradientOverlay = [
      { ...common(), gradient: gradient(r), type: r.pick(['linear', 'radial', 'angle', 'reflected', 'diamond'] as const), angle: r.int(361) - 180, scale: r.pick([0.1, 1, 1.5]), align: r.chance(0.5), reverse: r.chance(0.3), dither: r.chance(0.3), offset: { x: r.int(101) - 50, y: r.int(101) - 50 } },
    ];
  }
  if (r.chance(0.2)) fx.solidFill = [{ ...common(), color: rgb(r) }];
  if (r.chance(0.15)) fx.satin = { ...common(), color: rgb(r), size: size(r), distance: px(r.pick([0, 250])), angle: r.int(361) - 180, invert: r.chance(0.5), contour: contour(r) };
  // A pattern the document does not hold (no Patt block): refused by name or drawn without it.
  if (r.chance(0.08)) fx.patternOverlay = { ...common(), pattern: { name: 'p', id: 'no-such-pattern' }, scale: r.pick([0.01, 1, 10]), phase: { x: 0, y: 0 } };
  if (r.chance(0.1)) fx.disabled = true;
  if (r.chance(0.1)) fx.scale = r.pick([0.01, 1, 10]);
  return fx;
}

const quad = (points: number[][]) => ({
  open: false,
  operation: 'combine' as const,
  fillRule: 'even-odd' as const,
  knots: points.map(([x, y]) => ({ linked: true, points: [x, y, x, y, x, y] })),
});

function pixels(r: Random, w: number, h: number) {
  const data = new Uint8ClampedArray(w * h * 4);
  const alpha = r.pick([255, 255, 128, 0]);
  const [c1, c2] = [rgb(r), rgb(r)];
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) {
    const c = (x + y) % 3 ? c1 : c2;
    data.set([c.r, c.g, c.b, y % 2 ? alpha : 255], (y * w + x) * 4);
  }
  return { width: w, height: h, data };
}

/** Where a layer or mask sits: on the canvas, partly or wholly off it (even far off), or 1×1. */
function place(r: Random, W: number, H: number): Placement {
  return placeOnCanvasOr(
    r,
    W,
    H,
    () => ({ left: -r.int(2 * W) - 1, top: -r.int(H), w: 1 + r.int(W), h: 1 + r.int(2 * H) }),
    () => ({ left: W + r.int(50), top: r.int(H), w: 1 + r.int(8), h: 1 + r.int(8) }),
    () => ({ left: -500, top: -500, w: 3, h: 3 }),
  );
}

function options(r: Random, W: number, H: number, adjustmentLayer = false): Partial<Layer> {
  const o: Partial<Layer> = {};
  if (r.chance(0.3)) {
    const at = place(r, W, H);
    // A mask with no pixels (its default colour alone), or grey/black/white over a rectangle.
    const data = r.chance(0.2) ? undefined : { width: at.w, height: at.h, data: new Uint8ClampedArray(at.w * at.h * 4).fill(r.pick([0, 128, 255])) };
    o.mask = { left: at.left, top: at.top, ...(data ? { imageData: data } : { right: at.left, bottom: at.top }), defaultColor: r.pick([0, 255]), disabled: r.chance(0.1) };
    if (r.chance(0.2)) o.mask.userMaskDensity = r.pick([0, 1, r.next()]);
    if (r.chance(0.2)) o.mask.userMaskFeather = r.pick([0, 1, 250]);
  }
  if (r.chance(0.25)) o.opacity = r.pick([0, 1, r.int(256) / 255]);
  if (r.chance(0.3)) o.fillOpacity = r.pick([0, 1, r.int(256) / 255]);
  if (r.chance(0.35)) o.clipping = true;
  if (r.chance(0.08)) o.hidden = true;
  if (r.chance(adjustmentLayer ? 0.05 : 0.45)) o.effects = effects(r);
  // Knockout on an adjustment is refused (unsupported.ts): seldom, so the rest gets drawn.
  if (r.chance(adjustmentLayer ? 0.03 : 0.2)) o.knockout = true;
  if (r.chance(0.2)) o.blendClippendElements = false;
  if (r.chance(0.2)) o.blendInteriorElements = true;
  if (r.chance(0.2)) o.transparencyShapesLayer = false;
  if (r.chance(0.2)) o.layerMaskAsGlobalMask = true;
  if (r.chance(0.12)) o.vectorMask = { invert: r.chance(0.2), paths: r.chance(0.2) ? [] : [quad([[1, 1], [W - 1, 2], [W - 2, H - 1], [2, H - 2]])] };
  if (r.chance(0.1)) {
    const range = () => r.pick([[0, 0, 255, 255], [0, 40, 200, 255], [255, 255, 0, 0], [128, 128, 128, 128]]);
    o.blendingRanges = { compositeGrayBlendSource: range(), compositeGraphBlendDestinationRange: range(), ranges: [] };
  }
  return o;
}

function layer(r: Random, W: number, H: number, depth: number, i: number): Layer {
  const kind = depth > 2 ? r.pick(['pixels', 'adjustment', 'empty']) : r.pick(['pixels', 'pixels', 'adjustment', 'adjustment', 'adjustment', 'group', 'group', 'fill', 'fill', 'empty']);
  const name = `${kind} ${depth}.${i}`;
  const blendMode = r.chance(0.5) ? 'normal' : r.pick(MODES);
  if (kind === 'group') {
    // Groups with no children, one, or several; pass through, isolated, or another mode.
    const n = r.pick([0, 0, 1, 2, 4]);
    const mode = r.pick<BlendMode>(['pass through', 'pass through', 'normal', 'multiply', 'screen']);
    return { name, blendMode: mode, opened: true, ...options(r, W, H), children: Array.from({ length: n }, (_, j) => layer(r, W, H, depth + 1, j)) };
  }
  if (kind === 'adjustment') return { name, adjustment: adjustment(r), blendMode, ...options(r, W, H, true) };
  if (kind === 'empty') {
    // No pixels: an empty rectangle somewhere (zero size), on or off the canvas.
    const at = place(r, W, H);
    return { name, left: at.left, top: at.top, right: at.left, bottom: at.top, blendMode, ...options(r, W, H) };
  }
  const at = place(r, W, H);
  const base: Layer = { name, left: at.left, top: at.top, imageData: pixels(r, at.w, at.h), blendMode, ...options(r, W, H) };
  if (kind === 'fill') {
    base.vectorFill = r.chance(0.4)
      ? { type: 'color', color: rgb(r) }
      : { ...gradient(r), style: r.pick(['linear', 'radial', 'angle', 'reflected', 'diamond'] as const), angle: r.int(361) - 180, scale: r.pick([0.1, 1, 1.5]), reverse: r.chance(0.3), align: r.chance(0.5) };
  }
  return base;
}

function document(seed: number): { bytes: Uint8Array; width: number; height: number } {
  const r = random(seed);
  const [width, height] = r.pick([[1, 1], [1, 1], [2, 3], [24, 16], [24, 16], [40, 8], [9, 33]]);
  const children: Layer[] = r.chance(0.8) ? [{ name: 'bg', left: 0, top: 0, imageData: pixels(r, width, height) }] : [];
  for (let i = 0, n = 1 + r.int(6); i < n; i++) children.push(layer(r, width, height, 0, i));
  // ag-psd writes groups as the records Photoshop does; a PSB now and then.
  return { bytes: writePsdUint8Array({ width, height, children }, { psb: r.chance(0.2) }), width, height };
}

/** Compiles or returns null on a 422; anything else thrown fails with the seed. */
const SEEDS = Array.from({ length: 48 }, (_, i) => 5000 + i);

describe('random documents mixing this session’s features', () => {
  it.each(SEEDS)('seed %i compiles or is refused with a 422, then renders whole, scaled, as a strip and as a PDF', async (seed) => {
    const { bytes, height } = document(seed);
    const compiled = await compileOrRefused(bytes, `seed ${seed}`);
    if (!compiled) return;
    try {
      await rendersWholeAndStrip(compiled, [1, 0.5, 0.13, 1.7], Math.floor(height / 3));
      const transparent = await renderTemplate(env.FILES, compiled, { scale: 1, background: 'transparent' });
      expect(transparent.data.length).toBe(transparent.width * transparent.height * 4);
    } catch (e) {
      throw new Error(`seed ${seed}: render threw ${(e as Error)?.constructor?.name}: ${(e as Error)?.message}\n${(e as Error)?.stack}`, { cause: e });
    }
    if (seed % 4 === 0) {
      // The print path: stored as a template, rendered at scale 1 in strips, written as a PDF.
      const name = `fuzz-features-${seed}.psd`;
      await new FileStore(env.FILES).put('templates', name, bytes, { contentType: 'image/vnd.adobe.photoshop' });
      try {
        const made = await makePdf({ template: name }, 2, seed % 2 === 0);
        expect(made.bytes.length).toBeGreaterThan(0);
      } catch (e) {
        throw new Error(`seed ${seed}: PDF threw ${(e as Error)?.constructor?.name}: ${(e as Error)?.message}\n${(e as Error)?.stack}`, { cause: e });
      }
    }
  });
});

describe('crashes the fuzzing found', () => {
  it('a drop shadow 30 000 px away (Photoshop’s maximum distance) renders, its arrays bounded by the target, not by the distance', async () => {
    // Seed 5014 above: effects were drawn from arrays padded by size + distance on every side,
    // so this shadow asked for ~60 000² floats and ended the isolate (a 500 on every preview);
    // then it was refused. Effect arrays now cover only what lands on the target (issue 25 §1).
    const shadow = { enabled: true, size: px(10), distance: px(30000), angle: 90, color: { r: 0, g: 0, b: 0 }, opacity: 1 };
    const bytes = writePsdUint8Array({ width: 8, height: 8, children: [{ name: 'far', left: 2, top: 2, imageData: pixels(random(1), 4, 4), effects: { dropShadow: [shadow] } }] });
    const compiled = await compileTemplate(env.FILES, bytes);
    effectArrays.largest = 0;
    const image = await renderTemplate(env.FILES, compiled, { scale: 1 });
    expect(image.width).toBe(8);
    // The shadow lands 30 000 px below the canvas: nothing of it is drawn, no array over 8 px + reach.
    expect(effectArrays.largest).toBeLessThanOrEqual(64 * 64);
  });
});
