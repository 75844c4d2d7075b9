import { env } from 'cloudflare:workers';
import { writePsdUint8Array } from 'ag-psd';
import { describe, expect, it } from 'vitest';
import { compileTemplate, renderTemplate, walkLayers, type LayerOverrides } from '../../src/engine';
import { clearEngineCaches } from '../../src/engine/cache';
import { encodeFrameJpeg, keptCanvasBytes, makeRoomForFrame, renderFrame, type FrameOptions } from '../../src/engine/frame';
import { REQUEST_MEMORY_BUDGET } from '../../src/engine/memory/budget';
import { dropLentPictures, lendPicture, lentPictureBytes, releaseOnce } from '../../src/engine/raster/bounded';
import { decodeImage, encodeJpeg, resample, unsharpMask, DEFAULT_UNSHARP_MASK } from '../../src/engine/raster';
import type { CompiledTemplate, RGBAImage } from '../../src/engine/types';
import { ServerTiming } from '../../src/http/server-timing';
import { psdFixture } from '../helpers/fixtures';
import { firstDifference } from '../helpers/pixels';

// Issue 25 §3: a personalised rectangle is drawn into a canvas kept from request to request
// (frame.ts takeCanvas/giveCanvas). Requests in flight at once must each get their own, and a
// canvas given back must not change a frame another request still reads.
describe('kept region canvases', () => {
  it('frames drawn at once and released in any order equal frames drawn alone', async () => {
    const compiled = await compileTemplate(env.FILES, await psdFixture('psdtools-layer-effects-all.psd'));
    clearEngineCaches();
    const node = [...walkLayers(compiled.layers)].find((n) => n.name === 'Drop Shadow')!;
    // Straight at scale 1, no sharpening: the drawn patch is the kept canvas itself.
    const o: FrameOptions = { scale: 1, width: compiled.width, height: compiled.height, quality: 'high', sharpen: null };
    const overridesWith = (shade: number): LayerOverrides => {
      const [w, h] = [120, 40];
      const data = new Uint8ClampedArray(w * h * 4);
      for (let i = 0; i < data.length; i += 4) data.set([shade, 255 - shade, 90, 255], i);
      return new Map([[node.id, { pixels: { width: w, height: h, data }, bounds: { left: 100 + shade, top: 150, right: 220 + shade, bottom: 190 } }]]);
    };
    await expectHeldInAnyOrder(compiled, o, overridesWith, (shade) => renderTemplate(env.FILES, compiled, { scale: 1, overrides: overridesWith(shade) }));
  }, 180_000);
});

describe('kept arrays and a large request', () => {
  it('a plan that evicts drops the kept region canvases; a small one keeps them; frames stay exact after', async () => {
    const compiled = await compileTemplate(env.FILES, await psdFixture('psdtools-layer-effects-all.psd'));
    clearEngineCaches();
    const node = [...walkLayers(compiled.layers)].find((n) => n.name === 'Drop Shadow')!;
    const o: FrameOptions = { scale: 1, width: compiled.width, height: compiled.height, quality: 'high', sharpen: null };
    const overrides = (shade: number): LayerOverrides => {
      const [w, h] = [120, 40];
      const data = new Uint8ClampedArray(w * h * 4).fill(shade);
      return new Map([[node.id, { pixels: { width: w, height: h, data }, bounds: { left: 100, top: 150, right: 220, bottom: 190 } }]]);
    };
    const drawn = async (shade: number) => {
      const frame = await renderFrame(env.FILES, compiled, { ...o, overrides: overrides(shade) }, new ServerTiming());
      const expected = await renderTemplate(env.FILES, compiled, { scale: 1, overrides: overrides(shade) });
      expect(firstDifference(frame.image.data, expected.data)).toBe(-1);
      frame.release?.();
    };
    await renderFrame(env.FILES, compiled, o, new ServerTiming()); // the kept template frame
    await drawn(40);
    const kept = keptCanvasBytes();
    expect(kept).toBeGreaterThan(0);
    makeRoomForFrame(8 * 1024 * 1024); // an 800² preview's plan: nothing evicted, nothing dropped
    expect(keptCanvasBytes()).toBe(kept);
    makeRoomForFrame(REQUEST_MEMORY_BUDGET); // a 5,000² preview's or a wide print page's
    expect(keptCanvasBytes()).toBe(0);
    await drawn(200);
    expect(keptCanvasBytes()).toBeGreaterThan(0);
  }, 60_000);

  // A plan that evicts, beside which the kept arrays still fit the budget (large-poster's
  // 'Background': a 50 MB plan of strips, its picture's decode and placement lent, its 6 MB
  // canvas kept): they are counted with the caches and kept (picture-full-lent, poster-background).
  it('a plan that evicts keeps the idle lent picture arrays and region canvases while the caches can make room for them, else drops them', async () => {
    const compiled = await compileTemplate(env.FILES, await psdFixture('psdtools-layer-effects-all.psd'));
    clearEngineCaches();
    makeRoomForFrame(REQUEST_MEMORY_BUDGET);
    const node = [...walkLayers(compiled.layers)].find((n) => n.name === 'Drop Shadow')!;
    const o: FrameOptions = { scale: 1, width: compiled.width, height: compiled.height, quality: 'high', sharpen: null };
    const data = new Uint8ClampedArray(120 * 40 * 4).fill(90);
    await renderFrame(env.FILES, compiled, o, new ServerTiming()); // the kept template frame
    const frame = await renderFrame(env.FILES, compiled, { ...o, overrides: new Map([[node.id, { pixels: { width: 120, height: 40, data }, bounds: { left: 100, top: 150, right: 220, bottom: 190 } }]]) }, new ServerTiming());
    frame.release?.();
    const canvases = keptCanvasBytes();
    expect(canvases).toBeGreaterThan(0);
    dropLentPictures();
    const lent = [lendPicture(7_680_000)!, lendPicture(6_000_000)!];
    for (const array of lent) releaseOnce(array)();
    expect(lentPictureBytes()).toBe(13_680_000);
    makeRoomForFrame(50 * 1024 * 1024); // large-poster's 800 px preview (a 1500 px canvas in strips)
    expect(lentPictureBytes()).toBe(13_680_000);
    expect(keptCanvasBytes()).toBe(canvases);
    makeRoomForFrame(REQUEST_MEMORY_BUDGET - 8 * 1024 * 1024); // they would not fit beside it
    expect(lentPictureBytes()).toBe(0);
    expect(keptCanvasBytes()).toBe(0);
  }, 60_000);
});

