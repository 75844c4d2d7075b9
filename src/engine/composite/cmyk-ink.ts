/**
 * Previews of CMYK documents composited in ink (issue 25 §2; docs/colour.md, "CMYK previews
 * composited in ink"). Photoshop composites a CMYK document in CMYK and shows (and stores as its
 * merged image) that composite; converting each layer to sRGB and blending in RGB is exact only
 * for Normal at full opacity. So where the print PDF's ink compositor (pdf/ink-composite.ts)
 * models the whole stack, a preview composites the layers' own CMYK channels at full size and
 * converts the result to sRGB with the transform the merged image takes (psd/color-modes.ts
 * cmykToSrgb), then resizes and sharpens as the frame does. Anything it does not model, and
 * documents too large to composite at full size for a preview, keep the RGB path.
 */
import { colourTransformSync, defaultProfile, type ColourTransform } from '../colour';
import { inkLayers, requestInks, type InkLayers, type OverrideInk } from '../pdf/ink-composite';
import { ColorMode, cmykToSrgb, usableCmykProfile } from '../psd/color-modes';
import { imageResources, psdLayout } from '../psd/spots';
import type { PersonalisationData } from '../personalise';
import { resampleRows, resampleTaps, unsharpMask, type ResampleQuality, type UnsharpMask } from '../raster';
import { tapSpan } from '../raster/resample';
import type { CompiledTemplate, LayerOverrides, RGBAImage } from '../types';

/**
 * Document pixels a preview composites in ink at most. The ink stack is read at full size
 * whatever the output size (the PSD's channels have no pyramid), at ~60–90 ms a megapixel for a
 * few layers on the 2-core test machine (docs/colour.md): 4 MP (2000²) keeps a first preview
 * within about 0.4 s; larger documents keep the RGB path, which renders at a pyramid level.
 */
export const INK_PREVIEW_MAX_PIXELS = 4_000_000;

/** Ink surface bytes a strip of canvas rows holds (two RGBA surfaces, 8 bytes a pixel, per level of nesting). */
const INK_STRIP_BYTES = 1 << 20;

/** Bytes per canvas pixel of a strip at its peak: the canvas and a layer's content (8 each), a group or clip group (8), the RGBA rows (4) and the rows kept for the resize (4). */
const STRIP_BYTES_PER_PIXEL = 32;

/** A CMYK document's layer stack ready to composite, and the conversions between its ink and sRGB. */
export interface InkDocument {
  layers: InkLayers;
  /** Stored (inverted) CMYK → sRGB RGBA: the merged image's conversion. */
  toSrgb: ColourTransform;
  /** sRGB RGBA → ink (0 = none) through the document's profile: personalised content's ink. */
  toInk(src: Uint8Array | Uint8ClampedArray, dst: Uint8Array, pixels: number): void;
}

/** Whether the header of a PSD (its first 26 bytes) says CMYK. */
export const isCmykHeader = (head: Uint8Array | null): boolean =>
  head !== null && head.length >= 26 && new DataView(head.buffer, head.byteOffset, head.byteLength).getUint16(24) === ColorMode.CMYK;

/** The ink document of `psd` (a CMYK document; `compiled` its compiled form), or null when it cannot be read as one. */
export function inkDocument(psd: Uint8Array, compiled: CompiledTemplate): InkDocument | null {
  const layout = psdLayout(psd);
  if (!layout || layout.mode !== ColorMode.CMYK || (layout.depth !== 8 && layout.depth !== 16)) return null;
  const icc = imageResources(layout.resources).get(1039);
  const embedded = icc?.length ? icc.slice() : undefined;
  const layers = inkLayers(psd, compiled, { nonSeparable: true });
  if (!layers) return null;
  const toInk = colourTransformSync({ from: defaultProfile('Rgb'), to: usableCmykProfile(embedded), fromLayout: 'RGBA', toLayout: 'CMYK' });
  return { layers, toSrgb: cmykToSrgb(embedded), toInk: (src, dst, pixels) => toInk.apply(new Uint8Array(src.buffer, src.byteOffset, src.byteLength), dst, pixels) };
}

/** Personalised content as ink for `data` (requestInks through the document's profile). */
export const documentInks = (doc: InkDocument, data: PersonalisationData | undefined): OverrideInk => requestInks(doc.toInk, data);

/** What an ink preview holds at its peak besides the PSD bytes: the frame (twice when sharpened) and a strip. */
export function inkPreviewMemory(template: { width: number }, box: { width: number; height: number }, sharpen: boolean): number {
  const frame = box.width * box.height * 4 * (sharpen ? 2 : 1);
  return frame + inkStripRows(template.width) * template.width * STRIP_BYTES_PER_PIXEL;
}

const inkStripRows = (width: number) => Math.max(8, Math.floor(INK_STRIP_BYTES / (width * 8)));

