import type { RGBAImage } from '../types';
import { type Arena, type KernelExports, withArena } from './kernels';

/**
 * `high`: Lanczos-3 (previews and final output). `fast`: box when shrinking, bilinear when
 * enlarging (what `optimizePreview` may choose: cheaper, never skips content).
 */
export type ResampleQuality = 'high' | 'fast';

interface Filter {
  support: number;
  at(x: number): number;
}

const sinc = (x: number) => (x === 0 ? 1 : Math.sin(Math.PI * x) / (Math.PI * x));
const lanczos3: Filter = { support: 3, at: (x) => (Math.abs(x) < 3 ? sinc(x) * sinc(x / 3) : 0) };
const box: Filter = { support: 0.5, at: (x) => (x > -0.5 && x <= 0.5 ? 1 : 0) };
const bilinear: Filter = { support: 1, at: (x) => Math.max(0, 1 - Math.abs(x)) };

/**
 * Where a picture lies along one axis of its pixels when not exactly on them: [start, start + size).
 * A k/8 decode of a size off its grid (W·k/8 not whole) is ⌈W·k/8⌉ pixels covering W·k/8 of the
 * picture, its last pixel partly past it (libjpeg's rounded-up size); resized as the picture, that
 * extent is what maps onto the destination, or the far edge stretches by up to a decoded pixel.
 */
export interface AxisExtent {
  start: number;
  size: number;
}

/** A picture's extent in its pixels on both axes (AxisExtent's), when it is not its whole pixels. */
export interface PictureExtent {
  left: number;
  top: number;
  width: number;
  height: number;
}

export interface AxisWeights {
  /** Per destination index: [first source index, tap count]. */
  bounds: Int32Array;
  /** weights[i * stride + k]: normalised weight of tap k of destination i. */
  weights: Float32Array;
  stride: number;
}

/**
 * Filter taps for one axis (pixel centres at i + 0.5; the filter widens by the scale when
 * shrinking so every source pixel contributes). Weights of each destination sum to 1, so a
 * constant image stays constant. `extent`: the part of the src pixels that maps onto dst (default all).
 */
export function axisWeights(src: number, dst: number, filter: Filter, extent?: AxisExtent): AxisWeights {
  const scale = (extent ? extent.size : src) / dst;
  const filterScale = Math.max(scale, 1);
  const support = filter.support * filterScale;
  const stride = Math.min(src, Math.ceil(support) * 2 + 1);
  const bounds = new Int32Array(dst * 2);
  const weights = new Float32Array(dst * stride);
  for (let i = 0; i < dst; i++) {
    const center = extent ? extent.start + (i + 0.5) * scale : (i + 0.5) * scale;
    let first = Math.max(0, Math.floor(center - support + 0.5));
    const end = Math.min(src, Math.floor(center + support + 0.5));
    const taps: number[] = [];
    let sum = 0;
    for (let x = first; x < end; x++) {
      const w = filter.at((x + 0.5 - center) / filterScale);
      taps.push(w);
      sum += w;
    }
    // Trim zero taps at the ends (box/bilinear edges) to keep the inner loops short.
    while (taps.length > 1 && taps[0] === 0) {
      taps.shift();
      first++;
    }
    while (taps.length > 1 && taps[taps.length - 1] === 0) taps.pop();
    if (sum === 0 || taps.length === 0) {
      taps.length = 0;
      taps.push(1);
      first = Math.min(src - 1, Math.max(0, Math.floor(center)));
      sum = 1;
    }
    bounds[2 * i] = first;
    bounds[2 * i + 1] = taps.length;
    for (let k = 0; k < taps.length; k++) weights[i * stride + k] = taps[k]! / sum;
  }
  return { bounds, weights, stride };
}

