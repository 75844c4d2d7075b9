import { writePsdUint8Array, type BlendMode, type Layer, type LayerEffectsInfo } from 'ag-psd';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { renderTemplate, walkLayers, type LayerOverrides } from '../../../src/engine';
import { clearEngineCaches } from '../../../src/engine/cache';
import { effectKernelDraws, useEffectKernels } from '../../../src/engine/composite/effects';
import { renderFrame, type FrameOptions } from '../../../src/engine/frame';
import { resample, unsharpMask, DEFAULT_UNSHARP_MASK } from '../../../src/engine/raster';
import { kernels } from '../../../src/engine/raster/kernels';
import type { CompiledTemplate } from '../../../src/engine/types';
import { ServerTiming } from '../../../src/http/server-timing';
import { firstDifference } from '../../helpers/pixels';
import { compileOrRefused, placeOnCanvasOr, random, type Placement, type Random } from './kit';
import { switchedOffAwaiting } from '../../helpers/switches';

/**
 * Session 12's fast paths for effects (effects.ts shadowInKernels and strokesInKernels: a drop
 * shadow without spread, contour or knockout and plain colour strokes drawn in the WASM kernels'
 * memory, also for layers running off the canvas, 6db2fb2) give the bytes of the passes they
 * replace (useEffectKernels(false)) on whole random documents written with ag-psd, and never
 * throw: canvases of odd sizes down to 1 × 1, transparent or not; layers of 0 and 1 px, wholly,
 * partly or far off the canvas; shadows of size 0, 1, 250 and between, distances 0 … 30,000 px;
 * strokes inside, centre and outside of 1–250 px; opacity and Fill at 0, 1 and between; masks
 * (feathered, far away); clipped layers and groups; every scale a preview renders at, strips and
 * transparent backgrounds. Then personalised redraws (new pixels for a layer with a shadow and
 * a stroke, as a new text or picture is) equal the whole render of the same data.
 */

const MODES: BlendMode[] = ['normal', 'multiply', 'screen', 'overlay', 'darken', 'linear burn', 'soft light', 'hard mix', 'color dodge', 'difference', 'dissolve', 'hue', 'luminosity'];
const px = (value: number) => ({ units: 'Pixels' as const, value });
const rgb = (r: Random) => ({ r: r.int(256), g: r.int(256), b: r.int(256) });

/** A text-like raster: opaque, clear and partial pixels, empty margins now and then. */
function pixels(r: Random, w: number, h: number) {
  const data = new Uint8ClampedArray(w * h * 4);
  const [c1, c2] = [rgb(r), rgb(r)];
  const margin = r.chance(0.4) ? 1 + r.int(4) : 0;
  const partial = r.pick([0, 1, 128, 254, r.int(256)]);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) {
    const c = (x * 7 + y * 3) % 5 ? c1 : c2;
    const inside = x >= margin && y >= margin && x < w - margin && y < h - margin;
    const a = !inside ? 0 : (x * 3 + y * 5) % 7 === 0 ? 0 : (x + y) % 3 === 0 ? partial : 255;
    data.set([c.r, c.g, c.b, a], (y * w + x) * 4);
  }
  return { width: w, height: h, data };
}

/** On the canvas, 1×1, wholly or partly off it, or far off. */
function place(r: Random, W: number, H: number): Placement {
  return placeOnCanvasOr(
    r,
    W,
    H,
    () => ({ left: -r.int(W) - 1, top: r.int(H) - (H >> 1), w: 1 + r.int(2 * W), h: 1 + r.int(H) }),
    () => ({ left: W - r.int(3), top: H - r.int(3), w: 2 + r.int(W), h: 2 + r.int(H) }),
    () => ({ left: r.pick([-300, W + 200]), top: r.pick([-3, H + 90]), w: 1 + r.int(6), h: 1 + r.int(6) }),
  );
}

/** Extreme settings (true) or ones a template has (false): set per document. */
let wild = false;

