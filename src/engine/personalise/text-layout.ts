/**
 * Line layout of a re-rendered text layer, in the text's own space (before its transform), the
 * way Photoshop sets it: point text starts its first baseline at the origin and never wraps; box
 * (paragraph) text wraps within the box, starts its first baseline one ascent below the box top
 * (the top of 'd' with `firstBaseline: 'lowercase'`), and drops lines that do not fit (Photoshop's
 * overset text). With `pixelRows` baselines land on whole document pixels. docs/fonts.md,
 * "Photoshop's text layout", says which of these rules Photoshop's own pixels confirm.
 */
import type { FontMetrics } from '../fonts/metrics';
import type { Bounds, ParagraphSettings } from '../types';
import { clusters, lineSegments } from './line-break';

export type Alignment = 'left' | 'center' | 'right' | 'justify';

export interface LayoutStyle {
  size: number;
  /** Baseline-to-baseline distance. */
  leading: number;
  /** Extra space after every character, in 1/1000 em (Photoshop's tracking). */
  tracking: number;
  alignment: Alignment;
  box?: Bounds;
  paragraph?: ParagraphSettings;
  /**
   * How far below the box top box text's first baseline hangs: the font's ascender (the default),
   * or the top of its lowercase 'd' (`lowercaseAscent`), as Photoshop sets it.
   */
  firstBaseline?: 'ascender' | 'lowercase';
  /**
   * Baselines on whole pixels of the document, whose y is `origin + scale × y` (upright text:
   * the transform's ty and yy), as Photoshop draws type; absent: baselines where they fall.
   */
  pixelRows?: { origin: number; scale: number };
  /**
   * Centred and right-aligned lines shifted by the tracking after their last character
   * ('shifted', the default, as print products have always been set) or not ('none'). Photoshop
   * ends a line at its last glyph's advance, without that tracking (the pen positions it stores
   * in Txt2), and resvg anchors a `<text>` the same way; so 'none' puts the ink where Photoshop
   * does, and 'shifted' puts it one tracking (half, centred) past the anchor.
   */
  lineEndTracking?: 'shifted' | 'none';
}

export interface LaidOutLine {
  text: string;
  /** Anchor x: the left edge, centre or right edge as `anchor` says. */
  x: number;
  /** Baseline y. */
  y: number;
  anchor: 'start' | 'middle' | 'end';
  /** Measured width (unkerned advances plus tracking). */
  width: number;
  /** Extra space per U+0020 to justify the line. */
  wordSpacing: number;
}

/** Paragraph separators: Photoshop stores \r; requests may send \n or \r\n. */
export const splitParagraphs = (text: string) => text.split(/\r\n|\r|\n|\u2029/);

/**
 * Photoshop's default minimum word spacing for justified text (Justification settings: 80 %):
 * a justified line may squeeze its spaces to fit one more word.
 */
export const MIN_JUSTIFIED_WORD_SPACING = 0.8;

/** Metrics that may shape a whole run (HarfBuzz, when the font helper provides it). */
export type MeasuringMetrics = FontMetrics & { textAdvance?(text: string): number };

/**
 * Width of a line: the shaped advance of the run when the metrics can shape (kerning, ligatures,
 * joined forms), else the sum of unkerned advances; plus tracking. Spaces count `spaceFactor`
 * of their width.
 */
export function measure(text: string, metrics: MeasuringMetrics, style: Pick<LayoutStyle, 'size' | 'tracking'>, spaceFactor = 1): number {
  let width = 0;
  let count = 0;
  let spaces = 0;
  const shaped = metrics.textAdvance ? metrics.textAdvance(text) : undefined;
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (shaped === undefined) width += metrics.advance(cp);
    if (cp === 32) spaces++;
    count++;
  }
  if (shaped !== undefined) width = shaped;
  if (spaceFactor !== 1) width -= spaces * metrics.advance(32) * (1 - spaceFactor);
  // Tracking sits between characters: the last one's does not count towards the line's width.
  return (width + (Math.max(0, count - 1) * style.tracking) / 1000) * style.size;
}

/** Latin, Greek, Cyrillic and common punctuation: no reordering, joining or marks that shaping could widen much. */
const SIMPLE_SCRIPT = /^[\u0000-\u036f\u0370-\u052f\u1e00-\u1fff\u2000-\u206f\u20a0-\u20cf\u2100-\u214f]*$/;


/** The longest rest of a cut word wrap measures whole where clusters can narrow a line (a line of it would be far past any box). */
const NARROWING_REST = 2048;

/**
 * Greedy line breaking at the break opportunities of UAX #14 (line-break.ts), and inside a
 * segment wider than the line between grapheme clusters; `maxWidth(i)` per line. `broken` tells
 * whether a word had to be cut so.
 */
