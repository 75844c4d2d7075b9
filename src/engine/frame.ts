/**
 * A preview frame: the template rendered at a pyramid scale, resized to the output and sharpened,
 * ready to encode.
 *
 * Storefronts ask for the same template at the same size again and again with different `data`,
 * and `data` usually changes a small part of it (a name, a photo). So the frame of the template
 * drawn without overrides is kept per isolate (content-addressed, like every engine cache), and
 * a personalised frame redraws only the rectangle its overrides can reach (`dirtyBounds`): the
 * output rows and columns whose resize taps read it, grown by the unsharp mask's reach, from the
 * canvas rectangle those read. The same bytes as drawing it all (test/engine/frame.test.ts), for
 * a fraction of the work.
 */
import type { Timing } from './timing';
import { frameCache, frameJpegCache } from './cache';
import { prefix, StripBuffers } from './compiled/store';
import { changedOutput } from './composite/dirty';
import { ArrayPool } from './memory/array-pool';
import { dropLentPictures, idlePictureBytes, lentPictureBytes } from './raster/bounded';
import { keptBoxBytes, outputSize, releaseBoxScratch, renderTemplate } from './composite/compositor';
import { makeRoomForRequest, REQUEST_MEMORY_BUDGET } from './memory/budget';
import { encodeJpeg, resample, resampleRows, resampleTaps, unsharpMask, unsharpKey, unsharpReach, type ResampleQuality, type UnsharpMask } from './raster';
import { tapSpan, type AxisWeights } from './raster/resample';
import { clampQuality, subsamplingFor } from './raster/codecs';
import { encodePngDrawn } from './raster/png-rows';
import { completedTables, countJpegRowsOf, encodeJpegRows, encodeJpegRowsOf, jpegFromRows, jpegRowsBytes, replaceJpegRows, rgbaRows, type HuffSpec, type JpegRowSource } from './raster/jpeg';
import type { CompiledTemplate, LayerOverrides, RGBAImage } from './types';

export interface FrameOptions {
  /** Render scale (a pyramid level, or the output scale itself). */
  scale: number;
  /** Output size. */
  width: number;
  height: number;
  quality: ResampleQuality;
  sharpen: UnsharpMask | null;
  /** 'transparent' keeps alpha (PNG); otherwise the canvas is flattened over white. */
  background?: 'transparent';
  overrides?: LayerOverrides;
  /** Canvas bytes above which the frame is drawn in strips of about that much (default STRIP_CANVAS_BYTES). */
  stripBytes?: number;
  /** Frame bytes above which a JPEG is coded as it is drawn (default STREAMED_JPEG_FRAME_BYTES; tests). */
  streamBytes?: number;
}

/**
 * Canvas rows drawn at once when a frame is drawn in strips. A canvas above this is never held
 * whole (issue 25 §1: a 10,000² template's 5,000² preview held its canvas, the layer at that
 * level and the frame: 417 MB in a 128 MB isolate); a strip costs its canvas rows plus the rows
 * the resize and the unsharp mask read beyond them.
 */
export const STRIP_CANVAS_BYTES = 4 * 1024 * 1024;

/** Draws a frame from scratch: render, resize to the output, sharpen (in strips when the canvas is large). */
async function drawFrame(bucket: R2Bucket, compiled: CompiledTemplate, o: FrameOptions, overrides: LayerOverrides | undefined, timing: Timing) {
  const canvas = outputSize(compiled, o.scale);
  if (canvas.width * canvas.height * 4 > (o.stripBytes ?? STRIP_CANVAS_BYTES)) return drawFrameInStrips(bucket, compiled, o, overrides, timing);
  let img = await timing.time('render', () => renderTemplate(bucket, compiled, { scale: o.scale, overrides, background: o.background }));
  if (img.width !== o.width || img.height !== o.height) {
    const from = img;
    img = await timing.time('resample', () => resample(from, o.width, o.height, { quality: o.quality }));
  }
  const sharpen = o.sharpen;
  if (sharpen) {
    const from = img;
    img = await timing.time('sharpen', () => unsharpMask(from, sharpen));
  }
  return img;
}

