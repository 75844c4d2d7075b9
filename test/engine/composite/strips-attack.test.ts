import { writePsdUint8Array, type BlendMode, type Layer } from 'ag-psd';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { renderTemplate, type CompiledTemplate } from '../../../src/engine';
import { clearEngineCaches } from '../../../src/engine/cache';
import { StripBuffers } from '../../../src/engine/compiled/store';
import { renderFrame, renderFramePng } from '../../../src/engine/frame';
import { decodeImage } from '../../../src/engine/raster';
import { ServerTiming } from '../../../src/http/server-timing';
import { compileOrRefused, random, rectPath, type Random } from './kit';

/**
 * A frame drawn in strips (rows, or a rectangle of rows and columns), with a frame's strip
 * buffers (session 26: shrunkByBand's band-by-band shrink into pooled surfaces, the layers' kept
 * bands) or without, must be the same bytes as the rows of the frame drawn whole: random
 * documents with layers on and off the canvas, pixel and vector masks with feather and density,
 * clipping groups, blend modes and opacities, at scales that are not integers (review of
 * session 26). A failing seed rebuilds its document.
 */

const MODES: BlendMode[] = ['normal', 'normal', 'multiply', 'screen', 'overlay', 'difference'];

function picture(r: Random, w: number, h: number) {
  const data = new Uint8ClampedArray(w * h * 4);
  const f = 3 + r.int(20);
  const c = [r.int(256), r.int(256), r.int(256)];
  const opaque = r.chance(0.3);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const v = 0.5 + 0.5 * Math.sin(x / f) * Math.cos(y / (f * 0.7));
      data.set([c[0], (c[1] + x) & 255, (c[2] + y) & 255, opaque ? 255 : Math.round(255 * Math.min(1, v * 1.4))], (y * w + x) * 4);
    }
  }
  return { width: w, height: h, data };
}

/** How often a layer has a drop shadow (0 while the shadow's own strip difference, pre-existing, is open). */
const SHADOWS = 0;
const px = (value: number) => ({ units: 'Pixels' as const, value });

/** A few of the effects, small (a strip's reach is what they test, not their drawing). */
function effects(r: Random): Layer['effects'] {
  const fx: NonNullable<Layer['effects']> = {};
  const common = () => ({ enabled: true, present: true, showInDialog: true, blendMode: r.pick(MODES), opacity: r.pick([1, r.next()]) });
  const colour = () => ({ r: r.int(256), g: r.int(256), b: r.int(256) });
  if (r.chance(SHADOWS)) fx.dropShadow = [{ ...common(), color: colour(), size: px(r.pick([0, 2, 9])), distance: px(r.pick([0, 4, 15])), angle: r.int(361) - 180, choke: px(r.pick([0, 50])) }];
  if (r.chance(0.3)) fx.outerGlow = { ...common(), color: colour(), size: px(r.pick([1, 5, 12])), choke: px(0), range: 0.5 };
  if (r.chance(0.3)) fx.innerShadow = [{ ...common(), color: colour(), size: px(r.pick([0, 3])), distance: px(r.pick([0, 5])), angle: r.int(361) - 180, choke: px(0) }];
  if (r.chance(0.4)) fx.stroke = [{ ...common(), size: px(1 + r.int(6)), position: r.pick(['inside', 'outside', 'center'] as const), fillType: 'color', color: colour() }];
  if (r.chance(0.3)) fx.patternOverlay = { ...common(), scale: r.pick([1, 0.5, 2.5]), pattern: { name: 'tile', id: 'tile-1' } } as never;
  return fx;
}

function pixelLayer(r: Random, W: number, H: number, i: number): Layer {
  const w = 1 + r.int(W + 40);
  const h = 1 + r.int(H + 40);
  const left = r.int(W + 20) - 30;
  const top = r.int(H + 20) - 30;
  const layer: Layer = { name: `l${i}`, left, top, right: left + w, bottom: top + h, imageData: picture(r, w, h), blendMode: r.pick(MODES) };
  if (r.chance(0.3)) layer.opacity = r.int(256) / 255;
  if (r.chance(0.2)) layer.fillOpacity = r.int(256) / 255;
  if (i > 0 && r.chance(0.3)) layer.clipping = true;
  masks(r, layer, left, top, w, h);
  if (r.chance(0.4)) layer.effects = effects(r);
  return layer;
}

