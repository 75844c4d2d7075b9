/**
 * PrintProduct → print PDF with pdf-lib (platform contract, "Design atoms"):
 *
 * - A page per print area of each surface (a surface without print areas is one page); MediaBox
 *   = BleedBox = the area grown by its bleed, TrimBox = the area. The page shows the surface
 *   through that window (no clipping to the area's shape: the trim is the cutter's business).
 * - Shapes are vector paths; rgb colours DeviceRGB, `cmyk()` colours DeviceCMYK as given;
 *   alpha and item opacity through ExtGState (an item or group with opacity < 1 is a
 *   transparency group, so its parts do not show through each other).
 * - Text: `Outlines` (default): resvg turns the item's text (laid out exactly as in the preview)
 *   into paths, written as PDF path operators (src/engine/pdf/vector.ts usvgToOps), so no font
 *   is embedded. `Text`: real text in a TrueType subset made by the engine's subsetter
 *   (src/engine/pdf/font-subset.ts, which refuses fonts whose OS/2 fsType forbids embedding a
 *   subset, and CFF fonts), Type0/Identity-H with a ToUnicode map, placed line by line from the
 *   same layout (advances plus letter and word spacing, and the pairs of the font's `kern` table
 *   as TJ adjustments; GPOS-only kerning is not applied). Items whose font
 *   is refused, or lacks a character, stay outlines.
 * - Images: JPEG passes through and PNG stays lossless when at most 300 dpi at their placed
 *   size; larger ones are downsampled to 300 dpi (JPEG re-encoded at quality 92, PNG kept
 *   lossless, Flate); SVG is rasterised at 300 dpi; PDF pages are embedded as vector forms;
 *   `recolor` makes a one-colour image keeping the alpha (in CMYK for a cmyk() colour). GIF and
 *   WebP cannot be embedded (422).
 * - No mockups, no stub, no print-area outlines. A document over 50 MB → 422.
 * - PDF/X-1a: translucent items are flattened into an opaque image in the output's ink
 *   (flatten.ts), with the opaque items below and above them kept vector.
 */
import { PDFDocument, PDFName, type PDFContext, type PDFRef } from 'pdf-lib';
import { kernPairs } from '../fonts/kerning';
import { openEmbeddable, subsetFontName, type SfntFont } from '../pdf/font-subset';
import { usvgToOps } from '../pdf/vector';
import { type0Font } from '../pdf/pdf-lib-font';
import { num } from '../pdf/writer';
import { renderSvg } from '../personalise/resvg';
import { decodeImage, encodeJpeg } from '../raster/codecs';
import { encodeConvertedJpeg } from '../raster/jpeg-ink';
import { unpremultiply } from '../raster/pixels';
import { resample } from '../raster/resample';
import type { RGBAImage } from '../types';
import { Unprocessable, unprocessable } from '../errors';
import { loadCheckedPdf } from '../pdf-raster';
import { resolveColor, type ImageModel, type ItemModel, type PrintAreaModel, type PrintProductModel, type ResolvedColor, type SurfaceModel, type TextModel } from './schema';
import { fmt, placeImage, prepareModel, shapeGeometry, textSvg, textUsvg, type FontLookup, type ImageLookup, type ResolvedImage } from './svg';
import { layoutItemText } from './text';
import { barcodeOps } from './barcode';
import { ModelValidationError } from './validate';
import type { VariableInfo } from './variables';
import type { PreflightProblem, ReportProblem } from '../preflight/report';
import { barcodeProblems, emptyFields, imageProblems, textProblems, type ResolutionThresholds } from './problems';
import { PDFX } from '../pdf/pdfx';
import { withPdfHeader } from '../pdf/pdf-lib-values';
import { inkWriter, jpegComponents, markPdfx, type InkWriter, type PrintProductColour } from './colour';
import { flattenArea, translucent, type SurfaceEntry } from './flatten';

/** A dictionary as pdf-lib's `context.obj` and `flateStream` take it (pdf-lib does not export the type's name). */
type PdfDictLiteral = NonNullable<Parameters<PDFContext['flateStream']>[1]>;

export const MAX_PDF_BYTES = 50 * 1024 * 1024;
export const PDF_IMAGE_DPI = 300;

/** 422: the document would exceed the size limit (50 MB). */
export class PdfTooLargeError extends Unprocessable {
  constructor(bytes: number, limit: number) {
    super(`The PDF would be ${(bytes / 1048576).toFixed(1)} MB; at most ${limit / 1048576} MB can be produced.`, [
      { path: '$', reason: `the document exceeds ${limit / 1048576} MB` },
    ]);
  }
}

