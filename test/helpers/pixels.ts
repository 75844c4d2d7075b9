import type { Bounds, RGBAImage } from '../../src/engine/types';

/**
 * The first byte at which two pixel buffers differ, -1 when none: compare frames with this, not
 * `toEqual`, whose deep equality walks megabytes element by element (a 1 MP frame: seconds).
 */
export function firstDifference(a: ArrayLike<number> | undefined, b: ArrayLike<number> | undefined): number {
  if (!a || !b) return a === b ? -1 : 0;
  if (a.length !== b.length) return Math.min(a.length, b.length);
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return i;
  return -1;
}

/** Whether two renders of one size are equal outside `r` (everywhere when `r` is null). */
export function equalOutside(a: RGBAImage, b: RGBAImage, r: Bounds | null): boolean {
  for (let y = 0; y < a.height; y++)
    for (let x = 0; x < a.width; x++) {
      if (r && x >= r.left && x < r.right && y >= r.top && y < r.bottom) continue;
      const i = (y * a.width + x) * 4;
      for (let c = 0; c < 4; c++) if (a.data[i + c] !== b.data[i + c]) return false;
    }
  return true;
}
