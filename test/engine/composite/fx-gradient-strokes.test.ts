import type { Layer, LayerEffectsInfo } from 'ag-psd';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, renderTemplate } from '../../../src/engine';
import { gradientRamp, type Gradient } from '../../../src/engine/composite/gradient';
import { writeShapeBurst } from '../psd/kit';
import { againstMergedImage, image, type RGB, type StrokePosition } from './kit';

/**
 * Gradient stroke effects. A stroke's Shape Burst gradient ('GrdT' 'shapeburst', which ag-psd cannot read; psd/records.ts
 * reads it): the ramp laid across the band by the distance from the layer's edge, its start at the
 * band's outer side and its end at the inner side (docs/effects.md, "Shape Burst"). Before, such a
 * file was refused with a 422.
 */
const WHITE: RGB = [255, 255, 255];
const BLUE: RGB = [0, 0, 255];
const fill = (w: number, h: number, c: RGB) => image(w, h, () => [...c, 255]);

type Stop = { at: number; c: RGB };
const stops = (...s: Stop[]) => ({
  colorStops: s.map(({ at, c }) => ({ color: { r: c[0], g: c[1], b: c[2] }, location: at, midpoint: 0.5 })),
  opacityStops: [
    { opacity: 1, location: 0, midpoint: 0.5 },
    { opacity: 1, location: 1, midpoint: 0.5 },
  ],
});
const BLACK_TO_WHITE = stops({ at: 0, c: [0, 0, 0] }, { at: 1, c: WHITE });

const gradientStroke = (size: number, position: StrokePosition, gradient: object, extra: object = {}) => ({
  enabled: true,
  present: true,
  size: { units: 'Pixels' as const, value: size },
  position,
  fillType: 'gradient' as const,
  blendMode: 'normal' as const,
  opacity: 1,
  gradient: { type: 'solid', name: 'burst', smoothness: 1, ...gradient, ...extra },
});
const burst = (size: number, position: StrokePosition, gradient: object, extra: object = {}) => gradientStroke(size, position, gradient, { style: 'shapeburst', ...extra });

/** A 40 × 40 white document with a 16 × 16 blue square at (12, 12) carrying `strokes`; row 20 read back. */
async function row(...strokes: object[]): Promise<(x: number) => RGB> {
  const children: Layer[] = [
    { name: 'bg', left: 0, top: 0, imageData: fill(40, 40, WHITE) },
    { name: 'sq', left: 12, top: 12, imageData: fill(16, 16, BLUE), effects: { stroke: strokes } as LayerEffectsInfo },
  ];
  const bytes = writeShapeBurst({ width: 40, height: 40, children });
  const img = await renderTemplate(env.FILES, await compileTemplate(env.FILES, bytes), { scale: 1 });
  return (x) => [...img.data.subarray((20 * 40 + x) * 4, (20 * 40 + x) * 4 + 3)] as RGB;
}

/** Grey level of the black-to-white ramp (smoothness 100 %, Photoshop's default) at t: the geometry is what is tested. */
const ramp = gradientRamp({ type: 'solid', smoothness: 1, ...BLACK_TO_WHITE } as Gradient)!;
const level = (t: number) => Math.round(ramp.rgba[Math.round(t * (ramp.steps - 1)) * 4]);
const grey = (at: (x: number) => RGB, x: number) => {
  const [r, g, b] = at(x);
  expect(r, `x ${x}: ${at(x)}`).toBe(g);
  expect(g, `x ${x}: ${at(x)}`).toBe(b);
  return r;
};