/** Mostly what the kernels take (no spread, no contour, no knockout); now and then what they leave. */
function shadow(r: Random) {
  return {
    enabled: true,
    present: true,
    blendMode: r.chance(0.5) ? ('multiply' as const) : r.pick(MODES),
    color: rgb(r),
    opacity: wild ? r.pick([0, 1, 0.75, r.next()]) : r.pick([1, 1, 0.75, r.next()]),
    size: px(wild ? r.pick([0, 1, 2, 250, 0.5, r.int(30)]) : 1 + r.int(20)),
    distance: px(wild ? r.pick([0, 1, 17, 250, 30000, 2.5]) : r.int(25)),
    angle: r.pick([0, 90, -180, 120, 45, r.int(361) - 180]),
    useGlobalLight: r.chance(0.3),
    ...(r.chance(0.12) && { choke: px(r.pick([0, 50, 100])) }),
    ...(r.chance(0.08) && { contour: { name: 'c', curve: [{ x: 0, y: 0 }, { x: 255, y: 128 }] } }),
    ...(r.chance(0.15) && { layerConceals: false }),
  };
}

function stroke(r: Random) {
  return {
    enabled: true,
    present: true,
    size: px(wild ? r.pick([1, 2, 250, 1 + r.int(40)]) : r.pick([1, 2, 3, 1 + r.int(12)])),
    position: r.pick(['inside', 'outside', 'center'] as const),
    fillType: 'color' as const,
    color: rgb(r),
    blendMode: r.chance(0.6) ? ('normal' as const) : r.pick(MODES),
    opacity: wild ? r.pick([0, 1, 0.5, r.next()]) : r.pick([1, 1, 0.5, r.next()]),
  };
}

function effects(r: Random): LayerEffectsInfo {
  const fx: LayerEffectsInfo = {};
  if (r.chance(0.75)) fx.dropShadow = Array.from({ length: r.chance(0.2) ? 2 : 1 }, () => shadow(r));
  if (r.chance(0.6)) fx.stroke = Array.from({ length: r.chance(0.25) ? 2 : 1 }, () => stroke(r));
  if (r.chance(0.05)) fx.outerGlow = { enabled: true, present: true, blendMode: 'screen', opacity: 0.7, color: rgb(r), size: px(r.pick([1, 9])) };
  return fx;
}

function options(r: Random, W: number, H: number): Partial<Layer> {
  const o: Partial<Layer> = {};
  if (r.chance(0.2)) {
    const at = r.chance(0.6) ? place(r, W, H) : { left: r.pick([-200, W + 70, 0]), top: r.pick([-90, H + 30, 0]), w: 1 + r.int(5), h: 1 + r.int(5) };
    const data = { width: at.w, height: at.h, data: new Uint8ClampedArray(at.w * at.h * 4).map((_, i) => (i % 4 === 3 ? 255 : (i * 37) & 255)) };
    o.mask = { left: at.left, top: at.top, imageData: data, defaultColor: r.pick([0, 255]) };
    if (r.chance(0.4)) o.mask.userMaskFeather = r.pick([0.5, 2.5, 250]);
  }
  if (r.chance(0.3)) o.opacity = r.pick([0, 1, r.int(256) / 255]);
  if (r.chance(0.15)) o.fillOpacity = r.pick([0, 1, r.int(256) / 255]);
  if (r.chance(0.2)) o.clipping = true;
  if (r.chance(0.85)) o.effects = effects(r);
  if (r.chance(0.08)) o.knockout = true;
  if (r.chance(0.15)) o.blendInteriorElements = true;
  if (r.chance(0.1)) o.transparencyShapesLayer = false;
  return o;
}

function layer(r: Random, W: number, H: number, depth: number, i: number): Layer {
  const name = `l ${depth}.${i}`;
  const blendMode = r.chance(0.7) ? 'normal' : r.pick(MODES);
  if (depth === 0 && r.chance(0.12)) {
    return { name, blendMode: r.pick<BlendMode>(['pass through', 'normal']), opened: true, ...options(r, W, H), children: Array.from({ length: 1 + r.int(2) }, (_, j) => layer(r, W, H, 1, j)) };
  }
  // A layer of 0 px (an empty record) now and then.
  if (r.chance(0.06)) {
    const at = place(r, W, H);
    return { name, blendMode, left: at.left, top: at.top, right: at.left, bottom: at.top, ...options(r, W, H) };
  }
  const at = place(r, W, H);
  return { name, blendMode, left: at.left, top: at.top, imageData: pixels(r, at.w, at.h), ...options(r, W, H) };
}

