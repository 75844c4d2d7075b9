import { writePsdUint8Array, type Layer, type Psd } from 'ag-psd';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, renderTemplate } from '../../../src/engine';
import { knockoutBlend } from '../../../src/engine/composite/knockout';
import type { Surface } from '../../../src/engine/composite/surface';
import { vectorCandidates } from '../../../src/engine/pdf/vector';
import { readLayerRecords } from '../../../src/engine/psd/records';
import type { LayerNode } from '../../../src/engine/types';

/**
 * Knockout (Blending Options > Knockout: shallow, deep). Where the knocking-out layer is, it
 * blends onto the backdrop its group started from (shallow; transparency in a group that is not
 * pass-through) or the document's Background (deep) instead of onto the layers between:
 * canvas ← lerp(canvas, target ⊕ layer at its fill, opacity · shape). See composite/knockout.ts.
 */

type RGB = [number, number, number];
const W = 16;
const H = 8;
const BG: RGB = [200, 100, 50];
const BLUE: RGB = [0, 0, 255];
const GREEN: RGB = [20, 180, 60];
const YELLOW: RGB = [255, 255, 0];

const fillImage = (c: RGB, w = W, h = H, a = 255) => {
  const data = new Uint8ClampedArray(w * h * 4);
  for (let i = 0; i < w * h; i++) data.set([...c, a], i * 4);
  return { width: w, height: h, data };
};
const surface = (c: RGB, a = 255): Surface => ({ x: 0, y: 0, w: 1, h: 1, data: new Uint8ClampedArray([...c, a]) });

/** Photoshop writes knko 2 for deep; ag-psd writes only 0/1. Sets the n-th knko block to deep. */
function deepen(bytes: Uint8Array, n: number): Uint8Array {
  const key = [...'8BIMknko'].map((c) => c.charCodeAt(0));
  let seen = 0;
  for (let i = 0; i + 12 < bytes.length; i++) {
    if (key.every((k, j) => bytes[i + j] === k) && seen++ === n) {
      bytes[i + 12] = 2;
      return bytes;
    }
  }
  throw new Error('no knko block');
}

async function render(bytes: Uint8Array) {
  const compiled = await compileTemplate(env.FILES, bytes);
  const img = await renderTemplate(env.FILES, compiled, { scale: 1 });
  return { compiled, at: (x: number, y: number) => [...img.data.subarray((y * img.width + x) * 4, (y * img.width + x) * 4 + 3)] };
}

/** Background BG, blue on the right half, then `group` holding green and a knocking-out hole. */
function doc(group: Partial<Layer>, hole: Partial<Layer>): Psd {
  return {
    width: W,
    height: H,
    children: [
      { name: 'Background', top: 0, left: 0, imageData: fillImage(BG) },
      { name: 'blue', top: 0, left: 8, imageData: fillImage(BLUE, 8, H) },
      {
        name: 'group',
        ...group,
        children: [
          { name: 'green', top: 0, left: 0, imageData: fillImage(GREEN) },
          { name: 'hole', top: 2, left: 4, imageData: fillImage(YELLOW, 8, 4), fillOpacity: 0, knockout: true, ...hole },
        ],
      },
    ],
  };
}