/**
 * Resizes `img` to width × height (separable, on premultiplied alpha so transparent pixels do
 * not darken edges). The source streams through WASM one row at a time with a ring of
 * horizontally filtered rows, so working memory is about (taps × width × 16) bytes however
 * large the source is; the only full-size buffers are `img` and the result.
 *
 * @example
 *   const preview = await resample(composite, 800, 600);              // Lanczos-3
 *   const quick = await resample(composite, 800, 600, { quality: 'fast' });
 */
export async function resample(
  img: RGBAImage,
  width: number,
  height: number,
  {
    quality = 'high',
    extent,
  }: {
    quality?: ResampleQuality;
    /** The part of img's pixels that is the picture (a k/8 decode off its grid), mapped onto width × height. */
    extent?: PictureExtent;
  } = {},
): Promise<RGBAImage> {
  const along = extent && axisExtents(img, extent);
  if (along?.x || along?.y) {
    return filterRows(img, 0, resampleTaps(img.width, width, quality, along.x), resampleTaps(img.height, height, quality, along.y), { top: 0, bottom: height });
  }
  if (width === img.width && height === img.height) {
    return { width, height, data: new Uint8ClampedArray(img.data) };
  }
  return resampleRows(img, { top: 0, height: img.height }, width, height, { top: 0, bottom: height }, quality);
}

/**
 * Filter taps per axis for a resize from src to dst pixels. Kept per isolate (the same sizes
 * come back on every preview of a template: a personalised preview asked three times, ~0.3 ms
 * each at 800 px); callers share the result and must not write into it. `extent`: resampleTaps's
 * extent of the src pixels mapped onto dst (absent: all of them).
 */
export function resampleTaps(src: number, dst: number, quality: ResampleQuality = 'high', extent?: AxisExtent): AxisWeights {
  const key = extent ? `${src}/${dst}/${quality}/${extent.start}+${extent.size}` : `${src}/${dst}/${quality}`;
  return keptTaps(key, () => axisWeights(src, dst, quality === 'high' ? lanczos3 : dst < src ? box : bilinear, extent));
}

/** A picture's extent per axis, each undefined where it is the whole pixels (the taps, and so the bytes, are then those without it). */
export function axisExtents(img: { width: number; height: number }, extent: PictureExtent): { x?: AxisExtent; y?: AxisExtent } {
  return {
    x: extent.left === 0 && extent.width === img.width ? undefined : { start: extent.left, size: extent.width },
    y: extent.top === 0 && extent.height === img.height ? undefined : { start: extent.top, size: extent.height },
  };
}

/** The taps kept under `key`, else made by `make` and kept while small enough (shared: not to be written into). */
function keptTaps(key: string, make: () => AxisWeights): AxisWeights {
  let taps = tapsBySize.get(key);
  if (taps) {
    // Most recently used last, so the least recently used goes first when over the budget.
    tapsBySize.delete(key);
    tapsBySize.set(key, taps);
    return taps;
  }
  taps = make();
  const bytes = tapsBytes(taps);
  if (bytes <= TAPS_KEPT_BYTES / 4) {
    tapsBySize.set(key, taps);
    tapsKeptBytes += bytes;
    for (const [oldest, kept] of tapsBySize) {
      if (tapsKeptBytes <= TAPS_KEPT_BYTES) break;
      tapsBySize.delete(oldest);
      tapsKeptBytes -= tapsBytes(kept);
    }
  }
  return taps;
}

/**
 * Bytes of taps kept per isolate: an 800 px preview's are ~60 KB per axis, a print-size
 * resize's up to ~1 MB (not kept: it would crowd out the previews' and counts against the
 * request's memory budget).
 */
const TAPS_KEPT_BYTES = 4 << 20;
const tapsBySize = new Map<string, AxisWeights>();
let tapsKeptBytes = 0;
const tapsBytes = (taps: AxisWeights) => taps.bounds.byteLength + taps.weights.byteLength;

