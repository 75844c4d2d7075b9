import { EngineError, unprocessable } from '../errors';
import { ArrayPool } from '../memory/array-pool';
import { checkDecodeMemory } from '../memory/budget';
import type { RGBAImage } from '../types';
import { decodeImage, decodeJpegMozjpeg, imageFormatOf } from './codecs';
import { decodeJpegFull, decodeJpegScaled, decodeJpegScaledThrough, jpegScaleFor, type DecodeWindow, type JpegScale } from './jpeg-decode';
import { dropPictureKernels, holdPictureKernels, idlePictureKernelsBytes, releasePictureKernels } from './kernels';
import { applyOrientation, orientationMap } from './orientation';
import { pushedRows, resample, type AxisWeights, type PictureExtent, type ResampleQuality } from './resample';
import { jpegFrame, orientedSize, sniffImage, type SniffedImage } from './sniff';

/** The contract's limit on an image after scaling to its placement. */
export const MAX_PLACED_PIXELS = 16_000_000;
/**
 * Largest source we decode. A JPEG decode briefly holds the decoder's heap and the pixels
 * copied out of it (≈ 8 bytes per pixel), so 12 MP (a phone photo) peaks near 100 MB and drops
 * to the scaled size at once; much beyond 13 MP would not fit a 128 MB isolate.
 * docs/performance.md has the measurements.
 */
export const MAX_SOURCE_PIXELS = 13_000_000;
/**
 * Longest side of a source we decode. The resize after a decode holds one source row as floats
 * and its scratch (80 bytes per column) in the kernels' memory, which stays grown, and taps
 * that grow with each side (~48 bytes per source pixel along it): a 1,000,000 × 1 PNG (4 MB of
 * pixels, well within MAX_SOURCE_PIXELS) grew the isolate by ~85 MB. At this side both stay
 * near 16 and 10 MB.
 */
export const MAX_SOURCE_SIDE = 200_000;

type Size = { width: number; height: number };

export interface DecodeBoundedOptions {
  /**
   * Refuse (422) sources that would decode to more pixels than this. Default MAX_SOURCE_PIXELS.
   * A baseline JPEG decoded at k/8 (k = 1…7: placed that small) counts at that size.
   */
  maxPixels?: number;
  /** Refuse (422) when the requested output has more pixels than this. Default MAX_PLACED_PIXELS. */
  maxOutputPixels?: number;
  /**
   * The size wanted, in displayed (EXIF-oriented) pixels, or a function of the displayed source
   * size giving it. The image is resampled to it right after decoding, before orientation is
   * applied, so the full-size pixels live only briefly. Absent: keep the source size.
   */
  size?: Size | ((source: Size) => Size);
  quality?: ResampleQuality;
  /**
   * Leave the resize after a DCT-scaled decode, or a full-size decode, of at most twice the size
   * wanted per axis to the caller: the decoded pixels come back, oriented, with `standsFor` the
   * size wanted (a placement folds the resize into its own sampling:
   * src/engine/personalise/image.ts). A larger full-size decode is resized as ever.
   */
  deferResize?: boolean;
  /**
   * The caller reads the pixels, keeps them nowhere (no cache) and calls the result's `release`
   * when done: a DCT-scaled decode, or a JPEG decoded whole by our decoder, then goes into an array
   * kept per isolate (lentPictures) rather than a new one.
   */
  lend?: boolean;
  /**
   * With `deferResize` and `lend`: the pixels the caller will read of the picture it is given
   * (told its shape: the size and extent it comes back with, before the decode), or nothing for
   * all. A DCT-scaled decode then makes those alone, the same bytes there (an upright 'fill'
   * placement reads ~3/4 of a 4:3 photo's columns in a square layer); the others are not written
   * (raster/jpeg-decode.ts' DecodeWindow). The result names what was made (`window`).
   */
  window?: (picture: DeferredShape) => DecodeWindow | null | undefined;
  /**
   * With `window`: the taps the caller will resample the picture of this shape through (an upright
   * placement's: personalise/image.ts' placementTaps) and where those pixels go (`arrayFor`, for
   * their byte length; none: a new array). A JPEG decoded at 3/8 or 5/8–7/8 and stored upright (no
   * EXIF turn) is then resampled through them as it is decoded (jpeg-decode.ts'
   * decodeJpegScaledThrough: the same bytes, without the picture): the result's `placed`, its own
   * pixels never made (`data` empty). Anything else decodes as without it.
   */
  through?: (picture: DeferredShape) => ResampleThrough | undefined;
  /** Error detail path, e.g. "data.Photo". */
  path?: string;
}

