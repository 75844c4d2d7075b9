/**
 * Puts a picture into a layer's placement: fit (contain, letterboxed with transparency) or fill
 * (cover, cropped) inside the placement's content rectangle, then mapped through the projective
 * transform that takes that rectangle to the placement's four corners (rotation, skew and
 * perspective alike). Sampling is bilinear on premultiplied colour after a high-quality
 * pre-shrink to the picture's footprint, and edges are antialiased by their exact pixel coverage.
 * An upright placement (nearly every real one) does the same in one separable pass.
 */
import { markOpaque } from '../composite/surface';
import { within } from './checks';
import { axisExtents, chainedTaps, resample, resampleWithTaps, tapSpan, type AxisWeights, type PictureExtent } from '../raster/resample';
import type { Bounds, RGBAImage } from '../types';

export type ResizeMode = 'fit' | 'fill';

/**
 * A picture to place. `standsFor`: the size the loader would have resized it to (decodeBounded's
 * Lanczos resize, src/engine/raster/bounded.ts), left to the placement, which draws it as if it
 * had been (an upright placement folds that resize into its own single pass).
 */
export type PlacedPicture = RGBAImage & {
  standsFor?: { width: number; height: number };
  /**
   * The part of the pixels that is the picture, when not all of them (decodeBounded's k/8 decode of
   * a size off its grid: the last column and row partly past it): that part is what stands for
   * `standsFor`, as the whole decode's pixels would.
   */
  extent?: PictureExtent;
  /** Every pixel opaque (a JPEG's decode): an upright placement then marks its unfaded interior opaque (markOpaque). */
  opaque?: boolean;
  /**
   * The pixels made, when not all (a decode for this placement alone: placementWindow's answer);
   * the others are not the picture's. Drawing reads within it, or throws.
   */
  window?: Bounds;
  /**
   * The picture already resampled through an upright placement's taps `h` and `v` as it was decoded
   * (raster/bounded.ts' `through`): placeImage draws these pixels for those taps (and for no other
   * placement: the picture's own pixels were never made, its `data` is empty).
   */
  placed?: { h: AxisWeights; v: AxisWeights; pixels: RGBAImage };
};

export interface PlacementQuad {
  /** Four corners in OUTPUT pixels, clockwise from top-left: [x0,y0, x1,y1, x2,y2, x3,y3]. */
  corners: number[];
  /** Size of the content rectangle the corners frame (smart object content or layer bounds). */
  width: number;
  height: number;
}

/** Largest warped raster we produce (pixels). */
export const MAX_WARPED_PIXELS = 40_000_000;

/** 3×3 projective matrix (row-major, h[8] = 1) mapping (x, y) → (u, v). */
type Homography = number[];

/** The homography taking the four `from` points to the four `to` points; null if degenerate. */
export function homography(from: number[], to: number[]): Homography | null {
  // Solve A·h = b for h0..h7 (DLT with h8 = 1).
  const a: number[][] = [];
  for (let i = 0; i < 4; i++) {
    const [x, y, u, v] = [from[2 * i], from[2 * i + 1], to[2 * i], to[2 * i + 1]];
    a.push([x, y, 1, 0, 0, 0, -u * x, -u * y, u]);
    a.push([0, 0, 0, x, y, 1, -v * x, -v * y, v]);
  }
  for (let col = 0; col < 8; col++) {
    let pivot = col;
    for (let r = col + 1; r < 8; r++) if (Math.abs(a[r][col]) > Math.abs(a[pivot][col])) pivot = r;
    if (Math.abs(a[pivot][col]) < 1e-12) return null;
    [a[col], a[pivot]] = [a[pivot], a[col]];
    for (let r = 0; r < 8; r++) {
      if (r === col) continue;
      const f = a[r][col] / a[col][col];
      if (f) for (let c = col; c < 9; c++) a[r][c] -= f * a[col][c];
    }
  }
  return [...a.map((row, i) => row[8] / row[i]), 1];
}