/** Filter taps of the final resize: the canvas rows and columns each output row and column reads. */
interface FrameTaps {
  rows: AxisWeights;
  columns: AxisWeights;
}

/** The final resize's taps, null when there is none (the canvas is the frame's grid). */
function frameTaps(compiled: CompiledTemplate, o: FrameOptions): FrameTaps | null {
  const canvas = outputSize(compiled, o.scale);
  if (canvas.width === o.width && canvas.height === o.height) return null;
  // Kept per size by resampleTaps.
  return { rows: resampleTaps(canvas.height, o.height, o.quality), columns: resampleTaps(canvas.width, o.width, o.quality) };
}

/**
 * The frame drawn a strip of output rows at a time, each strip from the canvas rows it reads
 * (`drawRows`): the same bytes as drawing it whole (test/engine/frame.test.ts), without the
 * whole canvas, its layer buffers or a second full-size image for the resize or the sharpening.
 */
async function drawFrameInStrips(bucket: R2Bucket, compiled: CompiledTemplate, o: FrameOptions, overrides: LayerOverrides | undefined, timing: Timing) {
  const { width, height } = o;
  const frame = new Uint8ClampedArray(width * height * 4);
  const taps = frameTaps(compiled, o);
  const rows = stripRows(compiled, o);
  const buffers = new StripBuffers();
  try {
    for (let top = 0; top < height; top += rows) {
      await drawRows(bucket, compiled, o, { rows: { top, bottom: Math.min(height, top + rows) }, into: frame, overrides, taps, buffers, timing });
    }
  } finally {
    buffers.release(); // every strip is pasted into `frame`
  }
  return { width, height, data: frame };
}

/** Output rows a strip of about stripBytes of canvas gives. */
function stripRows(compiled: CompiledTemplate, o: FrameOptions) {
  const canvas = outputSize(compiled, o.scale);
  return Math.max(1, Math.floor((((o.stripBytes ?? STRIP_CANVAS_BYTES) / (canvas.width * 4)) * o.height) / canvas.height));
}

/**
 * Opaque (JPEG) frames above this many bytes of RGBA are never held whole: `renderFrameJpeg`
 * codes them strip by strip as they are drawn (issue 25 §1: a 5,000² preview held its 100 MB
 * frame to encode it). 16 MB (4 MP, e.g. 2000²) is a sixth of the 96 MB budget, and it is above
 * frameCache's largest entry (6 MB), so every frame kept for personalised requests, and its
 * re-coded-rows JPEG, stays on the held path with its bytes unchanged. Below it, holding the
 * frame buys Huffman tables fitted to the image (~10 % smaller files).
 */
export const STREAMED_JPEG_FRAME_BYTES = 16 * 1024 * 1024;

/**
 * Strip buffers for a frame coded as its strips are drawn (renderFrameJpeg, renderFramePng), with
 * two strips' layer surfaces pooled from strip to strip, and rows to spare for the reach of the
 * resize and the unsharp mask: a new surface per strip was 4.2 MB of garbage a strip for a 5,000²
 * preview (95 MB a request), which workerd's process kept resident until V8 collected it
 * (issue 25 §1, docs/memory.md). Its small layers' bands are kept too (STREAMED_LAYER_BAND_BYTES).
 */
const streamedStripBuffers = (compiled: CompiledTemplate, o: FrameOptions) =>
  new StripBuffers(2 * ((o.stripBytes ?? STRIP_CANVAS_BYTES) + 16 * 4 * outputSize(compiled, o.scale).width), STREAMED_LAYER_BAND_BYTES);

/**
 * The bands below the band cache's entry limit a streamed frame's strips keep, one a layer
 * (StripBuffers.layerBand), as a print page's do: through the 16 MB band cache, bench-8000's
 * 5,000² preview made 35 MB of them a request, read top to bottom so none came from it again, and
 * what it let go stayed until V8 collected (a second request on the runtime grew by 25–40 MB).
 */