describe('knockout', () => {
  it('reads the depth Photoshop writes in knko (1 shallow, 2 deep) and the opaque Background', () => {
    const bytes = deepen(writePsdUint8Array(doc({ blendMode: 'pass through' }, {})), 0);
    const records = readLayerRecords(bytes);
    expect(records[0]).toEqual({ opaque: true }); // the Background: no transparency channel
    expect(records.filter((r) => r?.knockout)).toEqual([{ knockout: 'deep' }]);
  });

  it('changes nothing at fill 100 % in normal mode (the layer covers its own hole)', () => {
    const canvas = surface(GREEN);
    knockoutBlend(canvas, surface(BG), surface(YELLOW), null, 1, 'normal', { fill: 1 });
    expect([...canvas.data]).toEqual([...YELLOW, 255]);
  });

  it('reveals the target at fill 0, faded by opacity, and by the layer shape', () => {
    const canvas = surface(GREEN);
    knockoutBlend(canvas, surface(BG), surface(YELLOW), null, 1, 'normal', { fill: 0 });
    expect([...canvas.data]).toEqual([...BG, 255]);
    const half = surface(GREEN);
    knockoutBlend(half, surface(BG), surface(YELLOW, 128), null, 1, 'normal', { fill: 0 });
    expect([...half.data]).toEqual([110, 140, 55, 255]); // green + (BG − green)·128/255
    const clear = surface(GREEN);
    knockoutBlend(clear, null, surface(YELLOW), null, 0.5, 'normal', { fill: 0 });
    expect([...clear.data]).toEqual([...GREEN, 128]); // half a hole into transparency
  });

  it('blends the layer onto the target with its mode and fill', () => {
    const canvas = surface(GREEN);
    knockoutBlend(canvas, surface(BG), surface([100, 200, 60]), null, 1, 'multiply', { fill: 1 });
    expect([...canvas.data]).toEqual([78, 78, 12, 255]); // BG × (100, 200, 60)
  });

  it('knocks out to transparency in an isolated group (what lies below the group shows)', async () => {
    const { at } = await render(writePsdUint8Array(doc({ blendMode: 'normal' }, {})));
    expect(at(5, 3)).toEqual(BG);
    expect(at(10, 3)).toEqual(BLUE);
    expect(at(1, 1)).toEqual(GREEN);
    const deep = await render(deepen(writePsdUint8Array(doc({ blendMode: 'normal' }, {})), 0));
    expect(deep.at(10, 3)).toEqual(BLUE); // deep stops at the isolated group too
  });

  it('in a pass-through group, shallow reveals what was below the group and deep the Background', async () => {
    const shallow = await render(writePsdUint8Array(doc({ blendMode: 'pass through' }, {})));
    expect(shallow.at(5, 3)).toEqual(BG);
    expect(shallow.at(10, 3)).toEqual(BLUE);
    const deep = await render(deepen(writePsdUint8Array(doc({ blendMode: 'pass through' }, {})), 0));
    expect(deep.at(5, 3)).toEqual(BG);
    expect(deep.at(10, 3)).toEqual(BG);
    expect(deep.at(14, 1)).toEqual(GREEN);
  });

  it('draws a Background that a file gives a knockout (it cannot knock out to itself)', async () => {
    const psd: Psd = { width: W, height: H, children: [{ name: 'Background', top: 0, left: 0, imageData: fillImage(BG), knockout: true }] };
    const { at, compiled } = await render(writePsdUint8Array(psd));
    expect(compiled.layers[0]).toMatchObject({ background: true, knockout: 'shallow' });
    expect(at(3, 3)).toEqual(BG);
  });

  it('keeps a knocking-out shape rasterised in print PDFs (drawn on top as vector, it would cover its hole)', () => {
    const knots = [[2, 2], [10, 2], [10, 6], [2, 6]].map(([x, y]) => [x, y, x, y, x, y]);
    const shape = (knockout?: 'shallow'): LayerNode => ({
      id: 1,
      name: 's',
      type: 'Shape',
      bounds: { left: 2, top: 2, right: 10, bottom: 6 },
      visible: true,
      opacity: 1,
      fillOpacity: 1,
      blendMode: 'normal',
      clipping: false,
      fillColor: '#336699',
      hasPixels: true,
      vectorMask: { invert: false, disabled: false, fillStartsWithAllPixels: false, paths: [{ open: false, operation: 'combine', fillRule: 'non-zero', knots }] },
      ...(knockout ? { knockout } : {}),
    });
    const canvas = { left: 0, top: 0, right: W, bottom: H };
    expect(vectorCandidates([shape()], new Map(), canvas)).toHaveLength(1);
    expect(vectorCandidates([shape('shallow')], new Map(), canvas)).toHaveLength(0);
  });

  it('knocks out to transparency at the root when the bottom layer is not a Background', async () => {
    const psd: Psd = {
      width: W,
      height: H,
      children: [
        { name: 'half-clear', top: 0, left: 0, imageData: fillImage(BG, W, H, 200) }, // has transparency: no Background
        { name: 'green', top: 0, left: 0, imageData: fillImage(GREEN) },
        { name: 'hole', top: 2, left: 4, imageData: fillImage(YELLOW, 8, 4), fillOpacity: 0, knockout: true },
      ],
    };
    const { at, compiled } = await render(writePsdUint8Array(psd));
    expect(compiled.layers.some((n) => n.background)).toBe(false);
    expect(at(5, 3)).toEqual([255, 255, 255]); // transparent, flattened over white
    expect(at(1, 1)).toEqual(GREEN);
  });
});
