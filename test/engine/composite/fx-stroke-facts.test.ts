import { writePsdUint8Array, type Layer, type LayerEffectsInfo } from 'ag-psd';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, renderTemplate } from '../../../src/engine';
import { chamferDistance } from '../../../src/engine/composite/morphology';
import { blackShadow, colourStroke as stroke, image, rectPath, type RGB, type StrokePosition } from './kit';

/**
 * Facts about Photoshop's stroke effect that psd-tools' tests measured on Photoshop's own renders
 * of its fixtures (tests/psd_tools/composite/test_effects.py, test_stroke_blend_mode.py; the
 * fixture names in each case), rebuilt here as small documents written with ag-psd and drawn
 * through our whole pipeline (compile, render). docs/effects.md, "Stroke facts from psd-tools'
 * tests".
 */
const WHITE: RGB = [255, 255, 255];
const GREY: RGB = [128, 128, 128];
const RED: RGB = [255, 0, 0];
const GREEN: RGB = [0, 180, 0];
const BLUE: RGB = [0, 0, 255];

const fill = (w: number, h: number, c: RGB, a = 255) => image(w, h, () => [...c, a]);
const bg = (w: number, h: number, c: RGB = WHITE): Layer => ({ name: 'bg', left: 0, top: 0, imageData: fill(w, h, c) });

const effects = (...strokes: ReturnType<typeof stroke>[]): LayerEffectsInfo => ({ stroke: strokes } as LayerEffectsInfo);

async function render(width: number, height: number, children: Layer[]) {
  const bytes = writePsdUint8Array({ width, height, children });
  const img = await renderTemplate(env.FILES, await compileTemplate(env.FILES, bytes), { scale: 1 });
  const at = (x: number, y: number): RGB => [...img.data.subarray((y * width + x) * 4, (y * width + x) * 4 + 3)] as RGB;
  return { img, at };
}

const near = (got: number[], want: number[], tol = 1) => got.forEach((v, c) => expect(Math.abs(v - want[c]), `${got} vs ${want.map(Math.round)}`).toBeLessThanOrEqual(tol));
const mix = (parts: Array<[RGB, number]>): number[] => [0, 1, 2].map((c) => parts.reduce((s, [col, w]) => s + col[c] * w, 0));

describe('stroke geometry on hard edges (center-stroke-sizes.psd, inset-stroke-sizes.psd)', () => {
  it('a centred stroke reaches ceil(size / 2) px outside the layer', async () => {
    for (const size of [1, 2, 3, 5, 7]) {
      const { at } = await render(40, 40, [bg(40, 40), { name: 'sq', left: 12, top: 12, imageData: fill(16, 16, BLUE), effects: effects(stroke(size, 'center', RED)) }]);
      let reach = 0;
      while (reach < 10 && at(11 - reach, 20).join() !== WHITE.join()) reach++;
      expect(reach, `size ${size}`).toBe(Math.ceil(size / 2));
      // and the same on the right, below and above
      let right = 0;
      while (right < 10 && at(28 + right, 20).join() !== WHITE.join()) right++;
      expect(right, `size ${size}`).toBe(Math.ceil(size / 2));
    }
  });

  it('an inset stroke is exactly `size` px deep, on a square that fills its own box', async () => {
    for (const size of [1, 2, 3, 5, 7]) {
      const { at } = await render(40, 40, [bg(40, 40), { name: 'sq', left: 12, top: 12, imageData: fill(16, 16, BLUE), effects: effects(stroke(size, 'inside', RED)) }]);
      let depth = 0;
      while (depth < 16 && at(12 + depth, 20)[0] > 128) depth++;
      expect(depth, `size ${size}`).toBe(size);
      let fromRight = 0;
      while (fromRight < 16 && at(27 - fromRight, 20)[0] > 128) fromRight++;
      expect(fromRight, `size ${size}`).toBe(size);
      // and whole pixels: no fractional edge (inset-stroke-sizes.psd is matched bit for bit)
      expect(at(12 + size, 20)).toEqual(BLUE);
    }
  });
});

