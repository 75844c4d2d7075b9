import { beforeAll, describe, expect, it } from 'vitest';
import { blendSurface } from '../../../src/engine/composite/blend';
import { blendOverOpaque } from '../../../src/engine/composite/compositor';
import type { Surface } from '../../../src/engine/composite/surface';
import { kernels } from '../../../src/engine/raster/kernels';

/**
 * Issue 25 §3 (fullpic): blendOverOpaque copies an opaque rectangle as wide as both the picture and
 * the canvas in one run of rows (a picture over the whole canvas), else row by row. Held to the
 * plain blend on canvases exactly as wide as the picture (the rectangle whole, cut above and below,
 * narrower on either side) and on a wider canvas, every kind of backdrop alpha.
 */

let seed = 18;
const next = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 24);

/** Random RGBA pixels (any alpha), opaque inside `opaque` (pixels of the surface). */
function surface(r: { x: number; y: number; w: number; h: number }, opaque?: { left: number; top: number; right: number; bottom: number }): Surface {
  const data = new Uint8ClampedArray(r.w * r.h * 4);
  for (let i = 0; i < data.length; i++) data[i] = next();
  if (opaque) for (let y = opaque.top; y < opaque.bottom; y++) for (let x = opaque.left; x < opaque.right; x++) data[(y * r.w + x) * 4 + 3] = 255;
  return { ...r, data };
}

describe('an opaque picture copied onto a canvas as wide as it (issue 25 §3, fullpic)', () => {
  beforeAll(async () => {
    await kernels();
  });

  const W = 37, H = 23;
  const cases = [
    { name: 'the whole picture', opaque: { left: 0, top: 0, right: W, bottom: H }, canvas: { x: 5, y: 7, w: W, h: H } },
    { name: 'rows cut above and below', opaque: { left: 0, top: 3, right: W, bottom: H - 4 }, canvas: { x: 5, y: 7, w: W, h: H } },
    { name: 'the canvas shorter than the picture', opaque: { left: 0, top: 0, right: W, bottom: H }, canvas: { x: 5, y: 9, w: W, h: H - 6 } },
    { name: 'narrower on the left', opaque: { left: 1, top: 0, right: W, bottom: H }, canvas: { x: 5, y: 7, w: W, h: H } },
    { name: 'narrower on the right', opaque: { left: 0, top: 2, right: W - 3, bottom: H }, canvas: { x: 5, y: 7, w: W, h: H } },
    { name: 'a wider canvas', opaque: { left: 0, top: 0, right: W, bottom: H }, canvas: { x: 2, y: 7, w: W + 6, h: H } },
  ];

  it.each(cases)('$name: the bytes of the plain blend', ({ opaque, canvas }) => {
    for (let round = 0; round < 5; round++) {
      const src = surface({ x: 5, y: 7, w: W, h: H }, opaque);
      const blended = surface(canvas);
      const copied: Surface = { ...blended, data: blended.data.slice() };
      blendSurface(blended, src, null, 1, 'normal');
      blendOverOpaque(copied, src, opaque);
      expect(Buffer.from(copied.data).equals(Buffer.from(blended.data))).toBe(true);
    }
  });
});
