import { writePsdUint8Array, type Layer } from 'ag-psd';
import { describe, expect, it } from 'vitest';
import { walkLayers } from '../../../src/engine';
import { kernels } from '../../../src/engine/raster/kernels';
import { firstDifference } from '../../helpers/pixels';
import { compileOrRefused, groundAndHeadline, random, rasterAt, renderBothWays, type Random } from './kit';

/**
 * fx-text5 (issue 25 §3): a personalised raster (a text: empty margins round its glyphs) under the
 * effects that paint inside it (overlays, satin, inner glow and shadow) and a softer outer glow,
 * each cut to the pixels that cover anything (effects.ts eachTileInside; the glow as the kernels'
 * shadow: tightShape, nearShape). The same bytes as the passes over the whole extent
 * (useEffectKernels(false), which also turns the cut off), on and past the canvas, at scales and
 * as regions, with a neighbour under the same effects left as the template has it.
 */

const px = (value: number) => ({ units: 'Pixels' as const, value });

function glyphs(r: Random, w: number, h: number): Uint8ClampedArray {
  const data = new Uint8ClampedArray(w * h * 4);
  const [ml, mt, mr, mb] = [r.int(w >> 1), r.int(h >> 1), r.int(w >> 2), r.int(h >> 2)];
  for (let y = mt; y < h - mb; y++) {
    for (let x = ml; x < w - mr; x++) {
      if ((x >> 2) % 3 === 2 || (y + x) % 7 === 0) continue; // gaps between and inside "glyphs"
      const edge = x === ml || y === mt || x === w - mr - 1 || y === h - mb - 1;
      data.set([250, 240, 20, edge ? 1 + r.int(254) : 255], (y * w + x) * 4);
    }
  }
  return data;
}

function effects(r: Random): NonNullable<Layer['effects']> {
  const colour = () => ({ r: r.int(256), g: r.int(256), b: r.int(256) });
  const fx: NonNullable<Layer['effects']> = {};
  const any = <T>(make: () => T) => (r.chance(0.55) ? make() : undefined);
  fx.outerGlow = any(() => ({
    enabled: true,
    present: true,
    size: px(r.pick([2, 5, 9, 14])),
    technique: r.pick(['softer', 'softer', 'precise'] as const),
    choke: px(r.pick([0, 0, 0, 30])),
    range: r.pick([0.5, 0.5, 0.3, 1]),
    blendMode: r.pick(['screen', 'normal', 'multiply', 'color dodge'] as const),
    color: colour(),
    opacity: r.pick([0.35, 0.8, 1]),
  })) as never;
  fx.innerGlow = any(() => ({
    enabled: true,
    present: true,
    size: px(r.pick([2, 6, 11])),
    technique: r.pick(['softer', 'softer', 'precise'] as const),
    source: r.pick(['edge', 'edge', 'center'] as const),
    choke: px(r.pick([0, 0, 25])),
    range: r.pick([0.5, 0.4, 1]),
    blendMode: r.pick(['screen', 'normal', 'multiply'] as const),
    color: colour(),
    opacity: r.pick([0.46, 1]),
  })) as never;
  fx.innerShadow = any(() => [
    {
      enabled: true,
      present: true,
      size: px(r.pick([2, 7, 12])),
      distance: px(r.pick([0, 3, 9, 18])),
      angle: r.pick([90, 120, -30, 180]),
      useGlobalLight: false,
      choke: px(r.pick([0, 0, 20])),
      blendMode: r.pick(['multiply', 'normal'] as const),
      color: colour(),
      opacity: r.pick([0.35, 0.9]),
    },
  ]) as never;
  fx.satin = any(() => ({
    enabled: true,
    present: true,
    size: px(r.pick([3, 8, 14])),
    distance: px(r.pick([2, 6, 20])),
    angle: r.pick([19, -60, 90, 135]),
    invert: r.chance(0.3),
    blendMode: r.pick(['multiply', 'normal', 'screen'] as const),
    color: colour(),
    opacity: r.pick([0.5, 1]),
  })) as never;
  fx.solidFill = any(() => [{ enabled: true, present: true, color: colour(), opacity: r.pick([0.4, 1]), blendMode: r.pick(['normal', 'multiply', 'overlay'] as const) }]) as never;
  fx.gradientOverlay = any(() => {
    const stop = (location: number) => ({ color: colour(), location, midpoint: 0.5 });
    const opaque = (location: number) => ({ opacity: r.pick([1, 0.5]), location, midpoint: 0.5 });
    return [{ enabled: true, present: true, blendMode: 'normal', opacity: r.pick([0.6, 1]), type: 'linear', angle: r.pick([90, 87, 0, 30]), gradient: { name: '', type: 'solid', colorStops: [stop(0), stop(1)], opacityStops: [opaque(0), opaque(1)] } }];
  }) as never;
  fx.bevel = (r.chance(0.35)
    ? {
        enabled: true,
        present: true,
        style: r.pick(['inner bevel', 'inner bevel', 'emboss', 'outer bevel'] as const),
        technique: r.pick(['smooth', 'smooth', 'chisel hard', 'chisel soft'] as const),
        size: px(r.pick([3, 7, 12])),
        soften: px(r.pick([0, 0, 2])),
        strength: r.pick([1, 2.5]),
        direction: r.pick(['up', 'down'] as const),
        angle: r.pick([90, 120]),
        altitude: 30,
        useGlobalLight: false,
        highlightBlendMode: 'screen',
        highlightColor: { r: 255, g: 255, b: 255 },
        highlightOpacity: 0.75,
        shadowBlendMode: 'multiply',
        shadowColor: { r: 0, g: 0, b: 0 },
        shadowOpacity: 0.75,
      }
    : undefined) as never;
  for (const k of Object.keys(fx) as Array<keyof typeof fx>) if (fx[k] === undefined) delete fx[k];
  if (!Object.keys(fx).length) fx.outerGlow = { enabled: true, present: true, size: px(6), blendMode: 'screen', color: colour(), opacity: 0.75 } as never;
  return fx;
}

