import { describe, expect, it } from 'vitest';
import { drawEffectsAbove, drawEffectsBelow, effectKernelDraws, shapeFrom, useEffectKernels, type ShapeSource } from '../../../src/engine/composite/effects';
import type { EffectContext } from '../../../src/engine/composite/context';
import type { Surface } from '../../../src/engine/composite/surface';
import { kernels } from '../../../src/engine/raster/kernels';
import type { LayerNode } from '../../../src/engine/types';
import { random, type Random } from './kit';

/**
 * A drop shadow drawn in the kernels' memory (effects.ts shadowInKernels: the alpha read, move,
 * blur, the shadow's pixels and their blend in one arena) gives the very bytes of the passes it
 * stands for (shadowBody, paint, blendSurface), on random layers and canvases: blend modes (the
 * kernel's, and those it leaves to the TypeScript), opacities and Fill, clipped (atop) or not,
 * kept channels, canvases with transparent pixels, layers partly off the canvas or in two pieces,
 * whole and fractional moves at preview scales, sizes from 1 px, layers running off the document,
 * layers with empty margins (the kernels draw over the covered pixels' box, their arrays cut to its reach: tightShape,
 * nearShape) or none.
 */
const MODES = ['multiply', 'normal', 'screen', 'overlay', 'darken', 'linear burn', 'soft light', 'hard mix', 'color dodge', 'difference', 'dissolve', 'hue', 'unknown'];

/** A whole number from a to b (both included). */
const between = (rnd: Random, a: number, b: number) => a + rnd.int(b - a + 1);

/** Empty margins (alpha 0) on the layer's pixels, as a text's raster has; now and then nothing at all. */
function margins(rnd: Random, s: Surface): Surface {
  const roll = rnd.next();
  if (roll > 0.6) return s;
  const [l, t, r, b] = roll < 0.04 ? [s.w, s.h, 0, 0] : [between(rnd, 0, s.w >> 1), between(rnd, 0, s.h >> 1), between(rnd, 0, s.w >> 1), between(rnd, 0, s.h >> 1)];
  for (let y = 0; y < s.h; y++) for (let x = 0; x < s.w; x++) if (x < l || y < t || x >= s.w - r || y >= s.h - b) s.data[(y * s.w + x) * 4 + 3] = 0;
  return s;
}

function surface(rnd: Random, x: number, y: number, w: number, h: number, alpha: () => number): Surface {
  const data = new Uint8ClampedArray(w * h * 4);
  for (let i = 0; i < w * h; i++) data.set([between(rnd, 0, 255), between(rnd, 0, 255), between(rnd, 0, 255), alpha()], i * 4);
  return { x, y, w, h, data };
}

/**
 * `paint` onto copies of `canvas`, with the kernels and then with the passes they stand for: the
 * two must give the same bytes. How many tiles the kernels drew.
 */
function kernelsMatchPasses(canvas: Surface, label: string, paint: (out: Surface) => void): number {
  const draw = (on: boolean) => {
    useEffectKernels(on);
    try {
      const out = { ...canvas, data: canvas.data.slice() };
      paint(out);
      return out.data;
    } finally {
      useEffectKernels(true);
    }
  };
  const before = effectKernelDraws.tiles;
  const drawn = draw(true);
  const tiles = effectKernelDraws.tiles - before;
  expect(drawn, label).toEqual(draw(false));
  return tiles;
}

