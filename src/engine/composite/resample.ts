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
  const run = shrinkRGBA(sb, f, out, { data: src, top: sb.top, bottom: sb.bottom });
  if (!run.next().done) throw new Error('resampleRGBA: a row outside its source'); // it holds them all
  return out;
}

/** Level rows [top, bottom) of a source, each its bounds' columns wide: row `top` first in `data`. */
export interface SourceRows {
  data: Uint8Array;
  top: number;
  bottom: number;
}

/**
 * resampleRGBA's shrink (f < 1) into `out` from source rows that come a block at a time: yields
 * the level row it needs next whenever `rows` does not hold it, and goes on with the block it is
 * handed, which must. Vertical pass per output row into a premultiplied float row, then
 * horizontal; each output row's sums are taken in the same order whatever the blocks (an output
 * row across two bands keeps its float row while the next band comes), so the bytes are those of
 * one block holding every row.
 */
function* shrinkRGBA(sb: Bounds, f: number, out: Surface, rows: SourceRows): Generator<number, void, SourceRows> {
  const sw = sb.right - sb.left;
  const tx = taps(sb.left, sb.right, out.x, out.x + out.w, f);
  const ty = taps(sb.top, sb.bottom, out.y, out.y + out.h, f);
  const row = new Float32Array(sw * 4);
  for (let oy = 0; oy < out.h; oy++) {
    row.fill(0);
    const c = ty.count[oy];
    for (let k = 0; k < c; k++) {
      const y = sb.top + ty.start[oy] + k;
      if (y < rows.top || y >= rows.bottom) rows = yield y;
      addRowRGBA(row, rows.data, (y - rows.top) * sw * 4, sw, ty.weights[oy * ty.stride + k]);
    }
    acrossRGBA(row, tx, out.data, oy * out.w * 4, out.w);
  }
}

/** Adds source row `src[s…]` (`sw` RGBA pixels), premultiplied and weighed by `wgt`, to the float row (kept apart from the generator: the hot loops optimise as a plain function's). */
function addRowRGBA(row: Float32Array, src: Uint8Array, s: number, sw: number, wgt: number): void {
  for (let x = 0; x < sw; x++, s += 4) {
    const a = src[s + 3] * wgt;
    if (a === 0) continue;
    row[x * 4] += src[s] * a;
    row[x * 4 + 1] += src[s + 1] * a;
    row[x * 4 + 2] += src[s + 2] * a;
    row[x * 4 + 3] += a;
  }
}

/** The horizontal pass of one output row: `w` pixels from the float row into `data` at `o`, straight colour again. */
function acrossRGBA(row: Float32Array, tx: Taps, data: Uint8ClampedArray, o: number, w: number): void {
  for (let ox = 0; ox < w; ox++, o += 4) {
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
      data[o] = r0 / a0;
      data[o + 1] = g0 / a0;
      data[o + 2] = b0 / a0;
      data[o + 3] = Math.round(a0);
    }
  }
}

/**
 * resampleRGBA shrinking (f < 1) from rows read a block at a time (`read(y)`: a block holding
 * level row y, the whole width of `sb`, e.g. the stored band it falls in), into the surface
 * `surface(r)` gives (zeroed). The same bytes as resampleRGBA of every row of `sb` joined, without
 * the join: for a frame's strip, the rows of an 8,000 px wide layer it reads were joined into an
 * 11 MB buffer beside the band they came from (issue 25 §1, docs/memory.md).
 */
export async function resampleRGBAByRows(
  sb: Bounds,
  f: number,
  clip: Bounds,
  read: (y: number) => Promise<SourceRows>,
  surface: (r: Bounds) => Surface = createSurface,
): Promise<Surface | null> {
  if (!(f < 1)) throw new RangeError(`resampleRGBAByRows shrinks only (factor ${f})`);
  const r = intersectRect(outputRect(sb, f), clip);
  if (!r) return null;
  const out = surface(r);
  const run = shrinkRGBA(sb, f, out, { data: new Uint8Array(0), top: 0, bottom: 0 });
  for (let next = run.next(); !next.done; ) {
    const y = next.value;
    const rows = await read(y);
    if (y < rows.top || y >= rows.bottom) throw new Error(`resampleRGBAByRows: row ${y} read as rows ${rows.top}–${rows.bottom}`);
    next = run.next(rows);
  }
  return out;
}

