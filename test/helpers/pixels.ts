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