/**
 * Decodes an image given by a URL or from storage with its limits checked from the header
 * first, scaled to the size wanted, with EXIF orientation applied.
 * Errors: 422 naming `path` for unknown/unsupported formats, oversized images and corrupt data.
 */
export async function decodeBounded(bytes: Uint8Array, options: DecodeBoundedOptions = {}): Promise<BoundedPicture> {
  const path = options.path ?? 'image';
  const fail = (reason: string) => unprocessable(`The image at ${path} cannot be used: ${reason}`, [{ path, reason }]);
  const sniffed = sniffImage(bytes);
  if (!sniffed) throw fail('not a JPEG or PNG image (or its header is corrupt).');
  if (sniffed.format !== 'jpeg' && sniffed.format !== 'png') throw fail(`${sniffed.format.toUpperCase()} images are not supported; use JPEG or PNG.`);
  if (sniffed.width > MAX_SOURCE_SIDE || sniffed.height > MAX_SOURCE_SIDE) {
    throw fail(`${sniffed.width}×${sniffed.height} has a side longer than ${String(MAX_SOURCE_SIDE).replace(/\B(?=(\d{3})+$)/g, ',')} px.`);
  }
  const maxPixels = options.maxPixels ?? MAX_SOURCE_PIXELS;
  const tooBig = () => fail(`${sniffed.width}×${sniffed.height} is more than ${(maxPixels / 1e6).toFixed(1)} MP.`);
  const displayed = orientedSize(sniffed);
  const wanted = typeof options.size === 'function' ? options.size(displayed) : options.size ?? displayed;
  const width = Math.max(1, Math.round(wanted.width));
  const height = Math.max(1, Math.round(wanted.height));
  const maxOut = options.maxOutputPixels ?? MAX_PLACED_PIXELS;
  if (width * height > maxOut) throw fail(`scaled to its placement it would be ${width}×${height}, more than ${(maxOut / 1e6).toFixed(0)} MP.`);

  const swap = sniffed.orientation >= 5;
  const storedWidth = swap ? height : width;
  const storedHeight = swap ? width : height;
  // A JPEG placed at less than its size decodes straight to the smallest k/8 (k = 1…7) that is
  // still at least the size wanted, in the DCT domain, so the full-size pixels never exist and the
  // resize after it has fewer taps (a picture filling a placement at 2/3 of its size: 6/8, then
  // 1.125× down instead of 1.5×).
  // The source limit is about memory, so it counts the pixels decoded: a bigger baseline JPEG
  // (a 48 MP phone photo) is fine when its scaled decode is within it.
  const scale = sniffed.format === 'jpeg' ? jpegScaleFor(sniffed, storedWidth, storedHeight) : 8;
  const decodedPixels = (factor: number) => Math.ceil((sniffed.width * factor) / 8) * Math.ceil((sniffed.height * factor) / 8);
  if (decodedPixels(scale) > maxPixels) throw tooBig();
  checkDecodeMemory(decodedPixels(scale), path);
  let decoded: RGBAImage | null | undefined;
  let factor = scale;
  // The part the caller reads of a decode it is lent and given deferred (as stored: before the
  // orientation): a scaled one, or a whole one finishDecode does not resize (at most twice the size wanted).
  const deferredWhole = sniffed.width <= 2 * storedWidth && sniffed.height <= 2 * storedHeight;
  const window = options.lend && options.deferResize && options.window && (scale < 8 || deferredWhole) ? storedWindow(sniffed, scale, { width, height }, options.window) : undefined;
  let windowed = false; // the window went to the decoder that decoded
  // Resampled as decoded (`through`): no picture, no hold of the picture kernels, no lent array.
  if (window && options.through && scale !== 1 && scale !== 2 && scale !== 4 && scale < 8 && !(sniffed.orientation >= 2 && sniffed.orientation <= 8)) {
    const size = { width: Math.ceil((sniffed.width * scale) / 8), height: Math.ceil((sniffed.height * scale) / 8) };
    const shape = deferredShape(size, scale, sniffed, { width, height });
    const taps = options.through(shape);
    if (taps) {
      const bytes4 = (taps.h.bounds.length >> 1) * (taps.v.bounds.length >> 1) * 4;
      // What it refuses or finds corrupt is decoded as below (and refused there, if so).
      const pixels = await decodeJpegScaledThrough(bytes, scale as Exclude<JpegScale, 8>, pushedRows(taps.h, taps.v, taps.arrayFor?.(bytes4)), window.stored, size).catch(() => null);
      if (pixels) return { ...shape, data: new Uint8ClampedArray(0), source: sniffed, window: window.shown, placed: { h: taps.h, v: taps.v, pixels } };
    }
  }
  // A lent scaled decode is made in the picture kernels (kernels.ts' holdPictureKernels: converted
  // in place, not copied out) when no other picture holds them and it and the file fit a lent
  // array's bound (their memory stays grown to that); else in a lent array.
  let held = options.lend && scale < 8 && decodedPixels(scale) * 4 + bytes.length <= LENT_PICTURE_BYTES ? await holdPictureKernels() : undefined;
  let lent = options.lend && scale < 8 && !held ? lendPicture(decodedPixels(scale) * 4) : undefined;
  try {
    // What the scaled decoder refuses (entropy data that runs short, which libjpeg decodes with a
    // warning) is decoded whole by decodeImage, as the same file placed large is.
    decoded = scale < 8 ? await decodeJpegScaled(bytes, scale as Exclude<JpegScale, 8>, held ? { held } : lent, window?.stored).catch(() => null) : null;
    windowed = !!decoded;
    if (held && !decoded) {
      releasePictureKernels();
      held = undefined;
    }
    if (!decoded) {
      if (decodedPixels(8) > maxPixels) throw tooBig();
      checkDecodeMemory(decodedPixels(8), path);
      factor = 8;
      if (options.lend && scale === 8 && imageFormatOf(bytes) === 'jpeg') {
        // A JPEG decoded whole goes into a lent array too when our decoder takes it (decodeImage's
        // steps, with its array given): what it leaves is mozjpeg's, in mozjpeg's own array.
        lent = lendPicture(decodedPixels(8) * 4);
        decoded = await decodeJpegFull(bytes, lent, window?.stored);
        windowed = !!decoded;
        decoded ??= await decodeJpegMozjpeg(bytes);
      } else {
        decoded = await decodeImage(bytes);
      }
    }
  } catch (err) {
    if (lent) lentPictures.give(lent.buffer);
    if (held) releasePictureKernels();
    if (err instanceof EngineError) throw err;
    throw fail(unsupportedJpeg(bytes) ?? 'the image data is corrupt.');
  }
  // The lent array holds the pixels, or is free again (the scaled decoder refused: decoded whole;
  // mozjpeg decoded what our full-size decoder left).
  const holding = lent !== undefined && decoded.data === lent ? lent : undefined;
  if (lent && !holding) lentPictures.give(lent.buffer);
  if (decoded.width !== Math.ceil((sniffed.width * factor) / 8) || decoded.height !== Math.ceil((sniffed.height * factor) / 8)) {
    if (holding) lentPictures.give(holding.buffer);
    if (held) releasePictureKernels();
    throw fail('the image data does not match its header.');
  }
  // The window is our decoders' alone (what mozjpeg and decodeImage give is whole).
  const made = window && windowed ? { window: window.shown } : {};
  if (held) return { ...(await finishHeld(decoded, factor, sniffed, { width, height }, options)), ...made };
  if (!holding) return { ...(await finishDecode(decoded, factor, sniffed, { width, height }, options)), ...made };
  let done: BoundedPicture;
  try {
    done = await finishDecode(decoded, factor, sniffed, { width, height }, options);
  } catch (err) {
    lentPictures.give(holding.buffer);
    throw err;
  }
  // Resized, or turned into a new array: the lent one is free now; else the caller gives it back.
  if (done.data.buffer !== holding.buffer) {
    lentPictures.give(holding.buffer);
    return { ...done, ...made };
  }
  return { ...done, ...made, release: releaseOnce(holding) };
}

