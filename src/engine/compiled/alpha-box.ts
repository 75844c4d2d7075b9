import type { Bounds } from '../types';

/**
 * Finds the box of non-zero alpha as a layer's RGBA rows pass by at compile, inside the rectangle
 * `crop` (the layer's `bounds` cut to the canvas).
 */
export class AlphaBox {
  private left = Infinity;
  private right = -Infinity;
  private top = Infinity;
  private bottom = -Infinity;

  constructor(private readonly crop: Bounds) {}

  /** Row `y` (template pixels), 4 bytes a pixel from `crop.left`. */
  add(y: number, row: Uint8Array): void {
    // From each end to the first non-zero alpha: an opaque row is two reads, not one a pixel (every
    // pixel of every layer passes here; docs/performance.md, "Session 28: compile CPU").
    let a = 3;
    while (a < row.length && !row[a]) a += 4;
    if (a >= row.length) return;
    const first = (a - 3) >> 2;
    let b = 4 * (row.length >> 2) - 1; // the last whole pixel's alpha (one was found at a ≤ b)
    while (!row[b]) b -= 4;
    const last = (b - 3) >> 2;
    this.left = Math.min(this.left, this.crop.left + first);
    this.right = Math.max(this.right, this.crop.left + last + 1);
    if (y < this.top) this.top = y;
    this.bottom = y + 1;
  }

  /** The box, sides at the canvas's edge given back to `bounds`; null when no alpha was seen. */
  result(bounds: Bounds): Bounds | null {
    if (this.right <= this.left) return null;
    const c = this.crop;
    return {
      left: this.left === c.left ? bounds.left : this.left,
      top: this.top === c.top ? bounds.top : this.top,
      right: this.right === c.right ? bounds.right : this.right,
      bottom: this.bottom === c.bottom ? bounds.bottom : this.bottom,
    };
  }
}
