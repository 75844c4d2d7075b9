import { describe, expect, it } from 'vitest';
import { pathComponents, rasterizeVectorMask } from '../../../src/engine/composite/vector';
import type { VectorMask } from '../../../src/engine/types';

type Path = VectorMask['paths'][number];
const square = (l: number, t: number, r: number, b: number) => [[l, t], [r, t], [r, b], [l, b]].map(([x, y]) => [x, y, x, y, x, y]);
const path = (knots: number[][], over: Partial<Path> = {}): Path => ({ open: false, operation: 'combine', fillRule: 'even-odd', knots, ...over });
const mask = (paths: Path[]): VectorMask => ({ invert: false, disabled: false, fillStartsWithAllPixels: false, paths });
const at = (m: Uint8ClampedArray, x: number, y: number) => m[y * 20 + x];

describe('vector masks', () => {
  it('subpaths stored with operation -1 join the component before them: a merged ring keeps its hole', () => {
    const ring = mask([path(square(0, 0, 20, 20)), path(square(5, 5, 15, 15), { operation: undefined })]);
    expect(pathComponents(ring.paths).map((c) => c.length)).toEqual([2]);
    const m = rasterizeVectorMask(ring, 1, { left: 0, top: 0, right: 20, bottom: 20 });
    expect(at(m, 2, 2)).toBe(255);
    expect(at(m, 10, 10), 'the hole').toBe(0);
  });

  it('separate components combine by their own operations', () => {
    const two = mask([path(square(0, 0, 20, 20)), path(square(5, 5, 15, 15), { operation: 'subtract' }), path(square(8, 8, 12, 12))]);
    expect(pathComponents(two.paths).map((c) => c.length)).toEqual([1, 1, 1]);
    const m = rasterizeVectorMask(two, 1, { left: 0, top: 0, right: 20, bottom: 20 });
    expect([at(m, 2, 2), at(m, 6, 6), at(m, 10, 10)]).toEqual([255, 0, 255]);
  });
});
