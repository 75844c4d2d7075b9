import { describe, expect, it } from 'vitest';
import { placeImage } from '../../../src/engine/personalise/image';

/**
 * Session 23's review: the warped placement's row skip (interiorColumns' first/last, 688eec8)
 * must leave out only pixels the per-pixel measure leaves out. A corner past the doubles' range
 * (1e300: a crafted transform, or a perspective pushed through its horizon) makes an edge line
 * NaN; measured per pixel a NaN edge lowers no coverage (NaN < x is false), so c6922d4 drew the
 * pixels the other edges cover, where the skip took the NaN for "everything outside" and drew none.
 */
function picture(width: number, height: number) {
  const data = new Uint8ClampedArray(width * height * 4);
  for (let i = 0; i < data.length; i++) data[i] = ((i * 2654435761) >>> 24) ^ ((i & 3) * 77);
  return { width, height, data };
}

describe('a warped placement with a NaN edge', () => {
  it('draws what measuring every pixel draws', async () => {
    const cases = [
      { corners: [-273.5, 320.5, -188.5, 75.5, 56, 160.5, 1e300, 405], width: 1.1586745325475931, height: 11.141456575132906, picture: picture(42, 25), mode: 'fill' as const },
      { corners: [24.381646224743857, -85.29225995110522, 28.1643263185228, -88.411105433964, 31.28317180138158, -84.62842534018506, 27.500491707602638, 1e300], width: 124.89444524981081, height: 1.1996414130553603, picture: picture(45, 59), mode: 'fit' as const },
    ];
    for (const c of cases) {
      const placement = { corners: c.corners, width: c.width, height: c.height };
      const skipped = await placeImage(c.picture, placement, c.mode);
      const measured = await placeImage(c.picture, placement, c.mode, { edgesEverywhere: true });
      expect(skipped!.bounds).toEqual(measured!.bounds);
      expect(measured!.pixels.data.some((v, i) => i % 4 === 3 && v > 0)).toBe(true);
      expect(Buffer.from(skipped!.pixels.data).equals(Buffer.from(measured!.pixels.data))).toBe(true);
    }
  });
});
