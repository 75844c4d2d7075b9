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
import { effectInkThrough, inkLayers, requestInks, type InkConvert, type InkLayers, type OverrideInk } from '../pdf/ink-composite';
import { ColorMode, cmykToSrgb, usableCmykProfile } from '../psd/color-modes';
import { imageResources, psdLayout } from '../psd/spots';
import type { PersonalisationData } from '../personalise';
import { frameCache } from '../cache';
import { prefix } from '../compiled/store';
import { changedOutput } from './dirty';
import { resampleRows, resampleTaps, unsharpMask, unsharpKey, unsharpReach, type ResampleQuality, type UnsharpMask } from '../raster';
import { tapSpan } from '../raster/resample';
import type { Bounds, CompiledTemplate, LayerOverrides, RGBAImage } from '../types';

/**
 * Document pixels a preview composites in ink at most. The ink stack is read at full size
 * whatever the output size (the PSD's channels have no pyramid): ~0.3 s a megapixel (0.35 s of
 * CPU) for four full-canvas layers and two adjustments, wall time on the shared 2-core machine at
 * load 3–5 (docs/colour.md, "Speed of ink previews"), so a template's first preview at 4 MP takes
 * ~1.2 s (later ones reuse its kept frame and output); larger documents keep the RGB path, which
 * renders at a pyramid level.
 */
export const INK_PREVIEW_MAX_PIXELS = 4_000_000;

/**
 * PSD bytes a preview reads for the ink path at most: a personalised request reads and parses
 * the PSD again (its layers' channels; ~30 ms for 1.3 MB, docs/colour.md), so a large layered
 * file keeps the RGB path, which reads only the compiled form.
 */
export const INK_PREVIEW_MAX_PSD_BYTES = 8 * 1024 * 1024;

