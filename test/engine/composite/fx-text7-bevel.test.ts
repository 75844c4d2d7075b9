import { writePsdUint8Array, type Layer } from 'ag-psd';
import { describe, expect, it } from 'vitest';
import { nearTiles } from '../../../src/engine/composite/effects';
import { kernels } from '../../../src/engine/raster/kernels';
import { compiledHeadline, expectPlacesBothWays, glyphRaster, groundAndHeadline, random, type Random } from './kit';

/**
 * fx-text7 (issue 25 §3): a personalised raster (glyphs with empty margins) under a bevel of every
 * style and technique other than the smooth inner bevel (emboss, pillow emboss, outer bevel, stroke
 * emboss; smooth, chisel hard, chisel soft), with soften, contours, gloss contours, strokes and
 * lights from flat to overhead, each tile cut to the covered pixels grown by how far the height
 * rises (effects.ts eachTileNear). The same bytes as the passes over the whole extent
 * (useEffectKernels(false), which also turns the cut off), on and past the canvas, at scales and
 * as regions, with a neighbour under its own bevel left as the template has it.
 */

const px = (value: number) => ({ units: 'Pixels' as const, value });

const curves = {
  linear: [
    { x: 0, y: 0 },
    { x: 255, y: 255 },
  ],
  cone: [
    { x: 0, y: 0 },
    { x: 128, y: 255 },
    { x: 255, y: 0 },
  ],
  ring: [
    { x: 0, y: 0 },
    { x: 64, y: 230 },
    { x: 140, y: 40 },
    { x: 255, y: 255 },
  ],
  lifted: [
    { x: 0, y: 90 },
    { x: 255, y: 255 },
  ],
};

function bevelled(r: Random): NonNullable<Layer['effects']> {
  const fx: NonNullable<Layer['effects']> = {};
  const style = r.pick(['emboss', 'emboss', 'pillow emboss', 'outer bevel', 'outer bevel', 'stroke emboss', 'inner bevel'] as const);
  const contour = r.chance(0.35) ? r.pick(Object.keys(curves) as Array<keyof typeof curves>) : null;
  fx.bevel = {
    enabled: true,
    present: true,
    style,
    technique: r.pick(['smooth', 'smooth', 'chisel hard', 'chisel soft'] as const),
    size: px(r.pick([1, 3, 7, 12, 21])),
    soften: px(r.pick([0, 0, 2, 5])),
    strength: r.pick([1, 2.5, 10]),
    direction: r.pick(['up', 'down'] as const),
    angle: r.pick([90, 120, -45, 180]),
    altitude: r.pick([30, 30, 0, 1, 65, 85, 90]),
    useGlobalLight: false,
    ...(contour ? { contour: { name: contour, curve: curves[contour] }, useShape: r.chance(0.5) } : {}),
    highlightBlendMode: r.pick(['screen', 'normal', 'color dodge'] as const),
    highlightColor: { r: 255, g: 255, b: 255 },
    highlightOpacity: r.pick([0.75, 1]),
    shadowBlendMode: r.pick(['multiply', 'normal', 'linear burn'] as const),
    shadowColor: { r: 0, g: 0, b: r.int(256) },
    shadowOpacity: r.pick([0.75, 1]),
  } as never;
  if (style === 'stroke emboss' || r.chance(0.3)) {
    fx.stroke = [{ enabled: true, present: true, size: px(r.pick([1, 3, 6])), position: r.pick(['outside', 'inside', 'center'] as const), fillType: 'color', blendMode: 'normal', opacity: 1, color: { r: 20, g: 90, b: 200 } }] as never;
  }
  return fx;
}

function template(r: Random, W: number, H: number) {
  const [ground, text] = groundAndHeadline(W, H, bevelled(r), r.chance(0.3) ? { fillOpacity: r.pick([0.6, 0.988]) } : {});
  const nw = 30;
  const nh = 14;
  const neighbour: Layer = { name: 'neighbour', left: 25, top: 18, right: 25 + nw, bottom: 18 + nh, imageData: { width: nw, height: nh, data: glyphRaster(r, nw, nh) }, effects: bevelled(r) };
  const children = r.chance(0.5) ? [ground, text, neighbour] : [ground, neighbour, text];
  return writePsdUint8Array({ width: W, height: H, children }, { generateThumbnail: false });
}

describe('a personalised raster under an emboss, outer bevel or chisel, cut to its covered pixels and their reach', () => {
  const cutBefore = nearTiles.cut;
  it.each(Array.from({ length: 16 }, (_, i) => 70_700 + i))('seed %i: the cut gives the bytes of the passes over the whole extent', async (seed) => {
    await kernels();
    const r = random(seed);
    const [W, H] = [70 + r.int(70), 50 + r.int(60)];
    const { compiled, node } = await compiledHeadline(template(r, W, H), `seed ${seed}`);
    for (const scale of [1, 0.5, 0.37]) {
      const w = Math.round(W * scale);
      const h = Math.round(H * scale);
      // Inside the canvas (a wide raster with a small ink), past its right and bottom edges, past a corner, across it.
      const places: Array<[number, number, number, number]> = [
        [8, 6, 60, 30],
        [w - 20, 5, 40, 20],
        [10, h - 9, 30, 25],
        [-15, -15, 30, 30],
        [-10, 3, w + 20, 20],
      ];
      await expectPlacesBothWays(compiled, { id: node.id, scale, h, places, pixels: (pw, ph) => glyphRaster(r, pw, ph), what: `seed ${seed}` });
    }
  }, 90_000);

  it('the cut drew smaller arrays than the whole extent', () => {
    expect(nearTiles.cut - cutBefore).toBeGreaterThan(100);
  });
});