export interface PdfOptions {
  fonts: FontLookup;
  images: ImageLookup;
  /** One surface; absent: every surface, in order. */
  surfaceIndex?: number;
  /** `renderingConfig.pdfTextOutputMode` (default Outlines). */
  textMode?: 'Outlines' | 'Text';
  variableData?: VariableInfo[];
  /** Required variables must have values (default true: print output). */
  enforceRequired?: boolean;
  /** Default 50 MB. */
  maxBytes?: number;
  title?: string;
  /** Receives the preflight problems of what is drawn (problems.ts), from the drawing's own layout. */
  report?: ReportProblem;
  /** Effective-ppi thresholds of placed images (default 200/100). */
  resolution?: ResolutionThresholds;
  /**
   * Output colour (issue 20 §2, colour.ts): CMYK or grey ink through the output profile, PDF/X
   * identification. Absent: RGB as before (`cmyk()` colours as DeviceCMYK, no output intent).
   */
  colour?: PrintProductColour;
}

export interface PdfResult {
  bytes: Uint8Array;
  pages: number;
  /** Fonts embedded as text (PostScript names). */
  embeddedFonts: string[];
}

/** One page of the document: which surface and the window onto it (surface points). */
export interface PdfPagePlan {
  surfaceIndex: number;
  area: PrintAreaModel | null;
  /** MediaBox (= BleedBox) in surface coordinates, and the trim inside it. */
  media: { x: number; y: number; width: number; height: number };
  trim: { x: number; y: number; width: number; height: number };
}

export function pagePlan(surface: SurfaceModel, surfaceIndex: number): PdfPagePlan[] {
  if (!surface.printAreas.length) {
    const all = { x: 0, y: 0, width: surface.width, height: surface.height };
    return [{ surfaceIndex, area: null, media: all, trim: all }];
  }
  return surface.printAreas.map((area) => {
    const b = area.bleed;
    return {
      surfaceIndex,
      area,
      media: { x: area.bounds.x - b.left, y: area.bounds.y - b.top, width: area.bounds.width + b.left + b.right, height: area.bounds.height + b.top + b.bottom },
      trim: { ...area.bounds },
    };
  });
}


/** Bézier constant for quarter ellipses. */
const K = 0.5522847498;

function rectPath(r: { x: number; y: number; width: number; height: number; radius?: number }): string {
  const { x, y, width: w, height: h } = r;
  const rad = Math.min(r.radius ?? 0, w / 2, h / 2);
  if (!rad) return `${num(x)} ${num(y)} ${num(w)} ${num(h)} re`;
  const c = rad * (1 - K);
  const p = (...v: number[]) => v.map(num).join(' ');
  return [
    `${p(x + rad, y)} m`,
    `${p(x + w - rad, y)} l`,
    `${p(x + w - c, y, x + w, y + c, x + w, y + rad)} c`,
    `${p(x + w, y + h - rad)} l`,
    `${p(x + w, y + h - c, x + w - c, y + h, x + w - rad, y + h)} c`,
    `${p(x + rad, y + h)} l`,
    `${p(x + c, y + h, x, y + h - c, x, y + h - rad)} c`,
    `${p(x, y + rad)} l`,
    `${p(x, y + c, x + c, y, x + rad, y)} c`,
    'h',
  ].join('\n');
}

function ellipsePath(r: { x: number; y: number; width: number; height: number }): string {
  const rx = r.width / 2;
  const ry = r.height / 2;
  const cx = r.x + rx;
  const cy = r.y + ry;
  const ox = rx * K;
  const oy = ry * K;
  const p = (...v: number[]) => v.map(num).join(' ');
  return [
    `${p(cx + rx, cy)} m`,
    `${p(cx + rx, cy + oy, cx + ox, cy + ry, cx, cy + ry)} c`,
    `${p(cx - ox, cy + ry, cx - rx, cy + oy, cx - rx, cy)} c`,
    `${p(cx - rx, cy - oy, cx - ox, cy - ry, cx, cy - ry)} c`,
    `${p(cx + ox, cy - ry, cx + rx, cy - oy, cx + rx, cy)} c`,
    'h',
  ].join('\n');
}

/** An image or page XObject: its resource name and size (pixels; a form's in points). */
interface PlacedXObject {
  name: string;
  width: number;
  height: number;
  form?: boolean;
}

interface EmbeddedFont {
  res: string;
  font: SfntFont;
  bytes: Uint8Array;
  used: Map<number, string>;
  ref: PDFRef;
}

/** Per-document state: one resource dictionary shared by every page and form. */
class Writer {
  readonly context: PDFContext;
  readonly xobjects: Record<string, PDFRef> = {};
  readonly extgstates: Record<string, { ca: number; CA: number }> = {};
  readonly fonts = new Map<Uint8Array, EmbeddedFont | null>();
  readonly resourcesRef: PDFRef;
  private counter = 0;
  /** Encoded image bytes so far (for the size limit before saving). */
  imageBytes = 0;
  private readonly imageCache = new Map<string, Promise<PlacedXObject>>();