export function applyHomography(h: Homography, x: number, y: number): [number, number] {
  const w = h[6] * x + h[7] * y + h[8];
  return [(h[0] * x + h[1] * y + h[2]) / w, (h[3] * x + h[4] * y + h[5]) / w];
}

/** Edge lines of a convex quad as (a, b, c) with a·x + b·y + c = signed distance, positive inside. */
function insideEdges(quad: number[]): number[][] {
  let area = 0;
  for (let i = 0; i < 4; i++) {
    const j = (i + 1) % 4;
    area += quad[2 * i] * quad[2 * j + 1] - quad[2 * j] * quad[2 * i + 1];
  }
  const sign = area >= 0 ? 1 : -1;
  const edges: number[][] = [];
  for (let i = 0; i < 4; i++) {
    const j = (i + 1) % 4;
    const [x0, y0, x1, y1] = [quad[2 * i], quad[2 * i + 1], quad[2 * j], quad[2 * j + 1]];
    const len = Math.hypot(x1 - x0, y1 - y0) || 1;
    // Left normal of the edge; flip for counter-clockwise quads so that inside is positive.
    const a = (-(y1 - y0) / len) * sign;
    const b = ((x1 - x0) / len) * sign;
    edges.push([a, b, -(a * x0 + b * y0)]);
  }
  return edges;
}

/** The picture's rectangle inside the content rectangle for fit/fill, centred. */
export function pictureRect(pw: number, ph: number, cw: number, ch: number, mode: ResizeMode): Bounds {
  const s = mode === 'fill' ? Math.max(cw / pw, ch / ph) : Math.min(cw / pw, ch / ph);
  const w = pw * s;
  const h = ph * s;
  const left = (cw - w) / 2;
  const top = (ch - h) / 2;
  return { left, top, right: left + w, bottom: top + h };
}

/**
 * Draws the picture into the placement (as the size it `standsFor`, when given). Returns
 * straight-alpha pixels and their bounds in output pixels, or null when the placement covers no pixel.
 */
