import { writePsdUint8Array, type Layer } from 'ag-psd';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, renderTemplate } from '../../../src/engine';

/**
 * An outer glow never shows through a faded fill: within the layer's coverage only the backdrop
 * the Fill leaves shows, the glow beside the layer only (photocraft's effects, calibrated on
 * Photoshop's composites: "Outer glows never show through a faded fill: under the layer only the
 * part outside the shape remains, whatever the fill opacity", Aspose's FillOpacitySample.psd).
 * At Fill 100 % the layer covers it as before. docs/effects.md, "Outer glows under a faded fill".
 */
const GREY = 128;
/** The glow 2 px out from the square (a precise glow's falloff), the same at every Fill. */
const GLOW = [207, 48, 48];

function doc(fillOpacity: number): Uint8Array {
  const bg = { width: 40, height: 40, data: new Uint8ClampedArray(40 * 40 * 4) };
  for (let i = 0; i < 1600; i++) bg.data.set([GREY, GREY, GREY, 255], i * 4);
  const px = { width: 10, height: 10, data: new Uint8ClampedArray(400) };
  for (let i = 0; i < 100; i++) px.data.set([0, 0, 255, 255], i * 4);
  const layer: Layer = {
    name: 'square',
    left: 15,
    top: 15,
    imageData: px,
    fillOpacity,
    effects: {
      // A precise red glow 4 px wide, Normal: solid red around the square.
      outerGlow: { enabled: true, present: true, blendMode: 'normal', opacity: 1, color: { r: 255, g: 0, b: 0 }, technique: 'precise', choke: { units: 'Pixels', value: 0 }, size: { units: 'Pixels', value: 4 }, range: 1 } as never,
    },
  };
  return writePsdUint8Array({ width: 40, height: 40, children: [{ name: 'Background', left: 0, top: 0, imageData: bg }, layer] }, { noBackground: false });
}

const render = async (bytes: Uint8Array) => renderTemplate(env.FILES, await compileTemplate(env.FILES, bytes), { scale: 1 });
const at = (img: { data: Uint8ClampedArray }, x: number, y: number) => [...img.data.slice((y * 40 + x) * 4, (y * 40 + x) * 4 + 3)];

describe('outer glow under a faded fill', () => {
  it('at Fill 0 the glow shows beside the layer and not under it', async () => {
    const img = await render(doc(0));
    expect(at(img, 20, 20)).toEqual([GREY, GREY, GREY]);
    expect(at(img, 13, 20)).toEqual(GLOW);
  });

  it('at Fill 50 % the layer over the backdrop within its coverage, no glow in it', async () => {
    const img = await render(doc(128 / 255));
    const f = 128 / 255;
    const want = [GREY * (1 - f), GREY * (1 - f), 255 * f + GREY * (1 - f)];
    at(img, 20, 20).forEach((v, c) => expect(Math.abs(v - want[c]), `${at(img, 20, 20)}`).toBeLessThanOrEqual(1));
    expect(at(img, 13, 20)).toEqual(GLOW);
  });

  it('at Fill 100 % the layer covers it', async () => {
    const img = await render(doc(1));
    expect(at(img, 20, 20)).toEqual([0, 0, 255]);
    expect(at(img, 13, 20)).toEqual(GLOW);
  });
});