describe('several strokes (double-stroke-effects.psd)', () => {
  it('every stroke traces the layer, not the stroke before it', async () => {
    const { at } = await render(40, 40, [bg(40, 40), { name: 'sq', left: 12, top: 12, imageData: fill(16, 16, GREEN), effects: effects(stroke(3, 'outside', RED), stroke(3, 'inside', BLUE)) }]);
    for (const x of [9, 10, 11]) expect(at(x, 20)).toEqual(RED);
    for (const x of [12, 13, 14]) expect(at(x, 20)).toEqual(BLUE);
    expect(at(15, 20)).toEqual(GREEN);
    expect(at(8, 20)).toEqual(WHITE);
  });

  it('the first listed is on top whatever the positions: an outside stroke over a wider centred one listed after it', async () => {
    // Photopea composites a layer's strokes in list order into one buffer, the first on top
    // (its stroke loop runs the list backwards); Photoshop's "the one on top is hiding the one
    // below it" (KelbyOne's double-stroke tip) for strokes of one position.
    const { at } = await render(40, 40, [bg(40, 40), { name: 'sq', left: 12, top: 12, imageData: fill(16, 16, GREEN), effects: effects(stroke(2, 'outside', RED), stroke(6, 'center', BLUE)) }]);
    for (const x of [10, 11]) expect(at(x, 20), `x ${x}`).toEqual(RED);
    expect(at(9, 20)).toEqual(BLUE);
    for (const x of [12, 13, 14]) expect(at(x, 20), `x ${x}`).toEqual(BLUE);
    expect(at(15, 20)).toEqual(GREEN);
    expect(at(8, 20)).toEqual(WHITE);
  });

  it('the first listed is on top where two outside strokes overlap', async () => {
    const { at } = await render(40, 40, [bg(40, 40), { name: 'sq', left: 12, top: 12, imageData: fill(16, 16, GREEN), effects: effects(stroke(2, 'outside', RED), stroke(5, 'outside', BLUE)) }]);
    for (const x of [10, 11]) expect(at(x, 20)).toEqual(RED);
    for (const x of [7, 8, 9]) expect(at(x, 20)).toEqual(BLUE);
  });
});

describe('the boundary read off coverage (antialiased-stroke-edge.psd, #799 rows)', () => {
  it('measures from the nearest boundary a pixel states, not the nearest pixel', () => {
    // Photoshop's 1 px outset stroke on this row (a layer mask, and its mirror image): the middle
    // pixel at 0.9, from the 90 % pixel's edge 0.4 px beyond its centre.
    const d = chamferDistance(Float32Array.from([0, 0.1, 0, 0.9, 0]), 5, 1);
    [1.4, 0.4, 0.6, -0.4, 0.6].forEach((v, i) => expect(d[i]).toBeCloseTo(v, 5));
  });

  it("an outside stroke's far edge moves with the edge pixel's coverage, monotonically", async () => {
    const far: number[] = [];
    for (const a of [0.25, 0.5, 0.75]) {
      const px = image(16, 16, (x) => [...BLUE, x === 15 ? Math.round(a * 255) : 255]);
      const { at } = await render(40, 40, [bg(40, 40), { name: 'sq', left: 12, top: 12, imageData: px, effects: effects(stroke(3, 'outside', RED)) }]);
      // The stroke's far edge: 3 px past the partial pixel's edge at 27 + a.
      far.push(255 - at(30, 20)[1]);
      const want = Math.max(0, Math.min(1, 3 - (30.5 - (27 + a)) + 0.5));
      expect(Math.abs(255 - at(30, 20)[1] - want * 255)).toBeLessThanOrEqual(2);
    }
    expect(far[0]).toBeLessThan(far[1]);
    expect(far[1]).toBeLessThan(far[2]);
  });
});

