import { writePsdUint8Array, type Layer, type Psd } from 'ag-psd';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, renderTemplate, walkLayers, type CompiledTemplate } from '../../../src/engine';
import { LayerRenderError } from '../../../src/engine/composite/compositor';
import { postJson, upload } from '../../dynamic-image/helpers';
import { rectPath as rect } from './kit';

/**
 * Valid files that answered 500 on a plain preview (issue 14): groups with masks (pass-through
 * groups holding clipping masks over adjustments or blend modes, a PSB group mask whose default
 * colour is white), nested adjustment compositions and vector masks. Each template is made here
 * with ag-psd; the expected pixels follow from Photoshop's documented compositing, worked out in
 * each test. Colours are checked to ±1 (8-bit rounding of opacity and masks).
 */

const W = 32;
const H = 24;
type RGB = [number, number, number];
const BG: RGB = [200, 100, 50];

function fill(c: RGB, a = 255, w = W, h = H) {
  const data = new Uint8ClampedArray(w * h * 4);
  for (let i = 0; i < w * h; i++) data.set([...c, a], i * 4);
  return { width: w, height: h, data };
}
const pixels = (name: string, c: RGB, extra: Partial<Layer> = {}): Layer => ({ name, top: 0, left: 0, imageData: fill(c), ...extra });
const invert = (name: string, extra: Partial<Layer> = {}): Layer => ({ name, adjustment: { type: 'invert' }, ...extra });
/** A mask: white over `w`×`h` at (left, top), `defaultColor` elsewhere. */
const mask = (left: number, top: number, w: number, h: number, value: number, defaultColor: number) => ({
  top,
  left,
  imageData: fill([value, value, value], 255, w, h),
  defaultColor,
});

/** Every document here: W×H, the backdrop BG, then `layers` over it. */
const overBackdrop = (...layers: Layer[]): Psd => ({ width: W, height: H, children: [pixels('bg', BG), ...layers] });

async function render(layers: Layer[], psb = false): Promise<{ at: (x: number, y: number) => number[]; compiled: CompiledTemplate }> {
  const compiled = await compileTemplate(env.FILES, writePsdUint8Array(overBackdrop(...layers), { psb }));
  const img = await renderTemplate(env.FILES, compiled, { scale: 1 });
  return { compiled, at: (x, y) => [...img.data.subarray((y * img.width + x) * 4, (y * img.width + x) * 4 + 3)] };
}

function near(actual: number[], expected: number[], tolerance = 1) {
  expect(actual.length).toBe(expected.length);
  actual.forEach((v, i) => expect(Math.abs(v - expected[i]), `${actual} vs ${expected}`).toBeLessThanOrEqual(tolerance));
}

const inv = (c: number[]) => c.map((v) => 255 - v);
const lerp = (a: number[], b: number[], t: number) => a.map((v, i) => v + (b[i] - v) * t);

describe('groups with masks (stored and drawn)', () => {
  it('a pass-through group with a mask, holding a clipping mask over an adjustment', async () => {
    // Inside the group the base (10, 200, 30) is drawn over the backdrop and the invert clipped
    // to it turns it into (245, 55, 225). A pass-through group's mask fades between the backdrop
    // and what the group drew: the left half (mask white) shows the group, the right half (the
    // mask's default, black) the backdrop.
    const { at, compiled } = await render([
      {
        name: 'g',
        blendMode: 'pass through',
        mask: mask(0, 0, 16, H, 255, 0),
        children: [pixels('base', [10, 200, 30]), invert('inv', { clipping: true })],
      },
    ]);
    const group = [...walkLayers(compiled.layers)].find((n) => n.name === 'g')!;
    expect(group.mask?.hasPixels).toBe(true);
    near(at(3, 5), [245, 55, 225]);
    near(at(15, 20), [245, 55, 225]);
    near(at(16, 5), BG);
    near(at(31, 23), BG);
  });

  it('a pass-through group with a mask, holding a clipping mask in multiply over an overlay base', async () => {
    // "Blend clipped layers as group" (Photoshop's default): the clipped multiply (128, 128, 128)
    // is composited onto the base alone, (100, 150, 200)·128/255 = (50.2, 75.3, 100.4), and the
    // base's own mode, overlay, then blends that group onto the backdrop (200, 100, 50):
    //   overlay(b, s) = b < 128 ? 2·b·s/255 : 255 − 2·(255−b)·(255−s)/255
    //   R: 255 − 2·55·204.8/255 = 166.7;  G: 2·100·75.3/255 = 59.0;  B: 2·50·100.4/255 = 39.4.
    // The group's mask is white on the top 12 rows only.
    const { at } = await render([
      {
        name: 'g',
        blendMode: 'pass through',
        mask: mask(0, 0, W, 12, 255, 0),
        children: [
          pixels('base', [100, 150, 200], { blendMode: 'overlay' }),
          pixels('mul', [128, 128, 128], { clipping: true, blendMode: 'multiply' }),
        ],
      },
    ]);
    near(at(10, 3), [167, 59, 39]);
    near(at(10, 12), BG);
  });

  it('a PSB whose group mask has a white default colour', async () => {
    // Default colour 255: the mask is white everywhere except the black 10×10 patch at (2, 2);
    // the group's blue shows everywhere but there.
    const { at } = await render([{ name: 'g', mask: mask(2, 2, 10, 10, 0, 255), children: [pixels('blue', [0, 0, 255])] }], true);
    near(at(0, 0), [0, 0, 255]);
    near(at(5, 5), BG);
    near(at(11, 11), BG);
    near(at(12, 12), [0, 0, 255]);
    near(at(30, 20), [0, 0, 255]);
  });

  it('a PSB layer and an adjustment whose masks have a white default colour', async () => {
    const { at } = await render([pixels('blue', [0, 0, 255], { mask: mask(0, 0, 8, 8, 0, 255) }), invert('inv', { mask: mask(16, 0, 16, H, 0, 255) })], true);
    near(at(2, 2), inv(BG)); // blue masked out there; the invert shows the inverted backdrop
    near(at(10, 10), inv([0, 0, 255]));
    near(at(20, 10), [0, 0, 255]); // the invert's mask is black on the right half
    near(at(4, 4 + 8), inv([0, 0, 255]));
  });

  it('a group mask is answered by a plain preview through the route (no 500)', async () => {
    const bytes = writePsdUint8Array(overBackdrop({ name: 'g', mask: mask(2, 2, 10, 10, 0, 255), children: [pixels('b', [0, 0, 255])] }), { psb: true });
    const up = await upload('templates', [['group-mask.psb', bytes]], '?destination=valid&overwrite=true');
    expect(up.status).toBe(201);
    const [name] = (await up.json()) as string[];
    const res = await postJson('/api/rendering/preview', { template: name });
    expect(res.status).toBe(200);
  });
});