export async function placeImage(
  given: PlacedPicture,
  placement: PlacementQuad,
  mode: ResizeMode,
  options: {
    /** Tests: measure the edges at every pixel, without the interior shortcut (the same bytes). */
    edgesEverywhere?: boolean;
    /** Tests: draw an axis-aligned placement by the general warp too (the pre-shrink and bilinear sampling). */
    warped?: boolean;
    /**
     * The output pixels wanted (the canvas at the render scale): an upright placement is drawn
     * over them alone, the same pixels there (a fill placement reaches past the canvas: 848×816
     * for an 800×800 frame). Only for a layer nothing reads beyond the canvas (no effects).
     */
    within?: Bounds;
    /**
     * An upright placement's pixels go into the array this gives for their byte length (exactly
     * that long; every byte is written), when it gives one: a placement kept by nobody but the
     * request's render is drawn into a lent array (personalise/overrides.ts).
     */
    arrayFor?: (bytes: number) => Uint8ClampedArray | undefined;
  } = {},
): Promise<{ pixels: RGBAImage; bounds: Bounds } | null> {
  const geometry = placementGeometry(given, placement, mode);
  if (!geometry) return null;
  const { corners, width: cw, height: ch } = placement;
  const contentRect = [0, 0, cw, 0, cw, ch, 0, ch];
  const { shown, rect, pictureQuad, tw, th, footprint } = geometry;
  if (!options.warped && isUpright(corners)) {
    const taps = axisAlignedTaps(given, placement, rect, footprint, options.within);
    if (given.window && taps && !within(readBy(taps), given.window, 0)) throw new Error('placeImage: the placement reads pixels outside the picture’s window');
    if (given.placed && !(taps && sameTaps(taps.h, given.placed.h) && sameTaps(taps.v, given.placed.v))) throw new Error('placeImage: the picture was resampled for another placement');
    return taps && placeAxisAligned(given, taps, options.arrayFor);
  }
  if (given.window) throw new Error('placeImage: a warped placement reads the whole picture, not a window');
  if (given.placed) throw new Error('placeImage: the picture was resampled for an upright placement');
  // The loader's resize, left to the placement (the same call decodeBounded makes).
  const picture = given.standsFor && (given.width !== shown.width || given.height !== shown.height || given.extent) ? await resample(given, shown.width, shown.height, { extent: given.extent }) : given;
  let src = picture;
  if (tw < picture.width || th < picture.height) {
    src = await resample(picture, Math.min(tw, picture.width), Math.min(th, picture.height));
  }

  // Output pixel → picture pixel: output → content (inverse of toOutput) → picture rect → source.
  const toContent = homography(corners, contentRect);
  if (!toContent) return null;
  const sx = src.width / (rect.right - rect.left);
  const sy = src.height / (rect.bottom - rect.top);

  // Only pixels inside both the placement and the picture are drawn.
  const edges = [...insideEdges(corners), ...insideEdges(pictureQuad)];
  const box = (q: number[]) => {
    const qx = q.filter((_, i) => i % 2 === 0);
    const qy = q.filter((_, i) => i % 2 === 1);
    return { left: Math.min(...qx), top: Math.min(...qy), right: Math.max(...qx), bottom: Math.max(...qy) };
  };
  const a = box(corners);
  const b = box(pictureQuad);
  const left = Math.floor(Math.max(a.left, b.left));
  const top = Math.floor(Math.max(a.top, b.top));
  const right = Math.ceil(Math.min(a.right, b.right));
  const bottom = Math.ceil(Math.min(a.bottom, b.bottom));
  const width = right - left;
  const height = bottom - top;
  if (width < 1 || height < 1) return null;
  if (width * height > MAX_WARPED_PIXELS) throw new RangeError(`placement covers ${width}×${height} pixels`);

  const out = new Uint8ClampedArray(width * height * 4);
  // Edge lines flattened, with the half-pixel coverage offset folded into c.
  const ea = Float64Array.from(edges.flatMap(([a, b, c]) => [a, b, c + 0.5]));
  const edgeCount = ea.length;
  const sd = src.data;
  const sw = src.width;
  const sh = src.height;
  const [h0, h1, h2, h3, h4, h5, h6, h7, h8] = toContent;
  const { left: rectLeft, top: rectTop } = rect;
  // The sums below keep placeImage's original order of operations (the row's products hoisted
  // are the same products), so the bytes are those of the plain per-pixel form
  // (test/engine/personalise/image.test.ts compares them).
  for (let y = 0; y < height; y++) {
    const py = top + y + 0.5;
    const h1py = h1 * py;
    const h4py = h4 * py;
    const h7py = h7 * py;
    const inside = options.edgesEverywhere ? { from: 0, to: -1, first: 0, last: width - 1 } : interiorColumns(ea, left, py, width);
    let o = (y * width + inside.first) * 4 - 4;
    for (let x = inside.first; x <= inside.last; x++) {
      o += 4;
      const px = left + x + 0.5;
      let coverage = 1;
      // Inside every edge by more than a pixel, coverage stays 1: no edge need be measured.
      if (x < inside.from || x > inside.to) {
        for (let e = 0; e < edgeCount; e += 3) {
          const d = ea[e]! * px + ea[e + 1]! * py + ea[e + 2]!;
          if (d < coverage) coverage = d;
        }
        if (coverage <= 0) continue;
      }
      const w = h6 * px + h7py + h8;
      const u = ((h0 * px + h1py + h2) / w - rectLeft) * sx - 0.5;
      const v = ((h3 * px + h4py + h5) / w - rectTop) * sy - 0.5;
      // Bilinear on premultiplied colour, clamped to the edge.
      const x0 = Math.floor(u);
      const y0 = Math.floor(v);
      const fx = u - x0;
      const fy = v - y0;
      let i00: number, i10: number, i01: number, i11: number;
      if (x0 >= 0 && y0 >= 0 && x0 + 1 < sw && y0 + 1 < sh) {
        i00 = (y0 * sw + x0) * 4;
        i10 = i00 + 4;
        i01 = i00 + sw * 4;
        i11 = i01 + 4;
      } else {
        const xa = Math.min(sw - 1, Math.max(0, x0));
        const xb = Math.min(sw - 1, Math.max(0, x0 + 1));
        const ya = Math.min(sh - 1, Math.max(0, y0));
        const yb = Math.min(sh - 1, Math.max(0, y0 + 1));
        i00 = (ya * sw + xa) * 4;
        i10 = (ya * sw + xb) * 4;
        i01 = (yb * sw + xa) * 4;
        i11 = (yb * sw + xb) * 4;
      }
      const w00 = (1 - fx) * (1 - fy) * sd[i00 + 3]!;
      const w10 = fx * (1 - fy) * sd[i10 + 3]!;
      const w01 = (1 - fx) * fy * sd[i01 + 3]!;
      const w11 = fx * fy * sd[i11 + 3]!;
      const alpha = w00 + w10 + w01 + w11;
      if (alpha <= 0) continue;
      out[o] = (w00 * sd[i00]! + w10 * sd[i10]! + w01 * sd[i01]! + w11 * sd[i11]!) / alpha;
      out[o + 1] = (w00 * sd[i00 + 1]! + w10 * sd[i10 + 1]! + w01 * sd[i01 + 1]! + w11 * sd[i11 + 1]!) / alpha;
      out[o + 2] = (w00 * sd[i00 + 2]! + w10 * sd[i10 + 2]! + w01 * sd[i01 + 2]! + w11 * sd[i11 + 2]!) / alpha;
      out[o + 3] = alpha * Math.min(1, coverage);
    }
  }
  return { pixels: { width, height, data: out }, bounds: { left, top, right, bottom } };
}

