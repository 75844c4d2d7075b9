/**
 * Line-break opportunities after the Unicode Line Breaking Algorithm (UAX #14), for the classes
 * that decide where names and short texts wrap: spaces, hyphens and dashes, punctuation that must
 * not start or end a line (closing brackets, small kana, 。、), ideographs (CJK breaks between any
 * two, with no spaces), digits with their signs, and no break inside a word or a grapheme (marks,
 * joiners, emoji sequences). Thai, Lao, Khmer and Myanmar (no spaces, UAX #14 "SA") break at the
 * word boundaries of `Intl.Segmenter` (ICU's dictionaries).
 *
 * Not the npm package `linebreak`: adding it means a package.json change this helper may not make,
 * and `Intl.Segmenter` has no `line` granularity in V8. The pair rules below follow LB7–LB31 in
 * simplified form (no LB15–17 quotation subtleties, no LB20 CB, no LB26–27 Hangul jamo: Hangul
 * syllables break like ideographs, as UAX #14's default does).
 *
 * @example
 *   lineSegments('Hello world')       // ['Hello ', 'world']
 *   lineSegments('東京都に住む。')      // ['東', '京', '都', 'に', '住', 'む。']
 *   lineSegments('Livingstone-Smith') // ['Livingstone-', 'Smith']
 */

type LineClass =
  | 'AL' | 'NU' | 'SP' | 'ZW' | 'GL' | 'WJ' | 'ZWJ' | 'CM' | 'OP' | 'CL' | 'QU' | 'EX' | 'IS' | 'SY' | 'HY' | 'BA' | 'BB' | 'B2'
  | 'IN' | 'NS' | 'PR' | 'PO' | 'ID' | 'SA';

const SINGLE: Record<number, LineClass> = {};
const set = (cls: LineClass, chars: string) => {
  for (const ch of chars) SINGLE[ch.codePointAt(0)!] = cls;
};
set('SP', ' ');
set('ZW', '\u200b');
set('GL', '\u00a0\u202f\u2007\u2011\u0f0c\u034f');
set('WJ', '\u2060\ufeff');
set('ZWJ', '\u200d');
set('CM', '\u200c');
set('QU', '"\'\u00ab\u00bb\u2018\u2019\u201b\u201c\u201d\u201f\u2039\u203a\u275b\u275c\u275d\u275e');
set('EX', '!?\u061f\u06d4\u203c\u2047\u2048\u2049\uff01\uff1f');
set('OP', '\u00a1\u00bf');
set('IS', ',.:;\u037e\u0589\u060c\u060d\u07f8\u2044\ufe10\ufe13\ufe14');
set('SY', '/');
set('HY', '-');
set('BA', '\t\u00ad\u058a\u05be\u0964\u0965\u0e5a\u0e5b\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2008\u2009\u200a\u2010\u2012\u2013\u2027\u3000|');
set('BB', '\u00b4\u02c8\u02cc\u02df\u1ffd');
set('B2', '\u2014');
set('IN', '\u2024\u2025\u2026\ufe19');
set('CL', '\u3001\u3002\ufe11\ufe12\uff0c\uff0e\uff61\uff64');
set(
  'NS',
  '\u3005\u303b\u309b\u309c\u309d\u309e\u30a0\u30fb\u30fc\u30fd\u30fe\u301c\uff1a\uff1b\uff65\uff70\uff9e\uff9f' +
    '\u3041\u3043\u3045\u3047\u3049\u3063\u3083\u3085\u3087\u308e\u3095\u3096' +
    '\u30a1\u30a3\u30a5\u30a7\u30a9\u30c3\u30e3\u30e5\u30e7\u30ee\u30f5\u30f6' +
    '\u31f0\u31f1\u31f2\u31f3\u31f4\u31f5\u31f6\u31f7\u31f8\u31f9\u31fa\u31fb\u31fc\u31fd\u31fe\u31ff',
);
set('PO', '%\u00a2\u00b0\u2030\u2031\u2032\u2033\u2034\u2103\u2109\uff05\uffe0');
set('PR', '+\\\u00b1\u2116\u2212\u2213\uff04\uffe1\uffe5\uffe6');