/**
 * Canvas rows [top, bottom) at full size, composited in ink with `overrides` and converted to
 * sRGB: over white (paper: Photoshop's merged colour is matted over white, converted as it is)
 * or, with 'transparent', straight colour and the composite's alpha.
 */
export function inkRows(doc: InkDocument, compiled: CompiledTemplate, top: number, bottom: number, overrides: LayerOverrides, content: OverrideInk, background?: 'transparent'): RGBAImage {
  const width = compiled.width;
  const { ink, alpha } = doc.layers.composite({ left: 0, top, right: width, bottom }, overrides, content, 0);
  const n = width * (bottom - top);
  const data = new Uint8ClampedArray(n * 4);
  const stored = new Uint8Array(data.buffer);
  for (let p = 0, i = 0; i < n; i++, p += 4) {
    const a = alpha[i];
    // Straight ink (unmatted) under a transparency; over paper the matted ink as it is.
    const k = background === 'transparent' && a > 0 && a < 255 ? 255 / a : 1;
    for (let c = 0; c < 4; c++) stored[p + c] = 255 - Math.min(255, Math.round(ink[p + c] * k));
  }
  doc.toSrgb.apply(stored, stored, n);
  for (let i = 0, p = 3; i < n; i++, p += 4) data[p] = background === 'transparent' ? alpha[i] : 255;
  if (background === 'transparent') for (let i = 0, p = 0; i < n; i++, p += 4) if (alpha[i] === 0) data[p] = data[p + 1] = data[p + 2] = 0;
  return { width, height: bottom - top, data };
}

export interface InkFrameOptions {
  width: number;
  height: number;
  quality: ResampleQuality;
  sharpen: UnsharpMask | null;
  background?: 'transparent';
  overrides: LayerOverrides;
  content: OverrideInk;
}

/**
 * The preview frame of a CMYK document composited in ink: canvas rows composited a strip at a
 * time from the top (each layer's ZIP readers only go forward), resized to the output (the rows
 * each output strip's taps read; rows shared with the next strip are kept, not composited again),
 * then sharpened. Only for output no larger than the document (the caller's rule).
 */
export async function inkFrame(doc: InkDocument, compiled: CompiledTemplate, o: InkFrameOptions): Promise<RGBAImage> {
  const { width: W, height: H } = compiled;
  const rows = inkStripRows(W);
  const frame = new Uint8ClampedArray(o.width * o.height * 4);
  const draw = (top: number, bottom: number) => inkRows(doc, compiled, top, bottom, o.overrides, o.content, o.background);
  if (o.width === W && o.height === H) {
    for (let top = 0; top < H; top += rows) frame.set(draw(top, Math.min(H, top + rows)).data, top * W * 4);
  } else {
    const taps = resampleTaps(H, o.height, o.quality);
    const outRows = Math.max(1, Math.floor((rows * o.height) / H));
    // Canvas rows [heldTop, heldTop + held.height) composited so far.
    let held: RGBAImage = { width: W, height: 0, data: new Uint8ClampedArray(0) };
    let heldTop = 0;
    for (let top = 0; top < o.height; top += outRows) {
      const bottom = Math.min(o.height, top + outRows);
      const span = tapSpan(taps, top, bottom);
      const heldEnd = heldTop + held.height;
      const from = Math.max(span.first, heldTop);
      const start = Math.max(heldEnd, span.first);
      const fresh = span.end > start ? draw(start, span.end) : null;
      const data = new Uint8ClampedArray((span.end - span.first) * W * 4);
      if (from < heldEnd) data.set(held.data.subarray((from - heldTop) * W * 4, (Math.min(heldEnd, span.end) - heldTop) * W * 4), (from - span.first) * W * 4);
      if (fresh) data.set(fresh.data, (start - span.first) * W * 4);
      held = { width: W, height: span.end - span.first, data };
      heldTop = span.first;
      const out = await resampleRows(held, { top: heldTop, height: H }, o.width, o.height, { top, bottom }, o.quality);
      frame.set(out.data, top * o.width * 4);
    }
  }
  const image = { width: o.width, height: o.height, data: frame };
  return o.sharpen ? unsharpMask(image, o.sharpen) : image;
}

/**
 * The document at full size over white, composited in ink, or null where a preview would not take
 * the ink path (not CMYK, above INK_PREVIEW_MAX_PIXELS, a stack the ink compositor does not
 * model): how the fidelity test renders what a full-size preview of a CMYK document shows.
 */
export async function inkRender(psd: Uint8Array, compiled: CompiledTemplate, overrides: LayerOverrides = new Map()): Promise<RGBAImage | null> {
  if (compiled.width * compiled.height > INK_PREVIEW_MAX_PIXELS) return null;
  const doc = inkDocument(psd, compiled);
  if (!doc) return null;
  const content = documentInks(doc, undefined);
  if (!doc.layers.models(overrides, content)) return null;
  return inkFrame(doc, compiled, { width: compiled.width, height: compiled.height, quality: 'high', sharpen: null, overrides, content });
}
