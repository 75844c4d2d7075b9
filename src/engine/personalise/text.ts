/**
 * Re-renders a text layer with new text: our own line layout (text-layout.ts), drawn by resvg as
 * an SVG at the output scale directly, through the layer's transform (scale, rotation, skew).
 */
import { readFontInfo } from '../fonts/font-info';
import { fontMetrics } from '../fonts/metrics';
import { shapedMetrics } from '../fonts/shaper';
import { fitText, type FitSettings } from './fit';
import { unpremultiply } from '../raster/pixels';
import { withArena } from '../raster/kernels';
import { intersectRect } from '../composite/surface';
import { rememberInk } from '../cache/ink';
import { MB } from '../cache/lru';
import { REQUEST_MEMORY_BUDGET } from '../memory/budget';
import type { Bounds, RGBAImage, TextInfo } from '../types';
import type { RGBA } from './color';
import { renderSvg, renderSvgInBands } from './resvg';
import type { LaidOutLine, MeasuringMetrics } from './text-layout';
import { withShapedPaths } from '../fonts/outlines';

export interface TextRenderInput {
  info: TextInfo;
  text: string;
  /** Font bytes to draw with (the layer's font, the requested one, or a substitute). */
  font: Uint8Array;
  /** Fonts for characters `font` lacks (resvg falls back to them glyph by glyph). */
  fallbackFonts?: Uint8Array[];
  /** Template pixels as Photoshop shows the size (after the layer's transform scale). */
  size?: number;
  color?: RGBA;
  /** Output pixels per template pixel. */
  scale: number;
  /**
   * Where the text can change the output, in output pixels (the canvas at this scale, grown by
   * its effects' reach): a text too large to draw whole is drawn only there. Asked only then.
   */
  within?: () => Bounds | undefined;
  /**
   * Bytes the text's raster may hold beside the rest of the request: REQUEST_MEMORY_BUDGET less
   * the frame's plan (a raster drawn in bands is held whole until the frame is drawn, so on a wide
   * canvas it gets less). Given, a text over MAX_TEXT_PIXELS is drawn in bands up to what it
   * allows (MAX_BANDED_TEXT_PIXELS at most), and so is a smaller one whose one render would pass
   * it (inBands); absent, one render up to MAX_TEXT_PIXELS and refused beyond, as before bands.
   */
  memory?: number;
}

/**
 * What a pixel of a text raster drawn in one piece costs at the draw's peak: resvg's pixmap in its
 * WASM memory (twice: ~8 bytes a pixel there), the copy out of it, made straight in place.
 * Measured in workerd (fuzz2, session 20): 11.7–12.4 bytes over the same request with the text at
 * its own size, for 1.4 and 5.5 MP rasters; in Node resvg's memory grew by 8.6 bytes a pixel.
 */
const TEXT_BYTES_PER_PIXEL = 12;

/** What a text's draw may take of the request's budget (the rest for the frame and the layers around it). */
const TEXT_MEMORY = REQUEST_MEMORY_BUDGET - 32 * MB;

/**
 * Largest text raster drawn in one piece (pixels): ~5.6 MP, so that its peak stays within
 * TEXT_MEMORY, and the largest drawn when the request's memory is not known. A larger one is
 * drawn in bands (resvg.ts renderSvgInBands) when the caller says what the request leaves it
 * (`memory`); else refused (400 naming the text): a 12 MP raster drawn in one piece (Korean at
 * 999 px in an 800 px preview, most of it past the canvas) grew the isolate by ~170 MB. It was
 * 40 MP, ~480 MB. Bands are not the same bytes as one render (tiny-skia clips a path crossing a
 * band's edge, which moves its anti-aliasing), so a text up to here keeps one render unless one
 * render would pass what the request leaves it (inBands).
 */
export const MAX_TEXT_PIXELS = Math.floor(TEXT_MEMORY / TEXT_BYTES_PER_PIXEL);