const IDEOGRAPHIC: Array<[number, number]> = [
  [0x1100, 0x115f], [0x2e80, 0x2fff], [0x3040, 0x30ff], [0x3100, 0x31bf], [0x3200, 0x33ff], [0x3400, 0x4dbf], [0x4e00, 0x9fff],
  [0xa000, 0xa4cf], [0xac00, 0xd7af], [0xf900, 0xfaff], [0xfe30, 0xfe4f], [0xff01, 0xff60], [0x1f000, 0x1faff], [0x20000, 0x3fffd],
];
const SOUTH_EAST_ASIAN: Array<[number, number]> = [[0x0e00, 0x0eff], [0x1000, 0x109f], [0x1780, 0x17ff], [0x1950, 0x19df], [0x1a20, 0x1aaf], [0xaa60, 0xaadf]];
const inRanges = (cp: number, ranges: Array<[number, number]>) => ranges.some(([lo, hi]) => cp >= lo && cp <= hi);

const MARK = /\p{M}/u;
const OPEN = /\p{Ps}/u;
const CLOSE = /\p{Pe}/u;
const QUOTE = /[\p{Pi}\p{Pf}]/u;
const DIGIT = /\p{Nd}/u;
const CURRENCY = /\p{Sc}/u;
const PICTOGRAPH = /\p{Extended_Pictographic}/u;

function classOf(ch: string): LineClass {
  const cp = ch.codePointAt(0)!;
  const single = SINGLE[cp];
  if (single) return single;
  // Variation selectors, emoji modifiers and tags attach to what precedes them.
  if ((cp >= 0xfe00 && cp <= 0xfe0f) || (cp >= 0x1f3fb && cp <= 0x1f3ff) || (cp >= 0xe0000 && cp <= 0xe01ef) || MARK.test(ch)) return 'CM';
  if (inRanges(cp, SOUTH_EAST_ASIAN)) return 'SA';
  if (OPEN.test(ch)) return 'OP';
  if (CLOSE.test(ch)) return 'CL';
  if (QUOTE.test(ch)) return 'QU';
  if (DIGIT.test(ch)) return 'NU';
  if (CURRENCY.test(ch)) return 'PR';
  if (inRanges(cp, IDEOGRAPHIC) || PICTOGRAPH.test(ch)) return 'ID';
  return 'AL';
}

const NO_BREAK_BEFORE = new Set<LineClass>(['ZW', 'CL', 'EX', 'IS', 'SY', 'BA', 'HY', 'NS', 'GL', 'WJ', 'QU', 'IN', 'CM', 'ZWJ']);
const NO_BREAK_AFTER = new Set<LineClass>(['OP', 'GL', 'WJ', 'BB', 'QU', 'ZWJ']);
/** What may not start a line even after spaces (LB11, LB13). */
const CLOSING = new Set<LineClass>(['CL', 'EX', 'IS', 'SY', 'WJ']);
const WORDLIKE = new Set<LineClass>(['AL', 'NU', 'SA']);

/** May a line break between two adjacent non-space characters of classes `a` and `b`? */
function breaksBetween(a: LineClass, b: LineClass): boolean {
  if (NO_BREAK_BEFORE.has(b) || NO_BREAK_AFTER.has(a)) return false; // LB11–14, LB19, LB21, LB22
  if (WORDLIKE.has(a) && WORDLIKE.has(b)) return false; // LB23, LB28 (SA words are split below)
  if ((a === 'AL' || a === 'NU') && b === 'OP') return false; // LB30
  if (a === 'CL' && (b === 'AL' || b === 'NU')) return false; // LB30 (closing parenthesis)
  if ((a === 'PR' && (b === 'NU' || b === 'AL' || b === 'ID')) || (a === 'NU' && (b === 'PO' || b === 'PR'))) return false; // LB24, LB25
  if ((a === 'HY' || a === 'IS' || a === 'SY') && b === 'NU') return false; // LB25: -5, 1.5, 1/2
  if (a === 'IS' && b === 'AL') return false; // LB29
  if (a === 'B2' && b === 'B2') return false; // LB17
  return true; // LB31
}

/** Segmenters are made on first use: nothing of ICU's is loaded while a Worker starts. */
const segmenters = new Map<'word' | 'grapheme', Intl.Segmenter | null>();
function segmenter(granularity: 'word' | 'grapheme'): Intl.Segmenter | null {
  if (!segmenters.has(granularity)) segmenters.set(granularity, typeof Intl !== 'undefined' && 'Segmenter' in Intl ? new Intl.Segmenter(undefined, { granularity }) : null);
  return segmenters.get(granularity)!;
}

