import { describe, expect, it } from 'vitest';
import { rasterizeVectorMask } from '../../../src/engine/composite/vector';
import type { VectorMask } from '../../../src/engine/types';

/**
 * Vector-mask facts psd-tools settled against Photoshop 2026's own rasters
 * (tests/psd_tools/composite/test_vector.py):
 * - test_photoshop_reads_a_combined_path_even_odd: an outer rectangle (20, 40)–(80, 110) and an
 *   inner one (35, 55)–(65, 95) in one shape component (the inner subpath stored with operation
 *   −1), wound alike or against each other, both rasterise to the same ring: 4200 − 1200 = 3000
 *   pixels, the inner rectangle empty. (Photoshop writes 1 in the length record's field ag-psd
 *   reads as the fill rule; psd-tools' forged paths keep that default.)
 * - test_draw_vector_mask_over_zero_paths_reveals_all: a vector mask with the initial fill rule
 *   ("fill starts with all pixels") and no path reveals the whole layer.
 */
const rect = (l: number, t: number, r: number, b: number, clockwise: boolean) => {
  const corners = [[l, t], [r, t], [r, b], [l, b]];
  if (!clockwise) corners.reverse();
  return corners.map(([x, y]) => [x, y, x, y, x, y]);
};
const mask = (paths: VectorMask['paths'], fillStartsWithAllPixels = false): VectorMask => ({ invert: false, disabled: false, fillStartsWithAllPixels, paths });
const R = { left: 0, top: 0, right: 100, bottom: 150 };
const sum = (a: Uint8ClampedArray) => a.reduce((s, v) => s + v, 0) / 255;

describe("vector masks: Photoshop's rasters (psd-tools #844, #823)", () => {
  for (const alike of [true, false]) {
    it(`fills a combined path even-odd: a ring of 3000 px, inner wound ${alike ? 'alike' : 'against'}`, () => {
      const vm = mask([
        { open: false, operation: 'combine', fillRule: 'even-odd', knots: rect(20, 40, 80, 110, true) },
        { open: false, fillRule: 'even-odd', knots: rect(35, 55, 65, 95, alike) },
      ]);
      const px = rasterizeVectorMask(vm, 1, R);
      expect(sum(px)).toBeCloseTo(3000, 0);
      expect(px[75 * 100 + 50]).toBe(0); // the middle of the inner rectangle
      expect(px[75 * 100 + 25]).toBe(255); // the band between the two
    });
  }

  it('reveals everything with "fill starts with all pixels" and no path', () => {
    const px = rasterizeVectorMask(mask([], true), 1, R);
    expect(px.every((v) => v === 255)).toBe(true);
  });
});
