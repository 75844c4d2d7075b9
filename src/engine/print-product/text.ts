/**
 * Line layout of a Text item with the engine's own layout (src/engine/personalise/text-layout.ts:
 * greedy wrap at spaces, alignment incl. Justify, tracking), shared by the SVG preview and the
 * PDF's `Text` mode so both place lines identically.
 *
 * - `lineHeight` × size is the baseline-to-baseline distance; `letterSpacing` is points after
 *   each character (the engine's tracking in 1/1000 em = letterSpacing ÷ size × 1000).
 * - The first baseline sits one ascent below the box top; `verticalAlignment` moves the block
 *   (first ascent to last descent) within the box. Lines that do not fit the box height are
 *   dropped (overset), except that the first line is always kept.
 * - Copyfitting (`fit`, issue 21): `Shrink` lowers the size by 0.5 pt steps (down to `minSize`,
 *   default half the size) until every line fits the height and no word has to break inside;
 *   `ShrinkToFit`, its earlier name, floors at 4 pt without `minSize`. `ShrinkToLine` sets each
 *   paragraph on one line at the size where it fits the box (see layoutOnLines).
 * - The layout also says what did not fit (`overflow`) and which characters the font lacks, so
 *   preflight (preflight.ts) reads the same layout the preview and the PDF draw.
 */
import { fontMetrics, type FontMetrics } from '../fonts/metrics';
import { findTable } from '../fonts/font-info';
import { layoutText, measure, splitParagraphs, type LaidOutLine } from '../personalise/text-layout';
import type { TextModel } from './schema';

export const SHRINK_STEP = 0.5;
/** The floor of `ShrinkToFit` (the earlier name of `Shrink`) without a `minSize`. */
export const SHRINK_MIN = 4;

export interface TextLayout {
  lines: LaidOutLine[];
  size: number;
  /** Letter spacing in points. */
  letterSpacing: number;
  metrics: FontMetrics;
  /** The item's own size, before copyfitting. */
  originalSize: number;
  /** Text that is not drawn or runs out of the box ('' when everything fits), and its characters (spaces not counted). */
  overflow: string;
  overflowCharacters: number;
  /** Characters the font has no glyph for (each once, in text order). */
  missing: string[];
}

const ALIGN = { Left: 'left', Center: 'center', Right: 'right', Justify: 'justify' } as const;

/** Characters that need no glyph of their own (spaces, controls, joiners, variation selectors). */
const NO_GLYPH = /[\s\p{Cc}\p{Cf}\u{FE00}-\u{FE0F}]/u;

const visibleCount = (s: string) => [...s].filter((ch) => !NO_GLYPH.test(ch)).length;

function styleAt(item: TextModel, size: number, box: { left: number; right: number }) {
  return {
    size,
    leading: item.lineHeight * size,
    tracking: (item.letterSpacing / size) * 1000,
    alignment: ALIGN[item.alignment],
    box: { left: box.left, top: item.y, right: box.right, bottom: Number.POSITIVE_INFINITY },
  };
}

function layoutAt(item: TextModel, text: string, metrics: FontMetrics, size: number, box = { left: item.x, right: item.x + item.width }) {
  const style = styleAt(item, size, box);
  const lines = layoutText(text, metrics, style);
  const ascent = metrics.ascender * size;
  const descent = -metrics.descender * size;
  // Lines whose descent stays inside the box (the first always).
  let n = lines.length;
  while (n > 1 && ascent + (n - 1) * style.leading + descent > item.height + 0.5) n--;
  const blockHeight = ascent + (Math.max(n, 1) - 1) * style.leading + descent;
  const tall = blockHeight > item.height + 0.5;
  const fits = n === lines.length && !tall && widestWord(text, metrics, style) <= item.width + 1e-6;
  const dropped = lines.slice(n).map((l) => l.text);
  // A first line taller than the box is drawn anyway: all of it runs out.
  const overflow = tall && n === 1 ? [lines[0]?.text ?? '', ...dropped].join(' ') : dropped.join(' ');
  return { lines: lines.slice(0, n), blockHeight, fits, tracking: style.tracking, overflow: overflow.trim() };
}

function widestWord(text: string, metrics: FontMetrics, style: { size: number; tracking: number }): number {
  let max = 0;
  for (const p of splitParagraphs(text)) for (const w of p.split(/\s+/)) if (w) max = Math.max(max, measure(w, metrics, style));
  return max;
}

/**
 * `ShrinkToLine`: every paragraph on one line, at the size where the widest fits the box's width
 * and the lines its height (never larger than the item's size, never below the floor). Lines still
 * too wide at the floor keep one line and run out of the box on the side the alignment leaves free;
 * `overflow` is their tail that does not fit.
 */