/**
 * finishDecode of a decode held in the picture kernels (decodeBounded's `lend`): its pixels stay
 * there, given back by the result's `release`, when finishDecode keeps them (a deferred resize,
 * the EXIF orientation 1); else they are read into a new array at once and the kernels given back.
 */
async function finishHeld(decoded: RGBAImage, eighths: number, sniffed: SniffedImage, wanted: Size, options: DecodeBoundedOptions): Promise<BoundedPicture> {
  let done: BoundedPicture;
  try {
    done = await finishDecode(decoded, eighths, sniffed, wanted, options);
  } catch (err) {
    releasePictureKernels();
    throw err;
  }
  if (done.data !== decoded.data) {
    releasePictureKernels();
    return done;
  }
  return { ...done, release: once(releasePictureKernels) };
}

/** What a deferred decode comes back as (finishDecode with `deferResize`): its size and extent as displayed, and the size it stands for. */
/** The taps a picture is resampled through as it is decoded (`through`), and where those pixels go (none: a new array). */
export interface ResampleThrough {
  h: AxisWeights;
  v: AxisWeights;
  arrayFor?: (bytes: number) => Uint8ClampedArray | undefined;
}

export interface DeferredShape {
  width: number;
  height: number;
  standsFor: Size;
  extent?: PictureExtent;
}

