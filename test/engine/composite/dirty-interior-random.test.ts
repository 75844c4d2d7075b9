import { env } from 'cloudflare:workers';
import { describe, it } from 'vitest';
import { writePsdUint8Array, type Layer, type LayerEffectsInfo } from 'ag-psd';
import { compileTemplate, walkLayers, type LayerOverrides } from '../../../src/engine';
import { dirtyBounds } from '../../../src/engine/composite/dirty';
import { expectRedrawnWithin } from './dirty-redraw';
import { random, type Random } from './kit';

/**
 * dirty.ts paintingOutside (session 20): a layer's inner shadow, inner glow and satin no longer
 * grow its redrawn rectangle. Random documents — texts with interior effects beside and under
 * others with shadows, glows and strokes, pixel masks, clipped layers, groups with and without
 * effects, Fill and modes — personalised with rasters on and past the canvas: nothing changes outside
 * the rectangle, and the frame redrawn there over the kept template frame is the frame drawn whole.
 */

const px = (value: number) => ({ units: 'Pixels' as const, value });
const on = { enabled: true, present: true };

function glyphs(r: Random, w: number, h: number) {
  const data = new Uint8ClampedArray(w * h * 4);
  const [ml, mt, mr, mb] = [r.int(w >> 2), r.int(h >> 1), r.int(w >> 2), r.int(h >> 2)];
  const c = [r.int(256), r.int(256), r.int(256)];
  for (let y = mt; y < h - mb; y++) for (let x = ml; x < w - mr; x++) if ((x >> 2) % 3 !== 2) data.set([...c, r.chance(0.1) ? 1 + r.int(254) : 255], (y * w + x) * 4);
  return { width: w, height: h, data };
}

function effects(r: Random, interior: boolean): LayerEffectsInfo {
  const colour = () => ({ r: r.int(256), g: r.int(256), b: r.int(256) });
  const fx: LayerEffectsInfo = {};
  if (interior || r.chance(0.3)) {
    if (r.chance(0.6)) fx.innerShadow = [{ ...on, color: colour(), opacity: 0.8, angle: r.pick([120, -45, 90]), useGlobalLight: false, distance: px(r.pick([0, 5, 14])), size: px(r.pick([3, 9, 21])), blendMode: r.pick(['multiply', 'normal'] as const) }] as never;
    if (r.chance(0.5)) fx.innerGlow = { ...on, size: px(r.pick([4, 11])), color: colour(), opacity: 0.7, blendMode: r.pick(['screen', 'normal'] as const), technique: r.pick(['softer', 'precise'] as const), source: r.pick(['edge', 'center'] as const) } as never;
    if (r.chance(0.4)) fx.satin = { ...on, color: colour(), opacity: 0.6, angle: 19, distance: px(r.pick([3, 9])), size: px(r.pick([5, 13])), blendMode: 'multiply', invert: r.chance(0.5) } as never;
    if (r.chance(0.3)) fx.solidFill = [{ ...on, color: colour(), opacity: 0.5, blendMode: r.pick(['normal', 'overlay'] as const) }] as never;
  }
  if (r.chance(0.35)) fx.dropShadow = [{ ...on, color: { r: 0, g: 0, b: 0 }, opacity: 0.6, angle: r.pick([90, 135]), useGlobalLight: false, distance: px(r.pick([3, 8])), size: px(r.pick([4, 10])), blendMode: 'multiply' }] as never;
  if (r.chance(0.25)) fx.outerGlow = { ...on, size: px(r.pick([5, 12])), color: colour(), opacity: 0.7, blendMode: 'screen', range: 0.5 } as never;
  if (r.chance(0.25)) fx.stroke = [{ ...on, size: px(r.pick([1, 3])), position: r.pick(['outside', 'inside', 'center'] as const), fillType: 'color', color: colour(), blendMode: 'normal', opacity: 1 }] as never;
  return fx;
}

function document(r: Random, W: number, H: number) {
  const text = (name: string, left: number, top: number, interior: boolean): Layer => {
    const [w, h] = [60 + r.int(90), 24 + r.int(30)];
    const layer: Layer = { name, left, top, right: left + w, bottom: top + h, imageData: glyphs(r, w, h), effects: effects(r, interior), fillOpacity: r.pick([1, 1, 0.6, 0]), blendMode: r.pick(['normal', 'normal', 'multiply', 'screen'] as const) };
    if (r.chance(0.25)) {
      const data = new Uint8ClampedArray(w * h * 4);
      for (let i = 0; i < w * h; i++) data[i * 4] = data[i * 4 + 1] = data[i * 4 + 2] = data[i * 4 + 3] = (i % w) * 4 > w * 3 ? 0 : 255;
      layer.mask = { left, top, right: left + w, bottom: top + h, imageData: { width: w, height: h, data } } as never;
    }
    return layer;
  };
  const paper: Layer = { name: 'paper', left: 0, top: 0, right: W, bottom: H, imageData: { width: W, height: H, data: new Uint8ClampedArray(W * H * 4).map((_, i) => (i % 4 === 3 ? 255 : (i * 7) & 255)) } };
  const headline = text('Headline', 20 + r.int(60), 40 + r.int(40), true);
  const children: Layer[] = [paper, text('above', 10 + r.int(80), 10 + r.int(30), r.chance(0.5)), headline];
  if (r.chance(0.4)) children.push({ ...text('clipped', 30 + r.int(60), 50 + r.int(40), false), clipping: true, effects: undefined });
  children.push(text('below', 15 + r.int(80), 80 + r.int(40), r.chance(0.6)));
  if (r.chance(0.35)) {
    const moved = children.splice(2, r.chance(0.5) ? 2 : 1);
    children.splice(2, 0, { name: 'group', opened: true, blendMode: r.pick(['normal', 'pass through'] as const), effects: r.chance(0.5) ? effects(r, true) : undefined, children: moved });
  }
  return writePsdUint8Array({ width: W, height: H, children }, { generateThumbnail: false });
}

describe('dirty rectangles past interior effects, random documents', () => {
  it.each(Array.from({ length: 14 }, (_, i) => 7_300 + i))('seed %i: nothing changes outside, the redrawn frame is the whole one', async (seed) => {
    const r = random(seed);
    const [W, H] = [200 + r.int(80), 150 + r.int(60)];
    const compiled = await compileTemplate(env.FILES, document(r, W, H));
    const node = [...walkLayers(compiled.layers)].find((n) => n.name === 'Headline')!;
    for (const scale of [1, 0.5]) {
      const w = Math.round(W * scale);
      const h = Math.round(H * scale);
      for (const [left, top] of [[10 + r.int(40), 20 + r.int(40)], [w - 60, h - 20], [-30, -10]]) {
        const g = glyphs(r, 110, 40);
        const overrides: LayerOverrides = new Map([[node.id, { pixels: g, bounds: { left, top, right: left + 110, bottom: top + 40 } }]]);
        const what = `seed ${seed} scale ${scale} at ${left},${top}`;
        const dirty = dirtyBounds(compiled, overrides, scale);
        await expectRedrawnWithin(compiled, overrides, scale, dirty, what);
      }
    }
  }, 60_000);
});
