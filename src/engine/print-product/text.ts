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
 * - `ShrinkToFit` lowers the size by 0.5 pt (to 4 pt at least) until every line fits the height
 *   and no word has to break inside.
 */
import { fontMetrics, type FontMetrics } from '../fonts/metrics';
import { findTable } from '../fonts/font-info';
import { layoutText, measure, splitParagraphs, type LaidOutLine } from '../personalise/text-layout';
import type { TextModel } from './schema';

export const SHRINK_STEP = 0.5;
export const SHRINK_MIN = 4;

export interface TextLayout {
  lines: LaidOutLine[];
  size: number;
  /** Letter spacing in points. */
  letterSpacing: number;
  metrics: FontMetrics;
}

const ALIGN = { Left: 'left', Center: 'center', Right: 'right', Justify: 'justify' } as const;

function layoutAt(item: TextModel, text: string, metrics: FontMetrics, size: number) {
  const leading = item.lineHeight * size;
  const style = {
    size,
    leading,
    tracking: (item.letterSpacing / size) * 1000,
    alignment: ALIGN[item.alignment],
    box: { left: item.x, top: item.y, right: item.x + item.width, bottom: Number.POSITIVE_INFINITY },
  };
  const lines = layoutText(text, metrics, style);
  const ascent = metrics.ascender * size;
  const descent = -metrics.descender * size;
  // Lines whose descent stays inside the box (the first always).
  let n = lines.length;
  while (n > 1 && ascent + (n - 1) * leading + descent > item.height + 0.5) n--;
  const blockHeight = ascent + (Math.max(n, 1) - 1) * leading + descent;
  const fits = n === lines.length && blockHeight <= item.height + 0.5 && widestWord(text, metrics, style) <= item.width + 1e-6;
  return { lines: lines.slice(0, n), blockHeight, fits, tracking: style.tracking };
}

function widestWord(text: string, metrics: FontMetrics, style: { size: number; tracking: number }): number {
  let max = 0;
  for (const p of splitParagraphs(text)) for (const w of p.split(/\s+/)) if (w) max = Math.max(max, measure(w, metrics, style));
  return max;
}

/** Lays out `text` (the item's text, or its placeholder) in the item's box. */
export function layoutItemText(item: TextModel, text: string, font: Uint8Array): TextLayout {
  const metrics = fontMetrics(font);
  let size = item.font.size;
  let result = layoutAt(item, text, metrics, size);
  if (item.fit === 'ShrinkToFit') {
    while (!result.fits && size - SHRINK_STEP >= SHRINK_MIN - 1e-9) {
      size = Math.round((size - SHRINK_STEP) * 2) / 2;
      result = layoutAt(item, text, metrics, size);
    }
  }
  const free = item.height - result.blockHeight;
  const dy = item.verticalAlignment === 'Middle' ? free / 2 : item.verticalAlignment === 'Bottom' ? free : 0;
  const lines = dy ? result.lines.map((l) => ({ ...l, y: l.y + dy })) : result.lines;
  return { lines, size, letterSpacing: (result.tracking / 1000) * size, metrics };
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
