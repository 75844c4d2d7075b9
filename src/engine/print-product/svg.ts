/**
 * A surface of a PrintProduct as SVG (in points, scaled to the output box), and its raster
 * preview through resvg (src/engine/personalise/resvg.ts) with the engine's JPEG/PNG encoders.
 *
 * Drawing rules (platform contract, "Design atoms"; decisions in docs/design-atoms.md):
 * - Containers and items bottom to top; invisible ones are skipped. An item's `rotation` turns
 *   it clockwise about its box centre; `opacity` applies to the item as a whole (a group's to
 *   its children together).
 * - Rectangle and Ellipse borders lie inside the box (the box is the outer edge).
 * - Images: `Fit` shows the whole image centred in the box, `Fill` covers the box (clipped),
 *   `Stretch` fills it exactly; `recolor` paints every pixel that colour, keeping alpha.
 * - `stub` (default true): an empty Image variable draws #e6e6e6 with #b3b3b3 diagonals, an empty
 *   Text variable its `placeholder` at 50 % opacity. Without stub they draw nothing.
 * - `visualizePrintAreas`: each print area's shape stroked #00a3ff, width t = max(1, round(min
 *   side of its bounding rectangle in output px ÷ 200)) output pixels, centred on the outline;
 *   its bleed (the shape grown by the bleed) dashed 4t/2t, its safety lines (the shape shrunk by
 *   their margins) dotted t/2t.
 */
import { Resvg } from '@resvg/resvg-wasm';
import { readFontInfo } from '../fonts/font-info';
import { fontMetrics } from '../fonts/metrics';
import { renderSvg } from '../personalise/resvg';
import { decodeBounded } from '../raster/bounded';
import { encodeJpeg, encodePng } from '../raster/codecs';
import { unpremultiply } from '../raster/pixels';
import type { RGBAImage } from '../types';
import {
  resolveColor,
  type ImageModel,
  type ItemModel,
  type MockupModel,
  type PrintAreaModel,
  type PrintProductModel,
  type SourceModel,
  type SurfaceModel,
  type TextModel,
} from './schema';
import { fontFace, layoutItemText, layoutKey } from './text';
import { ModelValidationError } from './validate';
import { invalidInput } from '../errors';
import { applyVariableData, type VariableInfo } from './variables';
import { barcodeSvg } from './barcode';
import type { PreflightProblem, ReportProblem } from '../preflight/report';
import { barcodeProblems, emptyFields, imageProblems, textProblems, type ResolutionThresholds } from './problems';

/** Font bytes by PostScript name (the tenant's store, then the instance's); undefined when unknown. */
export type FontLookup = (postscriptName: string) => Promise<Uint8Array | null | undefined>;

export interface ResolvedImage {
  bytes: Uint8Array;
  /** image/jpeg, image/png, image/svg+xml, image/gif, image/webp or application/pdf. */
  mime: string;
  /** Natural size in pixels (PDF: the page's size in points). */
  width: number;
  height: number;
}

/**
 * Bytes of an image source; undefined when it names nothing (drawn as the stub). The resolver
 * enforces tenancy and a variable's `allowedFolder` (it may throw the platform core's errors).
 */
export type ImageLookup = (source: SourceModel, context: { item?: ImageModel; pageIndex: number }) => Promise<ResolvedImage | undefined>;

export interface SurfaceSvgOptions {
  fonts: FontLookup;
  images: ImageLookup;
  /** Which surface (default 0). */
  surfaceIndex?: number;
  /** Output box in pixels; the surface is fitted into it (default: the surface's size in points, 1 px per pt). */
  width?: number;
  height?: number;
  stub?: boolean;
  visualizePrintAreas?: boolean;
  /** Applied to a copy of the model before drawing. */
  variableData?: VariableInfo[];
  /** Draw the surface's mockup (its previewMockup when set): `down` under, `up` over the containers. */
  mockup?: boolean;
  /** Paint this colour under everything (JPEG previews: white). */
  background?: string;
  /** `text` (default): SVG text with its fonts; `outlines`: cached resvg outlines, no fonts (raster previews). */
  textAs?: 'text' | 'outlines';
  /** Receives the preflight problems of what is drawn (problems.ts), from the drawing's own layout. */
  report?: ReportProblem;
  /** Effective-ppi thresholds of placed images (default 200/100). */
  resolution?: ResolutionThresholds;
}

export interface SurfaceSvg {
  svg: string;
  /** Font files the SVG's text uses (for resvg). */
  fonts: Uint8Array[];
  /** Output size in pixels and pixels per point. */
  width: number;
  height: number;
  scale: number;
}

export const PRINT_AREA_COLOR = '#00a3ff';
export const STUB_FILL = '#e6e6e6';
export const STUB_LINES = '#b3b3b3';

/** Largest preview side (pixels). */
export const MAX_PREVIEW_SIDE = 10_000;

/** The output size of a surface fitted into a box: s = min(w/W, h/H), sides rounded, at least 1 px. */
export function fitSize(surface: { width: number; height: number }, box: { width?: number; height?: number }): { width: number; height: number; scale: number } {
  const bw = box.width ?? surface.width;
  const bh = box.height ?? surface.height;
  const scale = Math.min(bw / surface.width, bh / surface.height);
  return { width: Math.max(1, Math.round(surface.width * scale)), height: Math.max(1, Math.round(surface.height * scale)), scale };
}

