import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, renderTemplate, walkLayers, type LayerOverrides } from '../../src/engine';
import { clearEngineCaches, frameCache } from '../../src/engine/cache';
import { encodeFrameJpeg, renderFrame, renderFrameJpeg, streamsJpeg, STREAMED_JPEG_FRAME_BYTES, STRIP_CANVAS_BYTES, type FrameOptions } from '../../src/engine/frame';
import { decodeImage, encodeJpeg, resample, unsharpMask, DEFAULT_UNSHARP_MASK } from '../../src/engine/raster';
import type { CompiledTemplate, LayerNode, RGBAImage } from '../../src/engine/types';
import { ServerTiming } from '../../src/http/server-timing';
import { firstDifference } from '../helpers/pixels';
import { psdFixture, psdManifest } from '../helpers/fixtures';
import { UrlImages } from '../../src/engine/inputs';
import { dirtyBounds } from '../../src/engine/composite/dirty';
import { preparePreview } from '../../src/engine/preview';
import { readIcc } from '../../src/engine/raster/icc';
import { FileStore } from '../../src/dynamic-image/store';
import { uploadFixture } from '../dynamic-image/helpers';

/** The frame drawn in full, with nothing cached: render, resize, sharpen. */
async function reference(compiled: CompiledTemplate, o: FrameOptions) {
  let img = await renderTemplate(env.FILES, compiled, { scale: o.scale, overrides: o.overrides, background: o.background });
  if (img.width !== o.width || img.height !== o.height) img = await resample(img, o.width, o.height, { quality: o.quality });
  return o.sharpen ? unsharpMask(img, o.sharpen) : img;
}

/** Output settings as previews pick them: level + Lanczos + sharpen, straight at s, and PNG. */
function settings(compiled: CompiledTemplate): Omit<FrameOptions, 'overrides'>[] {
  const s = Math.min(1, 200 / Math.max(compiled.width, compiled.height));
  const width = Math.max(1, Math.round(compiled.width * s));
  const height = Math.max(1, Math.round(compiled.height * s));
  const level = 2 ** -Math.floor(Math.log2(1 / s));
  return [
    { scale: level, width, height, quality: 'high', sharpen: s < 1 ? { ...DEFAULT_UNSHARP_MASK } : null },
    { scale: s, width, height, quality: 'fast', sharpen: s < 1 ? { amount: 0.8, radius: 2, threshold: 0 } : null },
    { scale: level, width, height, quality: 'high', sharpen: null, background: 'transparent' },
  ];
}

/** Overrides of a few layers at several depths: recolour, hide, and new pixels somewhere else. */
function overridesFor(compiled: CompiledTemplate, o: Omit<FrameOptions, 'overrides'>): LayerOverrides[] {
  const nodes = [...walkLayers(compiled.layers)].filter((n: LayerNode) => n.hasPixels || n.type === 'Group');
  const picks = [...new Set([0, Math.floor(nodes.length / 2), nodes.length - 1])].map((i) => nodes[i]).filter(Boolean);
  const w = Math.max(1, Math.round(compiled.width * o.scale));
  const h = Math.max(1, Math.round(compiled.height * o.scale));
  const patch = { width: Math.max(1, w >> 3), height: Math.max(1, h >> 4), data: new Uint8ClampedArray(Math.max(1, w >> 3) * Math.max(1, h >> 4) * 4).fill(200) };
  const placed = { left: w >> 1, top: (h * 3) >> 2, right: (w >> 1) + patch.width, bottom: ((h * 3) >> 2) + patch.height };
  return picks.flatMap((node) => [
    new Map([[node.id, { color: { r: 255, g: 0, b: 0, a: 1 } }]]),
    new Map([[node.id, { visible: !node.visible }]]),
    ...(node.type === 'Group' ? [] : [new Map([[node.id, { pixels: patch, bounds: placed }]])]),
  ]);
}