function layoutOnLines(item: TextModel, text: string, metrics: FontMetrics, floor: number) {
  const paragraphs = splitParagraphs(text).map((p) => p.trim());
  const unit = styleAt(item, 1, { left: item.x, right: item.x + item.width });
  const widest = Math.max(0, ...paragraphs.map((p) => measure(p, metrics, unit)));
  const unitHeight = metrics.ascender - metrics.descender + (paragraphs.length - 1) * item.lineHeight;
  const byWidth = widest > 0 ? item.width / widest : Infinity;
  const byHeight = unitHeight > 0 ? (item.height + 0.5) / unitHeight : Infinity;
  // Hundredths of a point, rounded down so the line measured again still fits.
  const size = Math.max(floor, Math.min(item.font.size, Math.floor(Math.min(byWidth, byHeight) * 100) / 100));
  const style = styleAt(item, size, { left: item.x, right: item.x + item.width });
  const wide = Math.max(0, ...paragraphs.map((p) => measure(p, metrics, style)));
  // Widened to the widest line so nothing wraps, on the side the alignment grows towards.
  const extra = Math.max(0, wide - item.width) + 1;
  const grow = item.alignment === 'Right' ? [extra, 0] : item.alignment === 'Center' ? [extra / 2, extra / 2] : [0, extra];
  const result = layoutAt({ ...item, alignment: item.alignment === 'Justify' ? 'Left' : item.alignment }, paragraphs.join('\n'), metrics, size, {
    left: item.x - grow[0]!,
    right: item.x + item.width + grow[1]!,
  });
  const tails = paragraphs.map((p) => overhang(p, metrics, style, item.width)).filter(Boolean);
  return { ...result, overflow: [result.overflow, ...tails].filter(Boolean).join(' '), size };
}

/** The tail of a line that does not fit `width` (characters from the end until the rest fits). */
function overhang(line: string, metrics: FontMetrics, style: { size: number; tracking: number }, width: number): string {
  const chars = [...line];
  let keep = chars.length;
  while (keep > 0 && measure(chars.slice(0, keep).join(''), metrics, style) > width + 1e-6) keep--;
  return chars.slice(keep).join('');
}

/**
 * Laid-out text per isolate, by font (identity: resolvers hand out one array per content) and the
 * item as laid out: a preview's SVG, the PDF and preflight of one design lay each text out once.
 */
const LAYOUTS = new WeakMap<Uint8Array, Map<string, TextLayout>>();
const LAYOUTS_PER_FONT = 256;

/** The cache key of a text's layout: every property of the item that moves a glyph. */
export const layoutKey = (item: TextModel, text: string) =>
  JSON.stringify([item.x, item.y, item.width, item.height, item.font.size, item.alignment, item.verticalAlignment, item.lineHeight, item.letterSpacing, item.fit, item.minSize, text]);

/** Lays out `text` (the item's text, or its placeholder) in the item's box, copyfitted by `fit`. */
export function layoutItemText(item: TextModel, text: string, font: Uint8Array): TextLayout {
  let cache = LAYOUTS.get(font);
  if (!cache) LAYOUTS.set(font, (cache = new Map()));
  const key = layoutKey(item, text);
  const hit = cache.get(key);
  if (hit) return hit;
  const layout = computeLayout(item, text, font);
  cache.set(key, layout);
  if (cache.size > LAYOUTS_PER_FONT) cache.delete(cache.keys().next().value!);
  return layout;
}

/** The smallest size copyfitting may use: `minSize`, else half the size (`ShrinkToFit`: 4 pt); never above the size. */
export const shrinkFloor = (item: TextModel) => Math.min(item.font.size, item.minSize ?? (item.fit === 'ShrinkToFit' ? SHRINK_MIN : item.font.size / 2));

function computeLayout(item: TextModel, text: string, font: Uint8Array): TextLayout {
  const metrics = fontMetrics(font);
  let size = item.font.size;
  let result;
  if (item.fit === 'ShrinkToLine') {
    result = layoutOnLines(item, text, metrics, shrinkFloor(item));
    size = result.size;
  } else {
    result = layoutAt(item, text, metrics, size);
    if (item.fit === 'Shrink' || item.fit === 'ShrinkToFit') {
      const floor = shrinkFloor(item);
      while (!result.fits && size > floor + 1e-9) {
        size = Math.max(floor, Math.round((size - SHRINK_STEP) * 2) / 2);
        result = layoutAt(item, text, metrics, size);
      }
    }
  }
  const free = item.height - result.blockHeight;
  const dy = item.verticalAlignment === 'Middle' ? free / 2 : item.verticalAlignment === 'Bottom' ? free : 0;
  const lines = dy ? result.lines.map((l) => ({ ...l, y: l.y + dy })) : result.lines;
  const missing = [...new Set([...text].filter((ch) => !NO_GLYPH.test(ch) && !metrics.has(ch.codePointAt(0)!)))];
  return {
    lines,
    size,
    letterSpacing: (result.tracking / 1000) * size,
    metrics,
    originalSize: item.font.size,
    overflow: result.overflow,
    overflowCharacters: visibleCount(result.overflow),
    missing,
  };
}

/** CSS weight and style of a font from OS/2 (usWeightClass, fsSelection), for resvg's font matching. */
export function fontFace(bytes: Uint8Array): { weight: number; style: 'normal' | 'italic' | 'oblique' } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const base = view.getUint32(0) === 0x74746366 ? view.getUint32(12) : 0;
  const os2 = findTable(view, 'OS/2', base);
  if (!os2) return { weight: 400, style: 'normal' };
  const weight = view.getUint16(os2.offset + 4) || 400;
  const selection = view.getUint16(os2.offset + 62);
  return { weight, style: selection & 1 ? 'italic' : selection & 0x200 ? 'oblique' : 'normal' };
}