/**
 * Output rows [rows.top, rows.bottom), and columns [columns.left, columns.right) (default: all),
 * of the resize of a `source.width` × `source.height` image to width × height, from `img`: that
 * image's window starting at row `source.top` and column `source.left` (at least the rows and
 * columns these output pixels read: `resampleTaps` tells which). The weights are those of the
 * whole image and each output pixel sums its taps in the same order, so the pixels are the same
 * bytes as the same pixels of `resample`.
 */
export async function resampleRows(
  img: RGBAImage,
  source: { top: number; height: number; left?: number; width?: number },
  width: number,
  height: number,
  rows: { top: number; bottom: number },
  quality: ResampleQuality = 'high',
  columns: { left: number; right: number } = { left: 0, right: width },
  /** Where the pixels go (a kept strip buffer at least that long) instead of a new array. */
  into?: Uint8ClampedArray,
): Promise<RGBAImage> {
  if (!(width >= 1 && height >= 1) || !Number.isInteger(width) || !Number.isInteger(height)) {
    throw new RangeError(`resample: bad target size ${width}×${height}`);
  }
  const h = windowTaps(resampleTaps(source.width ?? img.width, width, quality), columns, source.left ?? 0, img.width);
  const v = resampleTaps(source.height, height, quality);
  return filterRows(img, source.top, h, v, rows, into);
}

/** Where destination pixel i looks in a picture: its centre at (i + 0.5) · scale + offset of that picture's pixels. */
export interface AxisMap {
  scale: number;
  offset: number;
}

/**
 * The taps, on a source of sizes[0] pixels, of `dst` output pixels that sample bilinearly
 * (clamped to the edge) the picture of sizes.at(-1) pixels made from that source by `resample`
 * through each size in turn, at centres (i + 0.5) · map.scale + map.offset of that last picture:
 * the resize chain and the bilinear lookup folded into one set of weights (issue 25 §3: a
 * placement drawn in one pass; the same sums up to the rounding of the pictures in between).
 * `extent`: the part of the source's sizes[0] pixels its first resize maps (a k/8 decode off its grid).
 */
export function chainedTaps(dst: number, map: AxisMap, sizes: number[], extent?: AxisExtent): AxisWeights {
  // Kept like a resize's: a template's placement asks for the same ones on every request.
  const key = `chain/${dst}/${map.scale}/${map.offset}/${sizes.join('/')}${extent ? `/${extent.start}+${extent.size}` : ''}`;
  return keptTaps(key, () => foldTaps(dst, map, sizes, extent));
}

function foldTaps(dst: number, map: AxisMap, sizes: number[], extent?: AxisExtent): AxisWeights {
  const last = sizes.at(-1)!;
  const bounds = new Int32Array(dst * 2);
  const weights = new Float64Array(dst * 2);
  for (let i = 0; i < dst; i++) {
    const u = (i + 0.5) * map.scale + map.offset - 0.5;
    const x0 = Math.floor(u);
    const fx = u - x0;
    const a = Math.min(last - 1, Math.max(0, x0));
    const b = Math.min(last - 1, Math.max(0, x0 + 1));
    bounds[2 * i] = a;
    bounds[2 * i + 1] = b - a + 1;
    weights[2 * i] = a === b ? 1 : 1 - fx;
    weights[2 * i + 1] = a === b ? 0 : fx;
  }
  let taps: ComposedTaps = { bounds, weights, stride: 2 };
  for (let k = sizes.length - 1; k > 0; k--) {
    // The first resize maps the source's extent, so it is made even between equal sizes when that is not all of it.
    const from = k === 1 ? extent : undefined;
    if (sizes[k] !== sizes[k - 1] || from) taps = composeTaps(taps, resampleTaps(sizes[k - 1]!, sizes[k]!, 'high', from));
  }
  return trimZeroTaps({ bounds: taps.bounds, weights: Float32Array.from(taps.weights), stride: taps.stride });
}