function document(seed: number) {
  const r = random(seed);
  wild = r.chance(0.35);
  const [width, height] = wild ? r.pick([[1, 1], [1, 7], [7, 1], [13, 9], [33, 6], [61, 45]]) : r.pick([[97, 31], [40, 70], [121, 83], [150, 101], [63, 63]]);
  const background = r.chance(0.6);
  const children: Layer[] = background ? [{ name: 'bg', left: 0, top: 0, imageData: { width, height, data: new Uint8ClampedArray(width * height * 4).map((_, i) => (i % 4 === 3 ? 255 : (i * 13) & 255)) } }] : [];
  for (let i = 0, n = 1 + r.int(4); i < n; i++) children.push(layer(r, width, height, 0, i));
  const globalAngle = r.pick([30, 120, -90]);
  return { bytes: writePsdUint8Array({ width, height, children, imageResources: { globalAngle } }, { generateThumbnail: false }), width, height };
}

/** `body` with the kernels' shadow and strokes off (the passes they stand for), then on again. */
function passes<T>(body: () => Promise<T>): Promise<T> {
  return switchedOffAwaiting(useEffectKernels, body);
}

type Render = Parameters<typeof renderTemplate>[2];
/** The settings each document is rendered at: scales previews use, a strip, a transparent canvas. */
function renders(height: number): Render[] {
  const top = Math.floor(height / 2);
  return [{ scale: 1 }, { scale: 0.5 }, { scale: 0.37 }, { scale: 2.3 }, { scale: 1, region: { top, bottom: top + 1 } }, { scale: 1, background: 'transparent' }, { scale: 0.5, background: 'transparent' }];
}

/** Compares every setting of one seed; returns [kernel tiles drawn, renders compared] or throws naming the seed. */
async function compareSeed(seed: number): Promise<[number, number] | null> {
  const { bytes, height } = document(seed);
  const compiled = await compileOrRefused(bytes, `seed ${seed}`);
  if (!compiled) return null;
  let tiles = 0;
  let n = 0;
  for (const o of renders(height)) {
    const what = `seed ${seed} ${JSON.stringify(o)}`;
    let fast, slow;
    try {
      // Each drawn afresh: a second render of a template takes its canvas from backdropCache.
      clearEngineCaches();
      const before = effectKernelDraws.tiles;
      fast = await renderTemplate(env.FILES, compiled, o);
      tiles += effectKernelDraws.tiles - before;
      clearEngineCaches();
      slow = await passes(() => renderTemplate(env.FILES, compiled, o));
    } catch (e) {
      throw new Error(`${what} threw ${(e as Error)?.constructor?.name}: ${(e as Error)?.message}\n${(e as Error)?.stack}`, { cause: e });
    }
    expect([fast.width, fast.height], what).toEqual([slow.width, slow.height]);
    expect(firstDifference(fast.data, slow.data), what).toBe(-1);
    n++;
  }
  return [tiles, n];
}

const FIRST = 12_000;
const COUNT = 32;
const SEEDS = Array.from({ length: COUNT }, (_, i) => FIRST + i);

describe("session 12's shadow and strokes in the kernels on random documents", () => {
  let tiles = 0;
  let refused = 0;
  it.each(SEEDS)('seed %i renders the bytes of the passes at every scale, as a strip and transparent', async (seed) => {
    await kernels();
    const got = await compareSeed(seed);
    if (!got) refused++;
    else tiles += got[0];
  }, 30_000);

  it('most documents compile and the kernels drew', () => {
    console.log(`FUZZ-S12 refused ${refused} of ${COUNT}, kernel tiles ${tiles}`);
    expect(refused).toBeLessThan(COUNT / 2);
    expect(tiles).toBeGreaterThan(COUNT);
  });
});

/** The frame drawn in full, with nothing cached: render, resize, sharpen (as frame.test.ts). */
async function reference(compiled: CompiledTemplate, o: FrameOptions) {
  let img = await renderTemplate(env.FILES, compiled, { scale: o.scale, overrides: o.overrides, background: o.background });
  if (img.width !== o.width || img.height !== o.height) img = await resample(img, o.width, o.height, { quality: o.quality });
  return o.sharpen ? unsharpMask(img, o.sharpen) : img;
}