/** placeImage's picture rectangle in the content, its quad in the output, and the footprint the general path pre-shrinks to; null when nothing is drawn. */
function placementGeometry(given: Pick<PlacedPicture, 'width' | 'height' | 'standsFor'>, placement: PlacementQuad, mode: ResizeMode) {
  const { corners, width: cw, height: ch } = placement;
  const contentRect = [0, 0, cw, 0, cw, ch, 0, ch];
  const toOutput = homography(contentRect, corners);
  const shown = given.standsFor ?? given;
  if (!toOutput || given.width < 1 || given.height < 1 || shown.width < 1 || shown.height < 1) return null;
  const rect = pictureRect(shown.width, shown.height, cw, ch, mode);
  const pictureQuad = [
    ...applyHomography(toOutput, rect.left, rect.top),
    ...applyHomography(toOutput, rect.right, rect.top),
    ...applyHomography(toOutput, rect.right, rect.bottom),
    ...applyHomography(toOutput, rect.left, rect.bottom),
  ];

  // Pre-shrink to the largest footprint of the picture in the output (never enlarge here).
  const side = (q: number[], i: number, j: number) => Math.hypot(q[2 * j] - q[2 * i], q[2 * j + 1] - q[2 * i + 1]);
  const footW = Math.max(side(pictureQuad, 0, 1), side(pictureQuad, 3, 2));
  const footH = Math.max(side(pictureQuad, 0, 3), side(pictureQuad, 1, 2));
  const tw = Math.max(1, Math.ceil(footW));
  const th = Math.max(1, Math.ceil(footH));
  const footprint = { width: Math.min(tw, shown.width), height: Math.min(th, shown.height) };
  return { shown, rect, pictureQuad, tw, th, footprint };
}

/**
 * The pixels of a picture of this shape (its size, `standsFor`, `extent`: what the loader will
 * give) that placeImage reads to draw it into `placement` (`within`: placeImage's): an upright
 * placement reads the columns and rows its taps name (a 'fill' placement's crop is left out);
 * undefined when it may read any (a warped one, or one that draws nothing). The loader may then
 * decode these alone (raster/bounded.ts' `window`).
 */
export function placementWindow(
  picture: Pick<PlacedPicture, 'width' | 'height' | 'standsFor' | 'extent'>,
  placement: PlacementQuad,
  mode: ResizeMode,
  within?: Bounds,
): Bounds | undefined {
  const geometry = placementGeometry(picture, placement, mode);
  if (!geometry || !isUpright(placement.corners)) return undefined;
  let taps: AxisTaps | null;
  try {
    taps = axisAlignedTaps(picture, placement, geometry.rect, geometry.footprint, within);
  } catch {
    return undefined; // too large: placeImage says so
  }
  return taps ? readBy(taps) : undefined;
}