describe('a drop shadow drawn in the kernels', () => {
  it('gives the bytes of the passes it stands for', async () => {
    await kernels();
    let fused = 0;
    let fusedOff = 0;
    for (let seed = 1; seed <= 250; seed++) {
      const rnd = random(seed);
      const scale = rnd.pick([1, 1, 0.5, 0.37, 2]);
      const cw = between(rnd, 8, 90);
      const ch = between(rnd, 8, 90);
      const opaqueCanvas = rnd.next() < 0.6;
      const offDocument = rnd.next() < 0.3;
      const canvas = surface(rnd, between(rnd, -5, 5), between(rnd, -5, 5), cw, ch, () => (opaqueCanvas ? 255 : rnd.pick([0, 0, 255, between(rnd, 0, 255)])));
      // The layer's pixels: a text-like pattern of opaque, clear and partial pixels, one or two pieces.
      const sources: ShapeSource[] = [];
      for (let p = rnd.next() < 0.25 ? 2 : 1; p > 0; p--) {
        const w = between(rnd, 1, 50);
        const h = between(rnd, 1, 40);
        const content = margins(rnd, surface(rnd, canvas.x + between(rnd, -15, cw), canvas.y + between(rnd, -15, ch), w, h, () => rnd.pick([0, 0, 255, 255, between(rnd, 1, 254)])));
        sources.push({ rect: { left: content.x, top: content.y, right: content.x + w, bottom: content.y + h }, content, mask: null });
      }
      const mode = rnd.next() < 0.5 ? 'multiply' : rnd.pick(MODES);
      const shadows = Array.from({ length: rnd.next() < 0.2 ? 2 : 1 }, () => ({
        enabled: true,
        present: true,
        blendMode: mode,
        color: { r: rnd.pick([0, 255, between(rnd, 0, 255), rnd.next() * 255]), g: between(rnd, 0, 255), b: between(rnd, 0, 255) },
        opacity: rnd.pick([1, 0.65, rnd.next(), 0]),
        size: { units: 'Pixels', value: rnd.pick([1, 2, 5, 12, between(rnd, 1, 30)]) },
        distance: { units: 'Pixels', value: between(rnd, 0, 20) },
        angle: between(rnd, -180, 180),
        useGlobalLight: rnd.next() < 0.3,
        ...(rnd.next() < 0.15 ? { choke: { units: 'Pixels', value: between(rnd, 0, 60) } } : {}),
        ...(rnd.next() < 0.1 ? { contour: { name: 'Half', curve: [{ x: 0, y: 0 }, { x: 255, y: 128 }] } } : {}),
        ...(rnd.next() < 0.15 ? { layerConceals: false } : {}),
      }));
      const node = {
        id: 1,
        name: 'text',
        type: rnd.pick(['Text', 'Layer']),
        opacity: rnd.pick([1, 1, 0.8, rnd.next()]),
        fillOpacity: rnd.pick([1, 1, 1, 1, 0.5, 0]),
        blendMode: 'normal',
        // Sometimes running off the document (pastCanvas: the edge's alpha goes on).
        bounds: offDocument ? { left: -8, top: -3, right: 120, bottom: 90 } : { left: 0, top: 0, right: 10, bottom: 10 },
        effects: { dropShadow: shadows },
        ...(rnd.next() < 0.2 ? { excludedChannels: [between(rnd, 0, 2)] } : {}),
      } as unknown as LayerNode;
      const ctx = { compiled: { width: offDocument ? 40 : 1000, height: offDocument ? 30 : 1000, globalAngle: rnd.pick([undefined, 30, 120]), textGamma: 1.45 }, overrides: new Map(), scale, patterns: new Map() } as unknown as EffectContext;
      const atop = rnd.next() < 0.25;
      const tiles = kernelsMatchPasses(canvas, `seed ${seed}`, (out) => drawEffectsBelow(ctx, node, out, shapeFrom(node, ctx, sources)!, atop));
      fused += tiles;
      if (offDocument) fusedOff += tiles;
    }
    // Most cases take the kernels' path (not those with a spread, contour, knockout, Fill inside a mode, dissolve or hue).
    expect(fused).toBeGreaterThan(60);
    expect(fusedOff).toBeGreaterThan(10);
  }, 120000);

  it('strokes drawn in the kernels give the bytes of the passes they stand for', async () => {
    await kernels();
    let fused = 0;
    let fusedOff = 0;
    for (let seed = 1; seed <= 250; seed++) {
      const rnd = random(1000 + seed);
      const scale = rnd.pick([1, 1, 0.5, 0.37, 2]);
      const cw = between(rnd, 8, 80);
      const ch = between(rnd, 8, 80);
      const opaqueCanvas = rnd.next() < 0.6;
      const offDocument = rnd.next() < 0.3;
      const canvas = surface(rnd, between(rnd, -5, 5), between(rnd, -5, 5), cw, ch, () => (opaqueCanvas ? 255 : rnd.pick([0, 0, 255, between(rnd, 0, 255)])));
      const sources: ShapeSource[] = [];
      for (let p = rnd.next() < 0.25 ? 2 : 1; p > 0; p--) {
        const w = between(rnd, 1, 45);
        const h = between(rnd, 1, 35);
        const content = margins(rnd, surface(rnd, canvas.x + between(rnd, -15, cw), canvas.y + between(rnd, -15, ch), w, h, () => rnd.pick([0, 0, 255, 255, between(rnd, 1, 254)])));
        sources.push({ rect: { left: content.x, top: content.y, right: content.x + w, bottom: content.y + h }, content, mask: null });
      }
      const stroke = () => ({
        enabled: true,
        present: true,
        size: { units: 'Pixels', value: rnd.pick([1, 2, 3, 4, 8, between(rnd, 1, 20)]) },
        position: rnd.pick(['outside', 'outside', 'inside', 'center']),
        fillType: 'color',
        color: { r: rnd.pick([255, 0, rnd.next() * 255]), g: between(rnd, 0, 255), b: between(rnd, 0, 255) },
        blendMode: rnd.next() < 0.6 ? 'normal' : rnd.pick(MODES),
        opacity: rnd.pick([1, 1, 0.7, rnd.next(), 0]),
      });
      const node = {
        id: 1,
        name: 'text',
        type: rnd.pick(['Text', 'Layer']),
        opacity: rnd.pick([1, 1, 0.8, rnd.next()]),
        fillOpacity: rnd.pick([1, 1, 1, 0.5, 0]),
        blendMode: rnd.pick(['normal', 'normal', 'multiply', 'dissolve']),
        // Sometimes running off the document (pastCanvas: the edge's alpha goes on).
        bounds: offDocument ? { left: -8, top: -3, right: 120, bottom: 90 } : { left: 0, top: 0, right: 10, bottom: 10 },
        effects: { stroke: Array.from({ length: rnd.next() < 0.3 ? 2 : 1 }, stroke) },
        ...(rnd.next() < 0.2 ? { excludedChannels: [between(rnd, 0, 2)] } : {}),
      } as unknown as LayerNode;
      const ctx = { compiled: { width: offDocument ? 40 : 1000, height: offDocument ? 30 : 1000, textGamma: 1.45 }, overrides: new Map(), scale, patterns: new Map() } as unknown as EffectContext;
      const atop = rnd.next() < 0.25;
      const inLayer = rnd.pick([false, false, true, 'relative'] as const);
      const tiles = kernelsMatchPasses(canvas, `seed ${seed}`, (out) => {
        const shape = shapeFrom(node, ctx, sources)!;
        drawEffectsBelow(ctx, node, out, shape, atop);
        drawEffectsAbove(ctx, node, out, shape, atop, undefined, inLayer);
      });
      fused += tiles;
      if (offDocument) fusedOff += tiles;
    }
    expect(fused).toBeGreaterThan(60);
    expect(fusedOff).toBeGreaterThan(10);
  }, 120000);

  it('leaves a shape with a mask to the passes', async () => {
    await kernels();
    const content: Surface = { x: 2, y: 2, w: 10, h: 10, data: new Uint8ClampedArray(400).fill(255) };
    const node = { id: 1, name: 'l', type: 'Layer', opacity: 1, blendMode: 'normal', bounds: { left: 2, top: 2, right: 12, bottom: 12 }, effects: { dropShadow: [{ enabled: true, present: true, size: { units: 'Pixels', value: 4 }, distance: { units: 'Pixels', value: 3 }, angle: 120, useGlobalLight: false, color: { r: 0, g: 0, b: 0 }, opacity: 1, blendMode: 'multiply' }] } } as unknown as LayerNode;
    const ctx = { compiled: { width: 20, height: 20 }, overrides: new Map(), scale: 1, patterns: new Map() } as unknown as EffectContext;
    const shape = shapeFrom(node, ctx, [{ rect: { left: 2, top: 2, right: 12, bottom: 12 }, content, mask: new Uint8ClampedArray(100).fill(128) }])!;
    expect(shape.pixelSources).toBeUndefined();
    const canvas: Surface = { x: 0, y: 0, w: 20, h: 20, data: new Uint8ClampedArray(1600).fill(255) };
    const before = effectKernelDraws.tiles;
    drawEffectsBelow(ctx, node, canvas, shape, false);
    expect(effectKernelDraws.tiles).toBe(before);
    expect(canvas.data.some((v) => v < 255)).toBe(true);
  });
});
