import { describe, expect, it } from 'vitest';
import { shapeFrom, useEffectKernels, type ShapeSource } from '../../../src/engine/composite/effects';
import type { EffectContext } from '../../../src/engine/composite/context';
import { outputRect } from '../../../src/engine/composite/resample';
import { kernels } from '../../../src/engine/raster/kernels';
import type { Bounds, LayerNode } from '../../../src/engine/types';
import { random } from './kit';

/**
 * A layer running off the canvas is traced by its effects as going on past the edge (effects.ts
 * pastCanvas): within the layer's bounds, a pixel past the canvas has the alpha of its nearest
 * pixel on the canvas; outside them, and on the canvas, the alpha its pixels give. Checked pixel
 * by pixel against that rule on random layers, canvases, scales and rectangles (straddling an
 * edge, a corner, or wholly past the canvas), read by the kernels and by the TypeScript.
 */
describe("a layer's alpha past the canvas", () => {
  it("is its nearest canvas pixel's within the layer's bounds, and its own elsewhere", async () => {
    await kernels();
    for (let seed = 1; seed <= 300; seed++) {
      const rnd = random(seed);
      const between = (a: number, b: number) => a + rnd.int(b - a + 1);
      const scale = rnd.pick([1, 1, 0.5, 0.37, 2]);
      const width = between(6, 60);
      const height = between(6, 60);
      const canvas = outputRect({ left: 0, top: 0, right: width, bottom: height }, scale);
      const bounds = { left: between(-30, width - 1), top: between(-30, height - 1), right: 0, bottom: 0 };
      bounds.right = bounds.left + between(1, 90);
      bounds.bottom = bounds.top + between(1, 90);
      const layer = outputRect(bounds, scale);
      // The layer's pixels: on the canvas (as the compiler keeps them), or as drawn (a text's raster, past it too).
      const drawn = rnd.next() < 0.5;
      const rect = drawn ? layer : { left: Math.max(layer.left, canvas.left), top: Math.max(layer.top, canvas.top), right: Math.min(layer.right, canvas.right), bottom: Math.min(layer.bottom, canvas.bottom) };
      if (rect.right <= rect.left || rect.bottom <= rect.top) continue;
      const w = rect.right - rect.left;
      const h = rect.bottom - rect.top;
      const data = new Uint8ClampedArray(w * h * 4);
      for (let i = 0; i < w * h; i++) data.set([rnd.int(256), rnd.int(256), rnd.int(256), rnd.pick([0, 0, 255, 1 + rnd.int(254)])], i * 4);
      const sources: ShapeSource[] = [{ rect, content: { x: rect.left, y: rect.top, w, h, data }, mask: null }];
      const node = { id: 1, name: 'text', type: 'Text', opacity: 1, blendMode: 'normal', bounds, effects: { dropShadow: [] } } as unknown as LayerNode;
      const ctx = { compiled: { width, height }, overrides: new Map(), scale, patterns: new Map() } as unknown as EffectContext;
      const own = (x: number, y: number) => (x >= rect.left && x < rect.right && y >= rect.top && y < rect.bottom ? data[((y - rect.top) * w + (x - rect.left)) * 4 + 3] / 255 : 0);
      const clamp = (v: number, lo: number, hi: number) => Math.min(hi - 1, Math.max(lo, v));
      const expected = (x: number, y: number) => {
        const off = x < canvas.left || x >= canvas.right || y < canvas.top || y >= canvas.bottom;
        const inLayer = x >= layer.left && x < layer.right && y >= layer.top && y < layer.bottom;
        return Math.fround(off && inLayer ? own(clamp(x, canvas.left, canvas.right), clamp(y, canvas.top, canvas.bottom)) : own(x, y));
      };
      for (let k = 0; k < 4; k++) {
        const r: Bounds = { left: between(layer.left - 20, canvas.right + 5), top: between(layer.top - 20, canvas.bottom + 5), right: 0, bottom: 0 };
        r.right = r.left + between(1, 70);
        r.bottom = r.top + between(1, 70);
        for (const on of [true, false]) {
          useEffectKernels(on);
          try {
            const alpha = shapeFrom(node, ctx, sources)!.alphaOver(r);
            let wrong = 0;
            for (let y = r.top; y < r.bottom; y++) for (let x = r.left; x < r.right; x++) if (alpha[(y - r.top) * (r.right - r.left) + (x - r.left)] !== expected(x, y)) wrong++;
            expect(wrong, `seed ${seed} rectangle ${k} kernels ${on}`).toBe(0);
          } finally {
            useEffectKernels(true);
          }
        }
      }
    }
  });
});
