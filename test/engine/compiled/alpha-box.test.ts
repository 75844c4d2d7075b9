import { writePsdUint8Array, type Layer } from 'ag-psd';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, renderTemplate, walkLayers } from '../../../src/engine';
import { clearEngineCaches } from '../../../src/engine/cache';
import { AlphaBox } from '../../../src/engine/compiled/alpha-box';
import type { CompiledTemplate } from '../../../src/engine/types';
import { blackToWhiteOverlay } from '../composite/gradient-overlay-fixture';

/**
 * The box of a layer's non-zero alpha, found at compile and spanned by "Align with Layer"
 * gradients (issue 25 §2; docs/effects.md, "The box of the layer's alpha").
 */

/** A 40 × 6 red layer at (8, 4) inside a layer box with `pad` clear pixels all round, under a black → white 0° overlay. */
function paddedDocument(pad: number, left = 8 - pad): Uint8Array {
  const w = 40 + 2 * pad;
  const h = 6 + 2 * pad;
  const data = new Uint8ClampedArray(w * h * 4);
  for (let y = pad; y < h - pad; y++) for (let x = pad; x < w - pad; x++) data.set([255, 0, 0, 255], (y * w + x) * 4);
  const layer: Layer = {
    name: 'padded',
    left,
    top: 4 - pad,
    imageData: { width: w, height: h, data },
    effects: blackToWhiteOverlay(0),
  };
  const bg = { width: 64, height: 16, data: new Uint8ClampedArray(64 * 16 * 4).fill(255) };
  return writePsdUint8Array({ width: 64, height: 16, children: [{ name: 'Background', left: 0, top: 0, imageData: bg }, layer] }, { noBackground: false });
}

const layerNamed = (compiled: CompiledTemplate, name: string) => [...walkLayers(compiled.layers)].find((n) => n.name === name)!;

describe('AlphaBox', () => {
  it('spans the non-zero alpha of the rows it is given, in template pixels', () => {
    const box = new AlphaBox({ left: 10, top: 0, right: 16, bottom: 20 });
    const row = (...alpha: number[]) => Uint8Array.from(alpha.flatMap((a) => [9, 9, 9, a]));
    box.add(3, row(0, 0, 0, 0, 0, 0));
    box.add(4, row(0, 0, 7, 0, 0, 0));
    box.add(5, row(0, 1, 0, 0, 255, 0));
    box.add(6, row(0, 0, 0, 0, 0, 0));
    expect(box.result({ left: 10, top: 0, right: 16, bottom: 20 })).toEqual({ left: 11, top: 4, right: 15, bottom: 6 });
  });

  it('gives a side that reaches the crop\'s edge back to the layer\'s bounds (rows off the canvas are not read)', () => {
    const crop = { left: 0, top: 0, right: 4, bottom: 10 };
    const box = new AlphaBox(crop);
    box.add(2, Uint8Array.from([0, 0, 0, 255, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]));
    expect(box.result({ left: -5, top: -3, right: 4, bottom: 10 })).toEqual({ left: -5, top: 2, right: 1, bottom: 3 });
  });

  it('is null when every pixel is clear', () => {
    const box = new AlphaBox({ left: 0, top: 0, right: 2, bottom: 2 });
    box.add(0, new Uint8Array(8));
    expect(box.result({ left: 0, top: 0, right: 2, bottom: 2 })).toBeNull();
  });
});

describe('a layer\'s alpha box at compile', () => {
  it('is stored beside the bounds, without the clear border', async () => {
    const compiled = await compileTemplate(env.FILES, paddedDocument(3));
    const node = layerNamed(compiled, 'padded');
    expect(node.bounds).toEqual({ left: 5, top: 1, right: 51, bottom: 13 });
    expect(node.alphaBounds).toEqual({ left: 8, top: 4, right: 48, bottom: 10 });
  });

  it('keeps the bounds where the layer runs off the canvas', async () => {
    // The layer starts 5 px left of the canvas: its clear border there is never read.
    const compiled = await compileTemplate(env.FILES, paddedDocument(3, -5));
    const node = layerNamed(compiled, 'padded');
    expect(node.alphaBounds).toEqual({ left: -5, top: 4, right: 38, bottom: 10 });
  });

  it('aligns a gradient overlay with the pixels, as without the clear border; strips draw the same', async () => {
    const padded = await compileTemplate(env.FILES, paddedDocument(3));
    const tight = await compileTemplate(env.FILES, paddedDocument(0));
    const whole = await renderTemplate(env.FILES, padded, { scale: 1 });
    expect(whole.data).toEqual((await renderTemplate(env.FILES, tight, { scale: 1 })).data);
    // t = (x − 8) / 40: black at the first pixel, half-way at 28.
    expect(whole.data[(6 * 64 + 8) * 4]).toBe(0);
    expect(whole.data[(6 * 64 + 28) * 4]).toBe(128);
    for (const [top, bottom] of [[0, 5], [5, 7], [7, 16]]) {
      const strip = await renderTemplate(env.FILES, padded, { scale: 1, region: { top, bottom } });
      expect(strip.data).toEqual(whole.data.subarray(top * 64 * 4, bottom * 64 * 4));
    }
  });

  it('templates compiled before it (no alphaBounds) keep spanning the stored bounds', async () => {
    const padded = await compileTemplate(env.FILES, paddedDocument(3));
    const old: CompiledTemplate = structuredClone(padded);
    delete layerNamed(old, 'padded').alphaBounds;
    clearEngineCaches(); // the same hash: nothing drawn from the new form may be reused
    const frame = await renderTemplate(env.FILES, old, { scale: 1 });
    // Over the stored box 5..51: t = (x − 5) / 46, so the first red pixel (8) is no longer black.
    expect(frame.data[(6 * 64 + 5) * 4]).toBe(255); // clear: the white background
    expect(frame.data[(6 * 64 + 8) * 4]).toBeGreaterThan(0);
  });
});