describe('strokes on soft edges: composited into the layer (feathered-stroke.psd, #846)', () => {
  // A green 16 × 16 layer over grey whose layer mask ramps up over its first six columns; Photoshop's
  // render solved for the weights of the layer's colour L, the stroke's S and the backdrop B:
  // outset aL + (1 − a)S, inset aS + (1 − a)B, centred S, with no B term in the first.
  const ramp = [0.1, 0.25, 0.4, 0.55, 0.7, 0.85];
  const mask = image(16, 16, (x) => {
    const v = Math.round((x < 6 ? ramp[x] : 1) * 255);
    return [v, v, v, 255];
  });
  const doc = (position: StrokePosition, size: number) =>
    render(40, 40, [bg(40, 40, GREY), { name: 'sq', left: 12, top: 12, imageData: fill(16, 16, GREEN), mask: { left: 12, top: 12, right: 28, bottom: 28, defaultColor: 0, imageData: mask }, effects: effects(stroke(size, position, RED)) }]);

  for (const size of [3, 6]) {
    it(`outset ${size}: the layer over an opaque stroke across its whole ramp`, async () => {
      const { at } = await doc('outside', size);
      ramp.forEach((r, x) => {
        const a = Math.round(r * 255) / 255;
        near(at(12 + x, 20), mix([[GREEN, a], [RED, 1 - a]]), 2);
      });
      // and outside the layer the plain band
      expect(at(11, 20)).toEqual(RED);
    });

    it(`inset ${size}: the stroke within the layer's own alpha`, async () => {
      const { at } = await doc('inside', size);
      ramp.forEach((r, x) => {
        const a = Math.round(r * 255) / 255;
        near(at(12 + x, 20), mix([[RED, a], [GREY, 1 - a]]), 2);
      });
    });

    it(`centred ${size}: the stroke alone over the ramp`, async () => {
      const { at } = await doc('center', size);
      ramp.forEach((_, x) => near(at(12 + x, 20), RED, 2));
    });
  }
});

describe('a layer running off the canvas (stroke-effect-transparent-shape.psd, #804)', () => {
  it("an inset stroke traces the layer's edge one pixel past the canvas, not the canvas's", async () => {
    // A 32 × 32 document; a green layer from (−1, −1) to (33, 33) with a 4 px inset stroke: three
    // columns of stroke on the canvas, then the green interior.
    const { at } = await render(32, 32, [bg(32, 32), { name: 'sq', left: -1, top: -1, imageData: fill(34, 34, GREEN), effects: effects(stroke(4, 'inside', RED)) }]);
    expect(at(0, 16)).toEqual(RED);
    expect(at(2, 16)).toEqual(RED);
    expect(at(3, 16)).toEqual(GREEN);
    expect(at(31, 16)).toEqual(RED);
    expect(at(28, 16)).toEqual(GREEN);
  });

  it('the same for a shape layer whose path runs off the canvas', async () => {
    const { at } = await render(32, 32, [
      bg(32, 32),
      {
        name: 'shape',
        left: -2,
        top: -2,
        imageData: image(36, 36, (x, y) => [...GREEN, x >= 1 && x < 35 && y >= 1 && y < 35 ? 255 : 0]),
        vectorMask: { paths: [rectPath(-1, -1, 33, 33)] },
        vectorFill: { type: 'color', color: { r: GREEN[0], g: GREEN[1], b: GREEN[2] } },
        effects: effects(stroke(4, 'inside', RED)),
      },
    ]);
    expect(at(0, 16)).toEqual(RED);
    expect(at(2, 16)).toEqual(RED);
    expect(at(3, 16)).toEqual(GREEN);
  });
});