  constructor(
    readonly doc: PDFDocument,
    readonly opts: PdfOptions,
    readonly maxBytes: number,
    readonly ink: InkWriter,
  ) {
    this.context = doc.context;
    this.resourcesRef = this.context.nextRef();
  }

  name(prefix: string): string {
    return `${prefix}${++this.counter}`;
  }

  alpha(a: number, kind: 'fill' | 'stroke' | 'both' = 'both'): string {
    if (this.ink.opaqueOnly) throw transparencyInX1a();
    const ca = kind === 'stroke' ? 1 : a;
    const CA = kind === 'fill' ? 1 : a;
    const key = `GS${num(ca).replace('.', '_')}x${num(CA).replace('.', '_')}`;
    this.extgstates[key] = { ca: Number(num(ca)), CA: Number(num(CA)) };
    return `/${key} gs`;
  }

  addXObject(ref: PDFRef, prefix = 'X'): string {
    const n = this.name(prefix);
    this.xobjects[n] = ref;
    return n;
  }

  countBytes(n: number): void {
    this.imageBytes += n;
    if (this.imageBytes > this.maxBytes) throw new PdfTooLargeError(this.imageBytes, this.maxBytes);
  }

  /** A transparency-group form of `ops` drawn at `opacity`. */
  group(ops: string, opacity: number, bbox: number[]): string {
    const form = this.context.flateStream(ops, {
      Type: 'XObject',
      Subtype: 'Form',
      BBox: bbox,
      Group: { S: 'Transparency' },
      Resources: this.resourcesRef,
    });
    const n = this.addXObject(this.context.register(form), 'G');
    return `q ${this.alpha(opacity)} /${n} Do Q`;
  }

  image(key: string, make: () => Promise<PlacedXObject>): Promise<PlacedXObject> {
    let hit = this.imageCache.get(key);
    if (!hit) {
      hit = make();
      this.imageCache.set(key, hit);
    }
    return hit;
  }

  finish(): void {
    const ext: PdfDictLiteral = {};
    for (const [k, v] of Object.entries(this.extgstates)) ext[k] = { Type: 'ExtGState', ca: v.ca, CA: v.CA };
    const fonts: Record<string, PDFRef> = {};
    for (const f of this.fonts.values()) if (f && f.used.size) fonts[f.res] = f.ref;
    this.context.assign(
      this.resourcesRef,
      this.context.obj({ XObject: this.xobjects, ExtGState: ext, Font: fonts, ProcSet: ['PDF', 'Text', 'ImageB', 'ImageC'] }),
    );
    for (const f of this.fonts.values()) if (f && f.used.size) writeFont(this.context, f);
  }
}

/** Translucent items of a PDF/X-1a document are flattened (surfaceOps) before any reaches here: a bug. */
const transparencyInX1a = () => new Error('a translucent item reached the PDF/X-1a vector writer unflattened');

/** `q … Q` of an item with its rotation (about the box centre, clockwise) and opacity. */
function itemWrap(w: Writer, item: ItemModel, ops: string, surface: SurfaceModel): string {
  if (!ops) return '';
  let out = ops;
  if (item.opacity < 1) out = w.group(ops, item.opacity, [-surface.width, -surface.height, 2 * surface.width, 2 * surface.height]);
  if (!item.rotation) return `q\n${out}\nQ`;
  const t = (item.rotation * Math.PI) / 180;
  const [c, s] = [Math.cos(t), Math.sin(t)];
  const cx = item.x + item.width / 2;
  const cy = item.y + item.height / 2;
  return `q ${[c, s, -s, c, cx - c * cx + s * cy, cy - s * cx - c * cy].map(num).join(' ')} cm\n${out}\nQ`;
}

function shapeOps(w: Writer, item: Extract<ItemModel, { type: 'Rectangle' | 'Ellipse' }>): string {
  const g = shapeGeometry(item);
  const path = (r: { x: number; y: number; width: number; height: number; radius: number }) => (item.type === 'Ellipse' ? ellipsePath(r) : rectPath(r));
  const out: string[] = [];
  const f = resolveColor(item.fillColor);
  if (f) out.push(`q ${f.a < 1 ? `${w.alpha(f.a, 'fill')} ` : ''}${w.ink.fill(f)}\n${path(g.fill)}\nf Q`);
  const b = resolveColor(item.borderColor);
  if (b && g.border) out.push(`q ${b.a < 1 ? `${w.alpha(b.a, 'stroke')} ` : ''}${w.ink.stroke(b)} ${num(g.border.width_)} w\n${path(g.border)}\nS Q`);
  return out.join('\n');
}