/** Pixels of one band of a larger text: 2 MB of resvg's pixmap, ~6 MB with resvg's second copy and ours. */
const BAND_PIXELS = 1 << 19;

/** The most pixels a text drawn in bands may have within `memory` bytes: the raster, 4 bytes a pixel, and one band at the one-piece cost. */
const bandedPixels = (memory: number) => Math.floor((memory - BAND_PIXELS * TEXT_BYTES_PER_PIXEL) / 4);

/**
 * Largest text raster drawn in bands (pixels): ~15 MP, whose draw's peak (the raster and one
 * band) stays within TEXT_MEMORY, as one render's does at MAX_TEXT_PIXELS.
 */
export const MAX_BANDED_TEXT_PIXELS = bandedPixels(TEXT_MEMORY);

/** The most pixels a text may have: one render's, or in bands what the request's `memory` leaves it. */
const mostPixels = (memory: number | undefined) => (memory === undefined ? MAX_TEXT_PIXELS : Math.max(MAX_TEXT_PIXELS, Math.min(MAX_BANDED_TEXT_PIXELS, bandedPixels(memory))));

/**
 * Whether a raster over `b` is drawn in bands: past one render's limit; or where one render's peak
 * would pass what the request leaves the text (`memory`: beside a 4,000² preview's frame a 5.2 MP
 * text drawn in one piece was killed under 128 MB) and bands fit it. Elsewhere one render keeps
 * its bytes (bands move the anti-aliasing where a path crosses a band's edge).
 */
function inBands(b: Bounds, memory: number | undefined): boolean {
  if (tooLarge(b, MAX_TEXT_PIXELS)) return true;
  const pixels = (b.right - b.left) * (b.bottom - b.top);
  return memory !== undefined && pixels * TEXT_BYTES_PER_PIXEL > memory && pixels <= bandedPixels(memory);
}

export class TextTooLargeError extends Error {}

/**
 * Characters XML 1.0 forbids even as references: C0 controls other than tab and line ends, and
 * U+FFFE/U+FFFF. A shopper's text may hold them (pasted), no font draws them, and resvg refuses
 * the whole SVG for one; they are left out of the drawing (layout and preflight still see them).
 */
const NOT_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g;

const escapeXml = (s: string) =>
  s.replace(NOT_XML, '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!);

/** The characters of `text` `font` has no glyph for (line breaks and spaces aside), once each; '' when it covers them all. */
export function missingFrom(font: Uint8Array, text: string): string {
  const m = fontMetrics(font);
  const missing = new Set<string>();
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (cp > 0x20 && cp !== 0x2029 && !m.has(cp)) missing.add(ch);
  }
  return [...missing].join('');
}

/** The text as it will be set: lines in text space and the size copyfitting chose. */
export interface SetText {
  info: TextInfo;
  lines: LaidOutLine[];
  metrics: MeasuringMetrics;
  /** Font size in the text's own space (before its transform). */
  size: number;
  tracking: number;
  /** Sizes as Photoshop shows them (after the transform scale), in template pixels (pt at 72 ppi). */
  shownSize: number;
  startSize: number;
  /** What does not fit its frame at `size` ('' when everything fits). */
  overflow: string;
  /** The lines' extent in template pixels (advance widths, ascender to descender; clipped to a box). */
  inkBounds: Bounds | null;
}

/** Lays the text out, copyfitting it to its frame (fit.ts); draws nothing. */
export function setText(input: Omit<TextRenderInput, 'scale' | 'color'> & FitSettings): SetText {
  const { info } = input;
  // Lines are measured as HarfBuzz shapes them (kerning, joined forms, fallback runs), as resvg draws them.
  const metrics = shapedMetrics(input.font, input.fallbackFonts ?? []);
  const text = info.allCaps ? input.text.toUpperCase() : input.text;
  const fitted = fitText(info, text, metrics, input);
  return { info, metrics, ...fitted, inkBounds: inkBounds(info, fitted.lines, fitted.size, metrics) };
}

