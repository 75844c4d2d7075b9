import { env } from 'cloudflare:workers';
import { writePsdUint8Array, type Layer } from 'ag-psd';
import { describe, expect, it } from 'vitest';
import { compileTemplate, walkLayers } from '../../../src/engine';
import { clearEngineCaches } from '../../../src/engine/cache';
import { unitShortcutDraws, useUnitShortcuts } from '../../../src/engine/composite/compositor';
import { kernels } from '../../../src/engine/raster/kernels';
import { firstDifference } from '../../helpers/pixels';
import { random, randomPicture, rasterAt, renderWithAndWithoutUnitShortcuts, type Random } from './kit';

/**
 * poster-background (issue 25 §3): a never-seen picture over a large template's whole canvas
 * redraws every layer above it. A full-width band under a gradient overlay (large-poster's
 * 'Band': 1,500 × 225 at its quarter scale, 1.35 MB) is a unit drawn from the template alone, kept
 * and blended again like a text's (compositor.ts keptUnitKey), now that a unit up to a quarter of
 * backdropCache's budget is kept (1 MB before). The same bytes as drawing every unit whole
 * (useUnitShortcuts(false)), picture after picture, whole and as regions.
 */

const px = (value: number) => ({ units: 'Pixels' as const, value });

/** A solid w × h layer of one colour, alpha from `alpha(x, y)`. */
function solid(w: number, h: number, rgb: [number, number, number], alpha: (x: number, y: number) => number) {
  const data = new Uint8ClampedArray(w * h * 4);
  for (let y = 0, i = 0; y < h; y++) for (let x = 0; x < w; x++, i += 4) data.set([...rgb, alpha(x, y)], i);
  return { width: w, height: h, data };
}

/** The poster's shape, smaller: a ground, a framed picture, a full-width band under a gradient overlay, a text with a drop shadow, a Screen spot. */
function poster(W: number, H: number, r: Random): Uint8Array {
  const band: Layer = {
    name: 'Band',
    left: 0,
    top: Math.round(H * 0.5),
    right: W,
    bottom: Math.round(H * 0.5) + 240,
    imageData: solid(W, 240, [255, 255, 255], () => 255),
    effects: {
      gradientOverlay: [
        {
          present: true,
          enabled: true,
          blendMode: 'normal',
          opacity: 0.9,
          type: 'linear',
          angle: 0,
          scale: 100,
          align: true,
          reverse: false,
          dither: false,
          offset: { x: 0, y: 0 },
          gradient: { name: 'Band', type: 'solid', smoothness: 1, colorStops: [{ color: { r: 200, g: 40, b: 60 }, location: 0, midpoint: 50 }, { color: { r: 40, g: 60, b: 180 }, location: 1, midpoint: 50 }], opacityStops: [{ opacity: 1, location: 0, midpoint: 50 }, { opacity: 0.4, location: 1, midpoint: 50 }] },
        },
      ],
    },
  };
  const headline: Layer = {
    name: 'Headline',
    left: 200,
    top: 60,
    right: 520,
    bottom: 130,
    imageData: solid(320, 70, [250, 250, 250], (x, y) => (y > 15 && y < 60 && Math.floor(x / 20) % 4 !== 3 ? 255 : (x * 7 + y) % 3 ? 0 : 128)),
    effects: { dropShadow: [{ present: true, enabled: true, size: px(8), distance: px(6), angle: 120, useGlobalLight: false, color: { r: 0, g: 0, b: 0 }, blendMode: 'multiply', opacity: 0.65 }] },
  };
  const children: Layer[] = [
    { name: 'ground', left: 0, top: 0, right: W, bottom: H, imageData: { width: W, height: H, data: randomPicture(r, W, H, true) } },
    { name: 'Picture', left: 60, top: 50, right: 460, bottom: 320, imageData: { width: 400, height: 270, data: randomPicture(r, 400, 270, true) } },
    { name: 'Frame', left: 50, top: 40, right: 470, bottom: 330, imageData: solid(420, 290, [255, 255, 255], (x, y) => (x < 10 || y < 10 || x >= 410 || y >= 280 ? 255 : 0)) },
    band,
    headline,
    { name: 'Spot', left: W - 260, top: 120, right: W - 100, bottom: 280, blendMode: 'screen', opacity: 0.8, imageData: solid(160, 160, [250, 200, 80], (x, y) => Math.max(0, Math.min(255, Math.round(255 * (80 - Math.hypot(x + 0.5 - 80, y + 0.5 - 80) + 0.5))))) },
  ];
  return writePsdUint8Array({ width: W, height: H, children }, { generateThumbnail: false });
}

