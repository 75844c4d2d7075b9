import { env } from 'cloudflare:workers';
import { writePsdUint8Array, type Layer } from 'ag-psd';
import { describe, expect, it } from 'vitest';
import { compileTemplate, walkLayers } from '../../../src/engine';
import { clearEngineCaches } from '../../../src/engine/cache';
import { unitShortcutDraws, useUnitShortcuts } from '../../../src/engine/composite/compositor';
import { kernels } from '../../../src/engine/raster/kernels';
import { psdFixture } from '../../helpers/fixtures';
import { firstDifference } from '../../helpers/pixels';
import { random, randomPicture, rasterAt, renderWithAndWithoutUnitShortcuts } from './kit';

/**
 * fx-backdrop (issue 25 §3): a never-seen picture under texts with effects redraws the canvas, and
 * each text composited apart (interior effects, nothing drawn under it) is blended again from the
 * unit this isolate drew last time over the same target (compositor.ts keptUnitKey), each text
 * drawn onto the canvas from the blends it made then (keptLayerKey); a layer
 * whose one colour overlay recolours it wholly is drawn as that colour at its pixels' alpha
 * (colourAtAlpha). The same bytes as drawing every unit whole (useUnitShortcuts(false)), picture
 * after picture, at several scales, whole and as regions.
 */

