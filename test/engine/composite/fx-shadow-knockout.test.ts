import { writePsdUint8Array, type Layer } from 'ag-psd';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, renderTemplate } from '../../../src/engine';
import { blackShadow } from './kit';

/**
 * "Layer Knocks Out Drop Shadow" (the drop shadow's layerConceals, on by default): within the
 * layer's coverage the shadow gives way to the backdrop where the layer's Fill leaves it showing.
 * At Fill 0 the shadow shows beside the layer, not under it (Adobe's description of the option;
 * psd-tools' test_drop_shadow.py, "the shadow only setup"); at Fill 100 % nothing changes (the
 * layer covers it, and Photoshop's composites show the shadow uncut under soft edges).
 */
const GREY = 128;

function doc(fillOpacity: number, layerConceals: boolean | undefined, edge = 255, effects?: Layer['effects']): Uint8Array {
  const bg = { width: 40, height: 40, data: new Uint8ClampedArray(40 * 40 * 4) };
  for (let i = 0; i < 1600; i++) bg.data.set([GREY, GREY, GREY, 255], i * 4);
  const px = { width: 10, height: 10, data: new Uint8ClampedArray(400) };
  for (let i = 0; i < 100; i++) px.data.set([0, 0, 255, i % 10 === 0 ? edge : 255], i * 4);
  const layer: Layer = {
    name: 'square',
    left: 15,
    top: 15,
    imageData: px,
    fillOpacity,
    effects: effects ?? {
      dropShadow: [{ ...blackShadow({ distance: 4, size: 0, choke: 0 }), ...(layerConceals === undefined ? {} : { layerConceals }) }],
    },
  };
  return writePsdUint8Array({ width: 40, height: 40, children: [{ name: 'Background', left: 0, top: 0, imageData: bg }, layer] }, { noBackground: false });
}

const render = async (bytes: Uint8Array) => renderTemplate(env.FILES, await compileTemplate(env.FILES, bytes), { scale: 1 });
const at = (img: { data: Uint8ClampedArray }, x: number, y: number) => [...img.data.slice((y * 40 + x) * 4, (y * 40 + x) * 4 + 3)];

describe('layer knocks out drop shadow', () => {
  it('at Fill 0 the shadow shows beside the layer and not under it', async () => {
    const img = await render(doc(0, true));
    // Under the layer, where the shadow (cast 4 px down) falls: the backdrop.
    expect(at(img, 20, 22)).toEqual([GREY, GREY, GREY]);
    // Below the layer: the shadow.
    expect(at(img, 20, 27)).toEqual([0, 0, 0]);
  });

  it('is on when the file does not say', async () => {
    const img = await render(doc(0, undefined));
    expect(at(img, 20, 22)).toEqual([GREY, GREY, GREY]);
  });

  it('switched off, the shadow shows under a Fill 0 layer', async () => {
    const img = await render(doc(0, false));
    expect(at(img, 20, 22)).toEqual([0, 0, 0]);
  });

  it('at Fill 50 % the layer over the backdrop within its coverage, no shadow in it', async () => {
    const img = await render(doc(128 / 255, true));
    const f = 128 / 255;
    const want = [GREY * (1 - f), GREY * (1 - f), 255 * f + GREY * (1 - f)];
    at(img, 20, 22).forEach((v, c) => expect(Math.abs(v - want[c])).toBeLessThanOrEqual(1));
  });

  it('at Fill 100 % nothing changes, soft edges included', async () => {
    const on = await render(doc(1, true, 128));
    const off = await render(doc(1, false, 128));
    expect([...on.data]).toEqual([...off.data]);
  });
});

/**
 * An outer glow never shows through a faded fill: within the layer's coverage only the backdrop
 * the Fill leaves shows, the glow beside the layer only (photocraft's effects, calibrated on
 * Photoshop's composites: "Outer glows never show through a faded fill: under the layer only the
 * part outside the shape remains, whatever the fill opacity", Aspose's FillOpacitySample.psd).
 * At Fill 100 % the layer covers it as before. docs/effects.md, "Outer glows under a faded fill".
 */
describe('outer glow under a faded fill', () => {
  // A precise red glow 4 px wide, Normal, around the 10 px square at 15..25.
  const glow = { outerGlow: { enabled: true, present: true, blendMode: 'normal', opacity: 1, color: { r: 255, g: 0, b: 0 }, technique: 'precise', choke: { units: 'Pixels', value: 0 }, size: { units: 'Pixels', value: 4 }, range: 1 } } as unknown as Layer['effects'];
  /** The glow 2 px out from the square (a precise glow's falloff), the same at every Fill. */
  const GLOW = [207, 48, 48];

  it('at Fill 0 the glow shows beside the layer and not under it', async () => {
    const img = await render(doc(0, undefined, 255, glow));
    expect(at(img, 20, 20)).toEqual([GREY, GREY, GREY]);
    expect(at(img, 13, 20)).toEqual(GLOW);
  });

  it('at Fill 50 % the layer over the backdrop within its coverage, no glow in it', async () => {
    const img = await render(doc(128 / 255, undefined, 255, glow));
    const f = 128 / 255;
    const want = [GREY * (1 - f), GREY * (1 - f), 255 * f + GREY * (1 - f)];
    at(img, 20, 20).forEach((v, c) => expect(Math.abs(v - want[c]), `${at(img, 20, 20)}`).toBeLessThanOrEqual(1));
    expect(at(img, 13, 20)).toEqual(GLOW);
  });

  it('at Fill 100 % the layer covers it', async () => {
    const img = await render(doc(1, undefined, 255, glow));
    expect(at(img, 20, 20)).toEqual([0, 0, 255]);
    expect(at(img, 13, 20)).toEqual(GLOW);
  });
});