function template(r: Random, W: number, H: number) {
  const [ground, text] = groundAndHeadline(W, H, effects(r), r.chance(0.3) ? { fillOpacity: r.pick([0.6, 0.988]) } : {});
  // A neighbour the redrawn rectangle cuts through, under effects of its own (not personalised).
  const nw = 30;
  const nh = 14;
  const neighbour: Layer = { name: 'neighbour', left: 25, top: 18, right: 25 + nw, bottom: 18 + nh, imageData: { width: nw, height: nh, data: glyphs(r, nw, nh) }, effects: effects(r) };
  const children = r.chance(0.5) ? [ground, text, neighbour] : [ground, neighbour, text];
  return writePsdUint8Array({ width: W, height: H, children }, { generateThumbnail: false });
}

describe('a personalised raster under interior effects and a softer outer glow, cut to its covered pixels', () => {
  let tiles = 0;
  it.each(Array.from({ length: 14 }, (_, i) => 52_500 + i))('seed %i: the cut gives the bytes of the passes over the whole extent', async (seed) => {
    await kernels();
    const r = random(seed);
    const [W, H] = [60 + r.int(60), 40 + r.int(40)];
    const compiled = await compileOrRefused(template(r, W, H), `seed ${seed}`);
    expect(compiled).not.toBeNull();
    const node = [...walkLayers(compiled!.layers)].find((n) => n.name === 'Headline')!;
    for (const scale of [1, 0.5]) {
      const w = Math.round(W * scale);
      const h = Math.round(H * scale);
      // Inside the canvas, past its right and bottom edges, past a corner, across it.
      const places: Array<[number, number, number, number]> = [
        [8, 6, 45, 24],
        [w - 20, 5, 40, 20],
        [10, h - 9, 30, 25],
        [-15, -15, 30, 30],
        [-10, 3, w + 20, 20],
      ];
      for (const [left, top, pw, ph] of places) {
        const overrides = rasterAt(node.id, glyphs(r, pw, ph), left, top, pw, ph);
        for (const region of [undefined, { top: Math.max(0, top - 3), bottom: Math.min(h, top + ph + 5) }]) {
          const o = { scale, overrides, ...(region ? { region } : {}) };
          const what = `seed ${seed} scale ${scale} at ${left},${top} ${pw}x${ph} region ${JSON.stringify(region)}`;
          const both = await renderBothWays(compiled!, o);
          tiles += both.tiles;
          expect(firstDifference(both.fast.data, both.slow.data), what).toBe(-1);
        }
      }
    }
  }, 60_000);

  it('the kernels drew the softer glows (shadowInKernels, moved by nothing)', () => {
    expect(tiles).toBeGreaterThan(50);
  });
});