/**
 * The taps placeImage resamples a picture of this shape through for an upright `placement`
 * (`within`: placeImage's), or undefined when it does not (a warped placement, one that draws
 * nothing or is too large): the loader may resample the picture through them as it decodes it
 * (raster/bounded.ts' `through`), placeImage then draws those pixels.
 */
export function placementTaps(
  picture: Pick<PlacedPicture, 'width' | 'height' | 'standsFor' | 'extent'>,
  placement: PlacementQuad,
  mode: ResizeMode,
  within?: Bounds,
): { h: AxisWeights; v: AxisWeights } | undefined {
  const geometry = placementGeometry(picture, placement, mode);
  if (!geometry || !isUpright(placement.corners)) return undefined;
  try {
    const taps = axisAlignedTaps(picture, placement, geometry.rect, geometry.footprint, within);
    return taps ? { h: taps.h, v: taps.v } : undefined;
  } catch {
    return undefined; // too large: placeImage says so
  }
}

/** Whether two sets of taps are the same (each destination's first source, count and weights). */
function sameTaps(a: AxisWeights, b: AxisWeights): boolean {
  if (a === b) return true;
  if (a.stride !== b.stride || a.bounds.length !== b.bounds.length || a.weights.length !== b.weights.length) return false;
  for (let i = 0; i < a.bounds.length; i++) if (a.bounds[i] !== b.bounds[i]) return false;
  for (let i = 0; i < a.weights.length; i++) if (!Object.is(a.weights[i], b.weights[i])) return false;
  return true;
}

/** The columns and rows of the picture `taps` read. */
function readBy(taps: AxisTaps): Bounds {
  const columns = tapSpan(taps.h, 0, taps.width);
  const rows = tapSpan(taps.v, 0, taps.height);
  return { left: columns.first, top: rows.first, right: columns.end, bottom: rows.end };
}

/**
 * Whether the placement is an upright rectangle (edges parallel to the axes, not mirrored): its
 * homography is then a scale and an offset per axis, drawn by placeAxisAligned. Corners within a
 * billionth of a pixel (relative) count as equal: the template's own rectangles are exact.
 */
export function isUpright(c: number[]): boolean {
  const near = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * (1 + Math.abs(a) + Math.abs(b));
  return near(c[1]!, c[3]!) && near(c[5]!, c[7]!) && near(c[0]!, c[6]!) && near(c[2]!, c[4]!) && c[2]! > c[0]! && c[7]! > c[1]!;
}

/** What an upright placement draws: its taps on the picture, the output pixels drawn (bounds), the part of placement ∩ picture they lie in. */
interface AxisTaps {
  h: AxisWeights;
  v: AxisWeights;
  drawn: Bounds;
  left: number;
  top: number;
  right: number;
  bottom: number;
  width: number;
  height: number;
}