/** finishDecode's deferred shape of `sniffed` decoded at `eighths`/8 to `decoded` pixels (as stored). */
function deferredShape(decoded: Size, eighths: number, sniffed: SniffedImage, wanted: Size): DeferredShape {
  const covered = { width: (sniffed.width * eighths) / 8, height: (sniffed.height * eighths) / 8 };
  const offGrid = covered.width !== decoded.width || covered.height !== decoded.height;
  const swap = sniffed.orientation >= 5;
  const shape = { width: swap ? decoded.height : decoded.width, height: swap ? decoded.width : decoded.height, standsFor: wanted };
  return offGrid ? { ...shape, extent: orientedExtent(decoded, covered, sniffed.orientation) } : shape;
}

/**
 * The stored pixels of `sniffed`'s `eighths`/8 decode under the displayed ones `read` asks of
 * its deferred shape (applyOrientation's map), within the picture; undefined for all of them.
 */
function storedWindow(sniffed: SniffedImage, eighths: number, wanted: Size, read: NonNullable<DecodeBoundedOptions['window']>): { stored: DecodeWindow; shown: DecodeWindow } | undefined {
  const decoded = { width: Math.ceil((sniffed.width * eighths) / 8), height: Math.ceil((sniffed.height * eighths) / 8) };
  const shape = deferredShape(decoded, eighths, sniffed, wanted);
  const asked = read(shape);
  if (!asked) return undefined;
  const left = Math.max(0, Math.floor(asked.left));
  const top = Math.max(0, Math.floor(asked.top));
  const right = Math.min(shape.width, Math.ceil(asked.right));
  const bottom = Math.min(shape.height, Math.ceil(asked.bottom));
  if (right <= left || bottom <= top) return { stored: NONE, shown: NONE };
  const [x0, y0] = storedPixel(left, top, sniffed.orientation, decoded);
  const [x1, y1] = storedPixel(right - 1, bottom - 1, sniffed.orientation, decoded);
  const stored = { left: Math.min(x0, x1), top: Math.min(y0, y1), right: Math.max(x0, x1) + 1, bottom: Math.max(y0, y1) + 1 };
  return { stored, shown: { left, top, right, bottom } };
}

const NONE: DecodeWindow = { left: 0, top: 0, right: 0, bottom: 0 };