function wrap(paragraph: string, maxWidth: (line: number) => number, metrics: MeasuringMetrics, style: LayoutStyle): { lines: string[]; broken: boolean } {
  const lines: string[] = [];
  let line = '';
  let broken = false;
  const spaceFactor = style.alignment === 'justify' ? MIN_JUSTIFIED_WORD_SPACING : 1;
  // Shaping every candidate line is the cost of wrapping; for simple scripts, where shaping only
  // kerns, the unshaped width decides unless it is within 3 % of the limit.
  const unshaped: MeasuringMetrics | null = metrics.textAdvance ? { ...metrics, textAdvance: undefined } : null;
  const fits = (s: string) => {
    const text = s.trimEnd();
    const limit = maxWidth(lines.length) + 1e-6;
    if (unshaped && SIMPLE_SCRIPT.test(text)) {
      const rough = measure(text, unshaped, style, spaceFactor);
      if (rough < limit * 0.97) return true;
      if (rough > limit * 1.03) return false;
    }
    return measure(text, metrics, style, spaceFactor) <= limit;
  };
  for (const segment of lineSegments(paragraph)) {
    // Spaces at a break stay at the end of the line, as in Photoshop; they take no room.
    if (fits(line + segment)) {
      line += segment;
      continue;
    }
    if (line.trim()) lines.push(line);
    line = '';
    let rest = segment;
    // A segment wider than the line is cut between its clusters, found once and walked. A rest
    // whose every prefix fits fits itself (a cluster only adds width), so the rest is not measured
    // whole for each line: segmenting and measuring it again per line made a 10,000-character
    // word take 23 s, and 100,000 ran out of memory (fuzz2).
    const parts = fits(rest) ? [] : clusters(rest);
    // Where a cluster can narrow the line (tracking below 0 past a glyph's advance or over a
    // cluster of marks; a joining script's final forms, shaped), the rest may fit where one of
    // its prefixes does not: there it is measured whole as before, and kept once it fits (review,
    // session 20). Not a rest of more than NARROWING_REST code units: no line holds one.
    const mayNarrow = style.tracking < 0 || (metrics.textAdvance !== undefined && !SIMPLE_SCRIPT.test(segment));
    let from = 0;
    let restLength = rest.length;
    while (from < parts.length) {
      if (from > 0 && mayNarrow && restLength <= NARROWING_REST && fits(parts.slice(from).join(''))) break;
      let cut = from + 1;
      while (cut < parts.length && fits(parts.slice(from, cut + 1).join(''))) cut++;
      if (cut >= parts.length) break; // the rest fits, or is one cluster (or trailing spaces)
      broken = true;
      const piece = parts.slice(from, cut).join('');
      lines.push(piece);
      restLength -= piece.length;
      from = cut;
    }
    if (from > 0) rest = parts.slice(from).join('');
    line = rest;
  }
  lines.push(line);
  return { lines, broken };
}

const NO_PARAGRAPH_SETTINGS: ParagraphSettings = { startIndent: 0, endIndent: 0, firstLineIndent: 0, spaceBefore: 0, spaceAfter: 0, justifyLast: false };

export interface Layout {
  lines: LaidOutLine[];
  /** Box text Photoshop would not show (overset), as typed; '' when everything is set. */
  overset: string;
  /** A word was cut between characters because it was wider than the box. */
  brokenWord: boolean;
}

export function layoutText(text: string, metrics: MeasuringMetrics, style: LayoutStyle): LaidOutLine[] {
  return layoutParagraphs(text, metrics, style).lines;
}

/** The lines of `text`, with what did not fit in the box and whether a word was cut. */
export function layoutParagraphs(text: string, metrics: MeasuringMetrics, style: LayoutStyle): Layout {
  const { box, size, leading, alignment } = style;
  const para = style.paragraph ?? NO_PARAGRAPH_SETTINGS;
  const out: LaidOutLine[] = [];
  let brokenWord = false;
  // 'shifted' moves centred and right-aligned lines by the tracking after the last character,
  // which neither resvg's anchoring nor Photoshop's line includes (lineEndTracking above).
  const trailing = style.lineEndTracking === 'none' ? 0 : (style.tracking / 1000) * size;
  // Point text aligns about its origin; box text within the box, both less the indents.
  const [left, right] = box ? [box.left, box.right] : [0, 0];
  const indentOf = (line: number) => para.startIndent + (line === 0 ? para.firstLineIndent : 0);
  const available = (line: number) => right - para.endIndent - (left + indentOf(line));
  const descent = -metrics.descender * size;
  const firstAscent = style.firstBaseline === 'lowercase' ? (metrics.lowercaseAscent ?? metrics.ascender) : metrics.ascender;
  let y = box ? box.top + firstAscent * size : 0;
  const rows = style.pixelRows && style.pixelRows.scale > 0 ? style.pixelRows : null;
  const onRow = (at: number) => (rows ? (Math.round(rows.origin + rows.scale * at) - rows.origin) / rows.scale : at);
  const paragraphs = splitParagraphs(text);
  for (let p = 0; p < paragraphs.length; p++) {
    if (p > 0) y += para.spaceBefore;
    const wrapped = box ? wrap(paragraphs[p], available, metrics, style) : { lines: [paragraphs[p]], broken: false };
    const lines = wrapped.lines;
    for (let i = 0; i < lines.length; i++) {
      // Overset: Photoshop shows only lines that fit in the box.
      if (box && y + descent > box.bottom + 0.5) {
        const overset = [lines.slice(i).join(''), ...paragraphs.slice(p + 1)].join('\n');
        return { lines: out, overset, brokenWord };
      }
      if (wrapped.broken) brokenWord = true;
      const line = box ? lines[i].trimEnd() : lines[i];
      const width = measure(line, metrics, style);
      const lineLeft = left + indentOf(i);
      const lineRight = right - para.endIndent;
      const last = i === lines.length - 1;
      const justified = alignment === 'justify' && (!last || para.justifyLast);
      const align = alignment === 'justify' && !justified ? (para.lastLine ?? 'left') : alignment;
      const x = align === 'center' ? (lineLeft + lineRight + trailing) / 2 : align === 'right' ? lineRight + trailing : lineLeft;
      const anchor = align === 'center' ? 'middle' : align === 'right' ? 'end' : 'start';
      let wordSpacing = 0;
      const spaces = line.split(' ').length - 1;
      if (box && justified && spaces > 0) {
        wordSpacing = (lineRight - lineLeft - width) / spaces;
      }
      out.push({ text: line, x, y: onRow(y), anchor, width, wordSpacing });
      y += leading;
    }
    y += para.spaceAfter;
  }
  return { lines: out, overset: '', brokenWord };
}