/** placeAxisAligned's taps (and the pixels they draw) for the picture given, or null when it draws nothing. */
function axisAlignedTaps(
  picture: Pick<PlacedPicture, 'width' | 'height' | 'standsFor' | 'extent'>,
  placement: PlacementQuad,
  rect: Bounds,
  /** The size the general path shrinks the picture to (its footprint, never enlarged). */
  footprint: { width: number; height: number },
  /** The output pixels wanted: the placement's pixels outside them are not drawn. */
  within?: Bounds,
): AxisTaps | null {
  const { corners: c, width: cw, height: ch } = placement;
  // Content → output: x ↦ c0 + x·kx, y ↦ c1 + y·ky. The picture's rectangle in output pixels:
  const kx = (c[2]! - c[0]!) / cw;
  const ky = (c[7]! - c[1]!) / ch;
  const pic = { left: c[0]! + rect.left * kx, top: c[1]! + rect.top * ky, right: c[0]! + rect.right * kx, bottom: c[1]! + rect.bottom * ky };
  // What is drawn: the placement ∩ the picture.
  const drawn = { left: Math.max(c[0]!, pic.left), top: Math.max(c[1]!, pic.top), right: Math.min(c[2]!, pic.right), bottom: Math.min(c[7]!, pic.bottom) };
  const fullLeft = Math.floor(drawn.left);
  const fullTop = Math.floor(drawn.top);
  const fullRight = Math.ceil(drawn.right);
  const fullBottom = Math.ceil(drawn.bottom);
  if (fullRight - fullLeft < 1 || fullBottom - fullTop < 1) return null;
  if ((fullRight - fullLeft) * (fullBottom - fullTop) > MAX_WARPED_PIXELS) throw new RangeError(`placement covers ${fullRight - fullLeft}×${fullBottom - fullTop} pixels`);
  // What is drawn of it: the pixels wanted (each output pixel's taps and coverage are its own).
  const left = within ? Math.max(fullLeft, within.left) : fullLeft;
  const top = within ? Math.max(fullTop, within.top) : fullTop;
  const right = within ? Math.min(fullRight, within.right) : fullRight;
  const bottom = within ? Math.min(fullBottom, within.bottom) : fullBottom;
  const width = right - left;
  const height = bottom - top;
  if (width < 1 || height < 1) return null;

  // The sizes the general path goes through: the picture, the loader's size, the footprint.
  const shown = picture.standsFor ?? picture;
  const { width: footW, height: footH } = footprint;
  // Output pixel centre left + x + 0.5 ↦ content (… − c0)/kx ↦ footprint pixel (… − rect.left) · foot / rect width.
  const sx = footW / (rect.right - rect.left);
  const sy = footH / (rect.bottom - rect.top);
  // The taps of the whole placement (kept per isolate), cut to the pixels drawn; the loader's
  // resize maps the picture's extent when it is not all its pixels.
  const extent = picture.standsFor && picture.extent ? axisExtents(picture, picture.extent) : {};
  const h = cutTaps(chainedTaps(fullRight - fullLeft, { scale: sx / kx, offset: ((fullLeft - c[0]!) / kx - rect.left) * sx }, [picture.width, shown.width, footW], extent.x), left - fullLeft, width);
  const v = cutTaps(chainedTaps(fullBottom - fullTop, { scale: sy / ky, offset: ((fullTop - c[1]!) / ky - rect.top) * sy }, [picture.height, shown.height, footH], extent.y), top - fullTop, height);
  return { h, v, drawn, left, top, right, bottom, width, height };
}

/**
 * An upright placement in one pass (issue 25 §3). The general path resizes the picture to the
 * size the loader wanted (`standsFor`), shrinks that to its footprint when larger, then samples
 * it bilinearly through the homography, pixel by pixel with a division each. Upright, every step
 * is separable: the three are folded into one set of taps per axis (chainedTaps) and drawn by one
 * WASM pass straight from the picture given, with the same centres, clamps and weights (the
 * pictures in between are no longer rounded to bytes). Coverage at the borders is the general
 * path's: the distance of the pixel centre to the nearest edge of placement ∩ picture, plus half
 * a pixel, capped at 1, alpha multiplied by it; the bounds are the same.
 */
