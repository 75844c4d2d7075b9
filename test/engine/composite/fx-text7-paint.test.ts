import { writePsdUint8Array, type Layer } from 'ag-psd';
import { describe, expect, it } from 'vitest';
import { alphaReads, paintKernelDraws } from '../../../src/engine/composite/effects';
import { kernels } from '../../../src/engine/raster/kernels';
import { firstDifference } from '../../helpers/pixels';
import { compiledHeadline, random, rasterAt, renderBothWays, type Random } from './kit';

/**
 * fx-text7 (issue 25 §3): an effect of one colour painted in the kernels' memory (effects.ts
 * paintInKernels: colour overlays, with their fill read from the layer's pixels there; inner and
 * outer glows, inner shadows, satin, bevels; per-pixel colours: gradient overlays, a mode's own
 * colours under Fill < 100 %), every effect's alpha read there (alphaViaKernels), over the canvas and within the layer's own composite
 * (Fill 100 %, an interior effect's clipping-group unit), in every blend mode the kernel blends,
 * over grounds of any alpha, with a personalised raster and without. The same bytes as paint's
 * JavaScript and blendSurface (useEffectKernels(false)).
 */

const px = (value: number) => ({ units: 'Pixels' as const, value });
const MODES = ['normal', 'multiply', 'screen', 'overlay', 'darken', 'lighten', 'color dodge', 'color burn', 'linear burn', 'linear dodge', 'soft light', 'hard light', 'difference', 'exclusion', 'hue', 'saturation', 'color', 'luminosity', 'vivid light', 'hard mix', 'dissolve'] as const;

function glyphs(r: Random, w: number, h: number, soft = false, full = false): Uint8ClampedArray {
  const data = new Uint8ClampedArray(w * h * 4);
  const [ml, mt, mr, mb] = full ? [r.int(4), r.int(4), r.int(4), r.int(4)] : [r.int(w >> 1), r.int(h >> 1), r.int(w >> 2), r.int(h >> 2)];
  for (let y = mt; y < h - mb; y++) {
    for (let x = ml; x < w - mr; x++) {
      if ((x >> 2) % 3 === 2 || (y + x) % 7 === 0) continue;
      const edge = x === ml || y === mt || x === w - mr - 1 || y === h - mb - 1;
      data.set([r.int(256), r.int(256), r.int(256), edge || soft ? 1 + r.int(254) : 255], (y * w + x) * 4);
    }
  }
  return data;
}

function effects(r: Random): NonNullable<Layer['effects']> {
  const colour = () => ({ r: r.int(256), g: r.int(256), b: r.int(256) });
  const mode = () => r.pick(MODES);
  const fx: NonNullable<Layer['effects']> = {};
  fx.solidFill = [{ enabled: true, present: true, color: colour(), opacity: r.pick([0.3, 0.75, 1]), blendMode: mode() }] as never;
  if (r.chance(0.4)) fx.innerGlow = { enabled: true, present: true, size: px(r.pick([2, 6])), blendMode: mode(), color: colour(), opacity: r.pick([0.5, 1]) } as never;
  if (r.chance(0.4)) fx.innerShadow = [{ enabled: true, present: true, size: px(r.pick([2, 7])), distance: px(r.pick([0, 4])), angle: 120, useGlobalLight: false, blendMode: mode(), color: colour(), opacity: r.pick([0.4, 1]) }] as never;
  if (r.chance(0.4)) fx.outerGlow = { enabled: true, present: true, size: px(r.pick([3, 8])), technique: r.pick(['softer', 'precise'] as const), blendMode: mode(), color: colour(), opacity: r.pick([0.5, 1]) } as never;
  if (r.chance(0.3)) fx.satin = { enabled: true, present: true, size: px(r.pick([3, 8])), distance: px(r.pick([2, 6])), angle: 19, blendMode: mode(), color: colour(), opacity: r.pick([0.5, 1]) } as never;
  if (r.chance(0.4)) {
    const stop = (location: number) => ({ color: colour(), location, midpoint: 0.5 });
    fx.gradientOverlay = [{ enabled: true, present: true, blendMode: mode(), opacity: r.pick([0.6, 1]), type: r.pick(['linear', 'radial'] as const), angle: r.pick([90, 30]), gradient: { name: '', type: 'solid', colorStops: [stop(0), stop(1)], opacityStops: [{ opacity: 1, location: 0, midpoint: 0.5 }, { opacity: r.pick([1, 0.4]), location: 1, midpoint: 0.5 }] } }] as never;
  }
  if (r.chance(0.3)) {
    fx.bevel = { enabled: true, present: true, style: r.pick(['inner bevel', 'emboss', 'outer bevel'] as const), technique: 'smooth', size: px(r.pick([3, 7])), soften: px(0), strength: 1, direction: 'up', angle: 120, altitude: 30, useGlobalLight: false, highlightBlendMode: mode(), highlightColor: colour(), highlightOpacity: 0.75, shadowBlendMode: mode(), shadowColor: colour(), shadowOpacity: 0.75 } as never;
  }
  return fx;
}

