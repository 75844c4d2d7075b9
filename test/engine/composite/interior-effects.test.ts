import { writePsdUint8Array, type Layer } from 'ag-psd';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, renderTemplate } from '../../../src/engine';

/**
 * Interior effects of a clipping base are part of its own composite (docs/effects.md, Fidelity):
 * over transparency an edge pixel keeps the base's alpha and is recoloured wholly, as Photoshop
 * stores it (psdtools-fx-stroke-composite.psd: an inside stroke's edge at alpha 115, pure green).
 */
const px = (value: number) => ({ units: 'Pixels' as const, value });

/** 8×7: opaque grey over columns 1..5, column 6 at alpha `edge`, nothing else. */
function base(edge: number): Layer['imageData'] {
  const data = new Uint8ClampedArray(8 * 7 * 4);
  for (let y = 0; y < 7; y++) for (let x = 1; x <= 6; x++) data.set([128, 128, 128, x === 6 ? edge : 255], (y * 8 + x) * 4);
  return { width: 8, height: 7, data };
}

async function render(effects: Layer['effects'], alone = false, opacity = 1) {
  const clipped: Layer = { name: 'clipped', left: 0, top: 0, clipping: true, imageData: { width: 8, height: 7, data: new Uint8ClampedArray(8 * 7 * 4).fill(0) } };
  const layer: Layer = { name: 'base', left: 0, top: 0, imageData: base(115), effects, opacity };
  const bytes = writePsdUint8Array({ width: 8, height: 7, children: alone ? [layer] : [layer, clipped] });
  const compiled = await compileTemplate(env.FILES, bytes);
  const image = await renderTemplate(env.FILES, compiled, { scale: 1, background: 'transparent' });
  // The middle row: 3 px from the top and bottom edges.
  return (x: number) => [...image.data.subarray((3 * 8 + x) * 4, (3 * 8 + x) * 4 + 4)];
}

describe('interior effects of a clipping base keep its alpha', () => {
  it('an inside stroke recolours the semi-transparent edge pixel wholly, its alpha unchanged', async () => {
    const at = await render({ stroke: [{ enabled: true, present: true, position: 'inside', fillType: 'color', blendMode: 'normal', opacity: 1, size: px(2), color: { r: 0, g: 255, b: 0 } }] });
    expect(at(6)).toEqual([0, 255, 0, 115]);
    expect(at(5)).toEqual([0, 255, 0, 255]);
    expect(at(3)).toEqual([128, 128, 128, 255]);
    expect(at(7)[3]).toBe(0);
  });

  it('a colour overlay at half opacity mixes half of its colour into the edge pixel, not a quarter', async () => {
    const at = await render({ solidFill: [{ enabled: true, present: true, blendMode: 'normal', color: { r: 255, g: 0, b: 0 }, opacity: 0.5 }] });
    const [r, g, b, a] = at(6);
    expect(a).toBe(115);
    expect(Math.abs(r - 192)).toBeLessThanOrEqual(1);
    expect(Math.abs(g - 64)).toBeLessThanOrEqual(1);
    expect(Math.abs(b - 64)).toBeLessThanOrEqual(1);
    expect(at(3).slice(0, 3)).toEqual(at(6).slice(0, 3));
  });
});

describe('interior effects of a layer without clipped layers keep its alpha too', () => {
  const stroke: Layer['effects'] = { stroke: [{ enabled: true, present: true, position: 'inside', fillType: 'color', blendMode: 'normal', opacity: 1, size: px(2), color: { r: 0, g: 255, b: 0 } }] };

  it('drawn as a clipping group of one: the edge pixel recoloured wholly at its own alpha', async () => {
    const at = await render(stroke, true);
    expect(at(6)).toEqual([0, 255, 0, 115]);
    expect(at(3)).toEqual([128, 128, 128, 255]);
    expect(at(7)[3]).toBe(0);
  });

  it('the layer and its effects take its opacity once, as one unit', async () => {
    // Opacity 50 %: the stroke covers the grey wholly inside the unit, which then shows at half.
    const at = await render(stroke, true, 0.5);
    const [r, g, b, a] = at(5);
    expect([r, g, b]).toEqual([0, 255, 0]);
    expect(Math.abs(a - 128)).toBeLessThanOrEqual(1);
  });
});
