import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import type { Layer, LayerEffectsInfo } from 'ag-psd';
import { compileTemplate, renderTemplate, walkLayers, type LayerOverrides } from '../../../src/engine';
import { dirtyBounds } from '../../../src/engine/composite/dirty';
import type { Bounds, CompiledTemplate } from '../../../src/engine/types';
import { equalOutside } from '../../helpers/pixels';
import { expectRedrawnWithin } from './dirty-redraw';

const [W, H] = [260, 220];
const px = (value: number) => ({ units: 'Pixels' as const, value });
/** A w × h layer whose ink is the rows and columns `ink` (the rest clear), as a drawn text's raster. */
function inked(w: number, h: number, ink: Bounds, rgba: number[]) {
  const data = new Uint8ClampedArray(w * h * 4);
  for (let y = ink.top; y < ink.bottom; y++) for (let x = ink.left; x < ink.right; x++) data.set(rgba, (y * w + x) * 4);
  // A soft edge: alpha tails the blurs carry.
  for (let x = ink.left; x < ink.right; x++) if (ink.bottom < h) data.set([rgba[0], rgba[1], rgba[2], 40], (ink.bottom * w + x) * 4);
  return { width: w, height: h, data };
}

const on = { enabled: true, present: true };
const innerShadow = { ...on, color: { r: 20, g: 0, b: 40 }, opacity: 0.75, angle: 120, distance: px(9), size: px(13), blendMode: 'multiply' as const };
const innerGlow = { ...on, size: px(8), color: { r: 255, g: 250, b: 190 }, opacity: 0.8, blendMode: 'screen' as const, source: 'edge' as const };
const satin = { ...on, color: { r: 0, g: 0, b: 0 }, opacity: 0.5, angle: 19, distance: px(7), size: px(10), blendMode: 'multiply' as const, invert: true };
const colour = { ...on, color: { r: 90, g: 160, b: 60 }, opacity: 0.7, blendMode: 'overlay' as const };
const dropShadow = { ...on, color: { r: 0, g: 0, b: 0 }, opacity: 0.6, angle: 90, distance: px(6), size: px(7), blendMode: 'multiply' as const };
const outerGlow = { ...on, size: px(10), color: { r: 255, g: 200, b: 0 }, opacity: 0.7, blendMode: 'screen' as const, range: 0.5 };

/**
 * Paper, a neighbour above the title with an inner shadow and a drop shadow (the redrawn rectangle
 * cuts through it), the layer 'title' (a 120 × 60 box, ink rows 20–40) with `effects` and `fill`,
 * optionally in a group carrying `groupEffects`.
 */
async function template(effects: LayerEffectsInfo, fill = 1, groupEffects?: LayerEffectsInfo): Promise<CompiledTemplate> {
  const { writePsdUint8Array } = await import('ag-psd');
  const title: Layer = { name: 'title', left: 60, top: 100, right: 180, bottom: 160, fillOpacity: fill, imageData: inked(120, 60, { left: 8, top: 20, right: 100, bottom: 40 }, [30, 50, 110, 255]), effects };
  const children: Layer[] = [
    { name: 'paper', left: 0, top: 0, right: W, bottom: H, imageData: inked(W, H, { left: 0, top: 0, right: W, bottom: H }, [240, 235, 225, 255]) },
    { name: 'neighbour', left: 40, top: 30, right: 220, bottom: 110, imageData: inked(180, 80, { left: 10, top: 30, right: 170, bottom: 60 }, [200, 60, 40, 255]), effects: { innerShadow: [innerShadow], dropShadow: [dropShadow] } },
    groupEffects ? { name: 'box', opened: true, blendMode: 'normal', effects: groupEffects, children: [title] } : title,
  ];
  return compileTemplate(env.FILES, writePsdUint8Array({ width: W, height: H, children }));
}

/** The box of `b` grown by `m` on every side. */
const grown = (b: Bounds, m: number): Bounds => ({ left: b.left - m, top: b.top - m, right: b.right + m, bottom: b.bottom + m });

