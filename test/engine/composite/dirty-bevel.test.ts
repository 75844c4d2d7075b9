import { env } from 'cloudflare:workers';
import { describe, it } from 'vitest';
import { writePsdUint8Array, type Layer, type LayerEffectsInfo } from 'ag-psd';
import { compileTemplate, walkLayers, type LayerOverrides } from '../../../src/engine';
import { dirtyBounds } from '../../../src/engine/composite/dirty';
import type { Bounds } from '../../../src/engine/types';
import { expectRedrawnWithin } from './dirty-redraw';

/**
 * Review, session 20: 2c5e6d8 stopped growing a layer's dirty rectangle by its inner shadow, inner
 * glow and satin (they paint inside its pixels). A bevel stays: its outer bevel, emboss and pillow
 * emboss paint outside them. No dirty test had a bevel, so dropping it from the reach passed them all.
 */
const [W, H] = [240, 200];
const px = (value: number) => ({ units: 'Pixels' as const, value });
const on = { enabled: true, present: true };

function inked(w: number, h: number, ink: Bounds, rgba: number[]) {
  const data = new Uint8ClampedArray(w * h * 4);
  for (let y = ink.top; y < ink.bottom; y++) for (let x = ink.left; x < ink.right; x++) data.set(rgba, (y * w + x) * 4);
  return { width: w, height: h, data };
}

const bevel = (style: 'outer bevel' | 'inner bevel' | 'emboss' | 'pillow emboss') => ({
  ...on, style, technique: 'smooth' as const, strength: 1, direction: 'up' as const, size: px(12), soften: px(2), angle: 120, altitude: 30, useGlobalLight: false,
  highlightBlendMode: 'screen' as const, highlightColor: { r: 255, g: 255, b: 255 }, highlightOpacity: 0.9,
  shadowBlendMode: 'multiply' as const, shadowColor: { r: 0, g: 0, b: 0 }, shadowOpacity: 0.9,
});
const innerShadow = { ...on, color: { r: 20, g: 0, b: 40 }, opacity: 0.75, angle: 120, distance: px(9), size: px(13), blendMode: 'multiply' as const };

describe('dirtyBounds: a bevel that paints outside the layer keeps its reach', () => {
  const cases: Array<[string, LayerEffectsInfo]> = [
    ['outer bevel', { bevel: bevel('outer bevel') }],
    ['emboss and an inner shadow', { bevel: bevel('emboss'), innerShadow: [innerShadow] }],
    ['pillow emboss', { bevel: bevel('pillow emboss') }],
    ['inner bevel', { bevel: bevel('inner bevel') }],
  ];
  for (const [name, effects] of cases) {
    it(`${name}: nothing changes outside the rectangle, and the frame redrawn there is the frame drawn whole`, { timeout: 60_000 }, async () => {
      const title: Layer = { name: 'title', left: 60, top: 80, right: 180, bottom: 140, imageData: inked(120, 60, { left: 8, top: 20, right: 100, bottom: 40 }, [30, 50, 110, 255]), effects };
      const paper: Layer = { name: 'paper', left: 0, top: 0, right: W, bottom: H, imageData: inked(W, H, { left: 0, top: 0, right: W, bottom: H }, [240, 235, 225, 255]) };
      const compiled = await compileTemplate(env.FILES, writePsdUint8Array({ width: W, height: H, children: [paper, title] }));
      const node = [...walkLayers(compiled.layers)].find((n) => n.name === 'title')!;
      for (const scale of [1, 0.6]) {
        const s = (v: number) => Math.round(v * scale);
        const box = { left: s(50), top: s(90), right: s(50) + 140, bottom: s(90) + 70 };
        const overrides: LayerOverrides = new Map([[node.id, { pixels: inked(140, 70, { left: 6, top: 30, right: 130, bottom: 44 }, [220, 30, 60, 255]), bounds: box }]]);
        await expectRedrawnWithin(compiled, overrides, scale, dirtyBounds(compiled, overrides, scale), `${name} at ${scale}`);
      }
    });
  }
});