/**
 * Output settings for a box that resize the canvas: shrinking from the pyramid level at or above
 * the fit (as previews do), or, when the template fits enlarged, from a canvas two thirds of the
 * output. The `k`th box takes Lanczos or the fast filter, a sharpening and a matte in turn.
 */
function resized(compiled: CompiledTemplate, [bw, bh]: readonly [number, number], k: number): FrameOptions {
  const s = Math.min(bw / compiled.width, bh / compiled.height);
  const width = Math.max(1, Math.round(compiled.width * s));
  const height = Math.max(1, Math.round(compiled.height * s));
  const scale = s < 1 ? 2 ** -Math.floor(Math.log2(1 / s)) : (s * 2) / 3;
  const sharpen = [{ ...DEFAULT_UNSHARP_MASK }, { amount: 0.8, radius: 2, threshold: 0 }, { amount: 1.2, radius: 1, threshold: 0.02 }][k % 3]!;
  return { scale, width, height, quality: k % 2 ? 'fast' : 'high', sharpen, background: k === 2 ? 'transparent' : undefined };
}

/** What a shopper changes: the first text layer, or else the smallest picture. */
function textOrPicture(compiled: CompiledTemplate): LayerNode {
  const nodes = [...walkLayers(compiled.layers)];
  const area = (n: LayerNode) => (n.bounds.right - n.bounds.left) * (n.bounds.bottom - n.bounds.top);
  return nodes.find((n) => n.type === 'Text') ?? nodes.filter((n) => n.hasPixels && n.type !== 'Group').sort((a, b) => area(a) - area(b))[0]!;
}

/** New pixels a quarter of the canvas wide, ink with soft, transparent margins (a drawn text), in the middle or at an edge. */
function patchAt(compiled: CompiledTemplate, scale: number, where: 'middle' | 'left' | 'right') {
  const cw = Math.max(1, Math.round(compiled.width * scale));
  const ch = Math.max(1, Math.round(compiled.height * scale));
  const [w, h] = [Math.max(2, cw >> 2), Math.max(2, ch >> 3)];
  const data = new Uint8ClampedArray(w * h * 4);
  for (let y = h >> 2; y < h - (h >> 2); y++) for (let x = 1; x < w - 1; x++) data.set([20, 40, 160, x % 5 ? 255 : 128], (y * w + x) * 4);
  const left = where === 'left' ? 0 : where === 'right' ? cw - w : (cw * 3) >> 3;
  const top = where === 'left' ? ch >> 3 : where === 'right' ? Math.max(0, ch - h - 1) : ch >> 1;
  return { pixels: { width: w, height: h, data }, bounds: { left, top, right: left + w, bottom: top + h } };
}

/** The rectangle a frame's Server-Timing note names (null: the template frame reused). */
function notedRect(header: string, o: FrameOptions) {
  const m = /redrawn rows (\d+)-(\d+) of \d+(?:, columns (\d+)-(\d+) of \d+)?/.exec(header);
  if (!m) return null;
  return { top: Number(m[1]), bottom: Number(m[2]), left: m[3] ? Number(m[3]) : 0, right: m[4] ? Number(m[4]) : o.width };
}

/** Pixels of `b` that differ from `a` outside `rect`. */
function changedOutside(a: RGBAImage, b: RGBAImage, rect: { top: number; bottom: number; left: number; right: number } | null) {
  let n = 0;
  for (let y = 0; y < a.height; y++) {
    for (let x = 0; x < a.width; x++) {
      if (rect && y >= rect.top && y < rect.bottom && x >= rect.left && x < rect.right) continue;
      const i = (y * a.width + x) * 4;
      if (a.data[i] !== b.data[i] || a.data[i + 1] !== b.data[i + 1] || a.data[i + 2] !== b.data[i + 2] || a.data[i + 3] !== b.data[i + 3]) n++;
    }
  }
  return n;
}