describe('dirtyBounds: effects that paint inside the layer only reach no further than its pixels (issue 25 §3, layer-effects-all\'s Inner Shadow)', () => {
  const cases: Array<[string, LayerEffectsInfo, number]> = [
    ['inner shadow', { innerShadow: [innerShadow] }, 1],
    ['softer inner glow at Fill 60 %', { innerGlow }, 0.6],
    ['precise inner glow from the centre', { innerGlow: { ...innerGlow, technique: 'precise', source: 'center' } }, 1],
    ['satin', { satin }, 1],
    ['colour overlay, satin and inner shadow', { solidFill: [colour], satin, innerShadow: [innerShadow] }, 1],
    ['inner shadow under a drop shadow', { innerShadow: [innerShadow], dropShadow: [dropShadow] }, 1],
    ['inner glow under an outer glow', { innerGlow, outerGlow }, 0.8],
  ];
  for (const [name, effects, fill] of cases) {
    it(`${name}: nothing changes outside the rectangle, and the frame redrawn there is the frame drawn whole`, { timeout: 60_000 }, async () => {
      const compiled = await template(effects, fill);
      const node = [...walkLayers(compiled.layers)].find((n) => n.name === 'title')!;
      for (const scale of [1, 0.6, 2]) {
        const s = (v: number) => Math.round(v * scale);
        // New ink: a line of a few rows in a wider raster box (resvg's line box), lower than the old one.
        const box = { left: s(50), top: s(110), right: s(50) + 140, bottom: s(110) + 70 };
        const ink = { left: 6, top: 30, right: 130, bottom: 44 };
        const pixels = inked(140, 70, ink, [220, 30, 60, 255]);
        const overrides: LayerOverrides = new Map([[node.id, { pixels, bounds: box }]]);
        const dirty = dirtyBounds(compiled, overrides, scale)!;
        const what = `${name} at ${scale}`;
        if (!effects.dropShadow && !effects.outerGlow) {
          // The new ink (and its alpha tail row) and the old layer's box, grown by a few pixels: not by the effects' sizes.
          const newInk = { left: box.left + ink.left, top: box.top + ink.top, right: box.left + ink.right, bottom: box.top + ink.bottom + 1 };
          const old = { left: s(60), top: s(100), right: s(180), bottom: s(160) };
          const near = grown({ left: Math.min(newInk.left, old.left), top: Math.min(newInk.top, old.top), right: Math.max(newInk.right, old.right), bottom: Math.max(newInk.bottom, old.bottom) }, 6 + Math.ceil(scale));
          expect(dirty.top, what).toBeGreaterThanOrEqual(near.top);
          expect(dirty.bottom, what).toBeLessThanOrEqual(near.bottom);
          expect(dirty.left, what).toBeGreaterThanOrEqual(near.left);
          expect(dirty.right, what).toBeLessThanOrEqual(near.right);
        }
        await expectRedrawnWithin(compiled, overrides, scale, dirty, what);
      }
    });
  }

  it('a group with an inner shadow keeps its reach (its arrays are made from the redrawn rectangle)', { timeout: 60_000 }, async () => {
    const compiled = await template({}, 1, { innerShadow: [innerShadow] });
    const node = [...walkLayers(compiled.layers)].find((n) => n.name === 'title')!;
    const overrides: LayerOverrides = new Map([[node.id, { visible: false }]]);
    const dirty = dirtyBounds(compiled, overrides, 1)!;
    // The title's box grown by the inner shadow's size and distance (9 + 13) and more.
    expect(dirty.top).toBeLessThanOrEqual(100 - 22);
    expect(dirty.bottom).toBeGreaterThanOrEqual(160 + 22);
    const plain = await renderTemplate(env.FILES, compiled, { scale: 1 });
    expect(equalOutside(await renderTemplate(env.FILES, compiled, { scale: 1, overrides }), plain, dirty)).toBe(true);
  });
});