/** The text's outlines as path operators in surface coordinates (no colour: the caller sets it). */
async function textOutlines(item: TextModel, font: Uint8Array, surface: SurfaceModel): Promise<string> {
  const body = await textSvg(item, font, item.text, '#000000');
  if (!body) return '';
  // Cached per font and text (svg.ts): a proof after a preview, or of an unchanged text, re-uses them.
  const ops = usvgToOps(await textUsvg(body, font, surface.width, surface.height));
  if (ops === null) throw new Error('resvg gave text outlines the PDF writer cannot express');
  return ops.replace(/ -?[\d.]+ -?[\d.]+ -?[\d.]+ sc\n/g, '\n');
}

const hex4 = (n: number) => n.toString(16).padStart(4, '0');

/** Real text in an embedded subset, or null when the font cannot be embedded or lacks a character. */
function textAsText(w: Writer, item: TextModel, fontBytes: Uint8Array): string | null {
  let f = w.fonts.get(fontBytes);
  if (f === undefined) {
    const font = openEmbeddable(fontBytes);
    f = font ? { res: w.name('F'), font, bytes: fontBytes, used: new Map(), ref: w.context.nextRef() } : null;
    w.fonts.set(fontBytes, f);
  }
  if (!f) return null;
  const layout = layoutItemText(item, item.text, fontBytes);
  const { font } = f;
  // Pairs from the font's kern table, as resvg kerns the preview's and Outlines' text.
  const kern = kernPairs(fontBytes);
  const size = layout.size;
  const lines: string[] = [];
  const used = new Map<number, string>();
  for (const line of layout.lines) {
    if (!line.text.trim()) continue;
    const parts: string[] = [];
    let run = '';
    let width = 0;
    let count = 0;
    // Pending TJ adjustment in thousandths of an em (positive moves left): kerning, word spacing.
    let adjust = 0;
    let prev = -1;
    for (const ch of line.text) {
      const cp = ch.codePointAt(0)!;
      const gid = font.glyphOf(cp);
      if (!gid && cp > 0x20) return null; // the font lacks it: outlines (resvg may fall back)
      const k = prev >= 0 ? kern(prev, gid) : 0;
      if (k) {
        adjust -= (k * 1000) / font.unitsPerEm;
        width += (k / font.unitsPerEm) * size;
      }
      if (adjust) {
        if (run) parts.push(`<${run}>`);
        parts.push(num(adjust));
        run = '';
        adjust = 0;
      }
      used.set(gid, ch);
      run += hex4(gid);
      width += (font.advance(gid) / font.unitsPerEm) * size;
      count++;
      prev = gid;
      if (cp === 32 && line.wordSpacing) {
        adjust -= (line.wordSpacing * 1000) / size;
        width += line.wordSpacing;
      }
    }
    if (run) parts.push(`<${run}>`);
    // SVG's letter-spacing (and PDF's Tc) follow every character, the last included.
    width += count * layout.letterSpacing;
    const x = line.anchor === 'middle' ? line.x - width / 2 : line.anchor === 'end' ? line.x - width : line.x;
    lines.push(`1 0 0 -1 ${num(x)} ${num(line.y)} Tm [${parts.join(' ')}] TJ`);
  }
  if (!lines.length) return '';
  for (const [g, ch] of used) f.used.set(g, ch);
  return `BT /${f.res} ${num(size)} Tf ${num(layout.letterSpacing)} Tc\n${lines.join('\n')}\nET`;
}

async function textOps(w: Writer, item: TextModel, path: string, surface: SurfaceModel, fontCache: Map<string, Uint8Array>, parents: ItemModel[]): Promise<string> {
  if (!item.text.trim()) return '';
  let font = fontCache.get(item.font.postscriptName);
  if (!font) {
    font = (await w.opts.fonts(item.font.postscriptName)) ?? undefined;
    if (!font) throw new ModelValidationError({ [`${path}.font.postscriptName`]: [`unknown font "${item.font.postscriptName}"`] });
    fontCache.set(item.font.postscriptName, font);
  }
  const fontBytes = font;
  report(w, () => textProblems(item, item.text, layoutItemText(item, item.text, fontBytes), surface, parents));
  const c = resolveColor(item.color);
  if (!c) return '';
  const head = `${c.a < 1 ? `${w.alpha(c.a, 'fill')} ` : ''}${w.ink.fill(c)}`;
  if (w.opts.textMode === 'Text') {
    const text = textAsText(w, item, font);
    if (text !== null) return text && `q ${head}\n${text}\nQ`;
  }
  const outlines = await textOutlines(item, font, surface);
  return outlines && `q ${head}\n${outlines}\nQ`;
}