function masks(r: Random, layer: Layer, left: number, top: number, w: number, h: number): void {
  if (r.chance(0.5)) {
    const mw = 1 + r.int(w + 10);
    const mh = 1 + r.int(h + 10);
    const data = new Uint8ClampedArray(mw * mh * 4);
    for (let k = 0; k < mw * mh; k++) data.fill(r.chance(0.2) ? r.int(256) : (k % mw) * 7 + Math.floor(k / mw) * 3, k * 4, k * 4 + 4);
    const ml = left + r.int(w) - 5;
    const mt = top + r.int(h) - 5;
    layer.mask = { left: ml, top: mt, right: ml + mw, bottom: mt + mh, imageData: { width: mw, height: mh, data }, defaultColor: r.pick([0, 255]) };
    if (r.chance(0.6)) layer.mask.userMaskFeather = r.pick([0.5, 1, 2.5, 6, 15]);
    if (r.chance(0.4)) layer.mask.userMaskDensity = r.pick([0, r.next(), 1]);
  }
  if (r.chance(0.4)) {
    const l = left + r.int(w);
    const t = top + r.int(h);
    layer.vectorMask = { paths: [rectPath(l, t, l + 1 + r.int(w), t + 1 + r.int(h))], invert: r.chance(0.2) } as Layer['vectorMask'];
    layer.mask = { ...(layer.mask ?? {}) };
    if (r.chance(0.6)) layer.mask.vectorMaskFeather = r.pick([0.5, 1, 3, 8, 20]);
    if (r.chance(0.4)) layer.mask.vectorMaskDensity = r.pick([0, r.next(), 1]);
  }
}

function document(seed: number): { bytes: Uint8Array; W: number; H: number } {
  const r = random(seed);
  const W = 20 + r.int(180);
  const H = 20 + r.int(180);
  const children: Layer[] = [{ name: 'bg', left: 0, top: 0, right: W, bottom: H, imageData: picture(r, W, H) }];
  const n = 1 + r.int(4);
  for (let i = 0; i < n; i++) {
    const kind = r.pick(['pixels', 'pixels', 'pixels', 'group', 'adjustment']);
    if (kind === 'group') {
      const group: Layer = { name: `g${i}`, blendMode: r.pick(['pass through', 'normal', 'multiply'] as BlendMode[]), opened: true, children: Array.from({ length: 1 + r.int(3) }, (_, j) => pixelLayer(r, W, H, j)) };
      if (r.chance(0.3)) group.opacity = r.int(256) / 255;
      masks(r, group, r.int(W) - 10, r.int(H) - 10, 1 + r.int(W), 1 + r.int(H));
      children.push(group);
    } else if (kind === 'adjustment') {
      const adj: Layer = { name: `a${i}`, adjustment: r.pick([{ type: 'invert' }, { type: 'levels', rgb: { shadowInput: 20, highlightInput: 230, shadowOutput: 0, highlightOutput: 255, midtoneInput: 1.4 } }]) as Layer['adjustment'] };
      if (r.chance(0.3)) adj.clipping = true;
      masks(r, adj, r.int(W) - 10, r.int(H) - 10, 1 + r.int(W), 1 + r.int(H));
      children.push(adj);
    } else children.push(pixelLayer(r, W, H, i));
  }
  const tile = new Uint8ClampedArray(5 * 3 * 4);
  for (let k = 0; k < 15; k++) tile.set([r.int(256), r.int(256), r.int(256), r.pick([0, 255, r.int(256)])], k * 4);
  const patterns = [{ name: 'tile', id: 'tile-1', x: 0, y: 0, bounds: { x: 0, y: 0, w: 5, h: 3 }, data: tile }];
  return { bytes: writePsdUint8Array({ width: W, height: H, children, patterns } as never), W, H };
}

type Region = { top: number; bottom: number; left?: number; right?: number };