describe('a large unit kept under a never-seen picture', () => {
  it('a full-width band under a gradient overlay (over 1 MB) is blended again from its kept unit: the bytes of every unit drawn whole', async () => {
    await kernels();
    clearEngineCaches();
    const r = random(17_001);
    const [W, H] = [1200, 800];
    const compiled = await compileTemplate(env.FILES, poster(W, H, r));
    const ground = [...walkLayers(compiled.layers)].find((n) => n.name === 'ground')!;
    const kept = unitShortcutDraws.kept;
    let drawn = 0;
    for (const scale of [1, 0.5]) {
      const [w, h] = [Math.round(W * scale), Math.round(H * scale)];
      for (let i = 0; i < 3; i++) {
        const overrides = rasterAt(ground.id, randomPicture(r, w, h, i !== 1), 0, 0, w, h);
        for (const region of [undefined, { top: Math.round(h * 0.45), bottom: Math.round(h * 0.9) }, { top: 0, bottom: h, left: Math.round(w * 0.3), right: Math.round(w * 0.8) }]) {
          const { fast, slow } = await renderWithAndWithoutUnitShortcuts(compiled, { scale, overrides, ...(region ? { region } : {}) });
          expect(firstDifference(fast.data, slow.data), `scale ${scale} picture ${i} region ${JSON.stringify(region)}`).toBe(-1);
          drawn++;
        }
      }
    }
    // The band (1200 × 240 at scale 1: 1.15 MB) is kept after each target's first picture and
    // blended again for the next two: at least 2 of every 3 draws of each of the 6 targets.
    expect(unitShortcutDraws.kept - kept).toBeGreaterThanOrEqual((drawn / 3) * 2);
  }, 180_000);

  it('a layer whose drop shadow blends over more pixels than the kernels make again in one go is drawn whole: the same bytes, no error', async () => {
    await kernels();
    clearEngineCaches();
    const r = random(17_002);
    const [W, H] = [700, 600];
    // Its shadow's blend covers ~450 × 410 pixels (184,000: 737 KB, with its content's 638 KB
    // within the blends kept now, above what blendAgain takes at once in the kernels).
    const big: Layer = {
      name: 'Big',
      left: 120,
      top: 90,
      right: 540,
      bottom: 470,
      imageData: solid(420, 380, [240, 240, 250], (x, y) => ((x >> 4) + (y >> 4)) % 3 ? 255 : 0),
      effects: { dropShadow: [{ present: true, enabled: true, size: px(8), distance: px(6), angle: 120, useGlobalLight: false, color: { r: 0, g: 0, b: 0 }, blendMode: 'multiply', opacity: 0.65 }] },
    };
    const ground: Layer = { name: 'ground', left: 0, top: 0, right: W, bottom: H, imageData: { width: W, height: H, data: randomPicture(r, W, H, true) } };
    const compiled = await compileTemplate(env.FILES, writePsdUint8Array({ width: W, height: H, children: [ground, big] }, { generateThumbnail: false }));
    const id = [...walkLayers(compiled.layers)].find((n) => n.name === 'ground')!.id;
    for (let i = 0; i < 3; i++) {
      const overrides = rasterAt(id, randomPicture(r, W, H, i !== 1), 0, 0, W, H);
      const { fast, slow } = await renderWithAndWithoutUnitShortcuts(compiled, { scale: 1, overrides });
      expect(firstDifference(fast.data, slow.data), `picture ${i}`).toBe(-1);
    }
  }, 120_000);
});