/**
 * JPEG photos downsampled to 300 dpi or converted to the output's ink, per isolate: keyed by the
 * resolver's cached bytes (one array per content hash), the encoding and the pixel size, so
 * proofs and VDP rows of one design decode and convert its photo once.
 */
const DOWNSAMPLED = new WeakMap<Uint8Array, Map<string, Promise<{ bytes: Uint8Array; width: number; height: number }>>>();

/**
 * The photo at most `target` pixels, re-encoded by `encode` (an RGB JPEG, or one in the output's
 * ink: `variant` names the encoding in the key), so VDP rows and proofs convert a photo once.
 */
function reencodedJpeg(img: ResolvedImage, target: { width: number; height: number }, variant = 'rgb', encode = (pixels: RGBAImage) => encodeJpeg(pixels, 92, { subsampling: 1 })) {
  let sizes = DOWNSAMPLED.get(img.bytes);
  if (!sizes) DOWNSAMPLED.set(img.bytes, (sizes = new Map()));
  const key = `${variant}|${target.width}x${target.height}`;
  let hit = sizes.get(key);
  if (!hit) {
    hit = (async () => {
      const pixels = await placedPixels(img, target);
      return { bytes: await encode(pixels), width: pixels.width, height: pixels.height };
    })();
    hit.catch(() => sizes!.delete(key));
    sizes.set(key, hit);
  }
  return hit;
}

/** The image as an XObject name with its pixel size. */
async function imageXObject(w: Writer, item: ImageModel, img: ResolvedImage, placed: { width: number; height: number }) {
  // Pixels at 300 dpi for the placed size (points).
  const target = {
    width: Math.max(1, Math.ceil((placed.width / 72) * PDF_IMAGE_DPI)),
    height: Math.max(1, Math.ceil((placed.height / 72) * PDF_IMAGE_DPI)),
  };
  const recolor = resolveColor(item.recolor);
  const key = `${item.source ? JSON.stringify(item.source) : ''}|${img.bytes.length}|${item.pageIndex}|${target.width}x${target.height}|${item.recolor ?? ''}`;
  return w.image(key, async () => {
    if (img.mime === 'application/pdf') {
      const [page] = await w.doc.embedPdf(await loadCheckedPdf(img.bytes), [item.pageIndex]); // bounded: issue 18 item 3
      w.countBytes(img.bytes.length);
      return { name: w.addXObject(page.ref, 'P'), width: page.width, height: page.height, form: true };
    }
    const tooBig = img.width > target.width * 1.01 || img.height > target.height * 1.01;
    if (w.ink.convert) return inkImageXObject(w, img, target, recolor, tooBig);
    if (!recolor && !tooBig && img.mime === 'image/jpeg') {
      w.countBytes(img.bytes.length);
      const embedded = await w.doc.embedJpg(img.bytes);
      return { name: w.addXObject(embedded.ref, 'Im'), width: embedded.width, height: embedded.height };
    }
    if (!recolor && !tooBig && img.mime === 'image/png') {
      w.countBytes(img.bytes.length);
      const embedded = await w.doc.embedPng(img.bytes);
      return { name: w.addXObject(embedded.ref, 'Im'), width: embedded.width, height: embedded.height };
    }
    if (img.mime === 'image/jpeg' && !recolor) {
      const jpeg = await reencodedJpeg(img, target);
      w.countBytes(jpeg.bytes.length);
      const embedded = await w.doc.embedJpg(jpeg.bytes);
      return { name: w.addXObject(embedded.ref, 'Im'), width: jpeg.width, height: jpeg.height };
    }
    const pixels = await placedPixels(img, target);
    return { name: w.addXObject(rawImage(w, pixels, recolor), 'Im'), width: pixels.width, height: pixels.height };
  });
}

const base64 = (bytes: Uint8Array) => {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
};

/** The image's straight RGBA at most `target` pixels (SVG rasterised at it, JPEG and PNG decoded). */
async function placedPixels(img: ResolvedImage, target: { width: number; height: number }): Promise<RGBAImage> {
  let pixels: RGBAImage;
  if (img.mime === 'image/svg+xml') {
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${target.width}" height="${target.height}" viewBox="0 0 ${fmt(img.width)} ${fmt(img.height)}" preserveAspectRatio="none"><image width="${fmt(img.width)}" height="${fmt(img.height)}" href="data:image/svg+xml;base64,${base64(img.bytes)}"/></svg>`;
    pixels = await renderSvg(svg, []);
    await unpremultiply(pixels.data);
  } else if (img.mime === 'image/jpeg' || img.mime === 'image/png') {
    pixels = await decodeImage(img.bytes);
  } else {
    throw unprocessable(`An ${img.mime} image cannot be placed in a PDF; use JPEG, PNG, SVG or PDF.`);
  }
  if (pixels.width > target.width * 1.01 || pixels.height > target.height * 1.01) {
    pixels = await resample(pixels, Math.min(pixels.width, target.width), Math.min(pixels.height, target.height));
  }
  return pixels;
}