function template(r: Random, W: number, H: number) {
  // A ground of any alpha (transparent holes, soft edges), the personalised layer, a neighbour.
  const groundAlpha = r.pick([255, 255, 128, 0]);
  const ground: Layer = { name: 'ground', left: 0, top: 0, right: W, bottom: H, imageData: { width: W, height: H, data: new Uint8ClampedArray(W * H * 4).map((_, i) => (i % 4 === 3 ? (groundAlpha === 0 ? ((i >> 2) % 5) * 60 : groundAlpha) : (i * 13) & 255)) }, ...(r.chance(0.5) ? { effects: { solidFill: [{ enabled: true, present: true, color: { r: 200, g: 30, b: 90 }, opacity: r.pick([0.6, 1]), blendMode: r.pick(MODES) }] } as never } : {}) };
  const text: Layer = { name: 'Headline', left: 10, top: 10, right: 30, bottom: 20, imageData: { width: 20, height: 10, data: new Uint8ClampedArray(800).fill(255) }, effects: effects(r), opacity: r.pick([1, 1, 0.7]), ...(r.chance(0.25) ? { fillOpacity: r.pick([0, 0.5]) } : {}), ...(r.chance(0.3) ? { blendMode: r.pick(MODES) } : {}) };
  const neighbour: Layer = { name: 'neighbour', left: 25, top: 18, right: 55, bottom: 32, imageData: { width: 30, height: 14, data: glyphs(r, 30, 14, true) }, effects: effects(r) };
  const children = r.chance(0.5) ? [ground, text, neighbour] : [ground, neighbour, text];
  return writePsdUint8Array({ width: W, height: H, children }, { generateThumbnail: false });
}

describe('an effect of one colour painted in the kernels', () => {
  const before = { ...paintKernelDraws };
  const readsBefore = alphaReads.count;
  it.each(Array.from({ length: 14 }, (_, i) => 71_300 + i))('seed %i: the bytes of paint and blendSurface in JavaScript', async (seed) => {
    await kernels();
    const r = random(seed);
    // Every third document larger than one of paintInKernels' strips (64 Ki px), whole and as regions.
    const [W, H] = seed % 3 === 2 ? [300 + r.int(200), 230 + r.int(90)] : [60 + r.int(60), 40 + r.int(50)];
    const { compiled, node } = await compiledHeadline(template(r, W, H), `seed ${seed}`);
    for (const scale of [1, 0.5]) {
      const w = Math.round(W * scale);
      const h = Math.round(H * scale);
      // Whole rasters, as the template has them, and personalised ones: small, past the corner, across, and most of a large canvas.
      for (const place of [null, [8, 6, 45, 24], [w - 20, h - 9, 40, 25], [-10, 3, w + 20, 20], ...(w * h > 1 << 16 ? [[4, 5, w - 6, h - 8] as const] : [])] as const) {
        const overrides = place ? rasterAt(node.id, glyphs(r, place[2], place[3], false, place[2] * place[3] > 1 << 16), place[0], place[1], place[2], place[3]) : undefined;
        for (const region of [undefined, { top: 4, bottom: Math.min(h, 30) }, { top: 3, bottom: h - 2 }]) {
          const o = { scale, ...(overrides ? { overrides } : {}), ...(region ? { region } : {}) };
          const both = await renderBothWays(compiled, o);
          expect(firstDifference(both.fast.data, both.slow.data), `seed ${seed} scale ${scale} at ${JSON.stringify(place)} region ${JSON.stringify(region)}`).toBe(-1);
        }
      }
    }
  }, 90_000);

  it('the kernels painted over the canvas, within layers, and read fills', () => {
    expect(paintKernelDraws.strips - before.strips).toBeGreaterThan(20);
    // Per-pixel colours (gradient overlays, a mode's own colours under Fill < 100 %).
    expect(paintKernelDraws.colours - before.colours).toBeGreaterThan(50);
    // And the layers' alpha read by the kernels (alphaViaKernels) for every effect.
    expect(alphaReads.count - readsBefore).toBeGreaterThan(100);
    expect(paintKernelDraws.coverageStrips - before.coverageStrips).toBeGreaterThan(2);
    expect(paintKernelDraws.over - before.over).toBeGreaterThan(100);
    expect(paintKernelDraws.within - before.within).toBeGreaterThan(50);
    expect(paintKernelDraws.read - before.read).toBeGreaterThan(50);
  });
});