/** Pixels and output-space bounds of the re-rendered text; null when nothing is drawn. */
export async function renderText(input: TextRenderInput & FitSettings): Promise<(TextVector & { pixels: RGBAImage }) | null> {
  return drawText(setText(input), input);
}

/** A text's drawing as an SVG of its own (origin at `bounds`' top-left) with the fonts it needs. */
export interface TextVector {
  bounds: Bounds;
  vector: { svg: string; fonts: Uint8Array[] };
}

type DrawInput = Pick<TextRenderInput, 'font' | 'fallbackFonts' | 'color' | 'scale' | 'within' | 'memory'>;

/** Draws text laid out by setText at the output scale. */
export async function drawText(set: SetText, input: DrawInput): Promise<(TextVector & { pixels: RGBAImage }) | null> {
  const whole = textExtent(set, input.scale);
  if (!whole) return null;
  // A text too large to draw in one piece is drawn where it can show (`within`): a long line past
  // a print page's edge. Only then, because cutting resvg's raster moves the anti-aliasing of
  // curves on the canvas too (docs/performance.md, textcut). What is still too large for one
  // piece is drawn in bands.
  const within = tooLarge(whole, MAX_TEXT_PIXELS) ? input.within?.() : undefined;
  const drawn = within ? intersectRect(whole, within) : whole;
  if (!drawn) return null;
  const most = mostPixels(input.memory);
  if (tooLarge(drawn, most)) {
    throw new TextTooLargeError(`the text would cover ${drawn.right - drawn.left}×${drawn.bottom - drawn.top} pixels, more than ${(most / 1e6).toFixed(1)} MP`);
  }
  const { bounds, vector } = textSvg(set, input, drawn);
  if (inBands(drawn, input.memory)) {
    // Each band made straight as it lands, in chunks through the kernels' memory; the ink is left
    // to composite/dirty.ts, as for every raster above INK_PIXELS.
    const size = { width: bounds.right - bounds.left, height: bounds.bottom - bounds.top };
    const rows = Math.max(1, Math.floor(BAND_PIXELS / size.width));
    const pixels = await renderSvgInBands(vector.svg, vector.fonts, size, rows, unpremultiply);
    return { pixels, bounds, vector };
  }
  const pixels = await renderSvg(vector.svg, vector.fonts, drawn !== whole);
  await straightWithInk(pixels);
  return { pixels, bounds, vector };
}

/**
 * The text's whole drawing as an SVG, not rasterised: what a print PDF writes as vector outlines
 * (pdf/prepare.ts), where the raster would be thrown away. No size limit: nothing is drawn here.
 */
export function textVector(set: SetText, input: Omit<DrawInput, 'within' | 'memory'>): TextVector | null {
  const whole = textExtent(set, input.scale);
  return whole && textSvg(set, input, whole);
}

/** Output pixels the text's drawing may cover (generously: glyphs overhang), at least one each way; null when no line shows. */
function textExtent(set: SetText, scale: number): Bounds | null {
  const { info, lines, size, metrics } = set;
  const [xx, xy, yx, yy, tx, ty] = info.transform?.length === 6 ? info.transform : [1, 0, 0, 1, 0, 0];
  if (!lines.some((l) => l.text.trim())) return null;
  const local = localExtent(lines, size, metrics.ascender, metrics.descender, info.box);
  const project = (x: number, y: number) => [scale * (xx * x + yx * y + tx), scale * (xy * x + yy * y + ty)];
  const corners = [
    project(local.left, local.top),
    project(local.right, local.top),
    project(local.right, local.bottom),
    project(local.left, local.bottom),
  ];
  const xs = corners.map((c) => c[0]);
  const ys = corners.map((c) => c[1]);
  const left = Math.floor(Math.min(...xs));
  const top = Math.floor(Math.min(...ys));
  return { left, top, right: Math.max(Math.ceil(Math.max(...xs)), left + 1), bottom: Math.max(Math.ceil(Math.max(...ys)), top + 1) };
}

