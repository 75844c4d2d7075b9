// An upscaled layer (a template smaller than its preview: factor > 1) is drawn by bilinear
// interpolation between level pixel centres on premultiplied colour, edges extended. The kernel
// works out each column's and row's taps once (speed-wide, issue 25 §3); its pixels must be the
// same bytes as this per-pixel definition of it, for any factor, layer offset and clip.
import { describe, expect, it } from 'vitest';
import { outputRect, resampleRGBA } from '../../../src/engine/composite/resample';
import { intersectRect } from '../../../src/engine/composite/surface';
import type { Bounds } from '../../../src/engine/types';
import { firstDifference } from '../../helpers/pixels';
import { seeded } from '../../../src/engine/composite/gradient';

/** The definition, pixel by pixel (the sums in the order the kernel must keep). */
function bilinearReference(src: Uint8Array, sb: Bounds, f: number, clip: Bounds) {
  const r = intersectRect(outputRect(sb, f), clip);
  if (!r) return null;
  const w = r.right - r.left;
  const h = r.bottom - r.top;
  const data = new Uint8ClampedArray(w * h * 4);
  const sw = sb.right - sb.left;
  const sh = sb.bottom - sb.top;
  const px = (x: number, y: number, c: number) => {
    const i = ((y < 0 ? 0 : y >= sh ? sh - 1 : y) * sw + (x < 0 ? 0 : x >= sw ? sw - 1 : x)) * 4;
    return c === 3 ? src[i + 3]! : src[i + c]! * src[i + 3]!;
  };
  for (let oy = 0; oy < h; oy++) {
    const fy = (r.top + oy + 0.5) / f - 0.5 - sb.top;
    const y0 = Math.floor(fy);
    const wy = fy - y0;
    for (let ox = 0; ox < w; ox++) {
      const fx = (r.left + ox + 0.5) / f - 0.5 - sb.left;
      const x0 = Math.floor(fx);
      const wx = fx - x0;
      const v = [0, 0, 0, 0];
      for (let c = 0; c < 4; c++) {
        v[c] = (px(x0, y0, c) * (1 - wx) + px(x0 + 1, y0, c) * wx) * (1 - wy) + (px(x0, y0 + 1, c) * (1 - wx) + px(x0 + 1, y0 + 1, c) * wx) * wy;
      }
      const o = (oy * w + ox) * 4;
      if (v[3]! > 0) {
        data[o] = v[0]! / v[3]!;
        data[o + 1] = v[1]! / v[3]!;
        data[o + 2] = v[2]! / v[3]!;
        data[o + 3] = v[3]!;
      }
    }
  }
  return { x: r.left, y: r.top, w, h, data };
}

describe('upscaled layer pixels (bilinear, factor > 1)', () => {
  it('are the bytes of the per-pixel definition for 300 random layers, factors and clips', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const rnd = seeded(seed);
      const int = (n: number) => Math.floor(rnd() * n);
      const sw = 1 + int(24);
      const sh = 1 + int(24);
      const left = int(40) - 20;
      const top = int(40) - 20;
      const sb = { left, top, right: left + sw, bottom: top + sh };
      // Factors as previews give them (800 / a template side), some exact, some not.
      const f = [1.6, 2, 3.125, 1.0000001, 1.25, 6.25, 800 / 333, 800 / 57][int(8)]!;
      const src = new Uint8Array(sw * sh * 4);
      const kind = int(3); // 0: opaque, 1: any alpha, 2: mostly transparent
      for (let i = 0; i < src.length; i += 4) {
        src[i] = int(256);
        src[i + 1] = int(256);
        src[i + 2] = int(256);
        src[i + 3] = kind === 0 ? 255 : kind === 1 ? int(256) : rnd() < 0.8 ? 0 : int(256);
      }
      const out = outputRect(sb, f);
      const clip =
        int(2) === 0
          ? { left: -1000, top: -1000, right: 1000, bottom: 1000 }
          : { left: out.left + int(10) - 3, top: out.top + int(10) - 3, right: out.right - int(10) + 3, bottom: out.bottom - int(10) + 3 };
      const got = resampleRGBA(src, sb, f, clip);
      const expected = bilinearReference(src, sb, f, clip);
      expect(got && { x: got.x, y: got.y, w: got.w, h: got.h }, `seed ${seed}`).toEqual(expected && { x: expected.x, y: expected.y, w: expected.w, h: expected.h });
      if (got && expected) expect(firstDifference(got.data, expected.data), `seed ${seed} f ${f}`).toBe(-1);
    }
  });
});