describe('nested compositions of adjustment layers', () => {
  it('pass-through groups pass adjustments down; an isolated group keeps them inside', async () => {
    // g1 (pass through) holds g2 (pass through) holding an invert: the backdrop is inverted,
    // (55, 155, 205). Then g1's second invert at opacity 64/255 mixes a quarter of its inverse
    // back in. g3 (normal, so isolated) holds an invert with nothing beneath it inside the group:
    // it changes nothing (Photoshop: a Normal group limits its adjustments to its own layers).
    const once = inv(BG);
    const expected = lerp(once, inv(once), 64 / 255);
    const { at } = await render([
      {
        name: 'g1',
        blendMode: 'pass through',
        children: [{ name: 'g2', blendMode: 'pass through', children: [invert('inv1')] }, invert('inv2', { opacity: 64 / 255 })],
      },
      { name: 'g3', blendMode: 'normal', children: [invert('inv3')] },
    ]);
    near(at(0, 0), expected);
    near(at(31, 23), expected);
  });

  it('adjustments clipped to an adjustment, inside an isolated group over pixels', async () => {
    // g (normal) holds a red layer, an invert over it and a second invert clipped to the first:
    // red → cyan → red again inside the group; the group then covers the backdrop.
    const { at } = await render([{ name: 'g', blendMode: 'normal', children: [pixels('red', [255, 0, 0]), invert('i1'), invert('i2', { clipping: true })] }]);
    near(at(5, 5), [255, 0, 0]);
  });
});

describe('vector masks', () => {
  const vm = { paths: [rect(4, 4, 20, 16)] };

  it('on a layer, a group and an adjustment', async () => {
    const layer = await render([pixels('blue', [0, 0, 255], { vectorMask: vm })]);
    near(layer.at(4, 4), [0, 0, 255]);
    near(layer.at(19, 15), [0, 0, 255]);
    near(layer.at(20, 15), BG);
    near(layer.at(3, 10), BG);
    const group = await render([{ name: 'g', vectorMask: vm, children: [pixels('blue', [0, 0, 255])] }]);
    near(group.at(10, 10), [0, 0, 255]);
    near(group.at(25, 10), BG);
    const adjustment = await render([invert('inv', { vectorMask: vm })]);
    near(adjustment.at(10, 10), inv(BG));
    near(adjustment.at(25, 10), BG);
  });

  it('combined with a pixel mask, inverted, and in a PSB', async () => {
    // Vector mask × pixel mask: blue only inside the rectangle and where the mask is white.
    const both = await render(
      [
        pixels('blue', [0, 0, 255], { vectorMask: vm, mask: mask(0, 0, 10, H, 255, 0) }),
        pixels('green', [0, 255, 0], { vectorMask: { ...vm, invert: true }, opacity: 1 }),
      ],
      true,
    );
    near(both.at(6, 6), [0, 0, 255]);
    near(both.at(12, 6), BG); // inside the path, outside the pixel mask
    near(both.at(25, 20), [0, 255, 0]); // the inverted path covers what lies outside the rectangle
  });
});

describe('a layer the compositor cannot draw', () => {
  it('fails naming the layer and its features', async () => {
    const bytes = writePsdUint8Array(overBackdrop(pixels('photo', [1, 2, 3], { blendMode: 'multiply' })));
    const compiled = structuredClone(await compileTemplate(env.FILES, bytes));
    // A tree that promises mask pixels R2 does not hold (as group masks were, before they were stored).
    const photo = [...walkLayers(compiled.layers)].find((n) => n.name === 'photo')!;
    photo.mask = { bounds: { left: 0, top: 0, right: W, bottom: H }, defaultColor: 0, disabled: false, hasPixels: true };
    const err = await renderTemplate(env.FILES, compiled, { scale: 1 }).catch((e) => e);
    expect(err).toBeInstanceOf(LayerRenderError);
    expect((err as LayerRenderError).message).toMatch(/layer "photo" \(image layer, blend mode multiply, layer mask\) could not be drawn/);
  });
});