describe('personalised redraws of layers with a shadow and a stroke', () => {
  it.each(SEEDS.filter((s) => s % 4 === 0))('seed %i: new pixels (a text, a picture) redrawn over the template frame equal the whole render', async (seed) => {
    await kernels();
    const { bytes, width, height } = document(seed);
    const compiled = await compileOrRefused(bytes, `seed ${seed}`);
    if (!compiled) return;
    const r = random(seed + 7);
    const targets = [...walkLayers(compiled.layers)].filter((n) => n.type !== 'Group' && n.effects && (n.effects.dropShadow || n.effects.stroke));
    if (!targets.length) return;
    const s = r.pick([1, 0.5, 0.75]);
    const w = Math.max(1, Math.round(width * s));
    const h = Math.max(1, Math.round(height * s));
    const options: FrameOptions[] = [
      { scale: s, width: w, height: h, quality: 'high', sharpen: s < 1 ? { ...DEFAULT_UNSHARP_MASK } : null },
      { scale: 1, width: w, height: h, quality: 'fast', sharpen: null, background: 'transparent' },
    ];
    for (const o of options) {
      for (const node of targets.slice(0, 2)) {
        clearEngineCaches();
        await renderFrame(env.FILES, compiled, o, new ServerTiming()); // the template frame, kept
        // A new raster (a text, a picture): any size, anywhere, partly off the canvas.
        const pw = 1 + r.int(Math.max(1, w));
        const ph = 1 + r.int(Math.max(1, h));
        const left = r.int(w + 4) - 2 - (r.chance(0.3) ? pw >> 1 : 0);
        const top = r.int(h + 4) - 2;
        const overrides: LayerOverrides = new Map([[node.id, { pixels: pixels(r, pw, ph), bounds: { left, top, right: left + pw, bottom: top + ph } }]]);
        const what = `seed ${seed} node ${node.name} ${JSON.stringify({ ...o, overrides: undefined })} at ${left},${top} ${pw}x${ph}`;
        const got = (await renderFrame(env.FILES, compiled, { ...o, overrides }, new ServerTiming())).image;
        clearEngineCaches(); // drawn whole: no backdrop kept from the frames above
        const expected = await reference(compiled, { ...o, overrides });
        expect(firstDifference(got.data, expected.data), what).toBe(-1);
        // And the passes give the same frame.
        clearEngineCaches();
        const slow = await passes(() => reference(compiled, { ...o, overrides }));
        expect(firstDifference(got.data, slow.data), `${what} (passes)`).toBe(-1);
      }
    }
  }, 60_000);
});

/** Pieces of text in the scripts the bundled fonts cover, and ones none does. */
const PIECES = ['Ali', 'AVA', 'office ﬁ', ' ', 'علي', 'مرحبا بالعالم', 'שלום', 'नमस्ते', 'สวัสดี', '你好世界', '👍🏽', '👨‍👩‍👧', 'é', 'e\u0301', '\u200d', '\ufe0f', '\ud800', '\udc00', '2024', '\t', '\u202e', 'x'];

describe("HarfBuzz shaping into the isolate's kept buffer (8cd2a02)", () => {
  it('gives every text the glyphs it got first, whatever was shaped before it, and shapedAdvance their sum', async () => {
    const { bundledFont } = await import('../../helpers/fixtures');
    const { shapeText, shapedAdvance } = await import('../../../src/engine/fonts/shaper');
    const f = Object.fromEntries(await Promise.all(['LiberationSans-Regular.ttf', 'DejaVuSans.ttf', 'NotoSansArabic-Regular.ttf', 'NotoSansCJKsc-Regular.ttf', 'NotoSansDevanagari-Regular.ttf', 'NotoSansThai-Regular.ttf', 'NotoSansHebrew-Regular.ttf'].map(async (n) => [n, await bundledFont(n)] as const)));
    const lists = [
      [f['LiberationSans-Regular.ttf']!, f['NotoSansArabic-Regular.ttf']!, f['NotoSansCJKsc-Regular.ttf']!],
      [f['DejaVuSans.ttf']!],
      [f['LiberationSans-Regular.ttf']!, f['NotoSansDevanagari-Regular.ttf']!, f['NotoSansThai-Regular.ttf']!, f['NotoSansHebrew-Regular.ttf']!],
    ];
    const r = random(812);
    // Empty, one unit, around the scratch area's first size (64 units) and far past it.
    const texts = Array.from({ length: 90 }, (_, i) => {
      const target = r.pick([0, 1, 3, 63, 64, 65, 200, 1500, r.int(40)]);
      let t = '';
      while (t.length < target) t += r.pick(PIECES);
      return i % 9 === 0 ? t.slice(0, target) : t; // now and then cut inside a surrogate pair or cluster
    });
    const cases = texts.flatMap((text) => lists.map((fonts, l) => ({ text, fonts, l, direction: r.pick([undefined, 'ltr', 'rtl'] as const) })));
    const first = cases.map((c) => shapeText(c.fonts, c.text, c.direction ? { direction: c.direction } : {}));
    const sum = (runs: ReturnType<typeof shapeText>) => {
      let w = 0;
      for (const run of runs) for (const g of run.glyphs) w += g.xAdvance / run.unitsPerEm;
      return w;
    };
    // Again in another order, each after a different text, font list and direction.
    const order = cases.map((_, i) => i).sort(() => r.next() - 0.5);
    for (const i of order) {
      const c = cases[i]!;
      const what = `text ${JSON.stringify(c.text.slice(0, 40))} (${c.text.length} units), fonts ${c.l}, ${c.direction}`;
      expect(shapeText(c.fonts, c.text, c.direction ? { direction: c.direction } : {}), what).toEqual(first[i]);
      expect(shapedAdvance(c.fonts, c.text), what).toBe(sum(shapeText(c.fonts, c.text)));
    }
  }, 60_000);
});

