import { writePsdUint8Array, type Layer } from 'ag-psd';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, renderTemplate } from '../../../src/engine';

/**
 * Interior effects of a layer below Fill 100 % (issue 25 §2): Photoshop paints them over the
 * backdrop and the content at Fill as if the layer covered its pixels wholly, and its edge lerps
 * that by the layer's alpha; they add no second coverage on semi-transparent edge pixels.
 */
const GREY = 100;

/** A grey Background and a blue 10×10 layer at (10, 10) whose left column is half covered, with a red colour overlay. */
function overlaid(fillOpacity: number): Uint8Array {
  const bg = { width: 30, height: 30, data: new Uint8ClampedArray(30 * 30 * 4) };
  for (let i = 0; i < 900; i++) bg.data.set([GREY, GREY, GREY, 255], i * 4);
  const px = { width: 10, height: 10, data: new Uint8ClampedArray(400) };
  for (let i = 0; i < 100; i++) px.data.set([0, 0, 255, i % 10 === 0 ? 128 : 255], i * 4);
  const layer: Layer = {
    name: 'square',
    left: 10,
    top: 10,
    imageData: px,
    fillOpacity,
    effects: { solidFill: [{ enabled: true, present: true, blendMode: 'normal', color: { r: 255, g: 0, b: 0 }, opacity: 1 }] },
  };
  return writePsdUint8Array({ width: 30, height: 30, children: [{ name: 'Background', left: 0, top: 0, imageData: bg }, layer] }, { noBackground: false });
}

const at = async (bytes: Uint8Array, x: number, y: number) => {
  const image = await renderTemplate(env.FILES, await compileTemplate(env.FILES, bytes), { scale: 1 });
  const i = (y * 30 + x) * 4;
  return [...image.data.slice(i, i + 3)];
};

describe('interior effects below Fill 100 %', () => {
  it('a colour overlay at Fill 50 % covers the inside wholly and lerps the edge by its alpha alone', async () => {
    const bytes = overlaid(128 / 255);
    expect(await at(bytes, 15, 15)).toEqual([255, 0, 0]);
    // Half covered: halfway from the grey to the red, no blue of the content (drawn before as the
    // content at Fill under the overlay's own coverage: 69 of blue where 50 is right).
    const edge = await at(bytes, 10, 15);
    const want = [GREY + (255 - GREY) * (128 / 255), GREY * (1 - 128 / 255), GREY * (1 - 128 / 255)];
    edge.forEach((v, c) => expect(Math.abs(v - want[c])).toBeLessThanOrEqual(1));
  });

  it('at Fill 0 % the same: the overlay shows, the content does not', async () => {
    const bytes = overlaid(0);
    expect(await at(bytes, 15, 15)).toEqual([255, 0, 0]);
  });
});
