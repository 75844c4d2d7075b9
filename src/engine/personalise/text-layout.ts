/**
 * Line layout of a re-rendered text layer, in the text's own space (before its transform), the
 * way Photoshop sets it: point text starts its first baseline at the origin and never wraps; box
 * (paragraph) text wraps within the box, starts its first baseline one ascent below the box top,
 * and drops lines that do not fit (Photoshop's overset text).
 */
import type { FontMetrics } from '../fonts/metrics';
import type { Bounds } from '../types';

export type Alignment = 'left' | 'center' | 'right' | 'justify';

export interface LayoutStyle {
  size: number;
  /** Baseline-to-baseline distance. */
  leading: number;
  /** Extra space after every character, in 1/1000 em (Photoshop's tracking). */
  tracking: number;
  alignment: Alignment;
  box?: Bounds;
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

/** Width of a line: unkerned advances plus tracking; spaces count `spaceFactor` of their width. */
export function measure(text: string, metrics: FontMetrics, style: Pick<LayoutStyle, 'size' | 'tracking'>, spaceFactor = 1): number {
  let width = 0;
  let count = 0;
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    width += metrics.advance(cp) * (cp === 32 ? spaceFactor : 1);
    count++;
  }
  // Tracking sits between characters: the last one's does not count towards the line's width.
  return (width + (Math.max(0, count - 1) * style.tracking) / 1000) * style.size;
}

/** Greedy line breaking at spaces (and inside a word wider than the box). */
function wrap(paragraph: string, maxWidth: number, metrics: FontMetrics, style: LayoutStyle): string[] {
  const tokens = paragraph.match(/\S+|\s+/g) ?? [''];
  const lines: string[] = [];
  let line = '';
  const spaceFactor = style.alignment === 'justify' ? MIN_JUSTIFIED_WORD_SPACING : 1;
  const fits = (s: string) => measure(s.trimEnd(), metrics, style, spaceFactor) <= maxWidth + 1e-6;
  for (const token of tokens) {
    if (fits(line + token)) {
      line += token;
      continue;
    }
    if (/^\s+$/.test(token)) {
      // Spaces at a break stay at the end of the line, as in Photoshop; they take no room.
      line += token;
      continue;
    }
    if (line.trim()) lines.push(line);
    line = '';
    // A word wider than the box breaks between characters.
    let rest = token;
    while (!fits(rest)) {
      let cut = 1;
      const chars = [...rest];
      while (cut < chars.length && fits(chars.slice(0, cut + 1).join(''))) cut++;
      lines.push(chars.slice(0, cut).join(''));
      rest = chars.slice(cut).join('');
    }
    line = rest;
  }
  lines.push(line);
  return lines;
}

export function layoutText(text: string, metrics: FontMetrics, style: LayoutStyle): LaidOutLine[] {
  const { box, size, leading, alignment } = style;
  const out: LaidOutLine[] = [];
  const anchor = alignment === 'center' ? 'middle' : alignment === 'right' ? 'end' : 'start';
  const trailing = (style.tracking / 1000) * size;
  if (!box) {
    const x = alignment === 'center' ? trailing / 2 : alignment === 'right' ? trailing : 0;
    splitParagraphs(text).forEach((line, i) => {
      out.push({ text: line, x, y: i * leading, anchor, width: measure(line, metrics, style), wordSpacing: 0 });
    });
    return out;
  }
  const boxWidth = box.right - box.left;
  // The renderer adds letter spacing after the last character too; shift so the ink aligns.
  const x = alignment === 'center' ? (box.left + box.right + trailing) / 2 : alignment === 'right' ? box.right + trailing : box.left;
  let y = box.top + metrics.ascender * size;
  const descent = -metrics.descender * size;
  for (const paragraph of splitParagraphs(text)) {
    const lines = wrap(paragraph, boxWidth, metrics, style);
    for (let i = 0; i < lines.length; i++) {
      // Overset: Photoshop shows only lines that fit in the box.
      if (y + descent > box.bottom + 0.5) return out;
      const line = lines[i].trimEnd();
      const width = measure(line, metrics, style);
      let wordSpacing = 0;
      const spaces = line.split(' ').length - 1;
      if (alignment === 'justify' && i < lines.length - 1 && spaces > 0) wordSpacing = (boxWidth - width) / spaces;
      out.push({ text: line, x, y, anchor, width, wordSpacing });
      y += leading;
    }
  }
  return out;
}