/**
 * The taps without the weights exactly 0 at either end of each destination's run (a bilinear
 * lookup at whole-pixel centres, as an upright placement at whole-pixel corners makes, weighs its
 * second pixel 0, and composed, that pixel's whole resize run: 796 of the poster placement's 5,588
 * horizontal taps). The same bytes: a sum's term p · 0 is ±0, and adding ±0 changes a sum at
 * most in the sign of a zero, which no pixel keeps (the kernels clamp colour to [0, alpha] with
 * max, for which −0 and +0 are the same, and an alpha below 0.5 is transparent).
 */
function trimZeroTaps(taps: AxisWeights): AxisWeights {
  const { bounds, weights, stride } = taps;
  for (let i = 0; i < bounds.length >> 1; i++) {
    let from = 0;
    let count = bounds[2 * i + 1]!;
    while (count > 1 && weights[i * stride + from] === 0) from++, count--;
    while (count > 1 && weights[i * stride + from + count - 1] === 0) count--;
    if (from) weights.copyWithin(i * stride, i * stride + from, i * stride + from + count);
    bounds[2 * i] += from;
    bounds[2 * i + 1] = count;
  }
  return taps;
}

type ComposedTaps = { bounds: Int32Array; weights: ArrayLike<number>; stride: number };

/** Taps of `outer` (reading the pixels `inner` makes) as taps on inner's source. */
function composeTaps(outer: ComposedTaps, inner: AxisWeights): ComposedTaps {
  const n = outer.bounds.length >> 1;
  const rows: { first: number; sums: Float64Array }[] = [];
  let stride = 1;
  for (let i = 0; i < n; i++) {
    const first = outer.bounds[2 * i]!;
    const count = outer.bounds[2 * i + 1]!;
    const from = inner.bounds[2 * first]!;
    let end = from;
    for (let j = first; j < first + count; j++) end = Math.max(end, inner.bounds[2 * j]! + inner.bounds[2 * j + 1]!);
    const sums = new Float64Array(end - from);
    for (let j = first; j < first + count; j++) {
      const w = outer.weights[i * outer.stride + j - first]!;
      const at = inner.bounds[2 * j]! - from;
      for (let t = 0; t < inner.bounds[2 * j + 1]!; t++) sums[at + t] += w * inner.weights[j * inner.stride + t]!;
    }
    rows.push({ first: from, sums });
    stride = Math.max(stride, sums.length);
  }
  const bounds = new Int32Array(n * 2);
  const weights = new Float64Array(n * stride);
  rows.forEach(({ first, sums }, i) => {
    bounds[2 * i] = first;
    bounds[2 * i + 1] = sums.length;
    weights.set(sums, i * stride);
  });
  return { bounds, weights, stride };
}

/**
 * `img` drawn through taps `h` (columns) and `v` (rows): each output pixel the weighted sum of the
 * source pixels they name, on premultiplied colour as `resample`, straight alpha out. `into`:
 * where the pixels go (at least their length; every byte of them is written) instead of a new array.
 */
export function resampleWithTaps(img: RGBAImage, h: AxisWeights, v: AxisWeights, into?: Uint8ClampedArray): Promise<RGBAImage> {
  return filterRows(img, 0, h, v, { top: 0, bottom: v.bounds.length >> 1 }, into);
}

