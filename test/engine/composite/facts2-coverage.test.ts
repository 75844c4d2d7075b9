import { writePsdUint8Array, type Layer } from 'ag-psd';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, renderTemplate } from '../../../src/engine';
import { rasterizeVectorMask } from '../../../src/engine/composite/vector';
import type { VectorMask } from '../../../src/engine/types';

/**
 * A path's coverage is the exact area it covers in each pixel. psd-tools settled this against
 * Photoshop's own rasters (tests/psd_tools/composite/test_scanline.py, test_vector.py, #844):
 * transparency-group.psd's rectangle matches its stored transparency "to the last bit of the
 * mantissa", masks.psd's glyphs within 0.01 on average, and a 1.47 px band covers one pixel and
 * 0.47 of the next. The cases below are test_scanline.py's closed-form areas.
 */
type Path = VectorMask['paths'][number];
const poly = (pts: number[][], over: Partial<Path> = {}): Path => ({
  open: false,
  operation: 'combine',
  fillRule: 'even-odd',
  knots: pts.map(([x, y]) => [x, y, x, y, x, y]),
  ...over,
});
const rect = (l: number, t: number, r: number, b: number) => [[l, t], [r, t], [r, b], [l, b]];
const mask = (paths: Path[]): VectorMask => ({ invert: false, disabled: false, fillStartsWithAllPixels: false, paths });
const R = (w: number, h: number) => ({ left: 0, top: 0, right: w, bottom: h });
const area = (m: Uint8ClampedArray) => m.reduce((s, v) => s + v, 0) / 255;

describe('path coverage is the area covered (psd-tools #844, test_scanline.py)', () => {
  it('a pixel-aligned rectangle has no fringe: every pixel 0 or 255, 144 px', () => {
    const m = rasterizeVectorMask(mask([poly(rect(2, 2, 14, 14))]), 1, R(16, 16));
    expect(new Set(m)).toEqual(new Set([0, 255]));
    expect(area(m)).toBe(144);
  });

  const cases: [string, number[][][], number][] = [
    ['a rectangle 12.4 wide and 12 tall, off the grid', [rect(2.3, 2, 14.7, 14)], 12.4 * 12],
    ['a rectangle 12 wide and 12.4 tall, off the grid', [rect(2, 2.3, 14, 14.7)], 12.4 * 12],
    ['half of a 10 × 10 square', [[[2, 2], [12, 2], [2, 12]]], 50],
    ['a sliver a tenth of a pixel wide', [rect(8.3, 2, 8.4, 12)], 1],
    ['a sliver a tenth of a pixel tall', [rect(2, 8.3, 12, 8.4)], 1],
    ['the two lobes of a bow tie', [[[2, 2], [12, 12], [12, 2], [2, 12]]], 50],
    ['a rectangle over every edge of the plane', [rect(-5, -5, 21, 21)], 256],
    ['a rectangle off the left', [rect(-5, -5, 8, 21)], 128],
    ['a rectangle off the right', [rect(8, -5, 21, 21)], 128],
    ['a rectangle wholly outside', [rect(-30, -30, -20, -20)], 0],
  ];
  for (const [name, pts, want] of cases) {
    it(`${name}: ${want} px`, () => {
      // Each pixel is rounded to a level, so the sum may stray by half a level a pixel.
      const m = rasterizeVectorMask(mask(pts.map((p) => poly(p))), 1, R(16, 16));
      expect(Math.abs(area(m) - want)).toBeLessThan(0.5 * 16 * 16 / 255 + 1e-9);
    });
  }

  it('a fractional top edge covers the row by its area: 0.7 at y = 2.3 (rows sampled gave 0.6)', () => {
    const m = rasterizeVectorMask(mask([poly(rect(2, 2.3, 14, 14))]), 1, R(16, 16));
    expect(Math.abs(m[2 * 16 + 8] - 0.7 * 255)).toBeLessThanOrEqual(0.5);
    expect(m[3 * 16 + 8]).toBe(255);
  });

  it('a circle of radius 5 covers π·25', () => {
    const pts = Array.from({ length: 4096 }, (_, i) => [8 + 5 * Math.cos((2 * Math.PI * i) / 4096), 8 + 5 * Math.sin((2 * Math.PI * i) / 4096)]);
    const m = rasterizeVectorMask(mask([poly(pts)]), 1, R(16, 16));
    expect(Math.abs(area(m) - Math.PI * 25)).toBeLessThan(0.3);
  });

  it('moving a path a whole pixel moves its coverage a whole pixel', () => {
    const here = rasterizeVectorMask(mask([poly(rect(2.37, 3.11, 11.42, 12.88))]), 1, R(24, 24));
    const there = rasterizeVectorMask(mask([poly(rect(3.37, 4.11, 12.42, 13.88))]), 1, R(24, 24));
    for (let y = 0; y < 23; y++) for (let x = 0; x < 23; x++) expect(Math.abs(here[y * 24 + x] - there[(y + 1) * 24 + x + 1])).toBeLessThanOrEqual(1);
  });

  it('a subpath inside another cuts a hole whichever way it winds; a third inside fills again', () => {
    for (const alike of [true, false]) {
      const inner = rect(5, 5, 11, 11);
      const m = rasterizeVectorMask(mask([poly(rect(2, 2, 14, 14)), poly(alike ? inner : inner.slice().reverse(), { operation: undefined })]), 1, R(16, 16));
      expect(area(m)).toBe(144 - 36);
      expect(m[8 * 16 + 8]).toBe(0);
    }
    const m = rasterizeVectorMask(mask([poly(rect(2, 2, 14, 14)), poly(rect(5, 5, 11, 11), { operation: undefined }), poly(rect(7, 7, 9, 9), { operation: undefined })]), 1, R(16, 16));
    expect(area(m)).toBe(144 - 36 + 4);
    expect(m[8 * 16 + 8]).toBe(255);
  });

  it('a rectangle half a pixel off the grid on a plane that starts off the origin', () => {
    const m = rasterizeVectorMask(mask([poly(rect(10.5, 20.5, 14.5, 24.5))]), 1, { left: 10, top: 20, right: 16, bottom: 26 });
    expect(area(m)).toBeCloseTo(16, 1);
    expect(m[0]).toBe(Math.round(0.25 * 255));
    expect(m[1]).toBe(Math.round(0.5 * 255));
    expect(m[6 + 1]).toBe(255);
  });
});

