/**
 * Re-renders a text layer with new text: our own line layout (text-layout.ts), drawn by resvg as
 * an SVG at the output scale directly, through the layer's transform (scale, rotation, skew).
 */
import { readFontInfo } from '../fonts/font-info';
import { fontMetrics, withFallbacks } from '../fonts/metrics';
import { unpremultiply } from '../raster/pixels';
import type { Bounds, RGBAImage, TextInfo } from '../types';
import type { RGBA } from './color';
import { renderSvg } from './resvg';
import { layoutText, type LaidOutLine } from './text-layout';

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
}

/** Largest text raster we draw (pixels); beyond this the request is refused. */
export const MAX_TEXT_PIXELS = 40_000_000;

export class TextTooLargeError extends Error {}

const escapeXml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!);

/** True when `font` has a glyph for every character of `text` (apart from line breaks). */
export function coversText(font: Uint8Array, text: string): boolean {
  const m = fontMetrics(font);
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (cp > 0x20 && cp !== 0x2029 && !m.has(cp)) return false;
  }
  return true;
}

/** Pixels and output-space bounds of the re-rendered text; null when nothing is drawn. */
export async function renderText(input: TextRenderInput): Promise<{ pixels: RGBAImage; bounds: Bounds; vector: { svg: string; fonts: Uint8Array[] } } | null> {
  const { info, scale } = input;
  const fallbackFonts = input.fallbackFonts ?? [];
  const metrics = withFallbacks(fontMetrics(input.font), fallbackFonts.map(fontMetrics));
  const [xx, xy, yx, yy, tx, ty] = info.transform?.length === 6 ? info.transform : [1, 0, 0, 1, 0, 0];
  // A requested size is what Photoshop shows (pixels after the layer's transform scale); layout
  // happens before the transform.
  const transformScale = Math.sqrt(Math.abs(xx * yy - xy * yx)) || 1;
  const size = input.size !== undefined ? input.size / transformScale : info.size;
  // Leading follows the size (auto leading is a fraction of it; fixed leading scales along).
  const leading = (info.leading ?? size * 1.2) * (size / info.size);
  const tracking = info.tracking ?? 0;
  const text = info.allCaps ? input.text.toUpperCase() : input.text;
  const lines = layoutText(text, metrics, { size, leading, tracking, alignment: info.alignment ?? 'left', box: info.box, paragraph: info.paragraph });
  if (!lines.some((l) => l.text.trim())) return null;

  const local = localExtent(lines, size, metrics.ascender, metrics.descender, info.box);
  const project = (x: number, y: number) => [scale * (xx * x + yx * y + tx), scale * (xy * x + yy * y + ty)];
  const corners = [
    project(local.left, local.top),
    project(local.right, local.top),
    project(local.right, local.bottom),
    project(local.left, local.bottom),
  ];
  const left = Math.floor(Math.min(...corners.map((c) => c[0])));
  const top = Math.floor(Math.min(...corners.map((c) => c[1])));
  const width = Math.max(1, Math.ceil(Math.max(...corners.map((c) => c[0]))) - left);
  const height = Math.max(1, Math.ceil(Math.max(...corners.map((c) => c[1]))) - top);
  if (width * height > MAX_TEXT_PIXELS || width > 32_767 || height > 32_767) {
    throw new TextTooLargeError(`the text would cover ${width}×${height} pixels`);
  }

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
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">${clip}` +
    `<g transform="matrix(${matrix})"${clip ? ' clip-path="url(#box)"' : ''} font-family="${escapeXml(quoteFamily(family))}" font-size="${fmt(size)}"` +
    (tracking ? ` letter-spacing="${fmt((tracking / 1000) * size)}"` : '') +
    ` fill="rgb(${color.r},${color.g},${color.b})" fill-opacity="${fmt(color.a)}"` +
    ` xml:space="preserve" font-kerning="normal">${texts}</g></svg>`;
  const pixels = await renderSvg(svg, [input.font, ...fallbackFonts]);
  await unpremultiply(pixels.data);
  return { pixels, bounds: { left, top, right: left + width, bottom: top + height }, vector: { svg, fonts: [input.font, ...fallbackFonts] } };
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
