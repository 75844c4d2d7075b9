import { writePsdUint8Array, type Layer } from 'ag-psd';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, renderTemplate } from '../../../src/engine';
import { colourStroke } from './kit';

/**
 * "Blend Interior Effects as Group" (ag-psd's blendInteriorElements) covers the effects "that
 * modify opaque pixels, such as Inner Glow, Satin, Color Overlay, and Gradient Overlay" (Adobe's
 * Layer Style, Advanced Blending): those are grouped with the content, and the Fill fades them
 * with it. Inner shadows, strokes and the bevel are not in the list: photocraft's compositor
 * (crates/compose/src/effects.rs, `interior_group`) paints them over the faded unit. We faded the
 * whole unit, an inside stroke included.
 *
 * A red 20 px square at Fill 50 % over white, a green colour overlay and a 3 px blue inside stroke.
 */
const S = 40;
function doc(effects: Layer['effects'], blendInteriorElements = true): Uint8Array {
  const bg = { width: S, height: S, data: new Uint8ClampedArray(S * S * 4).fill(255) };
  const sq = { width: 20, height: 20, data: new Uint8ClampedArray(20 * 20 * 4) };
  for (let i = 0; i < 400; i++) sq.data.set([255, 0, 0, 255], i * 4);
  const layer: Layer = { name: 'square', left: 10, top: 10, imageData: sq, fillOpacity: 0.5, blendInteriorElements, effects };
  return writePsdUint8Array({ width: S, height: S, children: [{ name: 'Background', left: 0, top: 0, imageData: bg }, layer] }, { noBackground: false });
}
const render = async (bytes: Uint8Array) => renderTemplate(env.FILES, await compileTemplate(env.FILES, bytes), { scale: 1 });
const at = (img: { data: Uint8ClampedArray }, x: number, y: number) => [...img.data.slice((y * S + x) * 4, (y * S + x) * 4 + 3)];
const near = (got: number[], want: number[]) => got.forEach((g, c) => expect(Math.abs(g - want[c]), `${got} vs ${want}`).toBeLessThanOrEqual(1));
const overlay = { enabled: true, present: true, blendMode: 'normal' as const, color: { r: 0, g: 255, b: 0 }, opacity: 1 };

describe('Blend Interior Effects as Group below Fill 100 %', () => {
  it('fades the overlay with the content, not the inside stroke', async () => {
    const img = await render(doc({ solidFill: [overlay], stroke: [colourStroke(3, 'inside', [0, 0, 255]) as never] }));
    near(at(img, 20, 20), [127.5, 255, 127.5]); // the overlay at the Fill
    near(at(img, 11, 20), [0, 0, 255]); // the stroke whole
    near(at(img, 5, 20), [255, 255, 255]);
  });

  it('an inner shadow paints over the faded unit', async () => {
    const shadow = { enabled: true, present: true, blendMode: 'normal' as const, color: { r: 0, g: 0, b: 0 }, opacity: 1, angle: 90, useGlobalLight: false, distance: { value: 4, units: 'Pixels' as const }, choke: { value: 0, units: 'Pixels' as const }, size: { value: 0, units: 'Pixels' as const } };
    const img = await render(doc({ solidFill: [overlay], innerShadow: [shadow] }));
    near(at(img, 20, 11), [0, 0, 0]); // the top 4 rows in shadow, wholly
    near(at(img, 20, 20), [127.5, 255, 127.5]);
  });

  it('off, as before: the overlay whole, the Fill on the content alone', async () => {
    const img = await render(doc({ solidFill: [overlay], stroke: [colourStroke(3, 'inside', [0, 0, 255]) as never] }, false));
    near(at(img, 20, 20), [0, 255, 0]);
    near(at(img, 11, 20), [0, 0, 255]);
  });
});
