import { writePsdUint8Array, type Layer } from 'ag-psd';
import { describe, expect, it } from 'vitest';
import { alphaReads, clampedBodies } from '../../../src/engine/composite/effects';
import { kernels } from '../../../src/engine/raster/kernels';
import { firstDifference } from '../../helpers/pixels';
import { compiledHeadline, groundAndHeadline, random, rasterAt, renderBothWays, type Random } from './kit';

/**
 * Session 20 (issue 25 §3): the source an inner shadow's or a softer inner glow's body (1 − alpha)
 * and a satin's copies (alpha) are moved and blurred from is read in the kernels' memory, inside
 * the arena movedBlur runs in (alphaRect, then pastCanvas, then oneMinus), where a JavaScript loop
 * read it before. The same bytes as the passes drawn without the kernels (useEffectKernels(false)),
 * with glyph rasters on and past every edge of the canvas, scales 1, 0.5 and 0.37, whole and as regions.
 */

const px = (value: number) => ({ units: 'Pixels' as const, value });

function glyphs(r: Random, w: number, h: number): Uint8ClampedArray {
  const data = new Uint8ClampedArray(w * h * 4);
  const [ml, mt, mr, mb] = [r.int(w >> 2), r.int(h >> 2), r.int(w >> 2), r.int(h >> 2)];
  for (let y = mt; y < h - mb; y++) {
    for (let x = ml; x < w - mr; x++) {
      if ((x >> 2) % 3 === 2 || (y + x) % 5 === 0) continue;
      const edge = x === ml || y === mt || x === w - mr - 1 || y === h - mb - 1 || r.chance(0.08);
      data.set([30, 90, 200, edge ? 1 + r.int(254) : 255], (y * w + x) * 4);
    }
  }
  return data;
}

function effects(r: Random): NonNullable<Layer['effects']> {
  const colour = () => ({ r: r.int(256), g: r.int(256), b: r.int(256) });
  const fx: NonNullable<Layer['effects']> = {};
  if (r.chance(0.5))
    fx.innerGlow = { enabled: true, present: true, size: px(r.pick([2, 6, 13, 27])), technique: 'softer', source: r.pick(['edge', 'center'] as const), range: r.pick([0.5, 1]), blendMode: r.pick(['screen', 'normal'] as const), color: colour(), opacity: r.pick([0.5, 1]) } as never;
  if (r.chance(0.6))
    fx.innerShadow = [{ enabled: true, present: true, size: px(r.pick([1, 5, 12, 41])), distance: px(r.pick([0, 4, 11, 20])), angle: r.pick([90, 120, -30, 180, -135]), useGlobalLight: false, blendMode: 'multiply', color: colour(), opacity: r.pick([0.4, 0.9]) }] as never;
  if (r.chance(0.5) || (!fx.innerGlow && !fx.innerShadow))
    fx.satin = { enabled: true, present: true, size: px(r.pick([3, 9, 20, 35])), distance: px(r.pick([2, 7, 20])), angle: r.pick([19, 90, -60, 145]), invert: r.chance(0.5), blendMode: 'multiply', color: colour(), opacity: r.pick([0.5, 1]) } as never;
  return fx;
}

describe('the moved and blurred sources of interior effects read in the kernels\' arena', () => {
  it.each(Array.from({ length: 10 }, (_, i) => 20_200 + i))('seed %i: the bytes of the passes without the kernels', async (seed) => {
    await kernels();
    const r = random(seed);
    const [W, H] = [200 + r.int(100), 130 + r.int(70)];
    const [ground, text] = groundAndHeadline(W, H, effects(r), r.chance(0.3) ? { fillOpacity: 0.7 } : {});
    const { compiled, node } = await compiledHeadline(writePsdUint8Array({ width: W, height: H, children: [ground, text] }, { generateThumbnail: false }), `seed ${seed}`);
    const held = alphaReads.held;
    for (const scale of [1, 0.5, 0.37]) {
      const w = Math.round(W * scale);
      const h = Math.round(H * scale);
      const places: Array<[number, number, number, number]> = [
        [6, 5, 120 + r.int(60), 60 + r.int(30)],
        [w - 70, h - 40, 140, 90],
        [-35, -25, 130, 80],
        [w >> 2, -30, 90, 70],
      ];
      for (const [left, top, pw, ph] of places) {
        const overrides = rasterAt(node.id, glyphs(r, pw, ph), left, top, pw, ph);
        for (const region of [undefined, { top: Math.max(0, top + 10), bottom: Math.min(h, top + ph - 5) }]) {
          if (region && region.bottom <= region.top) continue;
          const what = `seed ${seed} scale ${scale} at ${left},${top} ${pw}x${ph} region ${JSON.stringify(region)}`;
          const { fast, slow } = await renderBothWays(compiled, { scale, overrides, ...(region ? { region } : {}) });
          expect(firstDifference(fast.data, slow.data), what).toBe(-1);
        }
      }
    }
    expect(alphaReads.held, `seed ${seed}: read in the arena`).toBeGreaterThan(held);
  }, 90_000);

  it('inverted bodies were cut short of the frame (clampedBody)', () => {
    expect(clampedBodies.count).toBeGreaterThan(20);
  });
});