describe("a stroke's Shape Burst gradient", () => {
  it('outside: from the start at the stroke\'s outer edge to the end at the layer\'s edge', async () => {
    const at = await row(burst(6, 'outside', BLACK_TO_WHITE));
    // Pixel x lies (11.5 − x) + ½ px outside the edge at x = 12: t = (6 − d) ÷ 6.
    for (let x = 6; x <= 11; x++) expect(Math.abs(grey(at, x) - level((6 - (12 - x - 0.5)) / 6)), `x ${x}`).toBeLessThanOrEqual(1);
    expect(at(5)).toEqual(WHITE);
    expect(at(12)).toEqual(BLUE);
  });

  it('inside: from the start at the layer\'s edge to the end at the stroke\'s inner edge', async () => {
    const at = await row(burst(6, 'inside', BLACK_TO_WHITE));
    for (let x = 12; x <= 17; x++) expect(Math.abs(grey(at, x) - level((x + 0.5 - 12) / 6)), `x ${x}`).toBeLessThanOrEqual(1);
    expect(at(18)).toEqual(BLUE);
    expect(at(11)).toEqual(WHITE);
  });

  it('centred: across both sides, start outside, end inside', async () => {
    const at = await row(burst(6, 'center', BLACK_TO_WHITE));
    for (let x = 9; x <= 14; x++) expect(Math.abs(grey(at, x) - level((x + 0.5 - 9) / 6)), `x ${x}`).toBeLessThanOrEqual(1);
    expect(at(8)).toEqual(WHITE);
    expect(at(15)).toEqual(BLUE);
  });

  it('reversed: the end at the outer edge', async () => {
    const at = await row(burst(6, 'outside', BLACK_TO_WHITE, { reverse: true }));
    for (let x = 6; x <= 11; x++) expect(Math.abs(grey(at, x) - level(1 - (6 - (12 - x - 0.5)) / 6)), `x ${x}`).toBeLessThanOrEqual(1);
  });

  it('hard stops make several strokes in one: the first third outermost (the "triple stroke" recipe)', async () => {
    // Black to 33 %, white from 33 % to 66 %, dark red from 66 %, a 9 px outside stroke: the recipe
    // tutorials give for three strokes in one effect (sitepoint's and laughing-lion's "triple
    // stroked text"): bands of 3 px, black outermost, dark red against the layer.
    const RED: RGB = [153, 0, 0]; // #990000
    const three = stops({ at: 0, c: [0, 0, 0] }, { at: 0.33, c: [0, 0, 0] }, { at: 0.33, c: WHITE }, { at: 0.66, c: WHITE }, { at: 0.66, c: RED }, { at: 1, c: RED });
    const at = await row(burst(9, 'outside', three));
    // (smoothness 100 %: the ramp's smoothing darkens the red a little; its hue is what tells.)
    const kind = ([r, g, b]: RGB) => (g > 200 && b > 200 && r > 200 ? 'white' : r < 40 && g < 40 && b < 40 ? 'black' : r > 100 && g < 30 && b < 30 ? 'red' : `${r},${g},${b}`);
    expect([2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12].map((x) => kind(at(x)))).toEqual(['white', 'black', 'black', 'black', 'white', 'white', 'white', 'red', 'red', 'red', '0,0,255']);
  });
});

describe('a linear gradient stroke spans the strokes\' extent, not only the layer\'s box', () => {
  it('an outside stroke: from its outer left edge to its outer right edge', async () => {
    // The square's box 12..28 grown by the 6 px the stroke reaches out less one (photocraft's
    // measurement on Photoshop's composites: a 4 px outside stroke on a 22 px square ramps over
    // 28 px): 7..33, ends in pixels 7 and 33 at 0°, t = (x − 7) ÷ 26 (pixel 6 before its start).
    // Over the layer's box alone the whole left band was t < 0, black, and the right band white.
    const at = await row(gradientStroke(6, 'outside', BLACK_TO_WHITE, { style: 'linear', angle: 0 }));
    for (const x of [6, 7, 8, 10, 11, 28, 30, 33]) expect(Math.abs(grey(at, x) - level(Math.max(0, (x - 7) / 26))), `x ${x}`).toBeLessThanOrEqual(1);
  });

  it('an inside stroke of a layer with an outside one too: the same grown box', async () => {
    const at = await row(gradientStroke(2, 'outside', stops({ at: 0, c: [255, 0, 0] }, { at: 1, c: [255, 0, 0] })), gradientStroke(3, 'inside', BLACK_TO_WHITE, { style: 'linear', angle: 0 }));
    // Box 12..28 grown by 2 less one: 11..29, t = (x − 11) ÷ 18.
    for (const x of [12, 13, 14, 25, 26, 27]) expect(Math.abs(grey(at, x) - level((x - 11) / 18)), `x ${x}`).toBeLessThanOrEqual(1);
  });

  it('an inside stroke alone keeps the layer\'s box', async () => {
    const at = await row(gradientStroke(3, 'inside', BLACK_TO_WHITE, { style: 'linear', angle: 0 }));
    for (const x of [12, 13, 14, 25, 26, 27]) expect(Math.abs(grey(at, x) - level((x - 12) / 16)), `x ${x}`).toBeLessThanOrEqual(1);
  });
});

describe('made-y-gradient-strokes.psd (test/fixtures/psd-made/make-y.mjs)', () => {
  it('Shape Burst outside, inside and centred, and a linear outside stroke, against the merged image its script worked out', async () => {
    // The expected pixels rest on the readings above (Photopea's), not on a Photoshop render.
    const { psnr, worst } = await againstMergedImage('made-y-gradient-strokes.psd');
    console.log(`made-y-gradient-strokes.psd PSNR ${psnr.toFixed(2)} worst ${worst}`);
    expect(worst).toBeLessThanOrEqual(2);
  });
});