// poster-background (issue 25 §3): a picture replacing a large template's whole canvas redraws a
// rectangle above STRIP_CANVAS_BYTES (large-poster's 'Background': 1500 × 1000 at its quarter
// scale, 6 MB), which was drawn into a new array every request; it is kept now, the pool's bytes
// in all (8 MB) still its bound.
describe('a kept canvas above 4 MB', () => {
  it('a whole-canvas picture over a 1100 × 1000 template reuses its 4.4 MB canvas, frames exact in any order', async () => {
    const [W, H] = [1100, 1000];
    const layer = (name: string, left: number, top: number, w: number, h: number, alpha: number) => {
      const data = new Uint8ClampedArray(w * h * 4);
      for (let i = 0; i < data.length; i += 4) data.set([(i >> 2) % 251, (i >> 5) % 241, 90, alpha], i);
      return { name, left, top, right: left + w, bottom: top + h, imageData: { width: w, height: h, data } };
    };
    const bytes = writePsdUint8Array({ width: W, height: H, children: [layer('ground', 0, 0, W, H, 255), layer('over', 200, 300, 500, 200, 140)] }, { generateThumbnail: false });
    const compiled = await compileTemplate(env.FILES, bytes);
    clearEngineCaches();
    makeRoomForFrame(REQUEST_MEMORY_BUDGET); // no canvas kept from the tests before
    const node = [...walkLayers(compiled.layers)].find((n) => n.name === 'ground')!;
    const o: FrameOptions = { scale: 1, width: W, height: H, quality: 'high', sharpen: null };
    const overridesWith = (shade: number): LayerOverrides => {
      const data = new Uint8ClampedArray(W * H * 4);
      for (let i = 0; i < data.length; i += 4) data.set([shade, 255 - shade, (i >> 3) % 239, 255], i);
      return new Map([[node.id, { pixels: { width: W, height: H, data }, bounds: { left: 0, top: 0, right: W, bottom: H } }]]);
    };
    await renderFrame(env.FILES, compiled, o, new ServerTiming()); // the kept template frame
    const frame = await renderFrame(env.FILES, compiled, { ...o, overrides: overridesWith(30) }, new ServerTiming());
    frame.release?.();
    expect(keptCanvasBytes()).toBeGreaterThanOrEqual(W * H * 4);
    await expectHeldInAnyOrder(compiled, o, overridesWith, (shade) => renderTemplate(env.FILES, compiled, { scale: 1, overrides: overridesWith(shade) }));
  }, 180_000);
});

/**
 * Three personalised frames drawn at once (after the kept template frame), read and released in
 * another order, with a later request taking the first one's arrays before the others are read,
 * twice: each equals `expected` for its shade, the later one too.
 */
async function expectHeldInAnyOrder(
  compiled: CompiledTemplate,
  o: FrameOptions,
  overridesWith: (shade: number) => LayerOverrides,
  expected: (shade: number) => Promise<RGBAImage>,
): Promise<void> {
  const shades = [10, 60, 110];
  const wanted = await Promise.all(shades.map(expected));
  await renderFrame(env.FILES, compiled, o, new ServerTiming()); // the kept template frame
  for (let round = 0; round < 2; round++) {
    const frames = await Promise.all(shades.map((s) => renderFrame(env.FILES, compiled, { ...o, overrides: overridesWith(s) }, new ServerTiming())));
    expect(firstDifference(frames[0]!.image.data, wanted[0]!.data)).toBe(-1);
    frames[0]!.release?.();
    const again = await renderFrame(env.FILES, compiled, { ...o, overrides: overridesWith(200) }, new ServerTiming());
    for (let i = 1; i < frames.length; i++) {
      expect(firstDifference(frames[i]!.image.data, wanted[i]!.data)).toBe(-1);
      frames[i]!.release?.();
    }
    expect(firstDifference(again.image.data, (await expected(200)).data)).toBe(-1);
    again.release?.();
  }
}

