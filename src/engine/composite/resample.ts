import type { Bounds } from '../types';
import { createSurface, intersectRect, type MaskSurface, type Surface } from './surface';

/**
 * Area-average resampling from a pyramid level to the output grid (our own until the raster
 * kernels land). A level pixel i covers output [i·f, (i+1)·f); an output pixel takes the
 * area-weighted mean of what it covers (RGBA premultiplied, so transparency lends no colour).
 * When f is 1 the pixels are copied.
 */

interface Taps {
  /** Per output index: first source index, and weights (sum to 1 inside the source). */
  start: Int32Array;
  count: Int32Array;
  weights: Float32Array;
  stride: number;
}

/** Output range [o0, o1) from source range [s0, s1) (level coords) at factor f. */
function taps(s0: number, s1: number, o0: number, o1: number, f: number): Taps {
  const n = o1 - o0;
  const stride = Math.ceil(1 / f) + 2;
  const start = new Int32Array(n);
  const count = new Int32Array(n);
  const weights = new Float32Array(n * stride);
  for (let o = 0; o < n; o++) {
    const a = (o0 + o) / f;
    const b = (o0 + o + 1) / f;
    const first = Math.max(s0, Math.floor(a));
    const last = Math.min(s1, Math.ceil(b));
    start[o] = first - s0;
    let c = 0;
    for (let i = first; i < last && c < stride; i++, c++) {
      weights[o * stride + c] = (Math.min(b, i + 1) - Math.max(a, i)) * f;
    }
    count[o] = c;
  }
  return { start, count, weights, stride };
}

/** Output rectangle covered by source bounds sb at factor f. */
export function outputRect(sb: Bounds, f: number): Bounds {
  return {
    left: Math.floor(sb.left * f + 1e-9),
    top: Math.floor(sb.top * f + 1e-9),
    right: Math.ceil(sb.right * f - 1e-9),
    bottom: Math.ceil(sb.bottom * f - 1e-9),
  };
}

export function resampleRGBA(src: Uint8Array, sb: Bounds, f: number, clip: Bounds): Surface | null {
  const r = intersectRect(outputRect(sb, f), clip);
  if (!r) return null;
  const out = createSurface(r);
  const sw = sb.right - sb.left;
  if (Math.abs(f - 1) < 1e-9) {
    for (let y = r.top; y < r.bottom; y++) {
      const s = ((y - sb.top) * sw + (r.left - sb.left)) * 4;
      out.data.set(src.subarray(s, s + out.w * 4), (y - r.top) * out.w * 4);
    }
    return out;
  }
  if (f > 1) {
    bilinearRGBA(src, sb, f, out);
    return out;
  }
  const tx = taps(sb.left, sb.right, r.left, r.right, f);
  const ty = taps(sb.top, sb.bottom, r.top, r.bottom, f);
  // Vertical pass per output row into a premultiplied float row, then horizontal.
  const row = new Float32Array(sw * 4);
  for (let oy = 0; oy < out.h; oy++) {
    row.fill(0);
    const c = ty.count[oy];
    for (let k = 0; k < c; k++) {
      const wgt = ty.weights[oy * ty.stride + k];
      let s = (ty.start[oy] + k) * sw * 4;
      for (let x = 0; x < sw; x++, s += 4) {
        const a = src[s + 3] * wgt;
        if (a === 0) continue;
        row[x * 4] += src[s] * a;
        row[x * 4 + 1] += src[s + 1] * a;
        row[x * 4 + 2] += src[s + 2] * a;
        row[x * 4 + 3] += a;
      }
    }
    let o = oy * out.w * 4;
    for (let ox = 0; ox < out.w; ox++, o += 4) {
      let r0 = 0, g0 = 0, b0 = 0, a0 = 0;
      const cx = tx.count[ox];
      for (let k = 0; k < cx; k++) {
        const wgt = tx.weights[ox * tx.stride + k];
        const s = (tx.start[ox] + k) * 4;
        r0 += row[s] * wgt;
        g0 += row[s + 1] * wgt;
        b0 += row[s + 2] * wgt;
        a0 += row[s + 3] * wgt;
      }
      if (a0 > 0) {
        out.data[o] = r0 / a0;
        out.data[o + 1] = g0 / a0;
        out.data[o + 2] = b0 / a0;
        out.data[o + 3] = Math.round(a0);
      }
    }
  }
  return out;
}