const STREAMED_LAYER_BAND_BYTES = 8 * 1024 * 1024;

/** Whether a JPEG of `o` is coded as it is drawn (renderFrameJpeg) rather than from a held frame. */
export const streamsJpeg = (o: Pick<FrameOptions, 'width' | 'height' | 'streamBytes'>) =>
  o.width * o.height * 4 > (o.streamBytes ?? STREAMED_JPEG_FRAME_BYTES);

/**
 * The JPEG of an opaque frame (drawn over white) coded as its strips are drawn: a strip of whole
 * MCU rows is drawn (`drawRows`), its rows coded (one restart interval each, Huffman tables
 * fitted to the first strip and completed), then the next strip is drawn into the same buffer.
 * Holds one strip and the coded bytes, never the frame. Decodes to the same pixels as
 * `encodeFrameJpeg` of the frame drawn whole (test/engine/frame.test.ts).
 */
export async function renderFrameJpeg(bucket: R2Bucket, compiled: CompiledTemplate, o: FrameOptions, quality: number, timing: Timing): Promise<Uint8Array> {
  const { width, height } = o;
  const q = clampQuality(quality);
  const subsampling = subsamplingFor(q);
  const overrides = o.overrides ?? new Map();
  const taps = frameTaps(compiled, o);
  const mcu = 8 * subsampling;
  // The Huffman tables are fitted to the rows of one strip of stripBytes and completed (what
  // fitting to the whole frame would need it drawn twice for), but the frame is drawn in strips
  // of half that, whole MCU rows each, coded before the next is drawn: the tables' rows are
  // counted strip by strip (their counts add up, one restart interval a row), so the JPEG is the
  // same bytes as when a strip was that tall. Half the canvas and layer rows at a time: 4.2 MB
  // less for a 5,000² preview, for ~2 % of its rows drawn twice (docs/memory.md).
  const tableRows = Math.min(height, Math.ceil(stripRows(compiled, o) / mcu) * mcu);
  const drawing = { ...o, stripBytes: (o.stripBytes ?? STRIP_CANVAS_BYTES) / 2 };
  const rows = Math.ceil(stripRows(compiled, drawing) / mcu) * mcu;
  const buffers = streamedStripBuffers(compiled, drawing);
  // Coded straight from the drawn pixels (whole rows, in the strip buffers' arrays, good until
  // the next strip is drawn), not from a copy pasted into a strip array of our own.
  const draw = (top: number, bottom: number) => drawRows(bucket, compiled, o, { rows: { top, bottom }, overrides, taps, buffers, timing });
  const encode = (drawn: DrawnPatch, top: number, bottom: number, tables: HuffSpec[]) =>
    timing.time('encode', async () => (await encodeJpegRowsOf(patchRows(drawn, width, height), { quality: q, subsampling, from: top / mcu, to: Math.ceil(bottom / mcu), tables })).rows);
  try {
    return await codeInStrips();
  } finally {
    // Coded: the strip buffers' pages go back now, for the request after this one (docs/memory.md).
    buffers.release();
  }
  async function codeInStrips(): Promise<Uint8Array> {
    const counts = new Uint32Array(4 * 256);
    let last = 0;
    let drawn: DrawnPatch | undefined;
    for (let top = 0; top < tableRows; top += rows) {
      const bottom = Math.min(tableRows, top + rows);
      drawn = await draw(top, bottom);
      const source = patchRows(drawn, width, height);
      await timing.time('encode', () => countJpegRowsOf(source, { quality: q, subsampling, from: top / mcu, to: Math.ceil(bottom / mcu) }, counts));
      last = top;
    }
    const specs = completedTables(counts);
    // Rows [from, to) drawn strip by strip and coded with the fitted tables.
    const codeRange = async (from: number, to: number) => {
      const out: Uint8Array[] = [];
      for (let top = from; top < to; top += rows) {
        const bottom = Math.min(to, top + rows);
        out.push(...(await encode(await draw(top, bottom), top, bottom, specs)));
      }
      return out;
    };
    // The last strip counted is still drawn: coded now. Those before it are drawn again.
    const counted = await encode(drawn!, last, tableRows, specs);
    const coded = [...(await codeRange(0, last)), ...counted, ...(await codeRange(tableRows, height))];
    return jpegFromRows({ width, height, quality: q, subsampling, specs, rows: coded });
  }
}