/** Word boundaries (code-unit offsets) inside a run of Thai, Lao, Khmer or Myanmar. */
function dictionaryBreaks(run: string, offset: number, into: Set<number>) {
  const words = segmenter('word');
  if (!words) return;
  for (const { index } of words.segment(run)) if (index > 0) into.add(offset + index);
}

/**
 * The paragraph cut at every break opportunity: each segment ends where a line may end, spaces
 * after a word stay with it (they hang at the end of a line). Joined, the segments are the text.
 */
export function lineSegments(paragraph: string): string[] {
  if (!paragraph) return [''];
  const chars = [...paragraph];
  const classes: LineClass[] = [];
  for (const ch of chars) {
    const cls = classOf(ch);
    // LB9–10: a mark or joiner takes the class of its base; at the start, it is a letter.
    classes.push(cls === 'CM' || cls === 'ZWJ' ? (classes.length && classes[classes.length - 1] !== 'SP' ? classes[classes.length - 1] : 'AL') : cls);
  }
  // Dictionary breaks inside runs of SA characters (offsets in code units).
  const saBreaks = new Set<number>();
  let unit = 0;
  for (let i = 0; i < chars.length; ) {
    if (classes[i] !== 'SA') {
      unit += chars[i++].length;
      continue;
    }
    let j = i;
    let run = '';
    while (j < chars.length && classes[j] === 'SA') run += chars[j++];
    dictionaryBreaks(run, unit, saBreaks);
    unit += run.length;
    i = j;
  }

  const segments: string[] = [];
  let current = '';
  let lastNonSpace: LineClass | null = null;
  let afterSpace = false;
  let zeroWidth = false;
  let joiner = false;
  unit = 0;
  for (let i = 0; i < chars.length; i++) {
    const cls = classes[i];
    const raw = classOf(chars[i]);
    if (cls === 'SP') {
      current += chars[i];
      afterSpace = true;
    } else {
      let breakHere = false;
      if (current && lastNonSpace !== null && raw !== 'CM' && raw !== 'ZWJ' && !joiner) {
        if (zeroWidth) breakHere = true; // LB8
        else if (afterSpace) breakHere = !CLOSING.has(cls) && lastNonSpace !== 'OP'; // LB18, but LB11–14 hold across spaces
        else if (cls === 'SA' && lastNonSpace === 'SA') breakHere = saBreaks.has(unit);
        else breakHere = breaksBetween(lastNonSpace, cls);
      }
      if (breakHere) {
        segments.push(current);
        current = '';
      }
      current += chars[i];
      lastNonSpace = cls;
      afterSpace = false;
      zeroWidth = cls === 'ZW';
      joiner = raw === 'ZWJ'; // LB8a: emoji sequences hold together
    }
    unit += chars[i].length;
  }
  segments.push(current);
  return segments;
}

/**
 * Code units handed to the segmenter at once. Each segment V8 makes holds its own copy of the
 * input: segmenting 30,000 characters whole made 0.9 GB of them (Node), and a 100,000-character
 * text from a shopper killed the runtime (fuzz2).
 */
const SEGMENT_WINDOW = 1024;

/** The text as a reader counts characters: grapheme clusters (a base with its marks, an emoji sequence). */
export function clusters(text: string): string[] {
  const graphemes = segmenter('grapheme');
  if (!graphemes) return [...text];
  const out: string[] = [];
  // Window by window, each starting where a cluster starts: the last cluster of a window may go on
  // past it, so it is found again at the start of the next (from a cluster boundary the segmenter
  // finds the same clusters: regional-indicator pairs and emoji sequences look back only within one).
  for (let from = 0, window = SEGMENT_WINDOW; from < text.length; ) {
    // Never between the two halves of a surrogate pair (a lone half would end the cluster before it).
    const end = from + window < text.length && /[\ud800-\udbff]/.test(text[from + window - 1]) ? from + window - 1 : from + window;
    const piece = text.slice(from, end);
    const parts = [...graphemes.segment(piece)].map((g) => g.segment);
    const ends = from + piece.length >= text.length;
    if (!ends && parts.length === 1) {
      window *= 2; // one cluster fills the window (a base with a thousand marks): look further
      continue;
    }
    const kept = ends ? parts.length : parts.length - 1;
    for (let i = 0; i < kept; i++) {
      out.push(parts[i]);
      from += parts[i].length;
    }
    window = SEGMENT_WINDOW;
  }
  return out;
}
