import { describe, expect, it } from 'vitest';
import { BAND, halveRGBA, levelBounds, PyramidWriter } from '../../../src/engine/compiled/pyramid';
import type { Bounds } from '../../../src/engine/types';

/**
 * Pixels in runs of opaque, transparent and part-transparent ones (each 5 px long, shifted a pixel
 * every 4 rows), so that every mix of the four alphas under an output pixel (all 255, all 0, some
 * of each) comes up, on even and odd edges.
 */
function runs(bounds: Bounds, seed: number): Uint8Array {
  const w = bounds.right - bounds.left;
  const h = bounds.bottom - bounds.top;
  const data = new Uint8Array(w * h * 4);
  let s = seed;
  for (let i = 0; i < w * h; i++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    const kind = Math.floor(((i % w) + (Math.floor(i / w) >> 2)) / 5) % 3;
    data[i * 4] = s >>> 24;
    data[i * 4 + 1] = (s >>> 16) & 255;
    data[i * 4 + 2] = (s >>> 8) & 255;
    data[i * 4 + 3] = kind === 0 ? 255 : kind === 1 ? 0 : s & 255;
  }
  return data;
}

async function levels(bounds: Bounds, data: Uint8Array, count: number): Promise<Map<number, Uint8Array[]>> {
  const bands = new Map<number, Uint8Array[]>();
  const writer = new PyramidWriter(bounds, count, 4, 0, async (k, _b, d) => {
    (bands.get(k) ?? bands.set(k, []).get(k)!).push(d.slice());
  });
  const w = (bounds.right - bounds.left) * 4;
  for (let y = bounds.top; y < bounds.bottom; y++) {
    const band = writer.push(y, data.subarray((y - bounds.top) * w, (y - bounds.top + 1) * w));
    if (band) await band;
  }
  await writer.finish();
  return bands;
}

// Session 28 (compile CPU): the pyramid's row halving takes pixels whose two columns lie in the
// span by a loop without bounds checks, by their alphas: the same bytes as halving whole levels.
describe('PyramidWriter row halving', () => {
  const shapes: Bounds[] = [
    { left: 0, top: 0, right: 64, bottom: 40 },
    { left: 1, top: 3, right: 66, bottom: 44 },
    { left: 3, top: 1, right: 40, bottom: BAND + 7 },
    { left: 2, top: 0, right: 5, bottom: 9 },
    { left: 7, top: 2, right: 8, bottom: 5 },
  ];
  for (const [n, bounds] of shapes.entries()) {
    it(`matches halveRGBA on ${bounds.left}..${bounds.right} × ${bounds.top}..${bounds.bottom}`, async () => {
      const data = runs(bounds, n + 1);
      const count = 4;
      const bands = await levels(bounds, data, count);
      let level = { data, bounds };
      for (let k = 0; k < count; k++) {
        const lb = levelBounds(bounds, k);
        expect(level.bounds).toEqual(lb);
        const got = bands.get(k)!;
        const joined = new Uint8Array(got.reduce((m, b) => m + b.length, 0));
        got.reduce((at, b) => (joined.set(b, at), at + b.length), 0);
        expect(joined).toEqual(level.data);
        level = halveRGBA(level.data, level.bounds);
      }
    });
  }
});