/**
 * A PNG preview coded as its strips are drawn, like renderFrameJpeg: the frame is never held
 * (src/engine/memory/budget.ts decides when). It decodes to the pixels of the frame drawn whole;
 * the bytes differ from encodePng's (filters chosen per row, the platform's zlib). Drawn in
 * strips of half stripBytes, as the JPEG is, and coded straight from the drawn rows (in the strip
 * buffers' arrays, good until the next strip), not from a copy in a strip array of its own: the
 * same bytes (encodePngDrawn), and bench-8000's 5,000² PNG no longer held twice the JPEG's canvas,
 * band and layer rows plus a 4.2 MB strip, ~25 MB more than the JPEG (issue 25 §1, docs/memory.md).
 */
export async function renderFramePng(bucket: R2Bucket, compiled: CompiledTemplate, o: FrameOptions, icc: Uint8Array | null, maxCodedBytes: number, timing: Timing): Promise<Uint8Array> {
  const { width } = o;
  const overrides = o.overrides ?? new Map();
  const taps = frameTaps(compiled, o);
  const drawing = { ...o, stripBytes: (o.stripBytes ?? STRIP_CANVAS_BYTES) / 2 };
  const buffers = streamedStripBuffers(compiled, drawing);
  const draw = async (rows: { top: number; bottom: number }) => {
    const drawn = await drawRows(bucket, compiled, o, { rows, overrides, taps, buffers, timing });
    return drawnRows(drawn, width, rows.top, rows.bottom);
  };
  try {
    return await encodePngDrawn(o, stripRows(compiled, drawing), draw, { icc, maxCodedBytes });
  } finally {
    buffers.release(); // coded: the next request reuses their pages (docs/memory.md)
  }
}

/** What drawRows draws, and where. */
interface RowsToDraw {
  /** Output rows [top, bottom). */
  rows: { top: number; bottom: number };
  /**
   * With these, only those output columns are drawn, the rest of `into` left as it is (a kept
   * template frame): the output window they read through the unsharp mask's reach (whose pixels
   * the resize makes exact from the canvas columns their taps read), sharpened as a window
   * (its edge columns, clamped, are not pasted unless they are the frame's edge).
   */
  columns?: { left: number; right: number };
  /**
   * Where the rows go: output rows from `intoTop` on (a strip buffer's first row; default 0, a
   * whole frame). Without it nothing is pasted: the caller takes the drawn pixels drawRows returns.
   */
  into?: Uint8ClampedArray;
  intoTop?: number;
  overrides: LayerOverrides | undefined;
  taps: FrameTaps | null;
  /**
   * A frame drawn in strips: the strip's canvas, band rows, resized and sharpened pixels go into
   * buffers kept from strip to strip instead of new arrays (issue 25 §1).
   */
  buffers?: StripBuffers;
  timing: Timing;
}

/**
 * Output pixels drawn for rows [top, bottom) and columns [left, right) of a frame: pixel (x, y)
 * at `data[(y - y0) * stride + (x - x0) * 4]` (the drawn window's own array, wider and taller
 * than what counts by the unsharp mask's reach).
 */
interface DrawnPatch {
  top: number;
  bottom: number;
  left: number;
  right: number;
  data: Uint8ClampedArray | Uint8Array;
  stride: number;
  x0: number;
  y0: number;
}

/**
 * Draws output rows of the frame: the canvas rows they read through the unsharp mask's reach and
 * the resize's taps, rendered as a region, resized, sharpened; pasted into `into` when given.
 */