describe('preview frames', () => {
  // A warm template frame with each override over it must equal the frame drawn in full.
  const manifest = psdManifest();
  for (let i = 0; i < 30; i++) {
    it(`a personalised frame redrawn over the template frame equals one drawn in full (fixture ${i + 1})`, { timeout: 120_000 }, async () => {
      const entry = (await manifest)[i];
      if (!entry) return;
      const compiled = await compileTemplate(env.FILES, await psdFixture(entry.name));
      clearEngineCaches();
      for (const [k, o] of settings(compiled).entries()) {
        // Every override with the default output; the other outputs with one, to bound the time.
        const all = overridesFor(compiled, o);
        for (const overrides of k === 0 ? all : all.slice(-1)) {
          const expected = await reference(compiled, { ...o, overrides });
          const got = (await renderFrame(env.FILES, compiled, { ...o, overrides }, new ServerTiming())).image;
          const what = `${entry.name} ${o.scale} ${o.quality} ${JSON.stringify([...overrides].map(([id, v]) => [id, Object.keys(v)]))}`;
          expect([got.width, got.height], what).toEqual([expected.width, expected.height]);
          expect(firstDifference(got.data, expected.data), what).toBe(-1);
        }
      }
    });
  }

  // Issue 25 §1: a frame whose canvas is large is drawn in strips (here a few rows of 16 KB each).
  for (let i = 0; i < 30; i++) {
    it(`a frame drawn in strips equals one drawn whole (fixture ${i + 1})`, { timeout: 120_000 }, async () => {
      const entry = (await manifest)[i];
      if (!entry) return;
      const compiled = await compileTemplate(env.FILES, await psdFixture(entry.name));
      clearEngineCaches();
      for (const o of settings(compiled)) {
        for (const overrides of [new Map(), ...overridesFor(compiled, o).slice(-1)] as LayerOverrides[]) {
          clearEngineCaches();
          const expected = await reference(compiled, { ...o, overrides });
          const got = (await renderFrame(env.FILES, compiled, { ...o, overrides, stripBytes: 16 * 1024 }, new ServerTiming())).image;
          const what = `${entry.name} ${o.scale} ${o.quality} ${JSON.stringify([...overrides].map(([id, v]) => [id, Object.keys(v)]))}`;
          expect(firstDifference(got.data, expected.data), what).toBe(-1);
        }
      }
    });
  }

  it('never renders more canvas at once than a strip when the canvas is above the strip size', async () => {
    const compiled = await compileTemplate(env.FILES, await psdFixture('psdrb-example-design.psd'));
    clearEngineCaches();
    const [o] = settings(compiled);
    const canvasBytes = Math.round(compiled.width * o!.scale) * Math.round(compiled.height * o!.scale) * 4;
    const stripBytes = Math.floor(canvasBytes / 8);
    const rendered: number[] = [];
    const timing = {
      time: async <T,>(name: string, fn: () => Promise<T> | T) => {
        const r = await fn();
        if (name === 'render') rendered.push((r as { data: Uint8ClampedArray }).data.byteLength);
        return r;
      },
      note: () => {},
    };
    await renderFrame(env.FILES, compiled, { ...o!, stripBytes }, timing);
    expect(rendered.length).toBeGreaterThanOrEqual(8);
    // A strip's canvas: its share plus the rows the resize's taps and the unsharp mask read beyond it.
    expect(Math.max(...rendered)).toBeLessThan(2 * stripBytes);
    expect(STRIP_CANVAS_BYTES).toBeLessThanOrEqual(8 * 1024 * 1024);
  });

  it('keeps one template frame per size and settings, and gives callers their own copy', async () => {
    const compiled = await compileTemplate(env.FILES, await psdFixture('psdrb-example-design.psd'));
    clearEngineCaches();
    const [o] = settings(compiled);
    const first = (await renderFrame(env.FILES, compiled, o!, new ServerTiming())).image;
    first.data.fill(0); // an encoder flattening in place must not reach the cache
    const timing = new ServerTiming();
    const second = (await renderFrame(env.FILES, compiled, o!, timing)).image;
    expect(timing.header()).toMatch(/template frame reused/);
    expect(firstDifference(second.data, (await reference(compiled, o!)).data)).toBe(-1);
    expect(frameCache.count).toBe(1);
  });

  it('redraws only the rows a text-sized override reaches', async () => {
    const compiled = await compileTemplate(env.FILES, await psdFixture('psdrb-example-design.psd'));
    clearEngineCaches();
    const [o] = settings(compiled);
    const area = (n: LayerNode) => (n.bounds.right - n.bounds.left) * (n.bounds.bottom - n.bounds.top);
    const node = [...walkLayers(compiled.layers)].filter((n) => n.hasPixels && n.type !== 'Group').sort((a, b) => area(a) - area(b))[0]!;
    const w = Math.round(compiled.width * o!.scale);
    const pixels = { width: 20, height: 10, data: new Uint8ClampedArray(20 * 10 * 4).fill(255) };
    const top = Math.floor(node.bounds.top * o!.scale);
    const overrides: LayerOverrides = new Map([[node.id, { pixels, bounds: { left: w >> 2, top, right: (w >> 2) + 20, bottom: top + 10 } }]]);
    await renderFrame(env.FILES, compiled, o!, new ServerTiming());
    const timing = new ServerTiming();
    await renderFrame(env.FILES, compiled, { ...o!, overrides }, timing);
    const [, first, last] = /redrawn rows (\d+)-(\d+)/.exec(timing.header())!.map(Number);
    expect(last! - first!).toBeLessThan(o!.height / 2);
  });

  // Issue 25 §3: psdrb-example-design has the same text layer in six variant groups, five hidden;
  // personalising it by name overrides all six, and the hidden ones (which paint nothing) must not
  // widen the redrawn rows to the whole frame (their groups hold a full-canvas matte).
  it('overrides inside hidden groups do not widen the redrawn rows, and the frame equals one drawn in full', async () => {
    const compiled = await compileTemplate(env.FILES, await psdFixture('psdrb-example-design.psd'));
    clearEngineCaches();
    const [o] = settings(compiled);
    const texts = [...walkLayers(compiled.layers)].filter((n) => n.type === 'Text');
    expect(texts.length).toBeGreaterThan(1);
    const w = Math.round(compiled.width * o!.scale);
    const h = Math.round(compiled.height * o!.scale);
    const pixels = { width: 40, height: 10, data: new Uint8ClampedArray(40 * 10 * 4).fill(255) };
    const bounds = { left: w >> 2, top: (h * 3) >> 2, right: (w >> 2) + 40, bottom: ((h * 3) >> 2) + 10 };
    const overrides: LayerOverrides = new Map(texts.map((n) => [n.id, { pixels, bounds }]));
    await renderFrame(env.FILES, compiled, o!, new ServerTiming());
    const timing = new ServerTiming();
    const got = (await renderFrame(env.FILES, compiled, { ...o!, overrides }, timing)).image;
    const [, first, last] = /redrawn rows (\d+)-(\d+)/.exec(timing.header())!.map(Number);
    expect(last! - first!).toBeLessThan(o!.height / 4);
    expect(firstDifference(got.data, (await reference(compiled, { ...o!, overrides })).data)).toBe(-1);
  });

  // Issue 25 §3: new pixels with transparent margins (a drawn text's line boxes) on a layer with a drop shadow.
  it('a frame redrawn where new pixels with transparent margins reach equals one drawn in full', async () => {
    const compiled = await compileTemplate(env.FILES, await psdFixture('psdtools-layer-effects-all.psd'));
    clearEngineCaches();
    const node = [...walkLayers(compiled.layers)].find((n) => n.name === 'Drop Shadow')!;
    for (const o of settings(compiled).slice(0, 2)) {
      const s = o.scale;
      const [w, h] = [Math.round(240 * s), Math.round(120 * s)];
      const data = new Uint8ClampedArray(w * h * 4);
      for (let y = Math.round(h * 0.4); y < Math.round(h * 0.6); y++) for (let x = 4; x < w - 4; x++) data.set([30, 60, 200, 255], (y * w + x) * 4);
      const left = Math.round(150 * s);
      const top = Math.round(180 * s);
      const overrides: LayerOverrides = new Map([[node.id, { pixels: { width: w, height: h, data }, bounds: { left, top, right: left + w, bottom: top + h } }]]);
      await renderFrame(env.FILES, compiled, o, new ServerTiming());
      const got = (await renderFrame(env.FILES, compiled, { ...o, overrides }, new ServerTiming())).image;
      expect(firstDifference(got.data, (await reference(compiled, { ...o, overrides })).data)).toBe(-1);
    }
  });

  // Issue 25 §3: a drop shadow's reach follows its direction (dirtyBounds), not size + distance on every side.
  it('a drop shadow cast downward redraws fewer rows above the new text, and the frame equals one drawn in full', async () => {
    const compiled = await compileTemplate(env.FILES, await psdFixture('psdtools-layer-effects-all.psd'));
    clearEngineCaches();
    const node = [...walkLayers(compiled.layers)].find((n) => n.name === 'Drop Shadow')!;
    const shadow = [node.effects!.dropShadow!].flat()[0]!;
    const [size, distance] = [shadow.size!.value, shadow.distance!.value]; // 41 and 18 px, cast down (90°)
    const o: FrameOptions = { scale: 1, width: compiled.width, height: compiled.height, quality: 'high', sharpen: null };
    const [w, h, left, top] = [300, 40, 110, 230];
    const data = new Uint8ClampedArray(w * h * 4);
    for (let y = 10; y < 30; y++) for (let x = 4; x < w - 4; x++) data.set([30, 60, 200, 255], (y * w + x) * 4);
    const overrides: LayerOverrides = new Map([[node.id, { pixels: { width: w, height: h, data }, bounds: { left, top, right: left + w, bottom: top + h } }]]);
    const dirty = dirtyBounds(compiled, overrides, 1)!;
    // Ink rows 240-260; the template's own text (rows 225-284) is redrawn too, shadow and all.
    expect(dirty.top).toBeGreaterThan(225 - (size + distance)); // was size + distance (+2) above
    expect(dirty.top).toBeLessThanOrEqual(225 + distance - size - 4);
    expect(dirty.bottom).toBeGreaterThanOrEqual(284 + distance + size + 4);
    await renderFrame(env.FILES, compiled, o, new ServerTiming());
    const got = (await renderFrame(env.FILES, compiled, { ...o, overrides }, new ServerTiming())).image;
    expect(firstDifference(got.data, (await reference(compiled, { ...o, overrides })).data)).toBe(-1);
  });

  // Issue 25 §3: a canvas at the output size redraws only the dirty rectangle's columns (grown by the unsharp mask's reach).
  it('a dirty rectangle narrow in columns redraws only its columns, and the frame equals one drawn in full', { timeout: 240_000 }, async () => {
    const compiled = await compileTemplate(env.FILES, await psdFixture('psdtools-layer-effects-all.psd'));
    clearEngineCaches();
    const node = [...walkLayers(compiled.layers)].find((n) => n.name === 'Drop Shadow')!;
    const [w, h] = [60, 40];
    const data = new Uint8ClampedArray(w * h * 4);
    for (let y = 10; y < 30; y++) for (let x = 4; x < w - 4; x++) data.set([30, 60, 200, 255], (y * w + x) * 4);
    // Inside the template text's columns, and at either edge of the frame.
    for (const [left, top] of [[200, 230], [0, 400], [compiled.width - w, 40]]) {
      const overrides: LayerOverrides = new Map([[node.id, { pixels: { width: w, height: h, data }, bounds: { left, top, right: left + w, bottom: top + h } }]]);
      for (const sharpen of [null, { ...DEFAULT_UNSHARP_MASK }]) {
        const o: FrameOptions = { scale: 1, width: compiled.width, height: compiled.height, quality: 'high', sharpen };
        await renderFrame(env.FILES, compiled, o, new ServerTiming());
        const timing = new ServerTiming();
        const frame = await renderFrame(env.FILES, compiled, { ...o, overrides }, timing);
        // The template's own text and its shadow are redrawn too (columns 49-612), so the
        // rectangle is the two together: narrower than the frame, the new pixels' columns inside it.
        const [, first, last] = /columns (\d+)-(\d+) of/.exec(timing.header())!.map(Number);
        expect(last - first).toBeLessThan(left === 200 ? compiled.width * 0.75 : compiled.width);
        expect(first).toBeLessThanOrEqual(left);
        expect(last).toBeGreaterThanOrEqual(left + w);
        const expected = await reference(compiled, { ...o, overrides });
        expect(firstDifference(frame.image.data, expected.data), `${left},${top} ${!!sharpen}`).toBe(-1);
        // The kept JPEG with the changed MCU rows re-coded decodes to the frame coded whole.
        const whole = await decodeImage(await encodeJpeg(expected, 85));
        expect(firstDifference((await decodeImage(await encodeFrameJpeg(frame, 85))).data, whole.data)).toBe(-1);
      }
    }
  });

  // Issue 25 §3: a resized frame (shrunk from a pyramid level, or enlarged from a smaller canvas)
  // redraws only the output columns whose taps read the dirty rectangle, grown by the unsharp
  // mask's reach: a text or picture override in the middle and at either edge, three boxes, both
  // qualities, with and without a matte.
  for (let i = 0; i < 30; i++) {
    it(`a resized frame redrawn in its dirty columns equals one drawn in full (fixture ${i + 1})`, { timeout: 240_000 }, async () => {
      const entry = (await manifest)[i];
      if (!entry) return;
      const compiled = await compileTemplate(env.FILES, await psdFixture(entry.name));
      clearEngineCaches();
      const node = textOrPicture(compiled);
      for (const [k, box] of ([[800, 800], [500, 300], [1200, 1200]] as const).entries()) {
        const o = resized(compiled, box, k);
        const template = (await renderFrame(env.FILES, compiled, o, new ServerTiming())).image;
        for (const where of ['middle', 'left', 'right'] as const) {
          const overrides: LayerOverrides = new Map([[node.id, patchAt(compiled, o.scale, where)]]);
          const timing = new ServerTiming();
          const got = (await renderFrame(env.FILES, compiled, { ...o, overrides }, timing)).image;
          const what = `${entry.name} ${box.join('×')} → ${o.width}×${o.height} from scale ${o.scale} ${o.quality} ${where}`;
          expect(firstDifference(got.data, (await reference(compiled, { ...o, overrides })).data), what).toBe(-1);
          // The Server-Timing note is truthful: nothing differs from the template frame outside it.
          expect(changedOutside(template, got, notedRect(timing.header(), o)), what).toBe(0);
        }
      }
    });
  }

  it('a name on a resized template redraws and renders only the columns it reaches', async () => {
    const compiled = await compileTemplate(env.FILES, await psdFixture('agpsd-text-bug-1920.psd'));
    clearEngineCaches();
    const o = resized(compiled, [800, 800], 0); // 1920 → 800, from the half-size level (960 px)
    expect(o.scale).toBe(0.5);
    const overrides: LayerOverrides = new Map([[textOrPicture(compiled).id, patchAt(compiled, o.scale, 'middle')]]);
    await renderFrame(env.FILES, compiled, o, new ServerTiming());
    const rendered: number[] = [];
    const timing = new ServerTiming();
    const spy = {
      time: async <T,>(name: string, fn: () => Promise<T> | T) => {
        const r = await timing.time(name, fn);
        if (name === 'render') rendered.push((r as { width: number }).width);
        return r;
      },
      note: (name: string, desc: string) => timing.note(name, desc),
    };
    const frame = await renderFrame(env.FILES, compiled, { ...o, overrides }, spy);
    // A JPEG of it re-codes the changed MCU rows from the rows drawn for it, without copying the kept frame.
    const jpeg = await encodeFrameJpeg(frame, 85);
    expect(frame.over!.drawn!.data.byteLength).toBeLessThan((o.width * o.height * 4) / 2);
    const got = frame.image;
    expect(firstDifference((await decodeImage(jpeg)).data, (await decodeImage(await encodeJpeg(got, 85))).data)).toBe(-1);
    const rect = notedRect(timing.header(), o)!;
    // The patch spans canvas columns 360-600 of 960: output columns ~300-500 of 800, plus the taps and the reach.
    expect(rect.right - rect.left).toBeLessThan(o.width / 2);
    expect(rendered).toHaveLength(1);
    expect(rendered[0]).toBeLessThan(960 / 2);
    expect(firstDifference(got.data, (await reference(compiled, { ...o, overrides })).data)).toBe(-1);
  });

  it('a JPEG re-coding only the changed rows of the template frame decodes to the frame, as one coded whole', async () => {
    const compiled = await compileTemplate(env.FILES, await psdFixture('psdrb-example-design.psd'));
    clearEngineCaches();
    const [o] = settings(compiled);
    const node = [...walkLayers(compiled.layers)].find((n) => n.hasPixels && n.type !== 'Group')!;
    for (const overrides of [new Map(), new Map([[node.id, { color: { r: 0, g: 200, b: 90, a: 1 } }]])] as LayerOverrides[]) {
      for (const quality of [85, 95]) {
        const frame = await renderFrame(env.FILES, compiled, { ...o!, overrides }, new ServerTiming());
        expect(frame.over).toBeDefined();
        const spliced = await decodeImage(await encodeFrameJpeg(frame, quality));
        const whole = await decodeImage(await encodeJpeg(frame.image, quality));
        expect(firstDifference(spliced.data, whole.data)).toBe(-1);
      }
    }
  });

  it('a big JPEG coded as its strips are drawn decodes to the frame drawn whole and coded today', { timeout: 120_000 }, async () => {
    const compiled = await compileTemplate(env.FILES, await psdFixture('psdrb-example-design.psd'));
    clearEngineCaches();
    const [o] = settings(compiled);
    const node = [...walkLayers(compiled.layers)].find((n) => n.hasPixels && n.type !== 'Group')!;
    // Tiny strips, and every frame streamed: several strips, each of whole MCU rows, the last one short.
    const small = { stripBytes: 16 * 1024, streamBytes: 0 };
    expect(streamsJpeg({ ...o!, ...small })).toBe(true);
    for (const overrides of [new Map(), new Map([[node.id, { color: { r: 0, g: 200, b: 90, a: 1 } }]])] as LayerOverrides[]) {
      for (const quality of [85, 95]) {
        const timing = new ServerTiming();
        const streamed = await decodeImage(await renderFrameJpeg(env.FILES, compiled, { ...o!, overrides, ...small }, quality, timing));
        expect(timing.header()).toContain('encode');
        const whole = (await renderFrame(env.FILES, compiled, { ...o!, overrides, stripBytes: 1 << 30 }, new ServerTiming())).image;
        const today = await decodeImage(await encodeJpeg(whole, quality));
        expect([streamed.width, streamed.height]).toEqual([o!.width, o!.height]);
        // Same quantised coefficients: only the entropy coding (tables, restart intervals) differs.
        expect(firstDifference(streamed.data, today.data)).toBe(-1);
      }
    }
  });

  it('a preview above 16 MB comes coded as it was drawn, with its ICC profile, the pixels of the frame drawn whole', { timeout: 120_000 }, async () => {
    const name = await uploadFixture('psdrb-example-design.psd', 'stream');
    const store = new FileStore(env.FILES);
    // 900×600 enlarged to 2550×1700: a 17 MB frame.
    const prepared = await preparePreview(store, { template: name, format: 'jpg', jpegQuality: 85, size: { width: 2550, height: 1700 }, unsharpMask: null }, { urlImages: new UrlImages(async () => { throw new Error('no URL images'); }) });
    expect(streamsJpeg(prepared)).toBe(true);
    const timing = new ServerTiming();
    const { bytes, contentType } = await prepared.render(timing);
    expect(contentType).toBe('image/jpeg');
    expect(await readIcc(bytes, 'jpeg')).not.toBeNull();
    const compiled = prepared.template.compiled;
    const whole = await renderFrame(env.FILES, compiled, { scale: 2550 / compiled.width, width: 2550, height: 1700, quality: 'high', sharpen: null }, new ServerTiming());
    const got = (await decodeImage(bytes)).data;
    const want = (await decodeImage(await encodeJpeg(whole.image, 85))).data;
    // Counted, not compared with toEqual: the diff of 17 MB arrays would not fit in memory.
    let differing = 0;
    for (let i = 0; i < want.length; i++) if (got[i] !== want[i]) differing++;
    expect([got.length, differing]).toEqual([want.length, 0]);
  });

  it('streams only JPEG frames above 16 MB, above every frame kept for personalised requests', () => {
    expect(frameCache.maxEntryBytes).toBeLessThanOrEqual(STREAMED_JPEG_FRAME_BYTES);
    expect(streamsJpeg({ width: 2048, height: 2048 })).toBe(false);
    expect(streamsJpeg({ width: 2049, height: 2048 })).toBe(true);
    expect(streamsJpeg({ width: 5000, height: 5000 })).toBe(true);
  });

  it('rows redrawn next to a layer whose effect reads far (an outer bevel) equal the full render', { timeout: 120_000 }, async () => {
    // A T with an outer bevel over white, and a dot moved just below the bar: the redrawn strip
    // must load the T far enough out for the bevel (dilated by its size, then blurred by it).
    const { writePsdUint8Array } = await import('ag-psd');
    const W = 240;
    const H = 240;
    const t = new Uint8ClampedArray(W * H * 4);
    for (let y = 0; y < H; y++)
      for (let x = 0; x < W; x++) {
        const inT = (y >= 40 && y < 60 && x >= 20 && x < 220) || (y >= 60 && y < 200 && x >= 110 && x < 120);
        if (inT) t.set([200, 30, 30, 255], (y * W + x) * 4);
      }
    const dot = new Uint8ClampedArray(16).fill(255);
    const bevel = { enabled: true, present: true, style: 'outer bevel', size: { units: 'Pixels', value: 16 }, soften: { units: 'Pixels', value: 0 }, strength: 1 };
    const compiled = await compileTemplate(
      env.FILES,
      writePsdUint8Array({
        width: W,
        height: H,
        children: [
          { name: 'bg', top: 0, left: 0, bottom: H, right: W, imageData: { width: W, height: H, data: new Uint8ClampedArray(W * H * 4).fill(255) } },
          { name: 'dot', top: H - 2, left: 0, bottom: H, right: 2, imageData: { width: 2, height: 2, data: dot } },
          { name: 'T', top: 0, left: 0, bottom: H, right: W, imageData: { width: W, height: H, data: t }, effects: { bevel } as never },
        ],
      }),
    );
    const dotNode = [...walkLayers(compiled.layers)].find((n) => n.name === 'dot')!;
    const o: FrameOptions = { scale: 1, width: W, height: H, quality: 'high', sharpen: null };
    clearEngineCaches();
    for (const top of [70, 78, 80, 90]) {
      const overrides: LayerOverrides = new Map([[dotNode.id, { pixels: { width: 2, height: 2, data: dot }, bounds: { left: 0, top, right: 2, bottom: top + 2 } }]]);
      const got = (await renderFrame(env.FILES, compiled, { ...o, overrides }, new ServerTiming())).image;
      expect(firstDifference(got.data, (await renderTemplate(env.FILES, compiled, { scale: 1, overrides })).data), `dot at row ${top}`).toBe(-1);
    }
  });
});
