import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import type { Layer, LayerEffectsInfo } from 'ag-psd';
import { compileTemplate, renderTemplate, walkLayers, type LayerOverrides } from '../../../src/engine';
import { dirtyBounds } from '../../../src/engine/composite/dirty';
import type { Bounds, CompiledTemplate } from '../../../src/engine/types';
import { equalOutside } from '../../helpers/pixels';

const [W, H] = [240, 200];
const px = (value: number) => ({ units: 'Pixels' as const, value });
/** A w × h layer whose ink is the rows and columns `ink` (the rest clear), as large-templates.mjs's texts. */
function inked(w: number, h: number, ink: Bounds, rgba: number[]) {
  const data = new Uint8ClampedArray(w * h * 4);
  for (let y = ink.top; y < ink.bottom; y++) for (let x = ink.left; x < ink.right; x++) data.set(rgba, (y * w + x) * 4);
  return { width: w, height: h, data };
}

const shadow = { enabled: true, present: true, color: { r: 0, g: 0, b: 0 }, opacity: 0.65, angle: 120, distance: px(6), size: px(8), blendMode: 'multiply' as const };
const stroke = { enabled: true, present: true, size: px(3), position: 'outside' as const, fillType: 'color' as const, color: { r: 255, g: 255, b: 255 }, blendMode: 'normal' as const, opacity: 1 };
const glow = { enabled: true, present: true, size: px(6), color: { r: 255, g: 240, b: 0 }, opacity: 0.8, blendMode: 'screen' as const, range: 0.5 };

/** Paper, a card, the layer 'title' (60 × 40 box, ink rows 12–28) with `effects`, in a group with `groupEffects`, a Curves above. */
async function template(effects: LayerEffectsInfo, groupEffects?: LayerEffectsInfo): Promise<CompiledTemplate> {
  const { writePsdUint8Array } = await import('ag-psd');
  const title: Layer = { name: 'title', left: 70, top: 80, right: 130, bottom: 120, imageData: inked(60, 40, { left: 4, top: 12, right: 50, bottom: 28 }, [30, 50, 110, 255]), effects };
  const children: Layer[] = [
    { name: 'paper', left: 0, top: 0, right: W, bottom: H, imageData: inked(W, H, { left: 0, top: 0, right: W, bottom: H }, [240, 235, 225, 255]) },
    { name: 'card', left: 40, top: 40, right: 200, bottom: 160, imageData: inked(160, 120, { left: 0, top: 0, right: 160, bottom: 120 }, [250, 248, 242, 235]), opacity: 0.92 },
    groupEffects ? { name: 'box', opened: true, blendMode: 'normal', effects: groupEffects, children: [title] } : title,
    { name: 'Curves', adjustment: { type: 'curves', rgb: [{ input: 0, output: 0 }, { input: 96, output: 80 }, { input: 176, output: 196 }, { input: 255, output: 255 }] } } as Layer,
  ];
  return compileTemplate(env.FILES, writePsdUint8Array({ width: W, height: H, children }));
}

describe('dirtyBounds: the template\'s own pixels reach from their alpha (issue 25 §3, large-mockup\'s Title)', () => {
  it('a layer whose stored box holds clear rows counts its ink, with a drop shadow and a stroke, at scales 1, 0.6 and 3 (enlarged: resampling lends clear pixels alpha)', { timeout: 60_000 }, async () => {
    const compiled = await template({ dropShadow: [shadow], stroke: [stroke] });
    const node = [...walkLayers(compiled.layers)].find((n) => n.name === 'title')!;
    expect(node.alphaBounds).toEqual({ left: 74, top: 92, right: 120, bottom: 108 });
    // New ink inside the old ink's rows, wider: the old layer's clear rows above and below it count no more.
    const pixels = inked(80, 40, { left: 2, top: 14, right: 78, bottom: 26 }, [200, 40, 40, 255]);
    for (const scale of [1, 0.6, 3]) {
      const s = (v: number) => Math.round(v * scale);
      const cases: Array<[string, LayerOverrides]> = [
        ['new pixels', new Map([[node.id, { pixels, bounds: { left: s(60), top: s(80), right: s(60) + 80, bottom: s(80) + 40 } }]])],
        ['hidden', new Map([[node.id, { visible: false }]])],
      ];
      const plain = await renderTemplate(env.FILES, compiled, { scale });
      for (const [name, overrides] of cases) {
        const dirty = dirtyBounds(compiled, overrides, scale)!;
        const byBox = dirtyBounds({ ...compiled, layers: withoutAlphaBounds(compiled.layers) }, overrides, scale)!;
        expect(dirty.bottom - dirty.top, `${name} at ${scale}`).toBeLessThan(byBox.bottom - byBox.top);
        const personalised = await renderTemplate(env.FILES, compiled, { scale, overrides });
        expect(equalOutside(personalised, plain, dirty), `${name} at ${scale}`).toBe(true);
      }
    }
  });

  it('keeps the stored box for an outer glow, a recolour, and a layer in a group with effects', { timeout: 60_000 }, async () => {
    for (const [name, compiled, change] of [
      ['outer glow', await template({ dropShadow: [shadow], outerGlow: glow }), { visible: false }],
      ['recolour', await template({ dropShadow: [shadow] }), { color: { r: 250, g: 0, b: 120, a: 1 } }],
      ['group with effects', await template({ stroke: [stroke] }, { dropShadow: [shadow] }), { visible: false }],
    ] as const) {
      const node = [...walkLayers(compiled.layers)].find((n) => n.name === 'title')!;
      const overrides: LayerOverrides = new Map([[node.id, change]]);
      expect(dirtyBounds(compiled, overrides, 1), name).toEqual(dirtyBounds({ ...compiled, layers: withoutAlphaBounds(compiled.layers) }, overrides, 1));
      const plain = await renderTemplate(env.FILES, compiled, { scale: 1 });
      const personalised = await renderTemplate(env.FILES, compiled, { scale: 1, overrides });
      expect(equalOutside(personalised, plain, dirtyBounds(compiled, overrides, 1)), name).toBe(true);
    }
  });
});

/** The layers as a template compiled before alphaBounds has them. */
function withoutAlphaBounds(layers: CompiledTemplate['layers']): CompiledTemplate['layers'] {
  return layers.map(({ alphaBounds: _, ...n }) => ({ ...n, ...(n.children ? { children: withoutAlphaBounds(n.children) } : {}) }));
}