async function placeAxisAligned(
  picture: PlacedPicture,
  taps: AxisTaps,
  /** Where the pixels go (placeImage's `arrayFor`). */
  arrayFor?: (bytes: number) => Uint8ClampedArray | undefined,
): Promise<{ pixels: RGBAImage; bounds: Bounds } | null> {
  const { h, v, drawn, left, top, right, bottom, width, height } = taps;
  // Resampled as it was decoded (the same taps: placeImage checked), or now.
  const out = picture.placed ? picture.placed.pixels : await resampleWithTaps(picture, h, v, arrayFor?.(width * height * 4));

  const coverX = new Float64Array(width);
  for (let x = 0; x < width; x++) {
    const px = left + x + 0.5;
    coverX[x] = Math.min(px - drawn.left, drawn.right - px) + 0.5;
  }
  // Rows inside by a pixel or more are partly covered only in their edge columns.
  let inFrom = 0;
  while (inFrom < width && coverX[inFrom]! < 1) inFrom++;
  let inTo = width;
  while (inTo > inFrom && coverX[inTo - 1]! < 1) inTo--;
  const d = out.data;
  let opaqueFrom = height; // rows [opaqueFrom, opaqueTo) are covered whole
  let opaqueTo = 0;
  for (let y = 0; y < height; y++) {
    const py = top + y + 0.5;
    const coverY = Math.min(py - drawn.top, drawn.bottom - py) + 0.5;
    if (coverY >= 1) {
      opaqueFrom = Math.min(opaqueFrom, y);
      opaqueTo = y + 1;
    }
    for (let x = 0; x < width; x++) {
      if (coverY >= 1 && x === inFrom) x = Math.max(x, inTo);
      if (x >= width) break;
      const coverage = Math.min(coverY, coverX[x]!);
      if (coverage >= 1) continue;
      const o = (y * width + x) * 4;
      if (coverage <= 0) d.fill(0, o, o + 4);
      else d[o + 3] = d[o + 3]! * coverage;
    }
  }
  // An opaque picture resampled stays opaque where the border does not fade it: each pixel's
  // alpha is 255 · Σ weights (1 to within ~1e-4 in f32), which the kernel stores as 255.
  if (picture.opaque) markOpaque(d, { left: inFrom, top: opaqueFrom, right: inTo, bottom: opaqueTo });
  return { pixels: out, bounds: { left, top, right, bottom } };
}

/** Destination pixels [from, from + count) of `taps`: the same bounds and weights. */
function cutTaps(taps: AxisWeights, from: number, count: number): AxisWeights {
  if (from === 0 && count * 2 === taps.bounds.length) return taps;
  return { bounds: taps.bounds.subarray(from * 2, (from + count) * 2), weights: taps.weights.subarray(from * taps.stride, (from + count) * taps.stride), stride: taps.stride };
}

/**
 * Columns x (pixel centre left + x + 0.5) of row centre `py` at which every edge line (a, b, c
 * triples, c holding the half-pixel offset) is at least 1 + a margin: where placeImage's measured
 * coverage is exactly 1 (`from`…`to`; `to < from` when there is none); and the columns outside
 * which some edge line is at most −margin, where the measured coverage is ≤ 0 and nothing is
 * drawn (`first`…`last`: a warped quad leaves ~1/4 of its box empty, each such pixel measured
 * against eight edges before). Both kept a pixel and 1e-6 inside the exact intervals, far beyond
 * the rounding of the per-pixel sums.
 */
function interiorColumns(ea: Float64Array, left: number, py: number, width: number): { from: number; to: number; first: number; last: number } {
  let lo = 0;
  let hi = width - 1;
  let first = 0;
  let last = width - 1;
  const need = 1 + 1e-6;
  const gone = -1e-6;
  for (let e = 0; e < ea.length; e += 3) {
    const a = ea[e]!;
    const rest = ea[e + 1]! * py + ea[e + 2]!;
    if (Math.abs(a) < 1e-12) {
      if (rest < need + 1) lo = width; // no interior
      if (rest < gone - 1) last = -1; // nothing drawn
      continue;
    }
    // a·(left + x + 0.5) + rest ≥ need  ⇔  x ≥ or ≤ (need − rest)/a − left − 0.5
    const bound = (need - rest) / a - left - 0.5;
    // a·(left + x + 0.5) + rest ≤ gone  ⇔  x ≤ or ≥ (gone − rest)/a − left − 0.5
    const outside = (gone - rest) / a - left - 0.5;
    // A NaN edge (a corner past the doubles' range) lowers no pixel's measured coverage: it leaves none out.
    const leaves = !Number.isNaN(outside);
    if (a > 0) {
      lo = Math.max(lo, Math.ceil(bound) + 1);
      if (leaves) first = Math.max(first, Math.floor(outside));
    } else {
      hi = Math.min(hi, Math.floor(bound) - 1);
      if (leaves) last = Math.min(last, Math.ceil(outside));
    }
  }
  return { from: lo, to: hi, first, last };
}
