import { writePsdUint8Array, type Layer } from 'ag-psd';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { renderTemplate } from '../../../src/engine';
import { adjustmentMaskCache, backdropCache, clearEngineCaches } from '../../../src/engine/cache';
import { useBoxedAdjustments } from '../../../src/engine/composite/compositor';
import { firstDifference } from '../../helpers/pixels';
import { compileOrRefused, image, random, rectPath, type Random } from './kit';

/**
 * Issue 25 §3 (picture-redraw): a per-pixel adjustment under a mask is worked out on the box
 * where its mask is not 0 only, its mask kept per isolate cut to that box, and where the mask is
 * 255 over opaque canvas pixels (a plain adjustment: normal, 100 %, no Blend If) its rows are
 * copied instead of blended (compositor.ts drawBoxedAdjustment, adjustmentMask). Held to the
 * whole-canvas clone blended through the whole mask (useBoxedAdjustments(false)) on random
 * documents: masks rectangular (255 inside, the edges soft when upscaled), graded, default white,
 * feathered, at a density, vector or both; canvases with transparent holes; opacity, modes and
 * Blend If; Hue/Saturation, Curves, Levels, Invert, Posterize, Threshold, Brightness/Contrast and
 * a kind that is not per pixel; at scales 1, 3 (upscaled masks) and 0.5, whole and in strips,
 * with the masks' cache (and the resampled layers', compositor.ts layerContent) cold and warm.
 */

const W = 40;
const H = 32;

function adjustment(r: Random): Layer['adjustment'] {
  const range = () => ({ a: 0, b: 0, c: 0, d: 0, hue: r.slider(180), saturation: r.slider(100), lightness: r.slider(100) });
  const curve = () => [{ input: 0, output: r.int(60) }, { input: 60 + r.int(120), output: r.int(256) }, { input: 255, output: 200 + r.int(56) }];
  const level = () => ({ shadowInput: r.int(40), highlightInput: 215 + r.int(40), shadowOutput: 0, highlightOutput: 255, midtoneInput: 0.5 + r.next() });
  return r.pick([
    () => ({ type: 'hue/saturation' as const, master: range(), ...(r.chance(0.5) && { blues: { ...range(), a: 195, b: 225, c: 255, d: 285 } }) }),
    () => ({ type: 'curves' as const, rgb: curve(), ...(r.chance(0.5) && { red: curve() }) }),
    () => ({ type: 'levels' as const, rgb: level() }),
    () => ({ type: 'invert' as const }),
    () => ({ type: 'posterize' as const, levels: 2 + r.int(6) }),
    () => ({ type: 'threshold' as const, level: 1 + r.int(254) }),
    () => ({ type: 'brightness/contrast' as const, brightness: r.slider(100), contrast: r.slider(50) }),
    () => ({ type: 'color balance' as const, midtones: { cyanRed: r.slider(100), magentaGreen: r.slider(100), yellowBlue: r.slider(100) }, preserveLuminosity: true }),
  ])() as Layer['adjustment'];
}

function document(seed: number): Uint8Array {
  const r = random(seed);
  const holes = r.chance(0.4);
  const children: Layer[] = [
    { name: 'picture', left: 0, top: 0, imageData: image(W, H, (x, y) => [r.int(256), (x * 7 + y * 3) % 256, r.int(256), holes && (x * y) % 11 === 3 ? r.pick([0, 0, 90]) : 255]) },
  ];
  for (let i = 0, n = 1 + r.int(5); i < n; i++) {
    if (r.chance(0.2)) {
      const [lw, lh] = [1 + r.int(W), 1 + r.int(H)];
      children.push({ name: `px ${i}`, left: r.int(W) - 5, top: r.int(H) - 5, imageData: image(lw, lh, () => [r.int(256), r.int(256), 40, r.pick([255, 255, 0, 128])]) });
      continue;
    }
    const layer: Layer = { name: `adj ${i}`, adjustment: adjustment(r) };
    const kind = r.pick(['rect', 'rect', 'rect', 'graded', 'vector', 'both', 'none']);
    if (kind === 'rect' || kind === 'graded' || kind === 'both') {
      const [mw, mh] = [1 + r.int(W), 1 + r.int(H)];
      const graded = kind === 'graded';
      layer.mask = {
        left: r.int(W + 10) - 10,
        top: r.int(H + 10) - 10,
        imageData: image(mw, mh, (x, y) => {
          const v = graded ? (x * 13 + y * 7) % 256 : r.chance(0.05) ? r.int(256) : 255;
          return [v, v, v, 255];
        }),
        defaultColor: r.chance(0.8) ? 0 : 255,
        ...(r.chance(0.15) && { userMaskFeather: r.pick([0.5, 2.5, 6]) }),
        ...(r.chance(0.15) && { userMaskDensity: r.pick([0.4, 0.9]) }),
      };
    }
    if (kind === 'vector' || kind === 'both') {
      const [x, y] = [r.int(W) - 4, r.int(H) - 4];
      layer.vectorMask = { invert: r.chance(0.15), paths: [rectPath(x, y, x + 3 + r.int(W), y + 3 + r.int(H))] };
    }
    if (r.chance(0.25)) layer.opacity = r.pick([0.3, 0.75]);
    if (r.chance(0.2)) layer.blendMode = r.pick(['multiply', 'screen', 'overlay', 'color'] as const);
    const full = [0, 0, 255, 255];
    if (r.chance(0.1)) layer.blendingRanges = { compositeGrayBlendSource: full, compositeGraphBlendDestinationRange: [0, 0, 100, 160], ranges: [0, 1, 2].map(() => ({ sourceRange: full, destRange: full })) };
    children.push(layer);
  }
  return writePsdUint8Array({ width: W, height: H, children }, { generateThumbnail: false });
}

