import { chainedTaps, resampleTaps, type AxisWeights, type ResampleQuality } from '../../../src/engine/raster/resample';
import type { RGBAImage } from '../../../src/engine/types';
import type { Random } from '../composite/kit';

/** The alpha a random picture's pixels take: all 255, all 0, mostly whole, only whole, anything. */
export type AlphaKind = 'opaque' | 'clear' | 'mixed' | 'varied' | 'edges';

/** A random picture whose alpha is of one of `kinds` (repeat a kind to draw it more often); green is often 0 or 255. */
export function randomPicture(r: Random, w: number, h: number, kinds: readonly AlphaKind[]): RGBAImage {
  const kind = r.pick(kinds);
  const data = new Uint8ClampedArray(w * h * 4);
  for (let i = 0; i < w * h; i++) {
    const a = kind === 'opaque' ? 255 : kind === 'clear' ? 0 : kind === 'mixed' ? r.pick([0, 255, 255, 1, 254]) : kind === 'edges' ? r.pick([0, 255]) : r.int(256);
    data.set([r.int(256), r.pick([0, 255, r.int(256)]), r.int(256), a], i * 4);
  }
  return { width: w, height: h, data };
}

/** Sizes from 1 px, and ones leaving a tail of 1–3 rows or pixels after the fours. */
export const randomSize = (r: Random, max: number) => r.pick([1, 2, 3, 4, 5, 6, 7, 9, 1 + r.int(max)]);

/**
 * Taps of a resize (drawn with `resizeChance`, its quality from `qualities`), or else of a
 * placement: a bilinear lookup at whole or fractional offsets through a chain of resizes.
 */
export function randomTaps(r: Random, src: number, dst: number, resizeChance: number, qualities: readonly ResampleQuality[]): AxisWeights {
  if (r.chance(resizeChance)) return resampleTaps(src, dst, r.pick(qualities));
  const sizes = [src];
  for (let n = r.int(3); n > 0; n--) sizes.push(Math.max(1, Math.round(sizes.at(-1)! * r.pick([0.5, 0.37, 1.7, 1]))));
  const last = sizes.at(-1)!;
  const scale = r.pick([last / dst, 1, 0.5, 2, (last / dst) * r.pick([0.9, 1.1])]);
  const offset = r.pick([0, 1, -1, 0.5, -3, r.int(last), r.next() * 4 - 2]);
  return chainedTaps(dst, { scale, offset }, sizes);
}
