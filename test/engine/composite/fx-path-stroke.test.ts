import { writePsdUint8Array, type Layer, type LayerEffectsInfo } from 'ag-psd';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, renderTemplate } from '../../../src/engine';
import { colourStroke, image, rectPath, type RGB, type StrokePosition } from './kit';

/**
 * A shape layer's effects trace its path, not its stored fill, where the fill fades inside the
 * path. psd-tools' test_effects.py (test_stroke_effects_xfail, on Photoshop's render of
 * stroke-effects.psd): "a shape layer's stroke is traced from its rasterized fill, and where that
 * fill fades to transparent the trace fades with it, so a stroke lands across an interior Photoshop
 * leaves alone -- Photoshop strokes the path". docs/effects.md, "A shape's effects trace its path".
 */
const WHITE: RGB = [255, 255, 255];
const RED: RGB = [255, 0, 0];
const BLUE: RGB = [0, 0, 255];

const bg = (w: number, h: number): Layer => ({ name: 'bg', left: 0, top: 0, imageData: image(w, h, () => [...WHITE, 255]) });
const stroke = (size: number, position: StrokePosition) => colourStroke(size, position, RED);

// Blue, opaque on the left, fading to nothing half-way across the path (the gradient's own pixels
// as Photoshop stores them: the fill × the path).
const fade = (x: number) => Math.max(0, Math.round(255 * (1 - x / 10)));
const gradientFill = (transparent: boolean) =>
  ({
    type: 'solid',
    name: 'fade',
    colorStops: [
      { color: { r: 0, g: 0, b: 255 }, location: 0, midpoint: 50 },
      { color: { r: 0, g: 0, b: 255 }, location: 4096, midpoint: 50 },
    ],
    opacityStops: [
      { opacity: 1, location: 0, midpoint: 50 },
      { opacity: transparent ? 0 : 1, location: 2048, midpoint: 50 },
    ],
    style: 'linear',
    angle: 0,
  }) as unknown as Layer['vectorFill'];

function shape(effects: LayerEffectsInfo, alphaAt: (x: number) => number, transparent = true): Layer {
  return {
    name: 'shape',
    left: 10,
    top: 10,
    imageData: image(20, 20, (x) => [...BLUE, alphaAt(x)]),
    vectorMask: { paths: [rectPath(10, 10, 30, 30)] },
    vectorFill: gradientFill(transparent),
    effects,
  };
}

async function render(children: Layer[]) {
  const bytes = writePsdUint8Array({ width: 40, height: 40, children });
  const img = await renderTemplate(env.FILES, await compileTemplate(env.FILES, bytes), { scale: 1 });
  return (x: number, y: number): RGB => [...img.data.subarray((y * 40 + x) * 4, (y * 40 + x) * 4 + 3)] as RGB;
}

describe("a soft-filled shape's effects follow its path (stroke-effects.psd)", () => {
  it('an outside stroke rings the path, none where the fill fades inside it', async () => {
    const at = await render([bg(40, 40), shape({ stroke: [stroke(3, 'outside')] } as LayerEffectsInfo, fade)]);
    // The band outside every side of the path, the right one included (the fill is gone there).
    for (const x of [7, 8, 9, 30, 31, 32]) expect(at(x, 20), `x ${x}`).toEqual(RED);
    expect(at(20, 7)).toEqual(RED);
    expect(at(25, 32)).toEqual(RED);
    // Inside the path: the fill and white where it has faded, no red.
    for (let x = 10; x < 30; x++) expect(at(x, 20)[0], `x ${x}`).toBe(255 - fade(x - 10));
    for (let x = 10; x < 30; x++) expect(at(x, 20)[1], `x ${x}`).toBe(255 - fade(x - 10));
    expect(at(33, 20)).toEqual(WHITE);
  });

  it('an inside stroke lies along the path only, at the fill’s own alpha (#846), none across the fade', async () => {
    const at = await render([bg(40, 40), shape({ stroke: [stroke(2, 'inside')] } as LayerEffectsInfo, fade)]);
    expect(at(10, 20)).toEqual(RED);
    // Within the layer's alpha a: aS + (1 − a)B (feathered-stroke.psd), a = 230/255 here.
    expect(at(11, 20)).toEqual([255, 25, 25]);
    expect(at(15, 10)).toEqual([255, 127, 127]);
    // Across the fade nothing of the stroke: the fill over white, no red.
    for (let x = 12; x < 30; x++) expect(at(x, 20), `x ${x}`).toEqual([255 - fade(x - 10), 255 - fade(x - 10), 255]);
    expect(at(30, 20)).toEqual(WHITE);
  });

  it("a shape's own stroke beyond the path is outlined too (its pixels reach past the path)", async () => {
    // A 2 px outside vector stroke in the stored pixels (x 30..31, opaque red), the fill fading
    // to nothing before it: the effect's outside stroke starts past it, at x = 32.
    const layer = shape({ stroke: [{ ...stroke(2, 'outside'), color: { r: 0, g: 160, b: 0 } }] } as LayerEffectsInfo, fade);
    layer.left = 8;
    layer.top = 8;
    layer.imageData = image(24, 24, (x, y) => {
      const inPath = x >= 2 && x < 22 && y >= 2 && y < 22;
      return inPath ? [...BLUE, fade(x - 2)] : [255, 0, 0, 255];
    });
    layer.vectorStroke = { strokeEnabled: true, fillEnabled: true, lineWidth: { units: 'Pixels', value: 2 }, lineAlignment: 'outside', content: { type: 'color', color: { r: 255, g: 0, b: 0 } } } as Layer['vectorStroke'];
    const at = await render([bg(40, 40), layer]);
    expect(at(31, 20)).toEqual(RED);
    expect(at(32, 20)).toEqual([0, 160, 0]);
    expect(at(33, 20)).toEqual([0, 160, 0]);
    expect(at(34, 20)).toEqual(WHITE);
    expect(at(25, 20)).toEqual([255 - fade(15), 255 - fade(15), 255]);
  });

  it('a solid fill keeps tracing its stored pixels (opaque stops: not a soft fill)', async () => {
    // Stored pixels narrower than the path: with an opaque fill the pixels are the truth.
    const at = await render([bg(40, 40), shape({ stroke: [stroke(2, 'outside')] } as LayerEffectsInfo, (x) => (x < 15 ? 255 : 0), false)]);
    expect(at(25, 20)).toEqual(RED);
    expect(at(26, 20)).toEqual(RED);
    expect(at(27, 20)).toEqual(WHITE);
  });
});
