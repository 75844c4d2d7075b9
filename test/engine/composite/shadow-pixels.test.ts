import { writePsdUint8Array, type Layer } from 'ag-psd';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, renderTemplate } from '../../../src/engine';
import { shadowOffset } from '../../../src/engine/composite/effects';

/**
 * Shadows in whole pixels of the document, as Photoshop draws them (issue 25 §2,
 * agpsd-effects.psd): the offset along the light's angle and the spread (a percentage of the
 * size) are rounded to whole pixels before the blur; at a preview scale they scale from there.
 */
const px = (value: number) => ({ units: 'Pixels' as const, value });

/** An opaque 20×20 square at (20, 20) on a white 60×60 Background, with one drop shadow. */
function shadowDocument(shadow: { distance: number; angle: number; size: number; spread: number }): Uint8Array {
  const bg = { width: 60, height: 60, data: new Uint8ClampedArray(60 * 60 * 4).fill(255) };
  const square = { width: 20, height: 20, data: new Uint8ClampedArray(20 * 20 * 4) };
  for (let i = 0; i < 400; i++) square.data.set([30, 60, 200, 255], i * 4);
  const layer: Layer = {
    name: 'square',
    left: 20,
    top: 20,
    imageData: square,
    effects: {
      dropShadow: [
        {
          enabled: true,
          present: true,
          blendMode: 'multiply',
          color: { r: 0, g: 0, b: 0 },
          opacity: 1,
          size: px(shadow.size),
          choke: px(shadow.spread),
          distance: px(shadow.distance),
          angle: shadow.angle,
          useGlobalLight: false,
        },
      ],
    },
  };
  return writePsdUint8Array({ width: 60, height: 60, children: [{ name: 'Background', left: 0, top: 0, imageData: bg }, layer] }, { noBackground: false });
}

const render = async (shadow: Parameters<typeof shadowDocument>[0], scale = 1) =>
  (await renderTemplate(env.FILES, await compileTemplate(env.FILES, shadowDocument(shadow)), { scale })).data;

describe('shadows in whole pixels', () => {
  it('the offset along the angle is rounded to whole pixels of the document, then scaled', () => {
    // 5 px at 132°: (3.35, 3.72) → (3, 4), as Photoshop cast agpsd-effects.psd's drop shadow.
    expect(shadowOffset({ useGlobalLight: false, angle: 132, distance: { value: 5 } }, 120, 1)).toEqual([3, 4]);
    expect(shadowOffset({ useGlobalLight: false, angle: 132, distance: { value: 5 } }, 120, 0.5)).toEqual([1.5, 2]);
    // The document's light when the effect uses it: 90° casts straight down.
    const [dx, dy] = shadowOffset({ useGlobalLight: true, angle: 132, distance: { value: 18 } }, 90, 1);
    expect([Math.abs(dx), dy]).toEqual([0, 18]);
  });

  it('a drop shadow cast 5 px at 132° is the one cast at (3, 4) exactly', async () => {
    const at132 = await render({ distance: 5, angle: 132, size: 4, spread: 0 });
    const at3by4 = await render({ distance: 5, angle: 180 - (Math.atan2(4, 3) * 180) / Math.PI, size: 4, spread: 0 });
    expect(at132).toEqual(at3by4);
  });

  it('a spread under half a pixel is none; from half a pixel it grows the shape by a whole one', async () => {
    const none = await render({ distance: 0, angle: 90, size: 5, spread: 0 });
    // 2 % of 5 px is 0.1 px: the same shadow as without a spread.
    expect(await render({ distance: 0, angle: 90, size: 5, spread: 2 })).toEqual(none);
    // 20 % of 5 px is 1 px: grown by 1 px, blurred by 4 (darker next to the square).
    const grown = await render({ distance: 0, angle: 90, size: 5, spread: 20 });
    const next = (18 * 60 + 30) * 4; // 2 px above the square's top edge, mid-way along it
    expect(grown[next]).toBeLessThan(none[next]);
    // 10 % (0.5 px) rounds to the same whole pixel.
    expect(await render({ distance: 0, angle: 90, size: 5, spread: 10 })).toEqual(grown);
  });
});