async function drawRows(bucket: R2Bucket, compiled: CompiledTemplate, o: FrameOptions, { rows, columns, into: frame, intoTop: frameTop = 0, overrides, taps, buffers, timing }: RowsToDraw): Promise<DrawnPatch> {
  const { width, height } = o;
  const canvas = outputSize(compiled, o.scale);
  // The unsharp mask reads `reach` rows each side of them, the resize reads its taps of the canvas for each of those.
  const reach = o.sharpen ? unsharpReach(o.sharpen) : 0;
  const a = Math.max(0, rows.top - reach);
  const b = Math.min(height, rows.bottom + reach);
  // Output columns likewise (all of them without `columns`).
  const cols = columns && (columns.left > 0 || columns.right < width) ? columns : null;
  const l = cols ? Math.max(0, cols.left - reach) : 0;
  const r = cols ? Math.min(width, cols.right + reach) : width;
  // The canvas rectangle those output pixels read: the same when the canvas is the frame's grid.
  const vertical = taps ? tapSpan(taps.rows, a, b) : { first: a, end: b };
  const horizontal = taps ? tapSpan(taps.columns, l, r) : { first: l, end: r };
  const [top, bottom, left, right] = [vertical.first, vertical.end, horizontal.first, horizontal.end];
  const region = cols ? { top, bottom, left, right } : { top, bottom };
  // A personalised rectangle (no strips, nothing pasted) is drawn into a kept canvas.
  const kept = buffers || frame ? undefined : takeCanvas((right - left) * (bottom - top) * 4);
  const strip = await timing.time('render', () => renderTemplate(bucket, compiled, { scale: o.scale, overrides, background: o.background, region, buffers, canvas: kept }));
  let img = strip;
  // A personalised rectangle's resized and sharpened pixels go into kept canvases too (each fully
  // written, as the strip buffers are), given back once read: new arrays per request cost workerd
  // their allocation (issue 25 §3: ~1.6 MB each on agpsd-text-bug-1920's full-canvas picture).
  if (taps) {
    const source = { top, height: canvas.height, left: cols ? left : 0, width: canvas.width };
    const bytes = (r - l) * (b - a) * 4;
    const into = buffers?.clamped('resized', bytes) ?? (kept ? takeCanvas(bytes) : undefined);
    img = await timing.time('resample', () => resampleRows(strip, source, width, height, { top: a, bottom: b }, o.quality, { left: l, right: r }, into));
    if (kept) giveCanvas(kept); // resized: the canvas is read no more
  }
  const sharpen = o.sharpen;
  if (sharpen) {
    const from = img;
    const into = buffers?.clamped('sharpened', from.data.length) ?? (kept ? takeCanvas(from.data.length) : undefined);
    img = await timing.time('sharpen', () => unsharpMask(from, sharpen, into));
    if (kept && from !== strip) giveCanvas(from.data); // the resized pixels, sharpened
  }
  // Sharpened without a resize, the canvas is read no more.
  if (kept && !taps && img !== strip) giveCanvas(kept);
  const patch: DrawnPatch = { top: rows.top, bottom: rows.bottom, left: cols?.left ?? 0, right: cols?.right ?? width, data: img.data, stride: (r - l) * 4, x0: l, y0: a };
  if (frame) pastePatch(patch, frame, frameTop, width);
  return patch;
}

/**
 * Region canvases kept from one personalised request to the next (issue 25 §3): a new array per
 * request (354 KB on layer-effects-all) drove most of its garbage collection (Mark-Compacts 8 → 2
 * over 100 requests in Node). Each serves one request at a time: taken for its render, given
 * back once nothing reads it. At most KEPT_CANVASES, KEPT_CANVAS_BYTES in all, any one of them
 * up to that: a personalised rectangle is drawn whole whatever its size (not in strips), and at
 * 2 MB, then 4 MB each, the full-canvas redraws of a picture replacing the whole canvas made a new
 * canvas per request (psdtools-adjust-* at 800×800, 2.56 MB; large-poster's 'Background' at its
 * quarter scale, 1500×1000, 6 MB with its 1.7 MB resized pixels beside it), which cost workerd
 * 1–5 ms a request in allocation alone (createSurface in a profile of the dev server), Node ~4 ms
 * in first writes to the new pages, and fed both their collections.
 */