/** The SVG that draws the text over `region` (output pixels), origin at its top-left. */
function textSvg(set: SetText, input: Omit<DrawInput, 'within' | 'memory'>, region: Bounds): TextVector {
  const { info, lines, size, tracking } = set;
  const { scale } = input;
  const fallbackFonts = input.fallbackFonts ?? [];
  const [xx, xy, yx, yy, tx, ty] = info.transform?.length === 6 ? info.transform : [1, 0, 0, 1, 0, 0];
  const { left, top } = region;
  const width = region.right - left;
  const height = region.bottom - top;
  const family = readFontInfo(input.font).family;
  const color = input.color ?? hexToRgba(info.color);
  const matrix = [xx * scale, xy * scale, yx * scale, yy * scale, scale * tx - left, scale * ty - top].map(fmt).join(' ');
  // An axis-aligned box is exactly the raster, which clips by itself; resvg's clip paths cost a
  // full-size mask, so only rotated or skewed boxes get one.
  const clip = info.box && (xy !== 0 || yx !== 0)
    ? `<defs><clipPath id="box"><rect x="${fmt(info.box.left)}" y="${fmt(info.box.top)}" width="${fmt(info.box.right - info.box.left)}" height="${fmt(info.box.bottom - info.box.top)}"/></clipPath></defs>`
    : '';
  const texts = lines
    .filter((l) => l.text.trim())
    .map(
      (l) =>
        `<text x="${fmt(l.x)}" y="${fmt(l.y)}" text-anchor="${l.anchor}"${l.wordSpacing ? ` word-spacing="${fmt(l.wordSpacing)}"` : ''}>${escapeXml(l.text)}</text>`,
    )
    .join('');
  // Lines in scripts resvg sets wrongly (Devanagari, Arabic beside Latin) are drawn as HarfBuzz's
  // shaped outlines; Latin lines stay resvg's text (docs/fonts.md).
  const fonts = [input.font, ...fallbackFonts];
  const svg = withShapedPaths(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">${clip}` +
      `<g transform="matrix(${matrix})"${clip ? ' clip-path="url(#box)"' : ''} font-family="${escapeXml(quoteFamily(family))}" font-size="${fmt(size)}"` +
      (tracking ? ` letter-spacing="${fmt((tracking / 1000) * size)}"` : '') +
      ` fill="rgb(${color.r},${color.g},${color.b})" fill-opacity="${fmt(color.a)}"` +
      ` xml:space="preserve" font-kerning="normal">${texts}</g></svg>`,
    fonts,
  );
  return { bounds: region, vector: { svg, fonts } };
}

/** Whether a raster over `b` has more than `pixels` pixels, or a side longer than tiny-skia anti-aliases (32,767). */
const tooLarge = (b: Bounds, pixels: number) => (b.right - b.left) * (b.bottom - b.top) > pixels || b.right - b.left > 32_767 || b.bottom - b.top > 32_767;

/** Text rasters up to this many pixels are unpremultiplied in one visit to the kernels' memory (1 MB, as raster/kernels.ts inChunks streams). */
const INK_PIXELS = 1 << 18;

/**
 * resvg's premultiplied pixels made straight, in place, and their ink box recorded for
 * composite/dirty.ts (cache/ink.ts) in the same visit to the kernels' memory; the same bytes as
 * `unpremultiply`. A larger raster is unpremultiplied in chunks and its ink left to dirty.ts.
 */