/** The first byte of `strip` (the rows and columns of `region`) that differs from `whole`'s, as text; '' when none. */
function differs(whole: { width: number; data: Uint8ClampedArray }, strip: { width: number; height: number; data: Uint8ClampedArray }, region: Region): string {
  const left = region.left ?? 0;
  for (let y = 0; y < strip.height; y++) {
    for (let x = 0; x < strip.width * 4; x++) {
      const a = strip.data[y * strip.width * 4 + x];
      const b = whole.data[((region.top + y) * whole.width + left) * 4 + x];
      if (a !== b) return `row ${region.top + y} column ${left + (x >> 2)} channel ${x & 3}: ${a} in the strip, ${b} whole`;
    }
  }
  return '';
}

async function stripsAgainstWhole(compiled: CompiledTemplate, scale: number, rows: number, r: Random): Promise<string[]> {
  clearEngineCaches();
  const whole = await renderTemplate(env.FILES, compiled, { scale });
  const found: string[] = [];
  const buffers = new StripBuffers(2 * whole.width * Math.min(rows + 8, whole.height) * 4 * 4, 8 * 1024 * 1024);
  for (const withBuffers of [true, false]) {
    clearEngineCaches();
    for (let top = 0; top < whole.height; top += rows) {
      const bottom = Math.min(whole.height, top + rows);
      // Now and then a rectangle of columns too (a personalised redraw).
      const cols = !withBuffers && r.chance(0.3) ? (() => { const a = r.int(whole.width); return { left: a, right: a + 1 + r.int(whole.width - a) }; })() : {};
      const region: Region = { top, bottom, ...cols };
      if (withBuffers) buffers.nextStrip();
      const strip = await renderTemplate(env.FILES, compiled, { scale, region, ...(withBuffers ? { buffers } : {}) });
      const d = differs(whole, strip, region);
      if (d) {
        found.push(`scale ${scale}, strips of ${rows}${withBuffers ? ' with buffers' : ''} ${JSON.stringify(region)}: ${d}`);
        break;
      }
    }
  }
  buffers.release();
  return found;
}

describe('strips against the whole frame', () => {
  it('a feathered vector mask on a layer with effects, its last row past the canvas at scale 2.3, gives the whole frame\'s rows in strips', async () => {
    // 133 × 37 at 2.3: a 306 × 85 canvas; the layer's rows end at ceil(37 × 2.3) = 86, and its
    // stroke reads its shape there: the whole frame's blur ran to row 86, a strip's stopped at 85.
    const W = 133;
    const H = 37;
    const data = new Uint8ClampedArray(114 * H * 4).fill(200);
    const layer: Layer = {
      name: 'masked',
      left: 0,
      top: 0,
      right: 114,
      bottom: H,
      imageData: { width: 114, height: H, data },
      vectorMask: { paths: [rectPath(103, 13, 169, 17)] } as Layer['vectorMask'],
      mask: { vectorMaskFeather: 20 },
      effects: { stroke: [{ enabled: true, present: true, position: 'outside', fillType: 'color', blendMode: 'normal', opacity: 1, size: px(1), color: { r: 138, g: 24, b: 248 } }] },
    };
    const bytes = writePsdUint8Array({ width: W, height: H, children: [{ name: 'bg', left: 0, top: 0, right: W, bottom: H, imageData: picture(random(1), W, H) }, layer] } as never);
    const compiled = (await compileOrRefused(bytes, 'feathered vector mask past the canvas'))!;
    expect(await stripsAgainstWhole(compiled, 2.3, 33, random(2))).toEqual([]);
  });


  it('random masked, clipped, blended documents drawn in strips at non-integer scales equal their whole render to the byte', { timeout: 600_000 }, async () => {
    const found: string[] = [];
    const seeds = Number(globalThis.process?.env?.STRIP_SEEDS ?? 200);
    for (let seed = 1; seed <= seeds; seed++) {
      const { bytes } = document(seed);
      const compiled = await compileOrRefused(bytes, `seed ${seed}`);
      if (!compiled) continue;
      const r = random(seed * 7919);
      for (const scale of [r.pick([0.37, 0.5, 0.625, 0.77, 0.91]), r.pick([1, 1.5, 2.3, 0.3])]) {
        const rows = r.pick([1, 2, 7, 33]);
        for (const line of await stripsAgainstWhole(compiled, scale, rows, r)) found.push(`seed ${seed}: ${line}`);
      }
    }
    expect(found).toEqual([]);
  });

  it('random documents as streamed PNG previews (half strips, coded from the drawn rows) decode to the frame drawn whole, alpha kept', { timeout: 600_000 }, async () => {
    const found: string[] = [];
    for (let seed = 1; seed <= 60; seed++) {
      const compiled = await compileOrRefused(document(seed).bytes, `seed ${seed}`);
      if (!compiled) continue;
      const r = random(seed * 31);
      const scale = r.pick([0.37, 0.5, 0.77, 1, 1.6]);
      const out = r.pick([0.45, 0.8, 1.3, 2.1]);
      const width = Math.max(1, Math.round(compiled.width * out));
      const height = Math.max(1, Math.round(compiled.height * out));
      const sharpen = r.chance(0.5) ? { amount: 1.2, radius: r.pick([0.5, 2]), threshold: 0.02 } : null;
      const o = { scale, width, height, quality: 'high' as const, sharpen, background: 'transparent' as const };
      clearEngineCaches();
      const whole = (await renderFrame(env.FILES, compiled, { ...o, stripBytes: 1 << 30 }, new ServerTiming())).image;
      clearEngineCaches();
      const png = await renderFramePng(env.FILES, compiled, { ...o, stripBytes: r.pick([4096, 16384, 100_000]) }, null, 1 << 30, new ServerTiming());
      const got = (await decodeImage(png)).data;
      let at = -1;
      for (let i = 0; i < whole.data.length; i++) if (got[i] !== whole.data[i]) { at = i; break; }
      if (at >= 0 || got.length !== whole.data.length) found.push(`seed ${seed} ${JSON.stringify(o)}: first byte ${at} (${got[at]} vs ${whole.data[at]}) row ${Math.floor(at / 4 / width)}`);
    }
    expect(found).toEqual([]);
  });
});