const KEPT_CANVASES = 2;
const KEPT_CANVAS_BYTES = 2 * STRIP_CANVAS_BYTES;
const keptCanvases = new ArrayPool({ bytes: KEPT_CANVAS_BYTES, count: KEPT_CANVASES });
const ourCanvases = new WeakSet<ArrayBufferLike>();

/** A kept canvas of at least `bytes` (rounded up to 64 KB when new, so that the next rectangle fits it too); undefined above the size kept. */
function takeCanvas(bytes: number): Uint8ClampedArray | undefined {
  if (bytes > KEPT_CANVAS_BYTES) return undefined;
  const kept = keptCanvases.take(bytes);
  if (kept) return new Uint8ClampedArray(kept);
  const canvas = new Uint8ClampedArray(Math.ceil(bytes / 65536) * 65536);
  ourCanvases.add(canvas.buffer);
  return canvas;
}

/**
 * The caches and a request's planned peak (`total`) together within the memory budget
 * (memory/budget.ts makeRoomForRequest). The arrays kept between personalised requests (the
 * region canvases here, the compositor's box copy, the arrays of lent picture decodes and
 * placements in raster/bounded.ts, and the picture kernels' memory while no picture holds it:
 * up to 28 MB and ~8 MB that no cache counts) are counted with the caches,
 * which make room for them too, beside a plan large enough to evict while they fit within the
 * budget with it: a never-seen picture over a large template's whole canvas, whose plan always
 * evicts (large-poster's 'Background', 800 px from a 1500 px canvas: 50 MB of strips planned),
 * takes them again (its 6 MB canvas, 7.68 MB decode, 6 MB placement), where they were made anew
 * every request. Beside a plan they do not fit with (a 5,000² preview, a wide print page) they
 * are dropped. (The lent arrays' part: picture-full-lent's patch.)
 */
export function makeRoomForFrame(total: number): void {
  if (!makeRoomForRequest(total)) return; // a plan that evicts nothing
  const kept = keptCanvases.bytes + keptBoxBytes() + lentPictureBytes() + idlePictureBytes();
  if (total + kept <= REQUEST_MEMORY_BUDGET) {
    makeRoomForRequest(total + kept);
    return;
  }
  keptCanvases.makeRoom(Number.POSITIVE_INFINITY);
  releaseBoxScratch();
  dropLentPictures();
}

/** Bytes of region canvases kept now (tests). */
export const keptCanvasBytes = () => keptCanvases.bytes;

/** Gives back a canvas takeCanvas gave (or a view of one); anything else is left to the collector. */
function giveCanvas(view: Uint8ClampedArray | Uint8Array): void {
  if (ourCanvases.has(view.buffer)) keptCanvases.give(view.buffer);
}

/** Pastes `patch` into `into`, which holds output rows from `intoTop` on, `width` pixels each. */
function pastePatch(patch: DrawnPatch, into: Uint8ClampedArray | Uint8Array, intoTop: number, width: number, fromRow = patch.top, toRow = patch.bottom) {
  const rowBytes = width * 4;
  const { data, stride, x0, y0, left, right } = patch;
  if (left === 0 && right === width && stride === rowBytes) {
    // Whole rows, contiguous in both: one copy.
    into.set(data.subarray((fromRow - y0) * stride, (toRow - y0) * stride), (fromRow - intoTop) * rowBytes);
    return;
  }
  const colBytes = (right - left) * 4;
  for (let y = fromRow; y < toRow; y++) {
    const s = (y - y0) * stride + (left - x0) * 4;
    into.set(data.subarray(s, s + colBytes), (y - intoTop) * rowBytes + left * 4);
  }
}

