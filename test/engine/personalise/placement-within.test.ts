import { describe, expect, it } from 'vitest';
import { opaqueArea } from '../../../src/engine/composite/surface';
import { placeImage } from '../../../src/engine/personalise/image';
import { kernels } from '../../../src/engine/raster/kernels';
import type { Bounds, RGBAImage } from '../../../src/engine/types';

/**
 * Issue 25 §3 (picture-redraw): an upright placement drawn over the output pixels wanted alone
 * (placeImage's `within`: the canvas, where a fill placement reaches past it) gives those pixels
 * of the whole placement, to the byte, with its bounds cut and its opaque rectangle with them.
 */

function noise(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) >>> 24);
}

function picture(width: number, height: number, seed: number, opaque: boolean): RGBAImage & { opaque?: boolean } {
  const next = noise(seed);
  const data = new Uint8ClampedArray(width * height * 4);
  for (let i = 0; i < data.length; i += 4) {
    data[i] = next();
    data[i + 1] = (i / 4) % width < width / 2 ? 250 : 3;
    data[i + 2] = next() & 0xf0;
    data[i + 3] = opaque ? 255 : next() | 1;
  }
  return { width, height, data, ...(opaque && { opaque: true }) };
}

const upright = (left: number, top: number, right: number, bottom: number) => [left, top, right, top, right, bottom, left, bottom];

describe('an upright placement drawn within the pixels wanted (issue 25 §3)', () => {
  it('gives the whole placement’s pixels there, its bounds cut, its opaque rectangle cut', async () => {
    await kernels();
    const next = noise(11);
    let compared = 0;
    for (let t = 0; t < 40; t++) {
      const [pw, ph] = [20 + (next() % 180), 20 + (next() % 140)];
      const opaque = t % 3 !== 0;
      const given = { ...picture(pw, ph, t, opaque), ...(t % 4 === 1 && { standsFor: { width: Math.ceil(pw * 0.7), height: Math.ceil(ph * 0.7) } }) };
      const l = (next() % 40) - 20 + (t % 2 ? 0.37 : 0);
      const tp = (next() % 40) - 20 + (t % 5 ? 0.81 : 0);
      const corners = upright(l, tp, l + 30 + (next() % 120) + (t % 3 ? 0.5 : 0), tp + 30 + (next() % 90));
      const quad = { corners, width: 40 + (next() % 100), height: 30 + (next() % 80) };
      const mode = t % 2 ? 'fill' : 'fit';
      const whole = await placeImage(given, quad, mode);
      if (!whole) continue;
      const b = whole.bounds;
      for (const within of [
        { left: 0, top: 0, right: 100, bottom: 80 },
        { left: b.left + 3, top: b.top + 2, right: b.right - 4, bottom: b.bottom - 1 },
        { left: b.left - 5, top: b.top - 5, right: b.right + 5, bottom: b.bottom + 5 },
        { left: b.right, top: b.top, right: b.right + 10, bottom: b.bottom },
      ] as Bounds[]) {
        const cut = await placeImage(given, quad, mode, { within });
        const r = { left: Math.max(b.left, within.left), top: Math.max(b.top, within.top), right: Math.min(b.right, within.right), bottom: Math.min(b.bottom, within.bottom) };
        if (r.right <= r.left || r.bottom <= r.top) {
          expect(cut).toBeNull();
          continue;
        }
        expect(cut!.bounds).toEqual(r);
        const w = r.right - r.left;
        const expected = new Uint8ClampedArray(w * (r.bottom - r.top) * 4);
        for (let y = r.top; y < r.bottom; y++) {
          const s = ((y - b.top) * whole.pixels.width + (r.left - b.left)) * 4;
          expected.set(whole.pixels.data.subarray(s, s + w * 4), (y - r.top) * w * 4);
        }
        expect(Buffer.from(cut!.pixels.data).equals(Buffer.from(expected)), `case ${t} within ${JSON.stringify(within)}`).toBe(true);
        const o = opaqueArea(whole.pixels.data);
        const oc = opaqueArea(cut!.pixels.data);
        if (!o) expect(oc).toBeUndefined();
        else {
          const want = { left: Math.max(o.left + b.left, r.left) - r.left, top: Math.max(o.top + b.top, r.top) - r.top, right: Math.min(o.right + b.left, r.right) - r.left, bottom: Math.min(o.bottom + b.top, r.bottom) - r.top };
          if (want.right > want.left && want.bottom > want.top) expect(oc).toEqual(want);
        }
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(80);
  });
});