/**
 * An image in CMYK or grey output (no RGB left): JPEGs already in the output's ink pass through
 * (a CMYK JPEG in CMYK output, as given even above 300 dpi; a grey one in either), other photos become CMYK (Adobe YCCK) or
 * grey JPEGs converted through the output profile, everything else a Flate image of ink values.
 */
async function inkImageXObject(w: Writer, img: ResolvedImage, target: { width: number; height: number }, recolor: ResolvedColor | null, tooBig: boolean): Promise<PlacedXObject> {
  const components = img.mime === 'image/jpeg' ? jpegComponents(img.bytes) : 0;
  // The engine decodes no CMYK JPEG: it passes through, at its own resolution, or cannot be used.
  if (components === 4 && (recolor || w.ink.channels !== 4)) {
    throw unprocessable(`A CMYK JPEG can be placed in CMYK output only${recolor ? ', and not recoloured' : ''}; use an RGB or grey image.`);
  }
  if (!recolor && img.mime === 'image/jpeg' && ((components === 1 && !tooBig) || components === 4)) {
    {
      w.countBytes(img.bytes.length);
      const embedded = await w.doc.embedJpg(img.bytes);
      return { name: w.addXObject(embedded.ref, 'Im'), width: embedded.width, height: embedded.height };
    }
  }
  if (img.mime === 'image/jpeg' && !recolor) {
    // A photo stays a JPEG (quality 92 as downsampled RGB photos), coded in the output's ink.
    const channels = w.ink.channels === 4 ? 4 : 1;
    const jpeg = await reencodedJpeg(img, target, w.ink.key, (pixels) =>
      encodeConvertedJpeg(pixels, channels, w.ink.convert!, channels === 4 ? { quality: 92, subsampling: 1 } : { quality: 92 }),
    );
    w.countBytes(jpeg.bytes.length);
    const embedded = await w.doc.embedJpg(jpeg.bytes);
    return { name: w.addXObject(embedded.ref, 'Im'), width: jpeg.width, height: jpeg.height };
  }
  const pixels = await placedPixels(img, target);
  return { name: w.addXObject(rawImage(w, pixels, recolor), 'Im'), width: pixels.width, height: pixels.height };
}

/**
 * Straight RGBA → a Flate image in the document's image colour space (converted through the
 * output profile in CMYK and grey output), or one colour (`recolor`), with an SMask when any
 * pixel is not opaque; in PDF/X-1a (no soft masks) a 1-bit stencil /Mask at half coverage.
 */
function rawImage(w: Writer, img: RGBAImage, recolor: ResolvedColor | null): PDFRef {
  const n = img.width * img.height;
  const { ink } = w;
  const channels = recolor ? ink.samples(recolor).length : ink.channels;
  const space = channels === 4 ? 'DeviceCMYK' : channels === 1 ? 'DeviceGray' : 'DeviceRGB';
  const color = new Uint8Array(n * channels);
  const alpha = new Uint8Array(n);
  let opaque = true;
  const constant = recolor ? ink.samples(recolor) : null;
  const a = recolor?.a ?? 1;
  for (let i = 0; i < n; i++) {
    const al = Math.round(img.data[i * 4 + 3] * a);
    alpha[i] = al;
    if (al !== 255) opaque = false;
  }
  if (constant) {
    for (let i = 0; i < n; i++) for (let c = 0; c < channels; c++) color[i * channels + c] = constant[c];
  } else if (ink.convert) {
    ink.convert(new Uint8Array(img.data.buffer, img.data.byteOffset, n * 4), color, n);
  } else {
    for (let i = 0; i < n; i++) for (let c = 0; c < 3; c++) color[i * 3 + c] = img.data[i * 4 + c];
  }
  w.countBytes(color.length / 4 + (opaque ? 0 : alpha.length / 4)); // a rough compressed size
  const dict: PdfDictLiteral = {
    Type: 'XObject',
    Subtype: 'Image',
    Width: img.width,
    Height: img.height,
    ColorSpace: space,
    BitsPerComponent: 8,
  };
  if (!opaque && ink.opaqueOnly) {
    // PDF/X-1a: an explicit stencil mask (PDF 1.3), 1 = masked out; rows padded to whole bytes.
    const stride = Math.ceil(img.width / 8);
    const bits = new Uint8Array(stride * img.height);
    for (let y = 0; y < img.height; y++) for (let x = 0; x < img.width; x++) if (alpha[y * img.width + x] < 128) bits[y * stride + (x >> 3)] |= 0x80 >> (x & 7);
    const mask = w.context.flateStream(bits, { Type: 'XObject', Subtype: 'Image', Width: img.width, Height: img.height, ImageMask: true, BitsPerComponent: 1 });
    dict.Mask = w.context.register(mask);
  } else if (!opaque) {
    const smask = w.context.flateStream(alpha, { Type: 'XObject', Subtype: 'Image', Width: img.width, Height: img.height, ColorSpace: 'DeviceGray', BitsPerComponent: 8 });
    dict.SMask = w.context.register(smask);
  }
  return w.context.register(w.context.flateStream(color, dict));
}

