import { writePsdUint8Array, type Layer } from 'ag-psd';
import { describe, expect, it } from 'vitest';
import { kernels } from '../../../src/engine/raster/kernels';
import { compiledHeadline, expectPlacesBothWays, glyphRaster, groundAndHeadline, random, type Random } from './kit';

/**
 * fx-text5 (issue 25 §3): a personalised raster (a text: empty margins round its glyphs) under the
 * effects that paint inside it (overlays, satin, inner glow and shadow) and a softer outer glow,
 * each cut to the pixels that cover anything (effects.ts eachTileInside; the glow as the kernels'
 * shadow: tightShape, nearShape). The same bytes as the passes over the whole extent
 * (useEffectKernels(false), which also turns the cut off), on and past the canvas, at scales and
 * as regions, with a neighbour under the same effects left as the template has it.
 */

const px = (value: number) => ({ units: 'Pixels' as const, value });

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
  const neighbour: Layer = { name: 'neighbour', left: 25, top: 18, right: 25 + nw, bottom: 18 + nh, imageData: { width: nw, height: nh, data: glyphRaster(r, nw, nh) }, effects: effects(r) };
  const children = r.chance(0.5) ? [ground, text, neighbour] : [ground, neighbour, text];
  return writePsdUint8Array({ width: W, height: H, children }, { generateThumbnail: false });
}

describe('a personalised raster under interior effects and a softer outer glow, cut to its covered pixels', () => {
  let tiles = 0;
  it.each(Array.from({ length: 14 }, (_, i) => 52_500 + i))('seed %i: the cut gives the bytes of the passes over the whole extent', async (seed) => {
    await kernels();
    const r = random(seed);
    const [W, H] = [60 + r.int(60), 40 + r.int(40)];
    const { compiled, node } = await compiledHeadline(template(r, W, H), `seed ${seed}`);
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
      tiles += await expectPlacesBothWays(compiled, { id: node.id, scale, h, places, pixels: (pw, ph) => glyphRaster(r, pw, ph), what: `seed ${seed}` });
    }
  }, 60_000);

  it('the kernels drew the softer glows (shadowInKernels, moved by nothing)', () => {
    expect(tiles).toBeGreaterThan(50);
  });
});