/** Output rows [rows.top, rows.bottom) through taps h and v, from `img` holding source rows from `sourceTop` (WASM, a ring of filtered rows). */
async function filterRows(
  img: RGBAImage,
  sourceTop: number,
  given: AxisWeights,
  v: AxisWeights,
  rows: { top: number; bottom: number },
  into?: Uint8ClampedArray,
): Promise<RGBAImage> {
  const outWidth = given.bounds.length >> 1;
  // Only the source columns the taps read are made premultiplied floats (a fill placement's
  // picture is cropped: the bench photo's 1,600 columns for 848 of psdtools-adjust-curves' 'orion'
  // read ~1,250): the taps moved by the first, the same pixels under the same weights.
  const cols = tapSpan(given, 0, outWidth);
  const first = cols.end > cols.first ? cols.first : 0;
  const srcW = cols.end > cols.first ? cols.end - first : img.width;
  const h = first > 0 || srcW < img.width ? windowTaps(given, { left: 0, right: outWidth }, first, srcW) : given;
  const length = outWidth * (rows.bottom - rows.top) * 4;
  const out = into ? into.subarray(0, length) : new Uint8ClampedArray(length);

  // Source rows up to `needEnd` (exclusive) are read by the rows asked for.
  let needEnd = 0;
  for (let y = rows.top; y < rows.bottom; y++) needEnd = Math.max(needEnd, v.bounds[2 * y]! + v.bounds[2 * y + 1]!);
  needEnd = Math.min(needEnd, sourceTop + img.height);

  // Output rows go down in pairs (resampleRowsV2: a ring row read by both loaded once) where the
  // second's taps start no earlier than the first's, end no earlier and meet them, as a resize's
  // do; the ring holds what a pair reads.
  let span = v.stride;
  for (let y = rows.top; y + 1 < rows.bottom; y++) if (pairedRows(v, y)) span = Math.max(span, v.bounds[2 * y + 2]! + v.bounds[2 * y + 3]! - v.bounds[2 * y]!);

  await withArena((k, arena) => {
    // Three slots more than the rows an output row (or pair) reads, so that rows can be filtered
    // up to three ahead of their need (the slots they take held rows before these output rows'
    // first, which no later output row reads: the rows' firsts do not go down).
    const ringRows = span + 3;
    const srcRow = arena.alloc(img.width * 16);
    const scratch = arena.alloc(img.width * 64);
    const ring = arena.alloc(ringRows * outWidth * 16);
    const hBounds = arena.alloc(h.bounds.byteLength);
    const hWeights = arena.alloc(h.weights.byteLength);
    const vWeights = arena.alloc(v.weights.byteLength);
    // Output rows gather here and go out in runs of up to OUT_RUN_BYTES (fewer copies of a row or two).
    const runRows = Math.max(2, Math.floor(OUT_RUN_BYTES / (outWidth * 4)));
    const outRows = arena.alloc(outWidth * 4 * runRows);
    const u8 = arena.u8();
    const f32 = arena.f32();
    new Int32Array(u8.buffer, hBounds, h.bounds.length).set(h.bounds);
    f32.set(h.weights, hWeights >> 2);
    f32.set(v.weights, vWeights >> 2);

    const srcStride = img.width * 4;
    const at0 = first * 4; // the first column read, in each row copied to srcRow
    const slot = (row: number) => ring + (row % ringRows) * outWidth * 16;
    let next = 0; // next source row to filter horizontally into the ring
    let runTop = rows.top; // the first output row held at outRows
    for (let y = rows.top; y < rows.bottom; ) {
      const last = y + 1 < rows.bottom && pairedRows(v, y) ? y + 1 : y;
      next = Math.max(next, v.bounds[2 * y]!);
      while (next < v.bounds[2 * last]! + v.bounds[2 * last + 1]!) {
        const at = next - sourceTop;
        if (at < 0 || at >= img.height) throw new RangeError(`resampleRows: source row ${next} is not in the strip`);
        if (next + 3 < needEnd) {
          u8.set(img.data.subarray(at * srcStride, (at + 4) * srcStride), srcRow);
          k.resampleRowsH4(srcRow + at0, srcStride, srcW, scratch, slot(next), slot(next + 1), slot(next + 2), slot(next + 3), outWidth, hBounds, hWeights, h.stride);
          next += 4;
        } else if (next + 1 < needEnd) {
          // Two rows at a time (each weight loaded once for both), the second maybe one ahead.
          u8.set(img.data.subarray(at * srcStride, (at + 2) * srcStride), srcRow);
          k.resampleRowsH2(srcRow + at0, srcRow + srcStride + at0, srcW, scratch, slot(next), slot(next + 1), outWidth, hBounds, hWeights, h.stride);
          next += 2;
        } else {
          u8.set(img.data.subarray(at * srcStride, (at + 1) * srcStride), srcRow);
          k.resampleRowH(srcRow + at0, srcW, scratch, slot(next), outWidth, hBounds, hWeights, h.stride);
          next++;
        }
      }
      const first0 = v.bounds[2 * y]!;
      const count0 = v.bounds[2 * y + 1]!;
      const weights0 = vWeights + y * v.stride * 4;
      if (last + 1 - runTop > runRows) {
        out.set(u8.subarray(outRows, outRows + (y - runTop) * outWidth * 4), (runTop - rows.top) * outWidth * 4);
        runTop = y;
      }
      const at = outRows + (y - runTop) * outWidth * 4;
      if (last > y) k.resampleRowsV2(ring, ringRows, outWidth, first0, count0, weights0, v.bounds[2 * last]!, v.bounds[2 * last + 1]!, weights0 + v.stride * 4, at, at + outWidth * 4);
      else k.resampleRowV(ring, ringRows, outWidth, first0, count0, weights0, at);
      y = last + 1;
    }
    out.set(u8.subarray(outRows, outRows + (rows.bottom - runTop) * outWidth * 4), (runTop - rows.top) * outWidth * 4);
  });
  return { width: outWidth, height: rows.bottom - rows.top, data: out };
}