async function imageOps(w: Writer, item: ImageModel): Promise<string> {
  if (!item.source) return ''; // empty variables print nothing (no stub in PDFs)
  const img = await w.opts.images(item.source, { item, pageIndex: item.pageIndex });
  if (!img) return '';
  const at = placeImage(item, img.width, img.height, item.fitMode);
  report(w, () => imageProblems(item, img, at, w.opts.resolution));
  const x = await imageXObject(w, item, img, at);
  const clip = at.clip ? `${num(item.x)} ${num(item.y)} ${num(item.width)} ${num(item.height)} re W n\n` : '';
  // Images fill the unit square (row 0 at the top); forms (PDF pages) are in their own points.
  const [sx, sy] = x.form ? [at.width / x.width, at.height / x.height] : [at.width, at.height];
  return `${clip}${[sx, 0, 0, -sy, at.x, at.y + at.height].map(num).join(' ')} cm /${x.name} Do`;
}

/** `problems` handed to the render's listener, if any. */
function report(w: Writer, problems: () => PreflightProblem[]): void {
  if (w.opts.report) for (const p of problems()) w.opts.report(p);
}

async function itemOps(w: Writer, item: ItemModel, path: string, surface: SurfaceModel, fonts: Map<string, Uint8Array>, parents: ItemModel[] = []): Promise<string> {
  if (!item.visible) return '';
  switch (item.type) {
    case 'Rectangle':
    case 'Ellipse':
      return itemWrap(w, item, shapeOps(w, item), surface);
    case 'Image':
      return itemWrap(w, item, await imageOps(w, item), surface);
    case 'Text':
      return itemWrap(w, item, await textOps(w, item, path, surface, fonts, parents), surface);
    case 'Barcode':
      report(w, () => barcodeProblems(item, surface, parents));
      return itemWrap(w, item, barcodeOps(item, w.ink.fill), surface);
    case 'Group': {
      const parts: string[] = [];
      for (const [i, child] of item.items.entries()) parts.push(await itemOps(w, child, `${path}.items[${i}]`, surface, fonts, [...parents, item]));
      return itemWrap(w, item, parts.filter(Boolean).join('\n'), surface);
    }
  }
}

/**
 * The flattened area (flatten.ts) as one opaque image in the output's ink, or '' when the
 * translucent items draw nothing.
 */
async function flattenedOps(w: Writer, model: PrintProductModel, index: number, entries: SurfaceEntry[]): Promise<string> {
  const area = await flattenArea(model, index, entries, w.opts, w.ink);
  if (!area) return '';
  w.countBytes(area.data.length);
  const space = area.channels === 4 ? 'DeviceCMYK' : area.channels === 1 ? 'DeviceGray' : 'DeviceRGB';
  const image = w.context.stream(area.data, { Type: 'XObject', Subtype: 'Image', Width: area.width, Height: area.height, ColorSpace: space, BitsPerComponent: 8, Filter: 'FlateDecode' });
  const name = w.addXObject(w.context.register(image), 'Im');
  const r = area.region;
  return `q ${[r.width, 0, 0, -r.height, r.x, r.y + r.height].map(num).join(' ')} cm /${name} Do Q`;
}

/**
 * Content of a surface in surface coordinates (y down). PDF/X-1a: the items up to the last
 * translucent one are flattened into an image (flatten.ts), drawn over the opaque ones below it
 * (which show outside the flattened area) and under the items above it.
 */