describe('strokes of groups and in groups (group-stroke-off-canvas.psd, group-clips-child-stroke.psd, #808)', () => {
  it("a group's stroke traces the group past the canvas, and its real edge at x = 0", async () => {
    // An L: a blue arm (−12..12 × 4..14) and a green leg (0..12 × 14..28); a 4 px inset stroke on
    // the group. Row 8 runs through the arm, which continues off the canvas: no band at x = 0..3.
    // Row 20 is the leg alone, whose left edge is x = 0: red there.
    const { at } = await render(96, 32, [
      bg(96, 32),
      {
        name: 'group',
        blendMode: 'normal',
        effects: effects(stroke(4, 'inside', RED)),
        children: [
          { name: 'leg', left: 0, top: 14, imageData: fill(12, 14, GREEN) },
          { name: 'arm', left: -12, top: 4, imageData: fill(24, 10, BLUE) },
        ],
      },
    ]);
    for (const x of [0, 1, 2, 3]) expect(at(x, 8)).toEqual(BLUE);
    for (const x of [0, 1, 2, 3]) expect(at(x, 20)).toEqual(RED);
    expect(at(4, 20)).toEqual(GREEN);
  });

  it("a child's outset and centred strokes are not cut to the isolated group's box", async () => {
    const square = (left: number, position: StrokePosition): Layer => ({
      name: `g-${position}`,
      blendMode: 'normal',
      children: [{ name: 'sq', left, top: 8, imageData: fill(16, 16, BLUE), effects: effects(stroke(3, position, RED)) }],
    });
    const { at } = await render(96, 32, [bg(96, 32), square(8, 'outside'), square(40, 'center')]);
    for (const x of [5, 6, 7]) expect(at(x, 16)).toEqual(RED);
    expect(at(8, 16)).toEqual(BLUE);
    expect(at(4, 16)).toEqual(WHITE);
    expect(at(32 + 7, 16)).toEqual(RED);
    near(at(32 + 6, 16), [255, 127.5, 127.5], 1);
    expect(at(32 + 5, 16)).toEqual(WHITE);
  });
});

describe('fill opacity 0 and switched-off effects (shape-fx2.psd, shape-fx.psd)', () => {
  it('at Fill 0 an inset stroke shows at the layer\'s own alpha on its soft edge, the interior clear', async () => {
    const px = image(16, 16, (x) => [...BLUE, x === 0 ? 128 : 255]);
    const { at } = await render(40, 40, [bg(40, 40, GREY), { name: 'sq', left: 12, top: 12, imageData: px, fillOpacity: 0, effects: effects(stroke(4, 'inside', RED)) }]);
    near(at(12, 20), mix([[RED, 128 / 255], [GREY, 1 - 128 / 255]]), 1);
    expect(at(14, 20)).toEqual(RED);
    expect(at(20, 20)).toEqual(GREY);
  });

  it('effects switched off as a whole draw nothing', async () => {
    const { at } = await render(40, 40, [bg(40, 40), { name: 'sq', left: 12, top: 12, imageData: fill(16, 16, BLUE), effects: { ...effects(stroke(3, 'outside', RED)), disabled: true } }]);
    expect(at(10, 20)).toEqual(WHITE);
  });
});

describe("a shape's own stroke (stroke-blend-mode.psd, #940)", () => {
  it('ignores its blend mode: a Multiply vector stroke draws as Normal', async () => {
    const shape = (blendMode: string): Layer => ({
      name: 'shape',
      left: 8,
      top: 8,
      // The pixels as Photoshop bakes them: the fill with the 4 px centred red stroke over it.
      imageData: image(24, 24, (x, y) => {
        const inBand = Math.min(x, y, 23 - x, 23 - y) < 4;
        return inBand ? [...RED, 255] : [...GREEN, 255];
      }),
      vectorMask: { paths: [rectPath(10, 10, 30, 30)] },
      vectorFill: { type: 'color', color: { r: GREEN[0], g: GREEN[1], b: GREEN[2] } },
      vectorStroke: {
        strokeEnabled: true,
        fillEnabled: true,
        lineWidth: { units: 'Pixels', value: 4 },
        lineAlignment: 'center',
        blendMode: blendMode as 'normal',
        content: { type: 'color', color: { r: RED[0], g: RED[1], b: RED[2] } },
      },
      // A colour overlay: the stroke is redrawn from its path over it.
      effects: { solidFill: [{ enabled: true, present: true, blendMode: 'normal', color: { r: 0, g: 0, b: 255 }, opacity: 1 }] },
    });
    const normal = await render(40, 40, [bg(40, 40, GREY), shape('normal')]);
    const multiply = await render(40, 40, [bg(40, 40, GREY), shape('multiply')]);
    for (const x of [8, 9, 10, 11]) expect(normal.at(x, 20)).toEqual(RED);
    expect(normal.at(12, 20)).toEqual(BLUE);
    for (const x of [8, 9, 10, 11, 12]) expect(multiply.at(x, 20)).toEqual(normal.at(x, 20));
  });
});

