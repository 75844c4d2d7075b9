import { writePsdUint8Array, type Layer } from 'ag-psd';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, renderTemplate } from '../../../src/engine';

/**
 * A text layer's gamma ("Blend Text Colors Using Gamma 1.45") shapes its glyphs' anti-aliased
 * edges; its opacity and Fill fade the result in linearly (issue 25 §2, psdtools-layer-effects-all.psd).
 */
const GREY = 129;

/** A grey Background and a black 10×10 "glyph" (a text layer's stored pixels) at (10, 10). */
function textDocument(layer: Partial<Layer>, edgeAlpha = 255): Uint8Array {
  const bg = { width: 30, height: 30, data: new Uint8ClampedArray(30 * 30 * 4) };
  for (let i = 0; i < 900; i++) bg.data.set([GREY, GREY, GREY, 255], i * 4);
  const glyph = { width: 10, height: 10, data: new Uint8ClampedArray(400) };
  for (let i = 0; i < 100; i++) glyph.data.set([0, 0, 0, i % 10 === 0 ? edgeAlpha : 255], i * 4);
  const text: Layer = { name: 'A', left: 10, top: 10, imageData: glyph, text: { text: 'A', transform: [1, 0, 0, 1, 10, 20] }, ...layer };
  return writePsdUint8Array({ width: 30, height: 30, children: [{ name: 'Background', left: 0, top: 0, imageData: bg }, text] }, { noBackground: false });
}

const pixel = async (bytes: Uint8Array, x: number, y: number) => {
  const image = await renderTemplate(env.FILES, await compileTemplate(env.FILES, bytes), { scale: 1 });
  return image.data[(y * 30 + x) * 4];
};

describe('text gamma and opacity', () => {
  it('opacity fades a glyph linearly (through the gamma half a black glyph over grey came out at 80)', async () => {
    // 128/255 opacity as Photoshop stores it: 129 × (1 − 0.502) = 64.3.
    expect(await pixel(textDocument({ opacity: 128 / 255 }), 15, 15)).toBe(64);
  });

  it('so does Fill in Normal mode', async () => {
    expect(await pixel(textDocument({ fillOpacity: 128 / 255 }), 15, 15)).toBe(64);
  });

  it('the edge keeps the gamma: an edge pixel at half coverage, at full opacity, is lighter than linear', async () => {
    const edge = await pixel(textDocument({}, 128), 10, 15);
    const linear = Math.round(GREY * (1 - 128 / 255));
    const gamma = Math.round(Math.pow(Math.pow(GREY / 255, 1.45) * (1 - 128 / 255), 1 / 1.45) * 255);
    expect(edge).not.toBe(linear);
    expect(Math.abs(edge - gamma)).toBeLessThanOrEqual(1);
    // At half opacity the edge pixel is that gamma blend faded in linearly.
    const faded = await pixel(textDocument({ opacity: 128 / 255 }, 128), 10, 15);
    expect(Math.abs(faded - (GREY + (gamma - GREY) * (128 / 255)))).toBeLessThanOrEqual(1);
  });
});