async function surfaceOps(w: Writer, model: PrintProductModel, surface: SurfaceModel, index: number): Promise<string> {
  const fonts = new Map<string, Uint8Array>();
  const parts: string[] = [];
  report(w, () => emptyFields(surface));
  const entries: SurfaceEntry[] = [];
  for (const [c, container] of surface.containers.entries()) {
    if (container.visible) for (const [i, item] of container.items.entries()) entries.push({ container: c, index: i, item });
  }
  const last = w.ink.opaqueOnly ? entries.findLastIndex((e) => translucent(e.item)) : -1;
  // First, so that what cannot be flattened is refused before anything is embedded.
  const flattened = last >= 0 ? await flattenedOps(w, model, index, entries.slice(0, last + 1)) : '';
  for (const [k, e] of entries.entries()) {
    if (k === last) parts.push(flattened);
    if (k <= last && translucent(e.item)) continue;
    parts.push(await itemOps(w, e.item, `surfaces[${index}].containers[${e.container}].items[${e.index}]`, surface, fonts));
  }
  return parts.filter(Boolean).join('\n');
}

/** Writes the document. */
export async function renderPdf(model: PrintProductModel, opts: PdfOptions): Promise<PdfResult> {
  const maxBytes = opts.maxBytes ?? MAX_PDF_BYTES;
  const prepared = prepareModel(model, {
    surfaceIndex: opts.surfaceIndex ?? 0,
    variableData: opts.variableData,
    enforceRequired: opts.enforceRequired ?? true,
  });
  const surfaces = opts.surfaceIndex === undefined ? prepared.model.surfaces.map((s, i) => [s, i] as const) : [[prepared.surface, prepared.index] as const];
  const doc = await PDFDocument.create({ updateMetadata: false });
  doc.setProducer('design atoms (pdf-lib)');
  if (opts.title) doc.setTitle(opts.title);
  const w = new Writer(doc, opts, maxBytes, await inkWriter(opts.colour));
  let pages = 0;
  const space = opts.colour?.output.colorSpace;
  const pageGroup =
    space && space !== 'Rgb' && opts.colour!.output.format !== 'PdfX1a'
      ? w.context.obj({ Type: 'Group', S: 'Transparency', CS: space === 'Cmyk' ? 'DeviceCMYK' : 'DeviceGray' })
      : null;
  for (const [surface, index] of surfaces) {
    // One content stream per surface, shared by its pages (each page only moves the window).
    const ops = await surfaceOps(w, prepared.model, surface, index);
    // The surface's drawing is a form, so every print-area page of it reuses one stream.
    const form = ops
      ? w.addXObject(
          w.context.register(
            w.context.flateStream(ops, { Type: 'XObject', Subtype: 'Form', BBox: [0, 0, surface.width, surface.height], Resources: w.resourcesRef }),
          ),
          'S',
        )
      : null;
    for (const plan of pagePlan(surface, index)) {
      const { media, trim } = plan;
      const page = doc.addPage([media.width, media.height]);
      page.setMediaBox(0, 0, media.width, media.height);
      page.setBleedBox(0, 0, media.width, media.height);
      // PDF y runs up: the trim's bottom margin is the bleed below it.
      const bottom = media.y + media.height - (trim.y + trim.height);
      page.setTrimBox(trim.x - media.x, bottom, trim.width, trim.height);
      page.node.set(PDFName.of('Resources'), w.resourcesRef);
      // CMYK and grey pages blend in the output's space (as PSD print PDFs' page groups do); X-1a has no transparency.
      if (pageGroup) page.node.set(PDFName.of('Group'), pageGroup);
      const pageOps = form
        ? `q 1 0 0 -1 ${num(-media.x)} ${num(media.height + media.y)} cm /${form} Do Q`
        : '';
      page.node.set(PDFName.of('Contents'), w.context.register(w.context.flateStream(pageOps)));
      pages++;
    }
  }
  w.finish();
  if (opts.colour) markPdfx(doc, opts.colour.output, { title: opts.title ?? 'Untitled', producer: 'design atoms (pdf-lib)' });
  const bytes = await doc.save({ useObjectStreams: false });
  // pdf-lib always writes a 1.7 header; PDF/X-4 is 1.6 and X-1a 1.4.
  if (opts.colour && opts.colour.output.format !== 'Default') withPdfHeader(bytes, PDFX[opts.colour.output.format].pdf);
  if (bytes.length > maxBytes) throw new PdfTooLargeError(bytes.length, maxBytes);
  const embeddedFonts = [...w.fonts.values()].filter((f): f is EmbeddedFont => !!f && f.used.size > 0).map((f) => f.font.postscriptName ?? 'Font');
  return { bytes, pages, embeddedFonts };
}

/** Type0 / CIDFontType2 (Identity-H) with the subset as FontFile2 and a ToUnicode map (as src/engine/pdf/text.ts). */
function writeFont(context: PDFContext, f: EmbeddedFont): void {
  const { font, used } = f;
  const { fontName } = subsetFontName(font, f.bytes, [...used.keys()].sort((a, b) => a - b));
  context.assign(f.ref, type0Font(context, { font, used, fontName, flags: 4 }));
}