/** Border thickness of print-area bounds in output pixels (contract rule). */
export const printAreaStroke = (area: PrintAreaModel, scale: number) =>
  Math.max(1, Math.round((Math.min(area.bounds.width, area.bounds.height) * scale) / 200));

export const fmt = (v: number) => String(Math.round(v * 10000) / 10000);
export const escapeXml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!);

/** SVG paint attributes of a model colour (`fill`/`stroke`), 'none' for transparent. */
function paint(attr: 'fill' | 'stroke', value: string | null | undefined): string {
  const c = resolveColor(value);
  if (!c) return ` ${attr}="none"`;
  return ` ${attr}="rgb(${c.r},${c.g},${c.b})"${c.a < 1 ? ` ${attr}-opacity="${fmt(c.a)}"` : ''}`;
}

const base64 = (bytes: Uint8Array) => {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
};
const dataUri = (img: ResolvedImage) => `data:${img.mime};base64,${base64(img.bytes)}`;

/**
 * Images enter the SVG as `atoms-img:<n>` tokens, one per byte array (resolvers and the prescaler
 * hand out one array per content), and become data URIs only when the SVG is drawn: a layer's
 * SVG text is then a cheap cache key for its raster (see layerRaster), not megabytes of base64.
 */
const IMAGE_IDS = new WeakMap<Uint8Array, number>();
let nextImageId = 0;
function imageToken(ctx: Ctx, img: ResolvedImage): string {
  let id = IMAGE_IDS.get(img.bytes);
  if (id === undefined) IMAGE_IDS.set(img.bytes, (id = ++nextImageId));
  const token = `atoms-img:${id}`;
  ctx.images.set(token, img);
  return token;
}
const withImages = (svg: string, images: Map<string, ResolvedImage>) =>
  images.size ? svg.replace(/atoms-img:\d+/g, (token) => dataUri(images.get(token)!)) : svg;

/** Images resvg can draw (PDF pages need a raster from elsewhere: they draw as the stub). */
const DRAWABLE = /^image\/(jpeg|png|gif|webp|svg\+xml)$/;

interface Ctx {
  opts: SurfaceSvgOptions;
  surface: SurfaceModel;
  /** Text as cached outlines (no fonts needed to draw the SVG). */
  outlines: boolean;
  scale: number;
  stub: boolean;
  fonts: Map<string, Uint8Array>;
  /** Image bytes by the token their `<image href>` carries until the SVG is drawn (see imageToken). */
  images: Map<string, ResolvedImage>;
  /**
   * A print raster (regionRaster): images sampled nearest-neighbour, as a RIP draws a PDF image
   * without /Interpolate (five times faster than resvg's bicubic at 300 ppi); they come
   * prescaled to about the output's pixels when larger.
   */
  print?: boolean;
}

/** The item's transform/opacity wrapper around its drawing. */
function wrap(item: ItemModel, body: string): string {
  if (!body) return '';
  const attrs: string[] = [];
  if (item.rotation) attrs.push(`transform="rotate(${fmt(item.rotation)} ${fmt(item.x + item.width / 2)} ${fmt(item.y + item.height / 2)})"`);
  if (item.opacity < 1) attrs.push(`opacity="${fmt(item.opacity)}"`);
  return attrs.length ? `<g ${attrs.join(' ')}>${body}</g>` : body;
}

async function fontFor(ctx: Ctx, item: TextModel, path: string): Promise<Uint8Array> {
  const name = item.font.postscriptName;
  let bytes = ctx.fonts.get(name);
  if (!bytes) {
    bytes = (await ctx.opts.fonts(name)) ?? undefined;
    if (!bytes) throw new ModelValidationError({ [`${path}.font.postscriptName`]: [`unknown font "${name}"`] });
    ctx.fonts.set(name, bytes);
  }
  return bytes;
}

/**
 * Laid-out text per isolate, by font (identity: one array per content) and the item as drawn:
 * the unchanged text items of a live editor's previews skip layout (ShrinkToFit lays out many
 * times) and the font's name table.
 */
const TEXT_SVG = new WeakMap<Uint8Array, Map<string, string>>();
const TEXT_SVG_PER_FONT = 256;

/** An SVG `<text>` group of a Text item (no rotation/opacity wrapper), or '' when nothing is drawn. */
export async function textSvg(item: TextModel, font: Uint8Array, text: string, fill = item.color): Promise<string> {
  if (!text.trim()) return '';
  let cache = TEXT_SVG.get(font);
  if (!cache) TEXT_SVG.set(font, (cache = new Map()));
  const key = `${fill}|${layoutKey(item, text)}`;
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const svg = layoutTextSvg(item, font, text, fill);
  cache.set(key, svg);
  if (cache.size > TEXT_SVG_PER_FONT) cache.delete(cache.keys().next().value!);
  return svg;
}

function layoutTextSvg(item: TextModel, font: Uint8Array, text: string, fill: string): string {
  const layout = layoutItemText(item, text, font);
  const lines = layout.lines.filter((l) => l.text.trim());
  if (!lines.length) return '';
  const family = readFontInfo(font).family;
  const face = fontFace(font);
  const texts = lines
    .map(
      (l) =>
        `<text x="${fmt(l.x)}" y="${fmt(l.y)}" text-anchor="${l.anchor}"${l.wordSpacing ? ` word-spacing="${fmt(l.wordSpacing)}"` : ''}>${escapeXml(l.text)}</text>`,
    )
    .join('');
  return (
    `<g font-family="'${escapeXml(family.replace(/'/g, ''))}'" font-size="${fmt(layout.size)}" font-weight="${face.weight}" font-style="${face.style}"` +
    (layout.letterSpacing ? ` letter-spacing="${fmt(layout.letterSpacing)}"` : '') +
    `${paint('fill', fill)} xml:space="preserve" font-kerning="normal">${texts}</g>`
  );
}