/**
 * Upscaling: bilinear between level pixel centres (premultiplied), the source's edge pixels
 * extended (the output stays within the layer's own rectangle), so it softens instead of
 * turning into blocks and the document's border stays opaque.
 *
 * Separable in the order the sums were always taken: each source row's horizontal
 * interpolation (premultiplied colour and alpha at every output column) is made once and kept
 * while output rows read it (~3 output rows per source row at 800 px of a 256 px template),
 * then the two rows are weighed per output row. Every sum is the same expression, in the same
 * order, as the per-pixel form before (a closure and an array per pixel made that ~70 % of an
 * upscaled preview's render), so the bytes are the same (test/engine/composite/upscale-bytes.test.ts).
 */
function bilinearRGBA(src: Uint8Array, sb: Bounds, f: number, out: Surface): void {
  const sw = sb.right - sb.left;
  const sh = sb.bottom - sb.top;
  const w = out.w;
  const clampX = (x: number) => (x < 0 ? 0 : x >= sw ? sw - 1 : x);
  const clampY = (y: number) => (y < 0 ? 0 : y >= sh ? sh - 1 : y);
  // Per output column: byte offsets of its two source columns and its weight.
  const xa = new Int32Array(w);
  const xb = new Int32Array(w);
  const wxs = new Float64Array(w);
  for (let ox = 0; ox < w; ox++) {
    const fx = (out.x + ox + 0.5) / f - 0.5 - sb.left;
    const x0 = Math.floor(fx);
    wxs[ox] = fx - x0;
    xa[ox] = clampX(x0) * 4;
    xb[ox] = clampX(x0 + 1) * 4;
  }
  // Source row y interpolated across: premultiplied r, g, b and alpha per output column.
  const across = (y: number, into: Float64Array) => {
    const row = y * sw * 4;
    for (let ox = 0, o = 0; ox < w; ox++, o += 4) {
      const wx = wxs[ox]!;
      const vx = 1 - wx;
      const p = row + xa[ox]!;
      const q = row + xb[ox]!;
      const ap = src[p + 3]!;
      const aq = src[q + 3]!;
      into[o] = src[p]! * ap * vx + src[q]! * aq * wx;
      into[o + 1] = src[p + 1]! * ap * vx + src[q + 1]! * aq * wx;
      into[o + 2] = src[p + 2]! * ap * vx + src[q + 2]! * aq * wx;
      into[o + 3] = ap * vx + aq * wx;
    }
  };
  // Two kept rows, each labelled by the source row it holds (-1: none yet).
  let rowA = new Float64Array(w * 4);
  let rowB = new Float64Array(w * 4);
  let heldA = -1;
  let heldB = -1;
  const data = out.data;
  for (let oy = 0; oy < out.h; oy++) {
    const fy = (out.y + oy + 0.5) / f - 0.5 - sb.top;
    const y0 = Math.floor(fy);
    const wy = fy - y0;
    const vy = 1 - wy;
    const ya = clampY(y0);
    const yb = clampY(y0 + 1);
    if (heldA !== ya) {
      if (heldB === ya) {
        [rowA, rowB] = [rowB, rowA];
        [heldA, heldB] = [heldB, heldA];
      } else {
        across(ya, rowA);
        heldA = ya;
      }
    }
    if (heldB !== yb) {
      if (yb === ya) rowB.set(rowA);
      else across(yb, rowB);
      heldB = yb;
    }
    let o = oy * w * 4;
    for (let i = 0; i < w * 4; i += 4, o += 4) {
      const a = rowA[i + 3]! * vy + rowB[i + 3]! * wy;
      if (a > 0) {
        data[o] = (rowA[i]! * vy + rowB[i]! * wy) / a;
        data[o + 1] = (rowA[i + 1]! * vy + rowB[i + 1]! * wy) / a;
        data[o + 2] = (rowA[i + 2]! * vy + rowB[i + 2]! * wy) / a;
        data[o + 3] = a;
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