export interface Frame {
  /**
   * The pixels: the caller's to change (encoders flatten in place). Over a kept template frame,
   * copied from it on first read: a JPEG of it re-codes only the changed rows and needs no copy.
   */
  readonly image: RGBAImage;
  /** When drawn over a kept template frame: its cache key, size and the rows that differ from it (null: none). */
  over?: KeptFrameRows;
  /** Gives its drawn pixels' array back to be drawn into by a later request: call once the frame is read no more. */
  release?(): void;
}

interface KeptFrameRows {
  key: string;
  /**
   * The kept template frame drawn over: encodeFrameJpeg codes from it, not from frameCache again,
   * where a request that evicted it meanwhile (at any await since renderFrame found it) left the
   * JPEG coded afresh, the same pixels as other bytes than the request gives alone.
   */
  held: Uint8ClampedArray;
  width: number;
  height: number;
  changed: { top: number; bottom: number } | null;
  /** The pixels drawn for this frame (the changed rectangle); the rest is the kept frame's. */
  drawn?: DrawnPatch;
}

/** A frame over the kept template frame `over.held`: its own pixels `over.drawn`, the rest copied from it when `image` is read. */
function overKept(over: KeptFrameRows): Frame {
  let image: RGBAImage | undefined;
  return {
    get image() {
      if (!image) {
        const data = over.held.slice();
        if (over.drawn) pastePatch(over.drawn, data, 0, over.width);
        image = { width: over.width, height: over.height, data };
      }
      return image;
    },
    over,
    release() {
      if (over.drawn) giveCanvas(over.drawn.data);
      over.drawn = undefined;
    },
  };
}

/** The rows of a patch drawn across the whole width, as a JpegRowSource (no copy). */
function patchRows(patch: DrawnPatch, width: number, height: number): JpegRowSource {
  if (patch.left !== 0 || patch.right !== width || patch.x0 !== 0 || patch.stride !== width * 4) throw new Error('patchRows: a patch of whole rows expected');
  return rgbaRows({ width, height, data: patch.data }, patch.y0);
}

/** Output rows [top, bottom) of a patch of whole rows: a view of its array, row `top` first. */
function drawnRows(patch: DrawnPatch, width: number, top: number, bottom: number): Uint8ClampedArray | Uint8Array {
  if (patch.left !== 0 || patch.right !== width || patch.x0 !== 0 || patch.stride !== width * 4) throw new Error('drawnRows: a patch of whole rows expected');
  return patch.data.subarray((top - patch.y0) * patch.stride, (bottom - patch.y0) * patch.stride);
}

/**
 * Rows of the kept frame `held` with `patch` over them, as a JpegRowSource: each row read is
 * copied from `held` and the patch's columns over it, so no copy of the changed rows is made
 * to draw into (a band of whole rows, ~0.5 MB for 160 rows of 800 px, per request before).
 */
function patchedRows(held: Uint8ClampedArray, width: number, height: number, patch: DrawnPatch): JpegRowSource {
  const bytes = new Uint8Array(held.buffer, held.byteOffset, held.byteLength);
  // Views of the type of `into`, so that set() copies bytes rather than converting elements.
  const over = { ...patch, data: new Uint8Array(patch.data.buffer, patch.data.byteOffset, patch.data.byteLength) };
  const rowBytes = width * 4;
  const wholeRows = patch.left === 0 && patch.right === width;
  return {
    width,
    height,
    kind: 'rgb',
    read(y, rows, into) {
      const from = Math.max(y, patch.top);
      const to = Math.min(y + rows, patch.bottom);
      if (from < to && wholeRows) {
        // The patch's rows replace the kept frame's whole: only the rows outside it are copied
        // (a full-canvas redraw re-codes every row from the patch alone, no copy of the frame).
        if (from > y) into.set(bytes.subarray(y * rowBytes, from * rowBytes));
        if (to < y + rows) into.set(bytes.subarray(to * rowBytes, (y + rows) * rowBytes), (to - y) * rowBytes);
      } else {
        into.set(bytes.subarray(y * rowBytes, (y + rows) * rowBytes));
      }
      if (from < to) pastePatch(over, into, y, width, from, to);
    },
  };
}