/** The stored pixel (of `stored` pixels) shown at (X, Y) after EXIF orientation (applyOrientation's map). */
function storedPixel(X: number, Y: number, orientation: number, stored: Size): [number, number] {
  const [ax, bx, cx, ay, by, cy] = orientationMap(orientation, stored.width, stored.height);
  return [ax * X + bx * Y + cx, ay * X + by * Y + cy];
}

/**
 * Arrays a lent decode (`lend`) or a placement drawn for one request (personalise/overrides.ts)
 * goes into, kept per isolate between requests: a never-seen picture's decode (3–4.3 MB for a
 * 1600×1200 photo placed at 5/8–6/8, 7.68 MB decoded whole) and a placement too large for
 * placementCache (6 MB for a 6000×4000 poster's background at 1/4) were new arrays each request,
 * which workerd pays for when they are made and again when they are collected. Two free at most,
 * each at most 8 MB (a 1600×1200 photo decoded whole): 16 MB at most when idle, dropped with
 * frame.ts's kept canvases by makeRoomForFrame (dropLentPictures). An array larger than that, or
 * asked while both are lent, is made new and given back like a kept one.
 */
const LENT_PICTURE_BYTES = 8 * 1024 * 1024;
const lentPictures = new ArrayPool({ bytes: 2 * LENT_PICTURE_BYTES, count: 2 });

/**
 * An array of exactly `bytes` to lend (over a kept buffer when one is free and large enough, and
 * no longer than `largest`: a cache counting the buffer wants it near its size), or undefined
 * above the bound; give it back once by `releaseOnce(array)()`, and read it no more.
 */
export function lendPicture(bytes: number, largest = LENT_PICTURE_BYTES): Uint8ClampedArray | undefined {
  if (bytes > LENT_PICTURE_BYTES) return undefined;
  let kept = lentPictures.take(bytes);
  if (kept && kept.byteLength > largest) {
    lentPictures.give(kept);
    kept = undefined;
  }
  return new Uint8ClampedArray(kept ?? new ArrayBuffer(bytes), 0, bytes);
}

/** Gives `lent` (from lendPicture) back the first time it is called, never again. */
export const releaseOnce = (lent: Uint8ClampedArray): (() => void) => once(() => lentPictures.give(lent.buffer));

/** `give`, run the first time the result is called, never again (a picture's `release`). */
function once(give: () => void): () => void {
  let given = false;
  return () => void (given || ((given = true), give()));
}

/** Drops the kept arrays of lent decodes and placements that are not lent now, and the picture kernels when no picture holds them (a large plan needs the room). */
export function dropLentPictures(): void {
  lentPictures.makeRoom(Number.POSITIVE_INFINITY);
  dropPictureKernels();
}

/** Free bytes kept for lent decodes now (tests). */
export const lentPictureBytes = () => lentPictures.bytes;

/**
 * Bytes the picture kernels keep while no picture holds them (kernels.ts' holdPictureKernels: at
 * most a lent array's bound and the decoder's working set), kept between requests as the lent
 * arrays are, and dropped with them by dropLentPictures.
 */
export const idlePictureBytes = () => idlePictureKernelsBytes();

/**
 * Why a JPEG the decoders refused cannot be used, when its frame header says it is of a kind they
 * do not take (mozjpeg's build converts neither CMYK nor 12-bit samples to RGB and has no
 * arithmetic decoding; its refusal is only an exit status): a reason the shopper can act on,
 * where "corrupt" would be wrong. undefined for anything else.
 */
function unsupportedJpeg(bytes: Uint8Array): string | undefined {
  const frame = jpegFrame(bytes);
  if (!frame) return undefined;
  if (frame.marker >= 0xc9) return 'arithmetic-coded JPEGs are not supported; save it as a baseline or progressive JPEG.';
  if (frame.precision !== 8) return `${frame.precision}-bit JPEGs are not supported; save it with 8 bits per channel.`;
  if (frame.components === 4) return 'CMYK JPEGs are not supported; save it as an RGB JPEG.';
  return undefined;
}