describe('units kept and colours at alpha under a never-seen picture', () => {
  it("psdtools-layer-effects-all: pictures replacing 'Background' under its eleven texts give the bytes of every unit drawn whole", async () => {
    await kernels();
    clearEngineCaches();
    const compiled = await compileTemplate(env.FILES, await psdFixture('psdtools-layer-effects-all.psd'));
    const background = [...walkLayers(compiled.layers)].find((n) => n.name === 'Background')!;
    const r = random(16_001);
    const [kept, coloured, blends] = [unitShortcutDraws.kept, unitShortcutDraws.coloured, unitShortcutDraws.blends];
    for (const scale of [1, 0.5, 0.37]) {
      const w = Math.round(800 * scale);
      const h = Math.round(640 * scale);
      for (let i = 0; i < 3; i++) {
        const opaque = i !== 1;
        const overrides = rasterAt(background.id, randomPicture(r, w, h, opaque), 0, 0, w, h);
        for (const region of [undefined, { top: Math.round(h * 0.3), bottom: Math.round(h * 0.7) }, { top: 0, bottom: h, left: Math.round(w * 0.2), right: Math.round(w * 0.6) }]) {
          const { fast, slow } = await renderWithAndWithoutUnitShortcuts(compiled, { scale, overrides, ...(region ? { region } : {}) });
          expect(firstDifference(fast.data, slow.data), `scale ${scale} picture ${i} region ${JSON.stringify(region)}`).toBe(-1);
        }
      }
    }
    // Six texts are kept as units, four as their blends (Inner Glow's blend with the backdrop).
    expect(unitShortcutDraws.kept - kept).toBeGreaterThan(6 * 3 * 3);
    expect(unitShortcutDraws.blends - blends).toBeGreaterThan(4 * 3 * 3);
    expect(unitShortcutDraws.coloured - coloured).toBeGreaterThan(3 * 3 * 3);
  }, 120_000);

  it('a ground under colour overlays of every kind, and texts with interior effects over it: the same bytes picture after picture', async () => {
    await kernels();
    clearEngineCaches();
    const r = random(16_002);
    const [W, H] = [160, 120];
    const px = (value: number) => ({ units: 'Pixels' as const, value });
    // Whole (Normal 100 %) and not (a fade, another mode, a Fill, a mask, an overlay under it).
    const overlays: Array<[string, NonNullable<Layer['effects']>, Partial<Layer>]> = [
      ['normal 100 %', { solidFill: [{ enabled: true, present: true, blendMode: 'normal', color: { r: 129.0019, g: 40.5, b: 200 }, opacity: 1 }] }, {}],
      ['normal 99 %', { solidFill: [{ enabled: true, present: true, blendMode: 'normal', color: { r: 10, g: 250, b: 30 }, opacity: 0.99 }] }, {}],
      ['multiply', { solidFill: [{ enabled: true, present: true, blendMode: 'multiply', color: { r: 10, g: 250, b: 30 }, opacity: 1 }] }, {}],
      ['Fill 60 %', { solidFill: [{ enabled: true, present: true, blendMode: 'normal', color: { r: 10, g: 250, b: 30 }, opacity: 1 }] }, { fillOpacity: 0.6 }],
      ['layer 70 %', { solidFill: [{ enabled: true, present: true, blendMode: 'normal', color: { r: 90, g: 25, b: 30 }, opacity: 1 }] }, { opacity: 0.7 }],
      [
        'with satin',
        {
          solidFill: [{ enabled: true, present: true, blendMode: 'normal', color: { r: 90, g: 25, b: 30 }, opacity: 1 }],
          satin: { enabled: true, present: true, blendMode: 'multiply', color: { r: 0, g: 0, b: 0 }, opacity: 0.5, angle: 19, distance: px(6), size: px(9), invert: true } as never,
        },
        {},
      ],
    ];
    const texts = (i: number): Layer => ({
      name: `Text ${i}`,
      left: 10 + 18 * i,
      top: 8 + 21 * i,
      right: 70 + 18 * i,
      bottom: 32 + 21 * i,
      imageData: { width: 60, height: 24, data: new Uint8ClampedArray(60 * 24 * 4).map((_, k) => (k % 4 === 3 ? ((k >> 2) % 7 < 4 ? 255 : (k * 37) & 255) : 200)) },
      effects: [
        { innerShadow: [{ enabled: true, present: true, blendMode: 'multiply', color: { r: 0, g: 0, b: 0 }, opacity: 0.35, useGlobalLight: false, angle: 90, distance: px(4), size: px(7), choke: px(0) }] },
        { gradientOverlay: [{ enabled: true, present: true, blendMode: 'normal', opacity: 1, type: 'linear', angle: 87, gradient: { type: 'solid', name: 'g', colorStops: [{ color: { r: 40, g: 10, b: 90 }, location: 0, midpoint: 0.5 }, { color: { r: 255, g: 124, b: 0 }, location: 1, midpoint: 0.5 }], opacityStops: [{ opacity: 1, location: 0, midpoint: 0.5 }, { opacity: 1, location: 1, midpoint: 0.5 }] } }] },
        { solidFill: [{ enabled: true, present: true, blendMode: 'normal', color: { r: 0, g: 51, b: 153 }, opacity: 1 }] },
        // Drawn onto the canvas: its blends kept (a shadow, a glow, a stroke, an emboss).
        {
          dropShadow: [{ enabled: true, present: true, blendMode: 'multiply', color: { r: 0, g: 0, b: 0 }, opacity: 0.35, useGlobalLight: false, angle: 90, distance: px(5), size: px(9), choke: px(0) }],
          outerGlow: { enabled: true, present: true, blendMode: 'screen', color: { r: 255, g: 255, b: 190 }, opacity: 0.5, size: px(7), choke: px(0), range: 0.5 },
          stroke: [{ enabled: true, present: true, position: 'outside', fillType: 'color', blendMode: 'normal', opacity: 1, size: px(2), color: { r: 255, g: 255, b: 255 } }],
          bevel: { enabled: true, present: true, style: 'emboss', technique: 'smooth', size: px(6), strength: 1, direction: 'up', useGlobalLight: false, angle: 90, altitude: 30, highlightBlendMode: 'screen', highlightColor: { r: 255, g: 255, b: 255 }, highlightOpacity: 0.5, shadowBlendMode: 'multiply', shadowColor: { r: 0, g: 0, b: 0 }, shadowOpacity: 0.5 },
        },
        // A stroke in a mode of its own reads the canvas: not kept.
        { stroke: [{ enabled: true, present: true, position: 'outside', fillType: 'color', blendMode: 'multiply', opacity: 1, size: px(3), color: { r: 200, g: 30, b: 30 } }] },
      ][i] as never,
    });
    for (const [what, effects, extra] of overlays) {
      const ground: Layer = { name: 'ground', left: 0, top: 0, right: W, bottom: H, imageData: { width: W, height: H, data: randomPicture(r, W, H, false) }, effects, ...extra };
      const bytes = writePsdUint8Array({ width: W, height: H, children: [ground, texts(0), texts(1), texts(2), texts(3), texts(4)] }, { generateThumbnail: false });
      const compiled = await compileTemplate(env.FILES, bytes);
      const id = [...walkLayers(compiled.layers)].find((n) => n.name === 'ground')!.id;
      for (const scale of [1, 0.5]) {
        const [w, h] = [Math.round(W * scale), Math.round(H * scale)];
        for (let i = 0; i < 3; i++) {
          const overrides = rasterAt(id, randomPicture(r, w, h, i === 2), 0, 0, w, h);
          for (const region of [undefined, { top: Math.round(h * 0.25), bottom: Math.round(h * 0.6) }]) {
            const { fast, slow } = await renderWithAndWithoutUnitShortcuts(compiled, { scale, overrides, ...(region ? { region } : {}) });
            expect(firstDifference(fast.data, slow.data), `${what} scale ${scale} picture ${i} region ${JSON.stringify(region)}`).toBe(-1);
          }
        }
      }
    }
  }, 120_000);
});