describe('effects left in the block but not listed (psd-tools #830, #845: layer_comps.psd "Фигура 1")', () => {
  it('an enabled stroke and drop shadow with present false are not drawn; present true or absent are', async () => {
    // `present` as given, or no such key (the old 'lrFX' block has none).
    const listed = <T extends { present?: boolean }>(e: T, present: boolean | undefined): T => {
      const { present: _, ...rest } = e;
      return (present === undefined ? rest : { ...rest, present }) as T;
    };
    const layer = (present: boolean | undefined): Layer => ({
      name: 'sq',
      left: 12,
      top: 12,
      imageData: fill(16, 16, BLUE),
      effects: {
        stroke: [listed(stroke(3, 'outside', RED), present)],
        dropShadow: [listed(blackShadow({ distance: 6, size: 0, choke: 0 }), present)],
      } as LayerEffectsInfo,
    });
    const gone = await render(40, 40, [bg(40, 40), layer(false)]);
    expect(gone.at(10, 20)).toEqual(WHITE); // no stroke
    expect(gone.at(20, 30)).toEqual(WHITE); // no shadow below the square (28..33)
    expect(gone.at(20, 20)).toEqual(BLUE);
    for (const present of [true, undefined]) {
      const { at } = await render(40, 40, [bg(40, 40), layer(present)]);
      expect(at(10, 20), `present ${present}`).toEqual(RED);
      expect(at(20, 33), `present ${present}`).toEqual([0, 0, 0]);
    }
  });
});

describe('a shape without fill or stroke (Photopea #1618: its styles still show, traced from the path)', () => {
  const hollow = (pixels: 'empty' | 'filled', effects: LayerEffectsInfo): Layer => ({
    name: 'hollow',
    left: 12,
    top: 12,
    imageData: image(16, 16, () => (pixels === 'filled' ? [...GREEN, 255] : [0, 0, 0, 0])),
    vectorMask: { paths: [rectPath(12, 12, 28, 28)] },
    vectorFill: { type: 'color', color: { r: GREEN[0], g: GREEN[1], b: GREEN[2] } },
    vectorStroke: { strokeEnabled: false, fillEnabled: false, lineWidth: { units: 'Pixels', value: 1 }, content: { type: 'color', color: { r: 0, g: 0, b: 0 } } },
    effects,
  });

  it('an outside stroke rings the path and the inside stays clear, whatever the stored pixels hold', async () => {
    for (const pixels of ['empty', 'filled'] as const) {
      const { at } = await render(40, 40, [bg(40, 40), hollow(pixels, effects(stroke(3, 'outside', RED)))]);
      for (const x of [9, 10, 11, 28, 29, 30]) expect(at(x, 20), `${pixels} x ${x}`).toEqual(RED);
      for (const x of [12, 20, 27]) expect(at(x, 20), `${pixels} x ${x}`).toEqual(WHITE);
      expect(at(8, 20)).toEqual(WHITE);
    }
  });

  it('an inside stroke and a colour overlay fill the path', async () => {
    const fx = { stroke: [stroke(2, 'inside', RED)], solidFill: [{ enabled: true, present: true, blendMode: 'normal', color: { r: 0, g: 0, b: 255 }, opacity: 1 }] } as LayerEffectsInfo;
    const { at } = await render(40, 40, [bg(40, 40), hollow('empty', fx)]);
    for (const x of [12, 13, 26, 27]) expect(at(x, 20), `x ${x}`).toEqual(RED);
    for (const x of [14, 20, 25]) expect(at(x, 20), `x ${x}`).toEqual(BLUE);
    expect(at(11, 20)).toEqual(WHITE);
  });
});
