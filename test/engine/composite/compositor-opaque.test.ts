import { describe, expect, it } from 'vitest';
import { blendSurface } from '../../../src/engine/composite/blend';
import { blendOverOpaque } from '../../../src/engine/composite/compositor';
import { opaqueArea, type Surface } from '../../../src/engine/composite/surface';
import { placeImage } from '../../../src/engine/personalise/image';
import { kernels } from '../../../src/engine/raster/kernels';
import type { RGBAImage } from '../../../src/engine/types';

/** Deterministic noise in 0..255. */
function noise(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) >>> 24);
}

/** An opaque picture (a JPEG's decode): busy colours, sharp steps that make the resize ring. */
function photo(width: number, height: number, seed: number): RGBAImage {
  const next = noise(seed);
  const data = new Uint8ClampedArray(width * height * 4);
  for (let i = 0; i < data.length; i += 4) {
    const edge = (i / 4) % width < width / 3 ? 255 : 0;
    data[i] = next();
    data[i + 1] = edge;
    data[i + 2] = next() & 0xf0;
    data[i + 3] = 255;
  }
  return { width, height, data };
}

/** A canvas with every kind of backdrop alpha. */
function canvas(r: { x: number; y: number; w: number; h: number }, seed: number): Surface {
  const next = noise(seed);
  const data = new Uint8ClampedArray(r.w * r.h * 4);
  for (let i = 0; i < data.length; i++) data[i] = next();
  return { ...r, data };
}

const upright = (left: number, top: number, right: number, bottom: number) => [left, top, right, top, right, bottom, left, bottom];

describe('an opaque picture placed upright (issue 25 §3)', () => {
  // Integer and fractional corners, shrunk, enlarged, standing for a loader's size, fit and fill.
  const cases: Array<{ corners: number[]; size: [number, number]; picture: [number, number]; standsFor?: [number, number]; mode: 'fit' | 'fill' }> = [
    { corners: upright(10, 12, 60, 45), size: [300, 200], picture: [80, 60], mode: 'fill' },
    { corners: upright(10.25, 12.75, 60.5, 45.4), size: [300, 200], picture: [80, 60], mode: 'fill' },
    { corners: upright(3.6, 7.1, 41.9, 30.2), size: [300, 200], picture: [40, 50], mode: 'fit' },
    { corners: upright(0, 0, 120, 90), size: [120, 90], picture: [97, 61], mode: 'fill' },
    { corners: upright(5.5, 2.5, 35.5, 22.5), size: [60, 40], picture: [100, 75], standsFor: [64, 48], mode: 'fill' },
  ];

  it('is opaque inside the rectangle it marks, and the compositor copying that rectangle draws the bytes the blend draws', async () => {
    await kernels();
    let seed = 1;
    for (const c of cases) {
      const picture = { ...photo(c.picture[0], c.picture[1], seed++), opaque: true, ...(c.standsFor ? { standsFor: { width: c.standsFor[0], height: c.standsFor[1] } } : {}) };
      const placed = await placeImage(picture, { corners: c.corners, width: c.size[0], height: c.size[1] }, c.mode);
      expect(placed).not.toBeNull();
      const { pixels, bounds } = placed!;
      const area = opaqueArea(pixels.data);
      expect(area).toBeDefined();
      for (let y = area!.top; y < area!.bottom; y++) {
        for (let x = area!.left; x < area!.right; x++) expect(pixels.data[(y * pixels.width + x) * 4 + 3]).toBe(255);
      }
      const src: Surface = { x: bounds.left, y: bounds.top, w: pixels.width, h: pixels.height, data: pixels.data };
      // Canvases holding the picture whole, cutting it on each side, and missing it.
      for (const r of [
        { x: bounds.left - 3, y: bounds.top - 2, w: pixels.width + 7, h: pixels.height + 5 },
        { x: bounds.left + 4, y: bounds.top + 3, w: pixels.width - 9, h: pixels.height - 6 },
        { x: bounds.left - 5, y: bounds.top + 6, w: 12, h: pixels.height },
        { x: bounds.right + 1, y: bounds.top, w: 10, h: 10 },
      ]) {
        const blended = canvas(r, seed);
        const copied = canvas(r, seed++);
        blendSurface(blended, src, null, 1, 'normal');
        blendOverOpaque(copied, src, area!);
        expect(Buffer.from(copied.data).equals(Buffer.from(blended.data))).toBe(true);
      }
    }
  });

  it('marks nothing for a picture that may have alpha', async () => {
    const placed = await placeImage(photo(80, 60, 7), { corners: upright(10, 12, 60, 45), width: 300, height: 200 }, 'fill');
    expect(opaqueArea(placed!.pixels.data)).toBeUndefined();
  });
});