describe('a masked per-pixel adjustment on its mask box, its mask kept, its full rows copied (issue 25 §3)', () => {
  it.each(Array.from({ length: 40 }, (_, i) => 9100 + i))('seed %i: the bytes of the whole clone blended through the whole mask', async (seed) => {
    const compiled = await compileOrRefused(document(seed), `seed ${seed}`);
    if (!compiled) return;
    const strips = (scale: number, rows: number) => {
      const h = Math.round(H * scale);
      return Array.from({ length: Math.ceil(h / rows) }, (_, i) => ({ top: i * rows, bottom: Math.min(h, i * rows + rows) }));
    };
    const cases = [
      ...[1, 3, 0.5].map((scale) => ({ scale })),
      ...strips(3, 37).map((region) => ({ scale: 3, region })),
      { scale: 3, region: { top: 10, bottom: 70, left: 13, right: 101 } },
    ];
    // Drawn each time: a template without overrides would come whole from the backdrop cache.
    const render = (o: (typeof cases)[number]) => (backdropCache.clear(), renderTemplate(env.FILES, compiled, o));
    for (const o of cases) {
      clearEngineCaches(); // the reference from nothing kept (masks, resampled layers)
      useBoxedAdjustments(false);
      let whole;
      try {
        whole = await render(o);
      } finally {
        useBoxedAdjustments(true);
      }
      clearEngineCaches();
      const cold = await render(o);
      const warm = await render(o);
      expect(firstDifference(cold.data, whole.data), `seed ${seed} ${JSON.stringify(o)} cold`).toBe(-1);
      expect(firstDifference(warm.data, whole.data), `seed ${seed} ${JSON.stringify(o)} warm`).toBe(-1);
    }
  }, 60_000);

  it('keeps a mask once per rectangle and scale, cut to its box', async () => {
    const r = random(7);
    const bytes = writePsdUint8Array(
      {
        width: W,
        height: H,
        children: [
          { name: 'picture', left: 0, top: 0, imageData: image(W, H, () => [r.int(256), r.int(256), r.int(256), 255]) },
          { name: 'strip', adjustment: { type: 'invert' }, mask: { left: 20, top: 0, imageData: image(10, H, () => [255, 255, 255, 255]), defaultColor: 0 } },
        ],
      },
      { generateThumbnail: false },
    );
    const compiled = (await compileOrRefused(bytes, 'strip'))!;
    clearEngineCaches();
    await renderTemplate(env.FILES, compiled, { scale: 4 });
    const misses = adjustmentMaskCache.misses;
    const hits = adjustmentMaskCache.hits;
    backdropCache.clear(); // else the second render is the whole canvas from it
    await renderTemplate(env.FILES, compiled, { scale: 4 });
    expect(adjustmentMaskCache.misses).toBe(misses);
    expect(adjustmentMaskCache.hits).toBe(hits + 1);
    // 10 columns at 4×, one spare column each side where the bilinear edge is not 0.
    expect(adjustmentMaskCache.size).toBeLessThan(50 * 128 + 200);
  });
});