/**
 * filterRows fed by its caller (pushedRows): the source rows come as they are made, in order (a
 * decoder's MCU rows, in the arena it makes them in), each filtered across into the ring at once,
 * and every output row whose source rows are all filtered is then filtered down. The same kernels
 * on the same rows and taps (each ring row the same floats whichever of resampleRowH, H2 or H4
 * makes it; each output row the same sums whether alone or in a pair): the bytes resampleWithTaps
 * gives on the picture those rows make, without that picture.
 */
export interface PushedRows {
  /**
   * Allocates its buffers in `arena` (kernels `k`), among them where the caller makes the source
   * rows (`rowsAt`): rows of `stride` bytes, made in runs of at most `run` rows that start at a
   * multiple of `run` (a decoder's MCU rows; a run may start later, where the rows asked start).
   * Then the caller allocates the rest and takes its views.
   */
  alloc(k: KernelExports, arena: Arena, stride: number, run: number): void;
  /** After the caller's last allocation: writes the taps. */
  start(): void;
  /** Where source rows [from, to) (one run) go: row `from` there, each row `stride` bytes after the last. */
  rowsAt(from: number): number;
  /** Source rows [from, to) are made at rowsAt(from), after those pushed before (or the first). */
  push(from: number, to: number): void;
  /** After the last push: the pixels (a RangeError when some output row's source rows never came). */
  finish(): RGBAImage;
}