/** The frame for `o`. */
export async function renderFrame(bucket: R2Bucket, compiled: CompiledTemplate, o: FrameOptions, timing: Timing): Promise<Frame> {
  const { width, height } = o;
  const overrides = o.overrides ?? new Map();
  if (width * height * 4 > frameCache.maxEntryBytes) return { image: await drawFrame(bucket, compiled, o, overrides, timing) };

  const key = `${prefix(compiled.hash)}frame/${o.scale}/${width}x${height}/${o.quality}/${unsharpKey(o.sharpen)}/${o.background ?? 'white'}`;
  let base = frameCache.get(key);
  if (!base) {
    base = (await drawFrame(bucket, compiled, o, undefined, timing)).data;
    frameCache.set(key, base, base.byteLength);
  }
  const held = base;
  const taps = frameTaps(compiled, o);
  const changed = await timing.time('dirty', () => changedRect(compiled, o, overrides, taps));
  const columns = changed && (changed.left > 0 || changed.right < width) ? `, columns ${changed.left}-${changed.right} of ${width}` : '';
  timing.note('frame', changed ? `redrawn rows ${changed.top}-${changed.bottom} of ${height}${columns}` : `template frame reused (${height} rows)`);
  if (!changed) return overKept({ key, held, width, height, changed: null });
  const rows = { top: changed.top, bottom: changed.bottom };
  // Only the changed rectangle is drawn; the kept frame supplies the rest where it is read.
  const drawn = await drawRows(bucket, compiled, o, { rows, columns: changed, overrides, taps, timing });
  return overKept({ key, held, width, height, changed: rows, drawn });
}

/**
 * JPEG bytes of an opaque frame (drawn over white). Over a kept template frame, the template
 * frame's JPEG is kept too, cut into one restart interval per MCU row, and only the rows this
 * frame changed are coded again; the Huffman tables are the template frame's, completed. Always
 * so over a kept frame, even one evicted since (its rows coded again from the frame drawn over):
 * the bytes a request gives do not depend on what other requests evicted meanwhile.
 */
export async function encodeFrameJpeg(frame: Frame, quality: number): Promise<Uint8Array> {
  const q = clampQuality(quality);
  const subsampling = subsamplingFor(q);
  const over = frame.over;
  if (!over) return encodeJpeg(frame.image, q);
  const { held: pixels, width, height, changed, drawn } = over;
  const key = `${over.key}/jpeg/${q}`;
  let base = frameJpegCache.get(key);
  if (!base) {
    base = await encodeJpegRows({ width, height, data: pixels }, { quality: q, subsampling });
    frameJpegCache.set(key, base, jpegRowsBytes(base));
  }
  if (!changed || !drawn) return jpegFromRows(base);
  // The changed MCU rows, read from the kept frame with the pixels drawn for this one over it.
  return jpegFromRows(await replaceJpegRows(base, patchedRows(pixels, width, height, drawn), changed));
}

/**
 * Output pixels the overrides can change (the sharpened frame's), or null when none: the output
 * rows and columns whose resize taps read a changed canvas pixel, grown by the unsharp mask's reach.
 */
function changedRect(
  compiled: CompiledTemplate,
  o: FrameOptions,
  overrides: LayerOverrides,
  taps: FrameTaps | null,
): { top: number; bottom: number; left: number; right: number } | null {
  const changed = changedOutput(compiled, overrides, o.scale, taps);
  if (!changed) return null;
  const reach = o.sharpen ? unsharpReach(o.sharpen) : 0;
  return {
    top: Math.max(0, changed.top - reach),
    bottom: Math.min(o.height, changed.bottom + reach),
    left: Math.max(0, changed.left - reach),
    right: Math.min(o.width, changed.right + reach),
  };
}