/**
 * A decoded picture; `standsFor` when its resize to that size was left to the caller (`deferResize`);
 * `release` when its pixels are lent (`lend`): call it once they are read, and read them no more;
 * `window` when only those of its pixels were made (`window`): the others are not the picture's.
 */
export type BoundedPicture = RGBAImage & {
  source: SniffedImage;
  standsFor?: Size;
  extent?: PictureExtent;
  release?: () => void;
  window?: DecodeWindow;
  /** The picture resampled through `through`'s taps as it was decoded: its own pixels were not made (`data` empty). */
  placed?: { h: AxisWeights; v: AxisWeights; pixels: RGBAImage };
};

/**
 * decodeBounded's steps after its decode of `sniffed` at `eighths`/8 (8: whole; else in the DCT
 * domain): the resize to `wanted` (displayed pixels; deferred when asked and the decode was
 * scaled), the EXIF orientation. A k/8 decode of a size off its grid (W·k/8 not whole) is
 * ⌈W·k/8⌉ pixels, its last column or row partly past the picture: the resize maps the W·k/8 that
 * are the picture (a deferred one names them, `extent`), as the whole decode's would, so its far
 * edge is not stretched by up to a decoded pixel.
 */
export async function finishDecode(decoded: RGBAImage, eighths: number, sniffed: SniffedImage, wanted: Size, options: DecodeBoundedOptions): Promise<BoundedPicture> {
  const scaled = eighths < 8;
  const covered = { width: (sniffed.width * eighths) / 8, height: (sniffed.height * eighths) / 8 };
  const offGrid = covered.width !== decoded.width || covered.height !== decoded.height;
  const swap = sniffed.orientation >= 5;
  const storedWidth = swap ? wanted.height : wanted.width;
  const storedHeight = swap ? wanted.width : wanted.height;
  // Deferred: a DCT-scaled decode (at most twice the size wanted per axis), or a full-size one no
  // larger than that (a picture that fills most of a large placement: its resize folded into the
  // placement's pass, one Lanczos pass fewer); a larger full-size decode is resized here, so no
  // large picture is kept.
  const small = decoded.width <= 2 * storedWidth && decoded.height <= 2 * storedHeight;
  if (options.deferResize && (scaled || small)) {
    // deferredShape's extent (the shape a window is asked of before the decode).
    const { extent } = deferredShape(decoded, eighths, sniffed, wanted);
    const oriented = { ...applyOrientation(decoded, sniffed.orientation), source: sniffed, standsFor: wanted };
    return extent ? { ...oriented, extent } : oriented;
  }
  // Decoded at the size wanted (a DCT-scaled JPEG often is): the decoder's own copy is kept, not copied again.
  const extent = offGrid ? { left: 0, top: 0, ...covered } : undefined;
  const stored = decoded.width === storedWidth && decoded.height === storedHeight && !offGrid ? decoded : await resample(decoded, storedWidth, storedHeight, { quality: options.quality ?? 'high', extent });
  return { ...applyOrientation(stored, sniffed.orientation), source: sniffed };
}

/**
 * The extent `covered` (from the top-left) of stored pixels `decoded` in the pixels as displayed
 * after EXIF orientation (applyOrientation): axes swapped for 5–8, and an axis mirrored (its
 * partial pixel first) where the orientation mirrors it.
 */
function orientedExtent(decoded: Size, covered: Size, orientation: number): PictureExtent {
  const swap = orientation >= 5;
  const across = swap ? { pixels: decoded.height, covered: covered.height } : { pixels: decoded.width, covered: covered.width };
  const down = swap ? { pixels: decoded.width, covered: covered.width } : { pixels: decoded.height, covered: covered.height };
  const mirroredAcross = orientation === 2 || orientation === 3 || orientation === 6 || orientation === 7;
  const mirroredDown = orientation === 3 || orientation === 4 || orientation === 7 || orientation === 8;
  return {
    left: mirroredAcross ? across.pixels - across.covered : 0,
    top: mirroredDown ? down.pixels - down.covered : 0,
    width: across.covered,
    height: down.covered,
  };
}