/** PushedRows through taps `given` (columns) and `v` (rows) of a picture; `into`: where the pixels go (at least their length), as resampleWithTaps'. */
export function pushedRows(given: AxisWeights, v: AxisWeights, into?: Uint8ClampedArray): PushedRows {
  const outWidth = given.bounds.length >> 1;
  const outHeight = v.bounds.length >> 1;
  const cols = tapSpan(given, 0, outWidth);
  const first = cols.end > cols.first ? cols.first : 0;
  const srcW = Math.max(1, cols.end - first);
  const h = windowTaps(given, { left: 0, right: outWidth }, first, srcW);
  const need = tapSpan(v, 0, outHeight);
  let span = v.stride;
  for (let y = 0; y + 1 < outHeight; y++) if (pairedRows(v, y)) span = Math.max(span, v.bounds[2 * y + 2]! + v.bounds[2 * y + 3]! - v.bounds[2 * y]!);
  const length = outWidth * outHeight * 4;
  const out = into ? into.subarray(0, length) : new Uint8ClampedArray(length);
  let k!: KernelExports;
  let ringRows = 0, scratch = 0, ring = 0, hBounds = 0, hWeights = 0, vWeights = 0, outRows = 0, runRows = 0;
  let strip = 0, stripRows = 0, stride = 0;
  let u8!: Uint8Array;
  let filtered = need.first; // the next source row to filter across
  let made = -1; // the source rows made so far end here (-1: none yet)
  let y = 0; // the next output row
  let runTop = 0; // the first output row held at outRows
  const slot = (row: number) => ring + (row % ringRows) * outWidth * 16;
  // Source row r at strip row r % stripRows: a run (within a multiple of `run` rows) never wraps
  // there, nor four rows from a multiple of four (stripRows a multiple of both).
  const at = (row: number) => strip + (row % stripRows) * stride + first * 4;
  /** Source rows [filtered, end) across: four at a time from a multiple of four (H4), the rest (the first rows, the last) in twos and ones. */
  const across = (end: number) => {
    let r = filtered;
    while (r < end) {
      if (r % 4 === 0 && r + 4 <= end) {
        k.resampleRowsH4(at(r), stride, srcW, scratch, slot(r), slot(r + 1), slot(r + 2), slot(r + 3), outWidth, hBounds, hWeights, h.stride);
        r += 4;
      } else if (r % 2 === 0 && r + 2 <= end) {
        k.resampleRowsH2(at(r), at(r + 1), srcW, scratch, slot(r), slot(r + 1), outWidth, hBounds, hWeights, h.stride);
        r += 2;
      } else {
        k.resampleRowH(at(r), srcW, scratch, slot(r), outWidth, hBounds, hWeights, h.stride);
        r++;
      }
    }
    filtered = r;
  };
  /** Output rows whose source rows are all filtered, down (filterRows' second half). */
  const down = () => {
    while (y < outHeight) {
      const last = y + 1 < outHeight && pairedRows(v, y) ? y + 1 : y;
      if (v.bounds[2 * last]! + v.bounds[2 * last + 1]! > filtered) return;
      const weights0 = vWeights + y * v.stride * 4;
      if (last + 1 - runTop > runRows) {
        out.set(u8.subarray(outRows, outRows + (y - runTop) * outWidth * 4), runTop * outWidth * 4);
        runTop = y;
      }
      const at = outRows + (y - runTop) * outWidth * 4;
      if (last > y) k.resampleRowsV2(ring, ringRows, outWidth, v.bounds[2 * y]!, v.bounds[2 * y + 1]!, weights0, v.bounds[2 * last]!, v.bounds[2 * last + 1]!, weights0 + v.stride * 4, at, at + outWidth * 4);
      else k.resampleRowV(ring, ringRows, outWidth, v.bounds[2 * y]!, v.bounds[2 * y + 1]!, weights0, at);
      y = last + 1;
    }
  };
  return {
    alloc(kernels, arena, rowStride, run) {
      k = kernels;
      stride = rowStride;
      // A multiple of four and of the run, with room for a run beside the three rows at most left
      // from the one before (not yet filtered: they wait for a fourth).
      stripRows = (run * 4) / gcd(run, 4);
      while (stripRows < run + 3) stripRows *= 2;
      // The rows an output row (or pair) reads, a run and those three more: a push's rows go into
      // slots whose rows no output row left to make reads (those all start past the rows filtered
      // before it, less span).
      ringRows = span + run + 3;
      strip = arena.alloc(stripRows * stride + 16);
      scratch = arena.alloc(srcW * 64);
      ring = arena.alloc(ringRows * outWidth * 16);
      hBounds = arena.alloc(h.bounds.byteLength);
      hWeights = arena.alloc(h.weights.byteLength);
      vWeights = arena.alloc(v.weights.byteLength);
      runRows = Math.max(2, Math.floor(OUT_RUN_BYTES / (outWidth * 4)));
      outRows = arena.alloc(outWidth * 4 * runRows);
    },
    start() {
      u8 = new Uint8Array(k.memory.buffer);
      new Int32Array(k.memory.buffer, hBounds, h.bounds.length).set(h.bounds);
      const f32 = new Float32Array(k.memory.buffer);
      f32.set(h.weights, hWeights >> 2);
      f32.set(v.weights, vWeights >> 2);
    },
    rowsAt(from) {
      return strip + (from % stripRows) * stride;
    },
    push(from, to) {
      if (made >= 0 ? from !== made : from > filtered) throw new RangeError(`pushedRows: source rows from ${from} after ${made >= 0 ? made : filtered}`);
      made = to;
      const end = Math.min(to, need.end);
      // Up to the last multiple of four made, but at the end of the rows read.
      across(end === need.end ? end : Math.max(filtered, end - (end % 4)));
      down();
    },
    finish() {
      if (y < outHeight) throw new RangeError(`pushedRows: output row ${y} reads source rows that did not come`);
      out.set(u8.subarray(outRows, outRows + (outHeight - runTop) * outWidth * 4), runTop * outWidth * 4);
      return { width: outWidth, height: outHeight, data: out };
    },
  };
}