/** The frame drawn in full, with nothing cached: render, resize, sharpen. */
async function reference(compiled: CompiledTemplate, o: FrameOptions) {
  let img = await renderTemplate(env.FILES, compiled, { scale: o.scale, overrides: o.overrides, background: o.background });
  if (img.width !== o.width || img.height !== o.height) img = await resample(img, o.width, o.height, { quality: o.quality });
  return o.sharpen ? unsharpMask(img, o.sharpen) : img;
}

// Issue 25 §3 (workerd-prof): a personalised rectangle's canvas, its resized pixels and its
// sharpened pixels are all kept arrays (frame.ts takeCanvas/giveCanvas), each given back once
// read. Frames drawn at once, read and released in any order, with a resize and/or sharpening,
// must equal the frame drawn in full (the kept arrays are not zeroed: every byte is written).
describe('kept resized and sharpened pixels', () => {
  it('frames with a resize, sharpening or both, drawn at once and released in any order, equal the full draw', async () => {
    const compiled = await compileTemplate(env.FILES, await psdFixture('psdtools-layer-effects-all.psd'));
    clearEngineCaches();
    const node = [...walkLayers(compiled.layers)].find((n) => n.name === 'Drop Shadow')!;
    const overridesWith = (shade: number): LayerOverrides => {
      const [w, h] = [160, 60];
      const data = new Uint8ClampedArray(w * h * 4);
      for (let i = 0; i < data.length; i += 4) data.set([shade, 255 - shade, (i >> 2) % 251, 255], i);
      return new Map([[node.id, { pixels: { width: w, height: h, data }, bounds: { left: 60 + shade, top: 120, right: 220 + shade, bottom: 180 } }]]);
    };
    const [w, h] = [compiled.width, compiled.height];
    const cases: FrameOptions[] = [
      { scale: 1, width: Math.round(w * 0.7), height: Math.round(h * 0.7), quality: 'high', sharpen: { ...DEFAULT_UNSHARP_MASK } },
      { scale: 1, width: Math.round(w * 0.55), height: Math.round(h * 0.55), quality: 'high', sharpen: null },
      { scale: 1, width: w, height: h, quality: 'high', sharpen: { ...DEFAULT_UNSHARP_MASK } },
    ];
    for (const o of cases) await expectHeldInAnyOrder(compiled, o, overridesWith, (shade) => reference(compiled, { ...o, overrides: overridesWith(shade) }));
  }, 300_000);

  // encodeFrameJpeg re-codes the changed MCU rows from the kept frame's rows with the drawn patch
  // over them; a patch of whole rows is read alone (the kept rows under it are not copied first).
  it('a patch of whole rows, starting and ending inside MCU rows, re-codes to the frame coded whole', async () => {
    const compiled = await compileTemplate(env.FILES, await psdFixture('psdtools-layer-effects-all.psd'));
    clearEngineCaches();
    const node = [...walkLayers(compiled.layers)].find((n) => n.name === 'Drop Shadow')!;
    const [w, h] = [compiled.width, compiled.height];
    for (const [top, bottom] of [[123, 171], [0, 37], [h - 29, h], [0, h]]) {
      const data = new Uint8ClampedArray(w * (bottom - top) * 4);
      for (let i = 0; i < data.length; i += 4) data.set([(i >> 2) % 253, 90, (i >> 4) % 241, 255], i);
      const overrides: LayerOverrides = new Map([[node.id, { pixels: { width: w, height: bottom - top, data }, bounds: { left: 0, top, right: w, bottom } }]]);
      for (const o of [
        { scale: 1, width: w, height: h, quality: 'high', sharpen: null },
        { scale: 1, width: Math.round(w * 0.6), height: Math.round(h * 0.6), quality: 'high', sharpen: { ...DEFAULT_UNSHARP_MASK } },
      ] as FrameOptions[]) {
        await renderFrame(env.FILES, compiled, o, new ServerTiming()); // the kept template frame
        for (const quality of [85, 95]) {
          const frame = await renderFrame(env.FILES, compiled, { ...o, overrides }, new ServerTiming());
          expect(frame.over?.drawn?.left).toBe(0);
          expect(frame.over?.drawn?.right).toBe(o.width);
          const spliced = await decodeImage(await encodeFrameJpeg(frame, quality));
          const whole = await decodeImage(await encodeJpeg(frame.image, quality));
          expect(firstDifference(spliced.data, whole.data), `${top}-${bottom} ${o.width} q${quality}`).toBe(-1);
          frame.release?.();
        }
      }
    }
  }, 300_000);
});
