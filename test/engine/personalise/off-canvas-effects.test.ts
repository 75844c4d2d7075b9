import { writePsdUint8Array } from 'ag-psd';
import { describe, expect, it } from 'vitest';
import { kernels } from '../../../src/engine/raster/kernels';
import { compiledHeadline, expectPlacesBothWays, glyphRaster, groundAndHeadline, random, type Random } from '../composite/kit';

/**
 * A personalised raster (a text: empty margins round its glyphs) running off the canvas, under a
 * drop shadow and a stroke drawn in the kernels' memory: the kernels' arrays are cut to where its
 * alpha, and the edge's alpha that pastCanvas carries on past the canvas, is not 0 (effects.ts
 * tightShape, pastReach, nearShape). The same bytes as the passes over the whole extent
 * (useEffectKernels(false)), past every edge and corner, at scales and as regions, with shadows
 * cast far back onto the canvas.
 */

const px = (value: number) => ({ units: 'Pixels' as const, value });

function template(r: Random, W: number, H: number) {
  const shadow = {
    enabled: true,
    present: true,
    blendMode: r.pick(['multiply', 'normal'] as const),
    color: { r: 10, g: 20, b: 30 },
    opacity: r.pick([0.65, 1]),
    size: px(r.pick([2, 6, 12])),
    distance: px(r.pick([0, 10, 40, 90])),
    angle: r.pick([120, 0, 180, -90, 90, 45]),
    useGlobalLight: false,
  };
  const stroke = { enabled: true, present: true, size: px(r.pick([1, 3])), position: r.pick(['outside', 'inside', 'center'] as const), fillType: 'color' as const, color: { r: 255, g: 0, b: 0 }, blendMode: 'normal' as const, opacity: 1 };
  const [ground, text] = groundAndHeadline(W, H, { dropShadow: [shadow], ...(r.chance(0.5) ? { stroke: [stroke] } : {}) });
  return writePsdUint8Array({ width: W, height: H, children: [ground, text] }, { generateThumbnail: false });
}

describe('a personalised raster running off the canvas under a shadow and a stroke', () => {
  let tiles = 0;
  it.each(Array.from({ length: 12 }, (_, i) => 31_000 + i))('seed %i: the kernels give the bytes of the passes past every edge and corner', async (seed) => {
    await kernels();
    const r = random(seed);
    const [W, H] = [60 + r.int(60), 40 + r.int(40)];
    const { compiled, node } = await compiledHeadline(template(r, W, H), `seed ${seed}`);
    for (const scale of [1, 0.5]) {
      const w = Math.round(W * scale);
      const h = Math.round(H * scale);
      // Past the right, left, top, bottom edges, the corners, and wholly across the canvas.
      const places: Array<[number, number, number, number]> = [
        [w - 15, 5, 40, 20],
        [-20, 8, 35, 18],
        [5, -12, 30, 25],
        [10, h - 9, 30, 25],
        [w - 12, h - 10, 30, 30],
        [-15, -15, 30, 30],
        [-10, 3, w + 20, 20],
      ];
      tiles += await expectPlacesBothWays(compiled, { id: node.id, scale, h, places, pixels: (pw, ph) => glyphRaster(r, pw, ph, false), what: `seed ${seed}` });
    }
  }, 60_000);

  it('the kernels drew', () => {
    expect(tiles).toBeGreaterThan(100);
  });
});