describe('personalised previews of a text under a drop shadow (and a stroke) equal the whole render of the same data', () => {
  const TEXTS = ['Hi', 'A much longer headline that runs well past the edge of the canvas on the right side', 'علي 2024 Ali', 'x', 'Ünïcødé ∑ 👍🏽', 'Line one\nLine two\nLine three'];
  it.each(['psdtools-layer-effects-all.psd', 'webtoon-mobile-ui-example.psd'])('%s: warm (template frame kept), cold and through the passes give the same PNG bytes', async (fixture) => {
    await kernels();
    const { FileStore } = await import('../../../src/dynamic-image/store');
    const { preparePreview } = await import('../../../src/engine/preview');
    const { renderDeps } = await import('../pdf/helpers');
    const { psdFixture } = await import('../../helpers/fixtures');
    const { compileTemplate } = await import('../../../src/engine');
    const { upload } = await import('../../dynamic-image/helpers');
    const { bundledFont } = await import('../../helpers/fixtures');
    const fonts = await Promise.all(['LiberationSans-Regular.ttf', 'NotoSansArabic-Regular.ttf', 'DejaVuSans.ttf'].map(async (f) => [f, await bundledFont(f)] as [string, Uint8Array]));
    expect((await upload('fonts', fonts, '?overwrite=true')).status).toBe(201);
    const bytes = await psdFixture(fixture);
    const compiled = await compileTemplate(env.FILES, bytes);
    // Its text layers: with a shadow of their own (webtoon) or inside a group with a shadow and a stroke (layer-effects-all).
    const texts = [...walkLayers(compiled.layers)].filter((n) => n.type === 'Text');
    expect(texts.length).toBeGreaterThan(0);
    const store = new FileStore(env.FILES);
    const name = `fuzz-session12/${fixture}`;
    await store.put('templates', name, bytes, { contentType: 'image/vnd.adobe.photoshop' });
    const size = { width: Math.round(compiled.width / 4), height: Math.round(compiled.height / 4) };
    const preview = async (data?: Record<string, { type: 'text'; text: string }>) => (await (await preparePreview(store, { template: name, format: 'png', size, jpegQuality: 90, unsharpMask: null, ...(data && { data }) }, renderDeps())).render()).bytes;
    for (const [i, text] of TEXTS.slice(0, fixture.startsWith('psdtools') ? 2 : 4).entries()) {
      const node = texts[i % texts.length]!;
      const data = { [node.name]: { type: 'text' as const, text } };
      const what = `${fixture} ${node.name} ${JSON.stringify(text)}`;
      clearEngineCaches();
      await preview(); // the template's frame and backdrops, kept
      const warm = await preview(data);
      clearEngineCaches();
      const cold = await preview(data);
      clearEngineCaches();
      const slow = await passes(() => preview(data));
      expect(firstDifference(warm, cold), `${what}: warm against cold`).toBe(-1);
      expect(firstDifference(cold, slow), `${what}: kernels against passes`).toBe(-1);
    }
  }, 120_000);
});