/** Coded outputs (keepInkOutput) above this are not kept: they would evict kept frames. */
const INK_CODED_MAX_BYTES = 2 * 1024 * 1024;

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
  const toInk = colourTransformSync({ from: defaultProfile('Rgb'), to: usableCmykProfile(embedded), fromLayout: 'RGBA', toLayout: 'CMYK' });
  const ink: InkConvert = (src, dst, pixels) => toInk.apply(new Uint8Array(src.buffer, src.byteOffset, src.byteLength), dst, pixels);
  // An effect's colour as the compiled tree holds it (sRGB) back to ink through the profile, where
  // the parse did not keep its own CMYK (InkOptions.effectInk).
  const layers = inkLayers(psd, compiled, { nonSeparable: true, effectInk: effectInkThrough(ink) });
  if (!layers) return null;
  return { layers, toSrgb: cmykToSrgb(embedded), toInk: ink };
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
 * Canvas pixels `area` at full size, composited in ink with `overrides` and converted to
 * sRGB: over white (paper: Photoshop's merged colour is matted over white, converted as it is)
 * or, with 'transparent', straight colour and the composite's alpha.
 */
export function inkRows(doc: InkDocument, area: Bounds, overrides: LayerOverrides, content: OverrideInk, background?: 'transparent'): RGBAImage {
  const width = area.right - area.left;
  const { top, bottom } = area;
  const { ink, alpha } = doc.layers.composite(area, overrides, content, 0);
  const n = width * (bottom - top);
  const data = new Uint8ClampedArray(n * 4);
  const stored = new Uint8Array(data.buffer);
  if (background !== 'transparent') {
    // 255 − v a byte: the word's bits flipped.
    const to = new Uint32Array(stored.buffer, 0, n);
    const from = new Uint32Array(ink.buffer, ink.byteOffset, n);
    for (let i = 0; i < n; i++) to[i] = ~from[i];
  } else {
    for (let p = 0, i = 0; i < n; i++, p += 4) {
      const a = alpha[i];
      // Straight ink (unmatted) under a transparency; over paper the matted ink as it is.
      const k = a > 0 && a < 255 ? 255 / a : 1;
      for (let c = 0; c < 4; c++) stored[p + c] = 255 - Math.min(255, Math.round(ink[p + c] * k));
    }
  }
  doc.toSrgb.apply(stored, stored, n);
  if (background !== 'transparent') for (let i = 0, p = 3; i < n; i++, p += 4) data[p] = 255;
  else for (let i = 0, p = 3; i < n; i++, p += 4) data[p] = alpha[i];
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
  /** false: drawn whole, no kept frame read or written (tests compare the two). */
  keep?: boolean;
}

/**
 * The preview frame of a CMYK document composited in ink. The frame drawn without overrides is
 * kept per isolate (frameCache, as frame.ts keeps the RGB one) and a personalised frame redraws
 * only the output rectangle its overrides reach (dirtyBounds at full size, through the resize's
 * taps and the unsharp mask's reach), as frame.ts does: the same pixels as drawing it all.
 * Only for output no larger than the document (the caller's rule).
 */
export async function inkFrame(doc: InkDocument, compiled: CompiledTemplate, o: InkFrameOptions): Promise<RGBAImage> {
  const whole: Bounds = { top: 0, bottom: o.height, left: 0, right: o.width };
  const bytes = o.width * o.height * 4;
  // The kept frame stands for the template only where its own stack is modelled everywhere too.
  if (o.keep === false || bytes > frameCache.maxEntryBytes || !doc.layers.models(new Map(), o.content)) return sharpened(await drawOutput(doc, compiled, o, whole, o.overrides), o.sharpen);
  const key = inkFrameKey(compiled, o);
  let base = frameCache.get(key);
  if (!base) {
    base = (await sharpened(await drawOutput(doc, compiled, o, whole, new Map()), o.sharpen)).data;
    frameCache.set(key, base, base.byteLength);
  }
  const frame = { width: o.width, height: o.height, data: base.slice() };
  const changed = changedRect(compiled, o);
  if (!changed) return frame;
  // The window the unsharp mask reads around the changed rectangle, drawn and sharpened; its inner part pasted.
  const reach = o.sharpen ? unsharpReach(o.sharpen) : 0;
  const win: Bounds = { top: Math.max(0, changed.top - reach), bottom: Math.min(o.height, changed.bottom + reach), left: Math.max(0, changed.left - reach), right: Math.min(o.width, changed.right + reach) };
  const drawn = await sharpened(await drawOutput(doc, compiled, o, win, o.overrides), o.sharpen);
  const w = win.right - win.left;
  for (let y = changed.top; y < changed.bottom; y++) {
    const from = ((y - win.top) * w + (changed.left - win.left)) * 4;
    frame.data.set(drawn.data.subarray(from, from + (changed.right - changed.left) * 4), (y * o.width + changed.left) * 4);
  }
  return frame;
}

type FrameShape = Pick<InkFrameOptions, 'width' | 'height' | 'quality' | 'sharpen' | 'background'>;

const inkFrameKey = (compiled: CompiledTemplate, o: FrameShape) => {
  return `${prefix(compiled.hash)}ink-frame/${o.width}x${o.height}/${o.quality}/${unsharpKey(o.sharpen)}/${o.background ?? 'white'}`;
};

/**
 * The kept template frame of `o` (a copy), or null: a request without overrides takes it without
 * reading the PSD (it is kept only for a stack the ink compositor models).
 */
export function keptInkFrame(compiled: CompiledTemplate, o: FrameShape): RGBAImage | null {
  const base = frameCache.get(inkFrameKey(compiled, o));
  return base ? { width: o.width, height: o.height, data: base.slice() } : null;
}

/**
 * The coded output (JPEG or PNG bytes, as the preview returns them) of the kept template frame of
 * `o`, kept beside it in frameCache: a repeated request without data returns these bytes (a copy)
 * without copying or coding the frame again, as the RGB path returns its kept JPEG's rows.
 * `coding` names what else the bytes depend on (format, quality).
 */
export function keptInkOutput(compiled: CompiledTemplate, o: FrameShape, coding: string): Uint8Array | null {
  const held = frameCache.get(`${inkFrameKey(compiled, o)}/coded/${coding}`);
  return held ? new Uint8Array(held) : null;
}

/** Keeps `bytes`, the coded output of the kept template frame of `o` (keptInkOutput). */
export function keepInkOutput(compiled: CompiledTemplate, o: FrameShape, coding: string, bytes: Uint8Array): void {
  if (bytes.byteLength <= INK_CODED_MAX_BYTES) frameCache.set(`${inkFrameKey(compiled, o)}/coded/${coding}`, new Uint8ClampedArray(bytes), bytes.byteLength);
}

const sharpened = async (img: RGBAImage, sharpen: UnsharpMask | null) => (sharpen ? unsharpMask(img, sharpen) : img);

/** Output pixels the overrides can change (before sharpening's reach), or null. */
function changedRect(compiled: CompiledTemplate, o: InkFrameOptions): Bounds | null {
  const same = o.width === compiled.width && o.height === compiled.height;
  const taps = same ? null : { rows: resampleTaps(compiled.height, o.height, o.quality), columns: resampleTaps(compiled.width, o.width, o.quality) };
  return changedOutput(compiled, o.overrides, 1, taps);
}

/**
 * Output pixels `win` (unsharpened) from the canvas rectangle their resize taps read, composited
 * in ink a strip of rows at a time from the top (each layer's ZIP readers only go forward); rows
 * shared by consecutive output strips are kept, not composited again.
 */
async function drawOutput(doc: InkDocument, compiled: CompiledTemplate, o: InkFrameOptions, win: Bounds, overrides: LayerOverrides): Promise<RGBAImage> {
  const { width: W, height: H } = compiled;
  const w = win.right - win.left;
  const out = new Uint8ClampedArray(w * (win.bottom - win.top) * 4);
  const same = o.width === W && o.height === H;
  const rowTaps = same ? null : resampleTaps(H, o.height, o.quality);
  const cols = same ? { first: win.left, end: win.right } : tapSpan(resampleTaps(W, o.width, o.quality), win.left, win.right);
  const cw = cols.end - cols.first;
  const rows = inkStripRows(cw);
  const draw = (top: number, bottom: number) => inkRows(doc, { left: cols.first, right: cols.end, top, bottom }, overrides, o.content, o.background);
  if (!rowTaps) {
    for (let top = win.top; top < win.bottom; top += rows) out.set(draw(top, Math.min(win.bottom, top + rows)).data, (top - win.top) * w * 4);
    return { width: w, height: win.bottom - win.top, data: out };
  }
  const outRows = Math.max(1, Math.floor((rows * o.height) / H));
  // Canvas rows [heldTop, heldTop + held.height) composited so far.
  let held: RGBAImage = { width: cw, height: 0, data: new Uint8ClampedArray(0) };
  let heldTop = 0;
  for (let top = win.top; top < win.bottom; top += outRows) {
    const bottom = Math.min(win.bottom, top + outRows);
    const span = tapSpan(rowTaps, top, bottom);
    const heldEnd = heldTop + held.height;
    const from = Math.max(span.first, heldTop);
    const start = Math.max(heldEnd, span.first);
    const fresh = span.end > start ? draw(start, span.end) : null;
    const data = new Uint8ClampedArray((span.end - span.first) * cw * 4);
    if (from < heldEnd) data.set(held.data.subarray((from - heldTop) * cw * 4, (Math.min(heldEnd, span.end) - heldTop) * cw * 4), (from - span.first) * cw * 4);
    if (fresh) data.set(fresh.data, (start - span.first) * cw * 4);
    held = { width: cw, height: span.end - span.first, data };
    heldTop = span.first;
    const strip = await resampleRows(held, { top: heldTop, height: H, left: cols.first, width: W }, o.width, o.height, { top, bottom }, o.quality, { left: win.left, right: win.right });
    out.set(strip.data, (top - win.top) * w * 4);
  }
  return { width: w, height: win.bottom - win.top, data: out };
}

/**
 * The document at full size over white, composited in ink, or null where a preview would not take
 * the ink path (not CMYK, above INK_PREVIEW_MAX_PIXELS or INK_PREVIEW_MAX_PSD_BYTES, a stack the ink compositor does not
 * model): how the fidelity test renders what a full-size preview of a CMYK document shows.
 */
export async function inkRender(psd: Uint8Array, compiled: CompiledTemplate, overrides: LayerOverrides = new Map()): Promise<RGBAImage | null> {
  if (compiled.width * compiled.height > INK_PREVIEW_MAX_PIXELS || psd.length > INK_PREVIEW_MAX_PSD_BYTES) return null;
  const doc = inkDocument(psd, compiled);
  if (!doc) return null;
  const content = documentInks(doc, undefined);
  if (!doc.layers.models(overrides, content)) return null;
  return inkFrame(doc, compiled, { width: compiled.width, height: compiled.height, quality: 'high', sharpen: null, overrides, content });
}