const gcd = (a: number, b: number): number => (b ? gcd(b, a % b) : a);

/** Bytes of output rows filterRows gathers in the kernels' memory before copying them out at once. */
const OUT_RUN_BYTES = 64 * 1024;

/** Whether output rows y and y + 1 go down together: the second's taps start no earlier than the first's, meet them and end no earlier. */
function pairedRows(v: AxisWeights, y: number): boolean {
  const first0 = v.bounds[2 * y]!;
  const end0 = first0 + v.bounds[2 * y + 1]!;
  const first1 = v.bounds[2 * y + 2]!;
  return first1 >= first0 && first1 <= end0 && first1 + v.bounds[2 * y + 3]! >= end0;
}

/**
 * The horizontal taps of output columns [columns.left, columns.right) read from a window of
 * `windowWidth` source columns starting at `left`: the same weights, first taps moved by `left`
 * (the taps themselves when the window is the whole row).
 */
function windowTaps(taps: AxisWeights, columns: { left: number; right: number }, left: number, windowWidth: number): AxisWeights {
  const n = columns.right - columns.left;
  if (left === 0 && columns.left === 0 && n * 2 === taps.bounds.length) return taps;
  const bounds = new Int32Array(n * 2);
  for (let x = 0; x < n; x++) {
    const first = taps.bounds[2 * (columns.left + x)]! - left;
    const count = taps.bounds[2 * (columns.left + x) + 1]!;
    if (first < 0 || first + count > windowWidth) throw new RangeError(`resampleRows: output column ${columns.left + x} reads source columns outside the window`);
    bounds[2 * x] = first;
    bounds[2 * x + 1] = count;
  }
  return { bounds, weights: taps.weights.subarray(columns.left * taps.stride, columns.right * taps.stride), stride: taps.stride };
}

/**
 * Source indices [first, end) that destination indices [from, to) read through `taps`
 * (the source span a window of the output needs).
 */
export function tapSpan(taps: AxisWeights, from: number, to: number): { first: number; end: number } {
  let first = Infinity;
  let end = 0;
  for (let i = from; i < to; i++) {
    first = Math.min(first, taps.bounds[2 * i]!);
    end = Math.max(end, taps.bounds[2 * i]! + taps.bounds[2 * i + 1]!);
  }
  return { first: Math.min(first, end), end };
}

/**
 * Destination indices [first, end) whose taps read any source index in [from, to), or null
 * when none does (the output a change of those source pixels reaches).
 */
export function tapReaders(taps: AxisWeights, from: number, to: number): { first: number; end: number } | null {
  const n = taps.bounds.length >> 1;
  let first = n;
  let end = 0;
  for (let i = 0; i < n; i++) {
    const a = taps.bounds[2 * i]!;
    if (a < to && a + taps.bounds[2 * i + 1]! > from) {
      first = Math.min(first, i);
      end = i + 1;
    }
  }
  return end > first ? { first, end } : null;
}
