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
    let first = -1;
    let last = -1;
    for (let x = 0, a = 3; a < row.length; x++, a += 4) {
      if (row[a]) {
        if (first < 0) first = x;
        last = x;
      }
    }
    if (first < 0) return;
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
