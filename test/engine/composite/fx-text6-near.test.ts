import { writePsdUint8Array, type Layer } from 'ag-psd';
import { describe, expect, it } from 'vitest';
import { nearerStarts } from '../../../src/engine/composite/effects';
import { kernels } from '../../../src/engine/raster/kernels';
import { firstDifference } from '../../helpers/pixels';
import { compiledHeadline, groundAndHeadline, random, rasterAt, renderBothWays, type Random } from './kit';

/**
 * fx-text6 (issue 25 §3): an inner shadow's and a softer inner glow's arrays (1 − alpha) start
 * 2 · size + 8 px before the covered pixels instead of at the frame's corner (effects.ts
 * nearerStart). The same bytes as the passes over the whole extent (useEffectKernels(false),
 * which turns every cut off), with wide empty margins round the glyphs, sizes up to 40, whole and
 * fractional moves (scales 1, 0.5, 0.37), on and past the canvas, whole and as regions.
 */

const px = (value: number) => ({ units: 'Pixels' as const, value });

function glyphs(r: Random, w: number, h: number): Uint8ClampedArray {
  const data = new Uint8ClampedArray(w * h * 4);
  const [ml, mt, mr, mb] = [r.int(w >> 1), r.int(h >> 1), r.int(w >> 2), r.int(h >> 2)];
  for (let y = mt; y < h - mb; y++) {
    for (let x = ml; x < w - mr; x++) {
      if ((x >> 2) % 3 === 2 || (y + x) % 7 === 0) continue;
      const edge = x === ml || y === mt || x === w - mr - 1 || y === h - mb - 1 || r.chance(0.05);
      data.set([250, 240, 20, edge ? 1 + r.int(254) : 255], (y * w + x) * 4);
    }
  }
  return data;
}

function effects(r: Random): NonNullable<Layer['effects']> {
  const colour = () => ({ r: r.int(256), g: r.int(256), b: r.int(256) });
  const fx: NonNullable<Layer['effects']> = {};
  if (r.chance(0.7))
    fx.innerGlow = {
      enabled: true,
      present: true,
      size: px(r.pick([1, 3, 6, 11, 18, 27, 40])),
      technique: 'softer',
      source: r.pick(['edge', 'edge', 'center'] as const),
      choke: px(r.pick([0, 0, 0, 25])),
      range: r.pick([0.5, 0.4, 1]),
      blendMode: r.pick(['screen', 'normal', 'multiply'] as const),
      color: colour(),
      opacity: r.pick([0.46, 1]),
    } as never;
  if (r.chance(0.8) || !fx.innerGlow)
    fx.innerShadow = [
      {
        enabled: true,
        present: true,
        size: px(r.pick([1, 4, 7, 12, 23, 41])),
        distance: px(r.pick([0, 3, 9, 18, 31])),
        angle: r.pick([90, 120, -30, 180, 37, -135]),
        useGlobalLight: false,
        choke: px(r.pick([0, 0, 0, 20])),
        blendMode: r.pick(['multiply', 'normal'] as const),
        color: colour(),
        opacity: r.pick([0.35, 0.9]),
      },
    ] as never;
  return fx;
}

function template(r: Random, W: number, H: number) {
  const [ground, text] = groundAndHeadline(W, H, effects(r), r.chance(0.3) ? { fillOpacity: r.pick([0.6, 0.988]) } : {});
  return writePsdUint8Array({ width: W, height: H, children: [ground, text] }, { generateThumbnail: false });
}

describe('inner shadow and softer inner glow arrays started near the covered pixels', () => {
  let before = 0;
  it.each(Array.from({ length: 12 }, (_, i) => 61_600 + i))('seed %i: the bytes of the passes over the whole extent', async (seed) => {
    await kernels();
    if (!before) before = nearerStarts.count || 0.5;
    const r = random(seed);
    const [W, H] = [220 + r.int(120), 140 + r.int(80)];
    const { compiled, node } = await compiledHeadline(template(r, W, H), `seed ${seed}`);
    for (const scale of [1, 0.5, 0.37]) {
      const w = Math.round(W * scale);
      const h = Math.round(H * scale);
      const places: Array<[number, number, number, number]> = [
        [8, 6, 150 + r.int(60), 90 + r.int(40)],
        [w - 90, h - 60, 160, 110],
        [-40, -30, 170, 120],
      ];
      for (const [left, top, pw, ph] of places) {
        const overrides = rasterAt(node.id, glyphs(r, pw, ph), left, top, pw, ph);
        for (const region of [undefined, { top: Math.max(0, top + 20), bottom: Math.min(h, top + ph - 10) }]) {
          if (region && region.bottom <= region.top) continue;
          const o = { scale, overrides, ...(region ? { region } : {}) };
          const what = `seed ${seed} scale ${scale} at ${left},${top} ${pw}x${ph} region ${JSON.stringify(region)}`;
          const { fast, slow } = await renderBothWays(compiled, o);
          expect(firstDifference(fast.data, slow.data), what).toBe(-1);
        }
      }
    }
  }, 90_000);

  it('the arrays were started nearer', () => {
    expect(nearerStarts.count).toBeGreaterThan(40);
  });
});