describe('a vector mask with a fractional horizontal edge, through compile and render', () => {
  it('a red layer masked to rows 0.5..1.5 shows at 50 % in both rows (sampled rows gave 60 % and 40 %)', async () => {
    const W = 4;
    const knots = [[0, 0.5], [W, 0.5], [W, 1.5], [0, 1.5]].map(([x, y]) => ({ linked: true, points: [x, y, x, y, x, y] }));
    const layers: Layer[] = [
      { name: 'Background', left: 0, top: 0, imageData: { width: W, height: 2, data: new Uint8ClampedArray(W * 2 * 4).fill(255) } },
      { name: 'Red', left: 0, top: 0, imageData: { width: W, height: 2, data: Uint8ClampedArray.from({ length: W * 2 * 4 }, (_, i) => [255, 0, 0, 255][i % 4]) }, vectorMask: { paths: [{ open: false, operation: 'combine', fillRule: 'even-odd', knots }] } } as Layer,
    ];
    const compiled = await compileTemplate(env.FILES, writePsdUint8Array({ width: W, height: 2, children: layers }));
    const img = await renderTemplate(env.FILES, compiled, { scale: 1 });
    for (const y of [0, 1]) {
      const [r, g, b] = img.data.subarray((y * W + 1) * 4, (y * W + 1) * 4 + 3);
      expect(r).toBe(255);
      expect(Math.abs(g - 127.5)).toBeLessThanOrEqual(1);
      expect(Math.abs(b - 127.5)).toBeLessThanOrEqual(1);
    }
  });
});

describe('a first component that subtracts or intersects (psd-tools path-operations, subtract-first / intersect-first)', () => {
  const R16 = R(16, 16);
  it('subtract first, without "fill starts with all pixels": everything but the shape (was nothing)', () => {
    const m = rasterizeVectorMask(mask([poly(rect(2, 2, 14, 14), { operation: 'subtract' })]), 1, R16);
    expect(area(m)).toBe(256 - 144);
    expect(m[0]).toBe(255);
    expect(m[8 * 16 + 8]).toBe(0);
  });

  it('intersect first: the shape (was nothing); then a second component intersects it', () => {
    expect(area(rasterizeVectorMask(mask([poly(rect(2, 2, 14, 14), { operation: 'intersect' })]), 1, R16))).toBe(144);
    const two = mask([poly(rect(2, 2, 14, 14), { operation: 'intersect' }), poly(rect(8, 2, 16, 14), { operation: 'intersect' })]);
    expect(area(rasterizeVectorMask(two, 1, R16))).toBe(6 * 12);
  });

  it('combine or exclude first start from nothing, as before', () => {
    expect(area(rasterizeVectorMask(mask([poly(rect(2, 2, 14, 14), { operation: 'combine' })]), 1, R16))).toBe(144);
    expect(area(rasterizeVectorMask(mask([poly(rect(2, 2, 14, 14), { operation: 'exclude' })]), 1, R16))).toBe(144);
  });
});