describe('a spread drop shadow of a soft layer in strips (pre-existing at 6bd320b, open)', () => {
  // Found by the fuzz above with SHADOWS > 0 (documents 47, 50, 54, 61, 63, 119): a drop shadow
  // with a choke (spread) of a layer whose alpha is soft, drawn in one-row strips through
  // StripBuffers, is a level off the whole frame above the layer (rows 42-47 here, the layer from
  // row 55). Without a choke, or without StripBuffers, it is not. it.fails: remove `.fails` when fixed.
  it.fails('gives the whole frame\'s rows', async () => {
    const [W, H, lw, lh] = [172, 151, 75, 50];
    const bg = new Uint8ClampedArray(W * H * 4);
    for (let i = 0; i < W * H; i++) bg.set([(i * 7) & 255, (i * 3) & 255, 100, 255], i * 4);
    const data = new Uint8ClampedArray(lw * lh * 4);
    for (let y = 0; y < lh; y++) for (let x = 0; x < lw; x++) data.set([200, 30, 60, Math.round(255 * Math.min(1, (0.5 + 0.5 * Math.sin(x / 9) * Math.cos(y / 6.3)) * 1.4))], (y * lw + x) * 4);
    const shadow = { enabled: true, present: true, blendMode: 'screen', opacity: 1, color: { r: 11, g: 37, b: 241 }, size: px(9), distance: px(0), angle: -75, choke: px(50) };
    const layer: Layer = { name: 'soft', left: 34, top: 55, right: 34 + lw, bottom: 55 + lh, imageData: { width: lw, height: lh, data }, effects: { dropShadow: [shadow] } as never };
    const compiled = (await compileOrRefused(writePsdUint8Array({ width: W, height: H, children: [{ name: 'bg', left: 0, top: 0, right: W, bottom: H, imageData: { width: W, height: H, data: bg } }, layer] } as never), 'soft shadow'))!;
    clearEngineCaches();
    const whole = await renderTemplate(env.FILES, compiled, { scale: 1 });
    const buffers = new StripBuffers();
    for (let top = 40; top < 50; top++) {
      buffers.nextStrip();
      const strip = await renderTemplate(env.FILES, compiled, { scale: 1, region: { top, bottom: top + 1 }, buffers });
      expect(differs(whole, strip, { top, bottom: top + 1 })).toBe('');
    }
  });
});