/**
 * Upscaling: bilinear between level pixel centres (premultiplied), the source's edge pixels
 * extended (the output stays within the layer's own rectangle), so it softens instead of
 * turning into blocks and the document's border stays opaque.
 */
function bilinearRGBA(src: Uint8Array, sb: Bounds, f: number, out: Surface): void {
  const sw = sb.right - sb.left;
  const sh = sb.bottom - sb.top;
  const px = (x: number, y: number, c: number) => {
    const i = ((y < 0 ? 0 : y >= sh ? sh - 1 : y) * sw + (x < 0 ? 0 : x >= sw ? sw - 1 : x)) * 4;
    return c === 3 ? src[i + 3] : src[i + c] * src[i + 3];
  };
  for (let oy = 0; oy < out.h; oy++) {
    const fy = (out.y + oy + 0.5) / f - 0.5 - sb.top;
    const y0 = Math.floor(fy);
    const wy = fy - y0;
    for (let ox = 0; ox < out.w; ox++) {
      const fx = (out.x + ox + 0.5) / f - 0.5 - sb.left;
      const x0 = Math.floor(fx);
      const wx = fx - x0;
      const v = [0, 0, 0, 0];
      for (let c = 0; c < 4; c++) {
        v[c] =
          (px(x0, y0, c) * (1 - wx) + px(x0 + 1, y0, c) * wx) * (1 - wy) +
          (px(x0, y0 + 1, c) * (1 - wx) + px(x0 + 1, y0 + 1, c) * wx) * wy;
      }
      const o = (oy * out.w + ox) * 4;
      if (v[3] > 0) {
        out.data[o] = v[0] / v[3];
        out.data[o + 1] = v[1] / v[3];
        out.data[o + 2] = v[2] / v[3];
        out.data[o + 3] = v[3];
      }
    }
  }
}

export function resampleGray(src: Uint8Array, sb: Bounds, f: number, clip: Bounds, fill: number): MaskSurface | null {
  const r = intersectRect(outputRect(sb, f), clip);
  if (!r) return null;
  const out = { ...createSurface(r, 1), fill };
  const sw = sb.right - sb.left;
  if (Math.abs(f - 1) < 1e-9) {
    for (let y = r.top; y < r.bottom; y++) {
      const s = (y - sb.top) * sw + (r.left - sb.left);
      out.data.set(src.subarray(s, s + out.w), (y - r.top) * out.w);
    }
    return out;
  }
  const tx = taps(sb.left, sb.right, r.left, r.right, f);
  const ty = taps(sb.top, sb.bottom, r.top, r.bottom, f);
  const row = new Float32Array(sw);
  for (let oy = 0; oy < out.h; oy++) {
    row.fill(0);
    let wsum = 0;
    for (let k = 0; k < ty.count[oy]; k++) {
      const wgt = ty.weights[oy * ty.stride + k];
      wsum += wgt;
      const s = (ty.start[oy] + k) * sw;
      for (let x = 0; x < sw; x++) row[x] += src[s + x] * wgt;
    }
    const vfill = (1 - wsum) * fill;
    for (let ox = 0; ox < out.w; ox++) {
      let v = 0, hsum = 0;
      for (let k = 0; k < tx.count[ox]; k++) {
        const wgt = tx.weights[ox * tx.stride + k];
        hsum += wgt;
        v += (row[tx.start[ox] + k] + vfill) * wgt;
      }
      out.data[oy * out.w + ox] = Math.round(v + (1 - hsum) * fill);
    }
  }
  return out;
}
