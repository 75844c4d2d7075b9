import { writePsdUint8Array, type Layer, type LayerEffectsInfo } from 'ag-psd';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, renderTemplate } from '../../../src/engine';
import { againstMergedImage, colourStroke, image, type RGB } from './kit';

/**
 * Strokes in blend modes of their own, and Overprint ('Ovrp' in the stroke descriptor).
 * Photoshop's Stroke blend mode acts on what lies under the layer (01earth.jp's guide to the
 * Stroke settings: the mode is "processing that affects what is placed below the rectangle
 * layer"); with Overprint off (the default) the top stroke "is multiplied onto the background
 * with the stroke below knocked out", with it on "the multiply takes effect against the stroke
 * below", and in Normal mode toggling it changes nothing (ten-artai.com, 2025, trying it in
 * Photoshop). Photopea's layer-style renderer blends each stroke over a copy of the backdrop
 * and puts that into the layer's band. docs/effects.md, "Stroke blend modes and Overprint".
 */
const WHITE: RGB = [255, 255, 255];
const SKY: RGB = [160, 200, 240];
const RED: RGB = [255, 0, 0];
const GREY: RGB = [128, 128, 128];
const YELLOW: RGB = [255, 220, 0];
const BLUE: RGB = [0, 0, 255];

const fill = (w: number, h: number, c: RGB) => image(w, h, () => [...c, 255]);
const bg = (c: RGB): Layer => ({ name: 'bg', left: 0, top: 0, imageData: fill(40, 40, c) });
const square = (c: RGB, effects: object, extra: Partial<Layer> = {}): Layer => ({ name: 'sq', left: 12, top: 12, imageData: fill(16, 16, c), effects: effects as LayerEffectsInfo, ...extra });
const mul = (a: RGB, b: RGB): number[] => a.map((v, i) => (v * b[i]) / 255);

async function render(children: Layer[]) {
  const bytes = writePsdUint8Array({ width: 40, height: 40, children });
  const img = await renderTemplate(env.FILES, await compileTemplate(env.FILES, bytes), { scale: 1 });
  return (x: number, y: number): number[] => [...img.data.subarray((y * 40 + x) * 4, (y * 40 + x) * 4 + 3)];
}

const near = (got: number[], want: number[], tol = 1) => got.forEach((v, c) => expect(Math.abs(v - want[c]), `${got} vs ${want.map(Math.round)}`).toBeLessThanOrEqual(tol));

describe('a stroke in a mode of its own blends with what lies under the layer (Overprint off)', () => {
  it('an inside Multiply stroke knocks out the layer within its band: the backdrop times the stroke', async () => {
    const at = await render([bg(SKY), square(RED, { stroke: [colourStroke(3, 'inside', GREY, { blendMode: 'multiply' })] })]);
    near(at(13, 20), mul(SKY, GREY));
    expect(at(20, 20)).toEqual(RED);
  });

  it('with Overprint on it blends with the layer instead', async () => {
    const at = await render([bg(SKY), square(RED, { stroke: [colourStroke(3, 'inside', GREY, { blendMode: 'multiply', overprint: true })] })]);
    near(at(13, 20), mul(RED, GREY));
  });

  it('an outside Multiply stroke on a layer drawn as a unit with its overlay multiplies the backdrop', async () => {
    // A colour overlay makes the layer a unit of its own (drawn from transparency): the stroke
    // painted there in Multiply came out as its plain colour.
    for (const overprint of [false, true]) {
      const fx = { solidFill: [{ enabled: true, present: true, blendMode: 'normal', opacity: 1, color: { r: 0, g: 0, b: 255 } }], stroke: [colourStroke(3, 'outside', GREY, { blendMode: 'multiply', overprint })] };
      const at = await render([bg(SKY), square(RED, fx)]);
      near(at(10, 20), mul(SKY, GREY));
      expect(at(20, 20)).toEqual(BLUE);
    }
  });

  it('the top Multiply stroke knocks out the stroke below it; overprinting, it multiplies that stroke', async () => {
    const top = (overprint: boolean) => colourStroke(3, 'outside', GREY, { blendMode: 'multiply', overprint });
    const off = await render([bg(SKY), square(RED, { stroke: [top(false), colourStroke(6, 'outside', YELLOW)] })]);
    near(off(10, 20), mul(SKY, GREY));
    near(off(7, 20), YELLOW);
    const onTop = await render([bg(SKY), square(RED, { stroke: [top(true), colourStroke(6, 'outside', YELLOW)] })]);
    near(onTop(10, 20), mul(YELLOW, GREY));
    near(onTop(7, 20), YELLOW);
  });

  it('a Normal stroke is the same with Overprint on or off, at any opacity', async () => {
    const two = (overprint: boolean) => [colourStroke(3, 'outside', RED, { opacity: 0.5, overprint }), colourStroke(6, 'outside', BLUE)];
    const off = await render([bg(WHITE), square(GREY, { stroke: two(false) })]);
    const on = await render([bg(WHITE), square(GREY, { stroke: two(true) })]);
    for (const x of [7, 9, 10, 11, 13]) expect(off(x, 20)).toEqual(on(x, 20));
    near(off(10, 20), [128, 0, 128]);
  });

  it("a Normal stroke on a Multiply layer ignores the layer's mode", async () => {
    const at = await render([bg(SKY), square(RED, { stroke: [colourStroke(3, 'inside', GREY)] }, { blendMode: 'multiply' })]);
    near(at(13, 20), GREY);
    near(at(20, 20), mul(SKY, RED));
  });
});

describe('made-ac-stroke-modes.psd (test/fixtures/psd-made/make-ac.mjs)', () => {
  it('inside and outside Multiply strokes, Overprint off and on, over a stroke below and an overlay: the merged image the rule gives', async () => {
    const { psnr, worst } = await againstMergedImage('made-ac-stroke-modes.psd');
    console.log(`made-ac-stroke-modes.psd PSNR ${psnr.toFixed(2)} worst ${worst}`);
    expect(worst).toBeLessThanOrEqual(1);
  });
});

describe('an outside stroke under a layer in another mode (soft edge)', () => {
  it("a Multiply layer's half-covered edge pixel multiplies the stroke under it: a·(S·L) + (1 − a)·S", async () => {
    // Columns 12..27 of a red square, its first column at alpha 128/255 (a soft left edge).
    const a = 128 / 255;
    const soft = image(16, 16, (x) => [...RED, x === 0 ? 128 : 255]);
    const at = await render([bg(WHITE), { name: 'sq', left: 12, top: 12, imageData: soft, blendMode: 'multiply', effects: { stroke: [colourStroke(3, 'outside', BLUE)] } as LayerEffectsInfo }]);
    const want = [0, 1, 2].map((c) => a * ((BLUE[c] * RED[c]) / 255) + (1 - a) * BLUE[c]);
    near(at(12, 20), want);
    // Outside: the stroke; inside: white × red.
    expect(at(10, 20)).toEqual(BLUE);
    expect(at(20, 20)).toEqual(RED);
  });
});
