import type { Bounds } from '../types';

/**
 * A rectangle of pixels in OUTPUT coordinates (render scale, whole-image rows even when only a
 * strip is rendered). RGBA straight alpha, or one channel for masks.
 */
export interface Surface {
  x: number;
  y: number;
  w: number;
  h: number;
  data: Uint8ClampedArray;
}

export interface MaskSurface extends Surface {
  /** Value outside the rectangle. */
  fill: number;
}

/**
 * Pixel arrays known to be opaque (alpha 255) over a rectangle of their own pixels (x from 0 at
 * the array's first column, y from 0 at its first row): a JPEG picture placed upright is, inside
 * its faded border (personalise/image.ts). The compositor copies such rows instead of blending them.
 */
const opaqueAreas = new WeakMap<Uint8ClampedArray, Bounds>();

/** Records that `data`'s pixels inside `area` (its own pixel coordinates) are all opaque. */
export function markOpaque(data: Uint8ClampedArray, area: Bounds): void {
  if (area.right > area.left && area.bottom > area.top) opaqueAreas.set(data, area);
}

/** The rectangle of `data`'s own pixels known to be opaque, if any (markOpaque). */
export function opaqueArea(data: Uint8ClampedArray): Bounds | undefined {
  return opaqueAreas.get(data);
}

export function createSurface(r: Bounds, channels = 4): Surface {
  const w = Math.max(0, r.right - r.left);
  const h = Math.max(0, r.bottom - r.top);
  return { x: r.left, y: r.top, w, h, data: new Uint8ClampedArray(w * h * channels) };
}

export function rectOf(s: Surface): Bounds {
  return { left: s.x, top: s.y, right: s.x + s.w, bottom: s.y + s.h };
}

export function intersectRect(a: Bounds, b: Bounds): Bounds | null {
  const r = {
    left: Math.max(a.left, b.left),
    top: Math.max(a.top, b.top),
    right: Math.min(a.right, b.right),
    bottom: Math.min(a.bottom, b.bottom),
  };
  return r.right > r.left && r.bottom > r.top ? r : null;
}

/** The smallest rectangle holding both. */
export function unionRect(a: Bounds, b: Bounds): Bounds {
  return {
    left: Math.min(a.left, b.left),
    top: Math.min(a.top, b.top),
    right: Math.max(a.right, b.right),
    bottom: Math.max(a.bottom, b.bottom),
  };
}

/** `r` grown by `by` pixels on every side. */
/** `to`'s rectangle cut out of `from` (RGBA over `at`, which holds it). */
export function copyRect(from: Uint8ClampedArray, at: Bounds, to: Surface): void {
  const fromW = at.right - at.left;
  const rowBytes = to.w * 4;
  if (fromW === to.w) {
    to.data.set(from.subarray((to.y - at.top) * rowBytes, (to.y - at.top + to.h) * rowBytes));
    return;
  }
  for (let y = 0; y < to.h; y++) {
    const s = ((to.y - at.top + y) * fromW + (to.x - at.left)) * 4;
    to.data.set(from.subarray(s, s + rowBytes), y * rowBytes);
  }
}

/** The pixels of `s` inside `r` (within s), as a surface of their own. */
export function cropSurface(s: Surface, r: Bounds): Surface {
  const out = createSurface(r);
  copyRect(s.data, rectOf(s), out);
  return out;
}

export function growRect(r: Bounds, by: number): Bounds {
  return { left: r.left - by, top: r.top - by, right: r.right + by, bottom: r.bottom + by };
}

export function cloneSurface(s: Surface): Surface {
  return { ...s, data: s.data.slice() };
}

/**
 * The mask cut to rectangle r, one byte per pixel of r (fill outside the mask's own rectangle).
 */
export function maskOver(m: MaskSurface, r: Bounds): Uint8ClampedArray {
  const w = r.right - r.left;
  const h = r.bottom - r.top;
  const out = new Uint8ClampedArray(w * h);
  if (m.fill) out.fill(m.fill);
  const i = intersectRect(r, rectOf(m));
  if (!i) return out;
  for (let y = i.top; y < i.bottom; y++) {
    const s = (y - m.y) * m.w + (i.left - m.x);
    out.set(m.data.subarray(s, s + (i.right - i.left)), (y - r.top) * w + (i.left - r.left));
  }
  return out;
}

/** Multiplies two masks over rectangle r (either may be null: all 255). */
export function multiplyMasks(a: Uint8ClampedArray | null, b: Uint8ClampedArray | null): Uint8ClampedArray | null {
  if (!a) return b;
  if (!b) return a;
  const out = new Uint8ClampedArray(a.length);
  for (let i = 0; i < a.length; i++) out[i] = (a[i] * b[i] + 127) / 255;
  return out;
}