/**
 * Text as resvg's outlines, cached per isolate by font (identity: resolvers hand out one array per
 * content hash) and the text's SVG: the print PDF's outlines (a proof of unchanged text re-uses
 * them), and `textAs: 'outlines'` SVGs that need no fonts to draw. Previews keep SVG text: giving
 * resvg the fonts costs less than serialising and re-parsing the outlines of the edited text.
 */
const OUTLINES = new WeakMap<Uint8Array, Map<string, string>>();
const OUTLINES_PER_FONT = 512;
let resvgReady: Promise<unknown> | undefined;

/** resvg's usvg document of `body` (SVG in surface points) drawn with `font` alone. */
export async function textUsvg(body: string, font: Uint8Array, width: number, height: number): Promise<string> {
  let cache = OUTLINES.get(font);
  if (!cache) OUTLINES.set(font, (cache = new Map()));
  const key = `${fmt(width)} ${fmt(height)}|${body}`;
  const hit = cache.get(key);
  if (hit !== undefined) {
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  // resvg is initialised by its first render (src/engine/personalise/resvg.ts).
  await (resvgReady ??= renderSvg('<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>', []));
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${fmt(width)}" height="${fmt(height)}" viewBox="0 0 ${fmt(width)} ${fmt(height)}">${body}</svg>`;
  const resvg = new Resvg(svg, { font: { fontBuffers: [font], loadSystemFonts: false } as { fontBuffers: Uint8Array[] } });
  let usvg: string;
  try {
    usvg = resvg.toString();
  } finally {
    resvg.free();
  }
  cache.set(key, usvg);
  if (cache.size > OUTLINES_PER_FONT) cache.delete(cache.keys().next().value!);
  return usvg;
}

/** The drawing inside a usvg document (its root `<svg>` removed). */
const usvgBody = (usvg: string) => usvg.replace(/^[\s\S]*?<svg\b[^>]*>/, '').replace(/<\/svg>\s*$/, '');

async function textDrawing(ctx: Ctx, item: TextModel, font: Uint8Array, text: string): Promise<string> {
  const body = await textSvg(item, font, text);
  if (!body || !ctx.outlines) return body;
  return usvgBody(await textUsvg(body, font, ctx.surface.width, ctx.surface.height));
}

function stubSvg(item: ItemModel, ctx: Ctx): string {
  const { x, y, width: w, height: h } = item;
  const t = Math.max(1, Math.round((Math.min(w, h) * ctx.scale) / 200)) / ctx.scale;
  return (
    `<rect x="${fmt(x)}" y="${fmt(y)}" width="${fmt(w)}" height="${fmt(h)}" fill="${STUB_FILL}"/>` +
    `<path d="M${fmt(x)} ${fmt(y)}L${fmt(x + w)} ${fmt(y + h)}M${fmt(x + w)} ${fmt(y)}L${fmt(x)} ${fmt(y + h)}" stroke="${STUB_LINES}" stroke-width="${fmt(t)}" fill="none"/>`
  );
}

/** Where an image of natural size iw × ih is drawn in a box by fitMode (also used by the PDF writer). */
export function placeImage(box: { x: number; y: number; width: number; height: number }, iw: number, ih: number, fitMode: ImageModel['fitMode']) {
  if (fitMode === 'Stretch' || !(iw > 0) || !(ih > 0)) return { ...box, clip: false };
  const s = fitMode === 'Fit' ? Math.min(box.width / iw, box.height / ih) : Math.max(box.width / iw, box.height / ih);
  const width = iw * s;
  const height = ih * s;
  return { x: box.x + (box.width - width) / 2, y: box.y + (box.height - height) / 2, width, height, clip: fitMode === 'Fill' };
}

/**
 * Pre-scaled copies of large raster images, per isolate: resvg decodes every `<image>` of every
 * render, and a camera photo costs 100+ ms to decode where its placed copy costs 1. Keyed by the
 * bytes' identity (resolvers hand out one cached array per content hash, so this is per content)
 * and the output size, rounded up to 16 px so zooming a little reuses a copy.
 */
const PRESCALED = new WeakMap<Uint8Array, Map<string, Promise<ResolvedImage>>>();
const PRESCALE_STEP = 16;

/** The image at about the pixels it covers in the output (never enlarged; JPEG/PNG only). */
export function prescaled(img: ResolvedImage, item: { width: number; height: number; fitMode: ImageModel['fitMode'] }, scale: number): Promise<ResolvedImage> | ResolvedImage {
  if ((img.mime !== 'image/jpeg' && img.mime !== 'image/png') || !(img.width > 0) || !(img.height > 0)) return img;
  const bw = item.width * scale;
  const bh = item.height * scale;
  const up = (v: number) => Math.ceil(v / PRESCALE_STEP) * PRESCALE_STEP;
  let w: number;
  let h: number;
  if (item.fitMode === 'Stretch') {
    // Drawn stretched anyway: each side on its own.
    [w, h] = [Math.min(img.width, up(bw)), Math.min(img.height, up(bh))];
  } else {
    // Fit and Fill draw the image at its own aspect: one factor, from the longer side rounded up.
    const k0 = item.fitMode === 'Fit' ? Math.min(bw / img.width, bh / img.height) : Math.max(bw / img.width, bh / img.height);
    const long = Math.max(img.width, img.height);
    const k = Math.min(1, up(k0 * long) / long);
    [w, h] = [Math.max(1, Math.round(img.width * k)), Math.max(1, Math.round(img.height * k))];
  }
  if (w * 1.25 >= img.width && h * 1.25 >= img.height) return img;
  let sizes = PRESCALED.get(img.bytes);
  if (!sizes) PRESCALED.set(img.bytes, (sizes = new Map()));
  const key = `${w}x${h}`;
  let hit = sizes.get(key);
  if (!hit) {
    hit = decodeBounded(img.bytes, { size: { width: w, height: h } })
      .then(async (pixels) => ({ bytes: await encodePng(pixels), mime: 'image/png', width: img.width, height: img.height }))
      .catch(() => img);
    sizes.set(key, hit);
  }
  return hit;
}

async function imageSvg(item: ImageModel, ctx: Ctx, path: string): Promise<string> {
  const found = item.source ? await ctx.opts.images(item.source, { item, pageIndex: item.pageIndex }) : undefined;
  if (found) report(ctx, () => imageProblems(item, found, placeImage(item, found.width, found.height, item.fitMode), ctx.opts.resolution));
  if (!found || !DRAWABLE.test(found.mime)) return ctx.stub && (item.isVariable || !!item.source) ? stubSvg(item, ctx) : '';
  const resolved = await prescaled(found, item, ctx.scale);
  let attrs = '';
  let defs = '';
  const recolor = resolveColor(item.recolor);
  if (recolor) {
    // Named after the item's path and defined beside it: the same in every render of the model,
    // and inside whichever layer (see surfaceLayers) draws the item.
    const id = `r-${path.replace(/[^a-z0-9]+/gi, '-')}`;
    const [r, g, b] = [recolor.r, recolor.g, recolor.b].map((v) => fmt(v / 255));
    defs =
      `<defs><filter id="${id}" x="0" y="0" width="1" height="1" color-interpolation-filters="sRGB">` +
      `<feColorMatrix type="matrix" values="0 0 0 0 ${r} 0 0 0 0 ${g} 0 0 0 0 ${b} 0 0 0 ${fmt(recolor.a)} 0"/></filter></defs>`;
    attrs += ` filter="url(#${id})"`;
  }
  // The image's own viewport does Fit (meet) and Fill (slice, cropped to the box): resvg fills
  // only the box with the image, where a clip path would cost a mask of the whole output.
  const aspect = item.fitMode === 'Fit' ? 'xMidYMid meet' : item.fitMode === 'Fill' ? 'xMidYMid slice' : 'none';
  if (ctx.print) attrs += ' image-rendering="optimizeSpeed"';
  return defs + `<image x="${fmt(item.x)}" y="${fmt(item.y)}" width="${fmt(item.width)}" height="${fmt(item.height)}" preserveAspectRatio="${aspect}"${attrs} href="${imageToken(ctx, resolved)}"/>`;
}

/** Rectangle/Ellipse geometry shared by SVG and PDF: the fill shape, and the border's centre line (inset by half its width). */
export function shapeGeometry(item: Extract<ItemModel, { type: 'Rectangle' | 'Ellipse' }>) {
  const bw = Math.min(item.borderWidth, item.width / 2, item.height / 2);
  const radius = item.type === 'Rectangle' ? Math.min(item.cornerRadius, item.width / 2, item.height / 2) : 0;
  return {
    fill: { x: item.x, y: item.y, width: item.width, height: item.height, radius },
    border: bw > 0
      ? { x: item.x + bw / 2, y: item.y + bw / 2, width: item.width - bw, height: item.height - bw, radius: Math.max(0, radius - bw / 2), width_: bw }
      : null,
  };
}

function shapeSvg(item: Extract<ItemModel, { type: 'Rectangle' | 'Ellipse' }>): string {
  const g = shapeGeometry(item);
  const el = (r: { x: number; y: number; width: number; height: number; radius: number }, paintAttrs: string) =>
    item.type === 'Ellipse'
      ? `<ellipse cx="${fmt(r.x + r.width / 2)}" cy="${fmt(r.y + r.height / 2)}" rx="${fmt(r.width / 2)}" ry="${fmt(r.height / 2)}"${paintAttrs}/>`
      : `<rect x="${fmt(r.x)}" y="${fmt(r.y)}" width="${fmt(r.width)}" height="${fmt(r.height)}"${r.radius ? ` rx="${fmt(r.radius)}"` : ''}${paintAttrs}/>`;
  let out = '';
  if (resolveColor(item.fillColor)) out += el(g.fill, paint('fill', item.fillColor));
  if (g.border && resolveColor(item.borderColor)) out += el(g.border, ` fill="none"${paint('stroke', item.borderColor)} stroke-width="${fmt(g.border.width_)}"`);
  return out;
}

/** `problems` handed to the render's listener, if any. */
function report(ctx: Ctx, problems: () => PreflightProblem[]): void {
  if (ctx.opts.report) for (const p of problems()) ctx.opts.report(p);
}

async function itemSvg(item: ItemModel, ctx: Ctx, path: string, parents: ItemModel[] = []): Promise<string> {
  if (!item.visible) return '';
  switch (item.type) {
    case 'Rectangle':
    case 'Ellipse':
      return wrap(item, shapeSvg(item));
    case 'Image':
      return wrap(item, await imageSvg(item, ctx, path));
    case 'Barcode':
      report(ctx, () => barcodeProblems(item, ctx.surface, parents));
      return wrap(item, barcodeSvg(item));
    case 'Text': {
      if (item.text.trim()) {
        const font = await fontFor(ctx, item, path);
        report(ctx, () => textProblems(item, item.text, layoutItemText(item, item.text, font), ctx.surface, parents));
        return wrap(item, await textDrawing(ctx, item, font, item.text));
      }
      if (item.isVariable && ctx.stub && item.placeholder.trim()) {
        const drawing = await textDrawing(ctx, item, await fontFor(ctx, item, path), item.placeholder);
        return wrap(item, drawing ? `<g opacity="0.5">${drawing}</g>` : '');
      }
      return '';
    }
    case 'Group': {
      const children = await Promise.all(item.items.map((child, i) => itemSvg(child, ctx, `${path}.items[${i}]`, [...parents, item])));
      return wrap(item, children.join(''));
    }
  }
}

function mockupSvg(ctx: Ctx, m: MockupModel | null, resolved: ResolvedImage | undefined): string {
  if (!m || !resolved || !DRAWABLE.test(resolved.mime)) return '';
  return `<image x="${fmt(m.x)}" y="${fmt(m.y)}" width="${fmt(m.width)}" height="${fmt(m.height)}" preserveAspectRatio="none" href="${imageToken(ctx, resolved)}"/>`;
}

/** A print area's outline (and bleed) as an SVG element of the given shape, grown by `grow` margins. */
function areaShape(area: PrintAreaModel, grow: { left: number; top: number; right: number; bottom: number }, attrs: string): string {
  const x = area.bounds.x - grow.left;
  const y = area.bounds.y - grow.top;
  const w = area.bounds.width + grow.left + grow.right;
  const h = area.bounds.height + grow.top + grow.bottom;
  if (area.shape === 'Ellipse') return `<ellipse cx="${fmt(x + w / 2)}" cy="${fmt(y + h / 2)}" rx="${fmt(w / 2)}" ry="${fmt(h / 2)}"${attrs}/>`;
  const r = area.shape === 'RoundedRectangle' ? Math.max(0, Math.min(area.cornerRadius + Math.max(grow.left, grow.top, grow.right, grow.bottom), w / 2, h / 2)) : 0;
  return `<rect x="${fmt(x)}" y="${fmt(y)}" width="${fmt(w)}" height="${fmt(h)}"${r ? ` rx="${fmt(r)}"` : ''}${attrs}/>`;
}

function printAreasSvg(surface: SurfaceModel, scale: number): string {
  return surface.printAreas
    .map((area) => {
      const t = printAreaStroke(area, scale) / scale;
      const attrs = ` fill="none" stroke="${PRINT_AREA_COLOR}" stroke-width="${fmt(t)}"`;
      const zero = { left: 0, top: 0, right: 0, bottom: 0 };
      const b = area.bleed;
      const bleed = b.left || b.top || b.right || b.bottom ? areaShape(area, b, `${attrs} stroke-dasharray="${fmt(4 * t)} ${fmt(2 * t)}"`) : '';
      // Safety lines dotted (t on, 2t off), the area shrunk by their margins.
      const safety = (area.safetyLines ?? [])
        .map((l) => areaShape(area, { left: -l.margin.left, top: -l.margin.top, right: -l.margin.right, bottom: -l.margin.bottom }, `${attrs} stroke-dasharray="${fmt(t)} ${fmt(2 * t)}"`))
        .join('');
      return areaShape(area, zero, attrs) + bleed + safety;
    })
    .join('');
}

/** Chooses the surface, applying variableData to a copy of the model. */
export function prepareModel(model: PrintProductModel, opts: { surfaceIndex?: number; variableData?: VariableInfo[]; enforceRequired?: boolean }) {
  const index = opts.surfaceIndex ?? 0;
  if (!Number.isInteger(index) || index < 0 || index >= model.surfaces.length) {
    throw new ModelValidationError({ 'renderingConfig.surfaceIndex': [`the design has ${model.surfaces.length} surface(s); 0 to ${model.surfaces.length - 1}`] }, 'The surface index is out of range.');
  }
  const applied = opts.variableData ? applyVariableData(model, opts.variableData, { enforceRequired: opts.enforceRequired }) : { model, errors: null };
  if (applied.errors) throw new ModelValidationError(applied.errors, 'The variable data does not fit the design.');
  return { model: applied.model, surface: applied.model.surfaces[index], index };
}

/** One layer of a surface: the background, a mockup image, a top-level item, or the print-area bounds. */
export interface SurfaceLayer {
  /** SVG elements in surface points (images as `atoms-img:` tokens). */
  svg: string;
  /** Font files its text uses. */
  fonts: Uint8Array[];
  /** Names of the items it draws (a group: the group's and its children's). */
  names: string[];
  /** Surface points (y) its ink stays within; absent: anywhere. */
  rows?: { top: number; bottom: number };
}

interface SurfaceLayers {
  layers: SurfaceLayer[];
  images: Map<string, ResolvedImage>;
  /** The surface's size in points (the SVG's viewBox). */
  surface: { width: number; height: number };
  width: number;
  height: number;
  scale: number;
}

function namesOf(item: ItemModel, out: string[] = []): string[] {
  out.push(item.name);
  if (item.type === 'Group') for (const child of item.items) namesOf(child, out);
  return out;
}

function fontNamesOf(item: ItemModel, out = new Set<string>()): Set<string> {
  if (item.type === 'Text') out.add(item.font.postscriptName);
  if (item.type === 'Group') for (const child of item.items) fontNamesOf(child, out);
  return out;
}

/**
 * A generous vertical extent of an item's ink (points), so that a re-drawn layer needs only that
 * band of the output: shapes and images their box (rotated: its corners); text its box, grown by
 * a first line that overflows it (kept even when too tall) and half an em for accents and
 * overshoot. Rotated text and groups: unknown (undefined), since text may overflow sideways.
 */
function inkRows(item: ItemModel, ctx: Ctx): { top: number; bottom: number } | undefined {
  const turned = item.rotation % 360 !== 0;
  if (item.type === 'Group') {
    if (turned) return undefined;
    let top = Infinity;
    let bottom = -Infinity;
    for (const child of item.items) {
      if (!child.visible) continue;
      const r = inkRows(child, ctx);
      if (!r) return undefined;
      top = Math.min(top, r.top);
      bottom = Math.max(bottom, r.bottom);
    }
    return top <= bottom ? { top, bottom } : undefined;
  }
  if (item.type === 'Text') {
    const font = ctx.fonts.get(item.font.postscriptName);
    if (turned || !font) return undefined;
    const m = fontMetrics(font);
    const size = item.font.size;
    const line = (Math.max(m.ascender, 0) - Math.min(m.descender, 0)) * size;
    const over = Math.max(0, line - item.height);
    return { top: item.y - over - size / 2, bottom: item.y + item.height + over + size / 2 };
  }
  if (!turned) return { top: item.y, bottom: item.y + item.height };
  const a = (item.rotation * Math.PI) / 180;
  const half = (Math.abs(Math.sin(a)) * item.width + Math.abs(Math.cos(a)) * item.height) / 2;
  const cy = item.y + item.height / 2;
  return { top: cy - half, bottom: cy + half };
}

/** A print raster's geometry instead of a preview box (regionRaster): pixels per point, and which top-level items. */
interface PrintRaster {
  scale: number;
  only: (container: number, item: number) => boolean;
}

/** The surface as layers, bottom to top, in the output box's geometry (or a print raster's). */
async function surfaceLayers(model: PrintProductModel, opts: SurfaceSvgOptions, print?: PrintRaster): Promise<SurfaceLayers> {
  const { surface, index } = prepareModel(model, opts);
  // A print raster is drawn a region at a time (regionRaster bounds it), so no preview limit.
  const size = print ? { width: Math.max(1, Math.round(surface.width * print.scale)), height: Math.max(1, Math.round(surface.height * print.scale)), scale: print.scale } : fitSize(surface, opts);
  if (!print && (size.width > MAX_PREVIEW_SIDE || size.height > MAX_PREVIEW_SIDE)) {
    throw invalidInput(`A preview is at most ${MAX_PREVIEW_SIDE} pixels on a side.`, [{ path: 'renderingConfig.width', reason: `at most ${MAX_PREVIEW_SIDE} px per side` }]);
  }
  const ctx: Ctx = { opts, surface, outlines: opts.textAs === 'outlines', scale: size.scale, stub: opts.stub ?? true, fonts: new Map(), images: new Map(), print: !!print };
  report(ctx, () => emptyFields(surface));
  const layers: SurfaceLayer[] = [];
  const plain = (svg: string) => (svg ? layers.push({ svg, fonts: [], names: [] }) : 0);
  if (opts.background) plain(`<rect x="0" y="0" width="${fmt(surface.width)}" height="${fmt(surface.height)}"${paint('fill', opts.background)}/>`);
  const mockups = surface.previewMockup ?? surface.mockup;
  const resolveMockup = (m: MockupModel | null) => (opts.mockup && m ? opts.images(m.source, { pageIndex: 0 }) : Promise.resolve(undefined));
  const [down, up] = await Promise.all([resolveMockup(mockups.down), resolveMockup(mockups.up)]);
  if (opts.mockup) plain(mockupSvg(ctx, mockups.down, down));
  for (const [c, container] of surface.containers.entries()) {
    if (!container.visible) continue;
    const items = await Promise.all(
      container.items.map((item, i) => (print && !print.only(c, i) ? '' : itemSvg(item, ctx, `surfaces[${index}].containers[${c}].items[${i}]`))),
    );
    items.forEach((svg, i) => {
      if (!svg) return;
      const item = container.items[i]!;
      const fonts = ctx.outlines ? [] : [...fontNamesOf(item)].map((n) => ctx.fonts.get(n)).filter((f): f is Uint8Array => !!f);
      layers.push({ svg, fonts, names: namesOf(item), rows: inkRows(item, ctx) });
    });
  }
  if (opts.mockup) plain(mockupSvg(ctx, mockups.up, up));
  if (opts.visualizePrintAreas) plain(printAreasSvg(surface, size.scale));
  return { layers, images: ctx.images, surface: { width: surface.width, height: surface.height }, ...size };
}

const svgDocument = (size: { width: number; height: number }, view: { x?: number; y?: number; width: number; height: number }, body: string) =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="${size.width}" height="${size.height}" viewBox="${view.x ?? 0} ${view.y ?? 0} ${view.width} ${view.height}" preserveAspectRatio="none">${body}</svg>`;

/** Output rows a run's layers can reach (2 px of antialiasing either side); all rows when one is unknown. */
function inkBand(layers: SurfaceLayer[], scaleY: number, height: number): { top: number; rows: number } {
  let top = Infinity;
  let bottom = -Infinity;
  for (const l of layers) {
    if (!l.rows) return { top: 0, rows: height };
    top = Math.min(top, l.rows.top);
    bottom = Math.max(bottom, l.rows.bottom);
  }
  const t = Math.max(0, Math.min(height - 1, Math.floor(top * scaleY) - 2));
  const b = Math.max(t + 1, Math.min(height, Math.ceil(bottom * scaleY) + 2));
  return { top: t, rows: b - t };
}

/** The viewBox (surface points) of a band of output rows: the full document's pixel grid, cut. */
function bandBox(surface: { width: number; height: number }, band: { top: number; rows: number }, height: number) {
  if (band.top === 0 && band.rows === height) return surface;
  const k = surface.height / height;
  return { x: 0, y: band.top * k, width: surface.width, height: band.rows * k };
}

/** The surface as an SVG document sized to the output box. */
export async function surfaceSvg(model: PrintProductModel, opts: SurfaceSvgOptions): Promise<SurfaceSvg> {
  const { layers, images, surface, ...size } = await surfaceLayers(model, opts);
  const svg = withImages(svgDocument(size, surface, layers.map((l) => l.svg).join('')), images);
  return { svg, fonts: [...new Set(layers.flatMap((l) => l.fonts))], ...size };
}

/** A rectangle of the surface, in points. */
export interface SurfaceRect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Pixels per resvg call of a region raster: a band of rows at a time bounds the raster's memory. */
const REGION_BAND_PIXELS = 1 << 20;

/** Rows per band of a region raster `width` pixels wide (about a megapixel). */
export const regionBandRows = (width: number) => Math.max(1, Math.floor(REGION_BAND_PIXELS / width));

/** Some items of a surface ready to be drawn in a region, a band of rows at a time (regionRaster). */
export interface RegionRaster {
  /** The region widened to whole pixels from its corner (surface points). */
  region: SurfaceRect;
  width: number;
  height: number;
  /** Rows `top` to `top + rows` of the region, premultiplied RGBA (transparent where nothing is drawn). */
  draw(top: number, rows: number): Promise<RGBAImage>;
}

/**
 * Some top-level items of a surface (`only`, by container and item index) as the preview draws
 * them (resvg), in `region` at `scale` pixels per point: for print rasters (PDF/X-1a flattening,
 * flatten.ts). Text is drawn from its outlines (no fonts needed), empty variables draw nothing,
 * images are sampled nearest-neighbour (Ctx.print); `report` receives the drawn items' problems.
 */
export async function regionRaster(
  model: PrintProductModel,
  opts: Pick<SurfaceSvgOptions, 'fonts' | 'images' | 'surfaceIndex' | 'report' | 'resolution'> & { only: PrintRaster['only'] },
  region: SurfaceRect,
  scale: number,
): Promise<RegionRaster> {
  const drawn = await surfaceLayers(model, { ...opts, stub: false, textAs: 'outlines' }, { scale, only: opts.only });
  const width = Math.max(1, Math.ceil(region.width * scale));
  const height = Math.max(1, Math.ceil(region.height * scale));
  // Images become data URIs once, not per band.
  const body = withImages(drawn.layers.map((l) => l.svg).join(''), drawn.images);
  const fonts = [...new Set(drawn.layers.flatMap((l) => l.fonts))];
  return {
    region: { x: region.x, y: region.y, width: width / scale, height: height / scale },
    width,
    height,
    draw: (top, rows) => renderSvg(svgDocument({ width, height: rows }, { x: region.x, y: region.y + top / scale, width: width / scale, height: rows / scale }, body), fonts),
  };
}

/** Where a render's stages are reported (the route's Server-Timing); absent: not measured. */
export interface StageTimer {
  time<T>(name: string, fn: () => Promise<T> | T): Promise<T>;
  /** A metric without a duration (what a cache did). */
  note?(name: string, desc: string): void;
}
const untimed: StageTimer = { time: async (_name, fn) => fn() };

export interface PreviewOptions extends SurfaceSvgOptions {
  /** Receives the stages `svg` (model → SVG), `raster` (resvg), `encode` (JPEG/PNG). */
  timing?: StageTimer;
  /** Jpeg (flattened over white, default) or Png (alpha kept). */
  fileFormat?: 'Jpeg' | 'Png';
  /** 0–100, default 85. */
  jpegQuality?: number;
}

export interface Preview {
  bytes: Uint8Array;
  mime: 'image/jpeg' | 'image/png';
  width: number;
  height: number;
}

/**
 * Rasters of the layers that did not change, per isolate: a live editor sends the same model with
 * new `variableData` again and again, so each run of consecutive layers that no variable of the
 * request touches is drawn once and then composited from here; only the runs holding the edited
 * items go through resvg. The key is the run's SVG text (images as per-content tokens) and the
 * output size, so it names exactly the pixels: nothing can go stale, old entries just age out.
 */
const RUN_CACHE = new Map<string, RGBAImage>();
const RUN_CACHE_BYTES = 16 * 1024 * 1024;
let runCacheBytes = 0;

function cachedRun(key: string): RGBAImage | undefined {
  const hit = RUN_CACHE.get(key);
  if (hit) {
    RUN_CACHE.delete(key);
    RUN_CACHE.set(key, hit);
  }
  return hit;
}

function keepRun(key: string, pixels: RGBAImage): void {
  if (pixels.data.byteLength > RUN_CACHE_BYTES / 4) return;
  RUN_CACHE.set(key, pixels);
  runCacheBytes += pixels.data.byteLength;
  for (const [k, v] of RUN_CACHE) {
    if (runCacheBytes <= RUN_CACHE_BYTES) break;
    RUN_CACHE.delete(k);
    runCacheBytes -= v.data.byteLength;
  }
}

/**
 * `top` (premultiplied RGBA) drawn over `bottom` in place (source-over, as resvg draws one layer
 * on the next), `top` starting `offset` bytes into `bottom` (a band of rows).
 */
function compositeOver(bottom: Uint8ClampedArray, top: Uint8ClampedArray, offset = 0): void {
  const words = new Uint32Array(top.buffer, top.byteOffset, top.byteLength >> 2);
  for (let p = 0; p < words.length; p++) {
    if (words[p] === 0) continue;
    const j = p << 2;
    const i = offset + j;
    const a = top[j + 3]!;
    if (a === 255) {
      bottom[i] = top[j]!;
      bottom[i + 1] = top[j + 1]!;
      bottom[i + 2] = top[j + 2]!;
      bottom[i + 3] = 255;
      continue;
    }
    const k = 255 - a;
    bottom[i] = top[j]! + (bottom[i]! * k + 127) / 255;
    bottom[i + 1] = top[j + 1]! + (bottom[i + 1]! * k + 127) / 255;
    bottom[i + 2] = top[j + 2]! + (bottom[i + 2]! * k + 127) / 255;
    bottom[i + 3] = a + (bottom[i + 3]! * k + 127) / 255;
  }
}

/**
 * Rasterises the surface with resvg into the output box (default 800 × 800). Layers are drawn in
 * runs: the ones the request's `variableData` changes each time, the others from the run cache.
 */
export async function renderPreviewPixels(model: PrintProductModel, opts: PreviewOptions): Promise<RGBAImage> {
  const jpeg = (opts.fileFormat ?? 'Jpeg') === 'Jpeg';
  const timing = opts.timing ?? untimed;
  const drawn = await timing.time('svg', () =>
    surfaceLayers(model, {
      width: 800,
      height: 800,
      ...opts,
      background: opts.background ?? (jpeg ? '#ffffff' : undefined),
    }),
  );
  const { width, height } = drawn;
  const varied = new Set((opts.variableData ?? []).map((v) => v?.name));
  const runs: Array<{ layers: SurfaceLayer[]; varied: boolean }> = [];
  for (const layer of drawn.layers) {
    const v = layer.names.some((n) => varied.has(n));
    const last = runs.at(-1);
    if (last && last.varied === v) last.layers.push(layer);
    else runs.push({ layers: [layer], varied: v });
  }
  const pixels = await timing.time('raster', async () => {
    let out: RGBAImage | undefined;
    let reused = 0;
    for (const run of runs) {
      const body = run.layers.map((l) => l.svg).join('');
      const key = `${width}x${height}|${body}`;
      let layer = run.varied ? undefined : cachedRun(key);
      let band = { top: 0, rows: height };
      if (layer) reused++;
      else {
        const fonts = [...new Set(run.layers.flatMap((l) => l.fonts))];
        // A changed run is drawn only in the band of rows its ink can reach (same pixel grid).
        if (run.varied) band = inkBand(run.layers, height / drawn.surface.height, height);
        layer = await renderSvg(withImages(svgDocument({ width, height: band.rows }, bandBox(drawn.surface, band, height), body), drawn.images), fonts);
        if (!run.varied) keepRun(key, layer);
      }
      if (!out && band.rows === height) out = { width, height, data: new Uint8ClampedArray(layer.data) };
      else {
        out ??= { width, height, data: new Uint8ClampedArray(width * height * 4) };
        compositeOver(out.data, layer.data, band.top * width * 4);
      }
    }
    if (runs.length) opts.timing?.note?.('layers', `${reused}/${runs.length} runs from cache`);
    return out ?? { width, height, data: new Uint8ClampedArray(width * height * 4) };
  });
  // resvg gives premultiplied pixels; over an opaque background they are straight already.
  if (!jpeg) await unpremultiply(pixels.data);
  return pixels;
}

/** The preview file: JPEG over white (quality `jpegQuality`, default 85) or PNG. */
export async function renderPreview(model: PrintProductModel, opts: PreviewOptions): Promise<Preview> {
  const pixels = await renderPreviewPixels(model, opts);
  const jpeg = (opts.fileFormat ?? 'Jpeg') === 'Jpeg';
  const bytes = await (opts.timing ?? untimed).time('encode', () => (jpeg ? encodeJpeg(pixels, opts.jpegQuality ?? 85) : encodePng(pixels)));
  return { bytes, mime: jpeg ? 'image/jpeg' : 'image/png', width: pixels.width, height: pixels.height };
}