async function straightWithInk(pixels: RGBAImage): Promise<void> {
  const { width, height, data } = pixels;
  const count = width * height;
  if (count > INK_PIXELS) return unpremultiply(data);
  await withArena((k, arena) => {
    const ptr = arena.alloc(count * 4);
    const box = arena.alloc(16);
    const mem = arena.u8();
    mem.set(data, ptr);
    // The ink box first (unpremultiplying keeps every alpha): only the rows it spans are
    // unpremultiplied and copied back. The raster's line box is about twice its glyphs' height
    // (the ascender and descender, and room above and below), and a row of alpha 0 throughout
    // comes out of unpremultiply as zeros, which it is filled with here.
    k.inkBox(ptr, width, height, box);
    const [left, top, right, bottom] = new Int32Array(mem.buffer, box, 4);
    const ink = left! < 0 ? null : { left: left!, top: top!, right: right!, bottom: bottom! };
    const from = ink ? ink.top * width * 4 : count * 4;
    const to = ink ? ink.bottom * width * 4 : count * 4;
    if (to > from) {
      k.unpremultiply(ptr + from, (to - from) >> 2);
      data.set(mem.subarray(ptr + from, ptr + to), from);
    }
    data.fill(0, 0, from);
    data.fill(0, to);
    rememberInk(data, width, height, ink);
  });
}

/** Where the lines' advances and line boxes fall in template pixels (inside the box for box text). */
function inkBounds(info: TextInfo, lines: LaidOutLine[], size: number, metrics: MeasuringMetrics): Bounds | null {
  const drawn = lines.filter((l) => l.text.trim());
  if (!drawn.length) return null;
  const [xx, xy, yx, yy, tx, ty] = info.transform?.length === 6 ? info.transform : [1, 0, 0, 1, 0, 0];
  const local = { left: Infinity, top: Infinity, right: -Infinity, bottom: -Infinity };
  for (const l of drawn) {
    const start = l.anchor === 'start' ? l.x : l.anchor === 'middle' ? l.x - l.width / 2 : l.x - l.width;
    local.left = Math.min(local.left, start);
    local.right = Math.max(local.right, start + l.width);
    local.top = Math.min(local.top, l.y - metrics.ascender * size);
    local.bottom = Math.max(local.bottom, l.y - metrics.descender * size);
  }
  if (info.box) {
    local.left = Math.max(local.left, info.box.left);
    local.right = Math.min(local.right, info.box.right);
    local.top = Math.max(local.top, info.box.top);
    local.bottom = Math.min(local.bottom, info.box.bottom);
  }
  const xs: number[] = [];
  const ys: number[] = [];
  for (const [x, y] of [[local.left, local.top], [local.right, local.top], [local.right, local.bottom], [local.left, local.bottom]]) {
    xs.push(xx * x + yx * y + tx);
    ys.push(xy * x + yy * y + ty);
  }
  return { left: Math.min(...xs), top: Math.min(...ys), right: Math.max(...xs), bottom: Math.max(...ys) };
}

/** Generous local extent of the lines: glyphs may rise above the ascender and overhang sideways. */
function localExtent(lines: LaidOutLine[], size: number, ascender: number, descender: number, box?: Bounds): Bounds {
  if (box) return box;
  let left = Infinity;
  let right = -Infinity;
  for (const l of lines) {
    const start = l.anchor === 'start' ? l.x : l.anchor === 'middle' ? l.x - l.width / 2 : l.x - l.width;
    left = Math.min(left, start);
    right = Math.max(right, start + l.width);
  }
  const pad = size * 0.5;
  return {
    left: left - pad,
    right: right + pad,
    top: lines[0].y - Math.max(ascender, 1) * size - pad * 0.5,
    bottom: lines[lines.length - 1].y - Math.min(descender, -0.3) * size + pad * 0.5,
  };
}

const fmt = (v: number) => String(Math.round(v * 10000) / 10000);
const quoteFamily = (family: string) => `'${family.replace(/'/g, '')}'`;

function hexToRgba(hex: string): RGBA {
  const v = parseInt(hex.slice(1), 16);
  return { r: (v >> 16) & 255, g: (v >> 8) & 255, b: v & 255, a: 1 };
}
