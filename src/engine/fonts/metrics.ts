/**
 * Horizontal metrics of a TrueType/OpenType font (head, hhea, OS/2, hmtx, cmap formats 4 and 12),
 * enough to break lines and place baselines the way Photoshop does. `advance` is a code point's
 * unshaped advance; metrics from `shapedMetrics` (shaper.ts) also measure whole runs as HarfBuzz
 * shapes them (`textAdvance`: kerning, Arabic joining, Indic conjuncts, fallback fonts per run).
 */
import { findTable } from './font-info';

export interface FontMetrics {
  unitsPerEm: number;
  /** Typographic ascender/descender in em (descender negative). */
  ascender: number;
  descender: number;
  /**
   * Top of the lowercase 'd' in em (its glyph's yMax in `glyf`): where Photoshop hangs the first
   * baseline of box text below the box top (docs/fonts.md, "Photoshop's text layout"). Undefined
   * for fonts without TrueType outlines or without a 'd'.
   */
  lowercaseAscent?: number;
  /** Advance width of a code point in em (the .notdef advance when the font lacks it). */
  advance(codePoint: number): number;
  /** True when the font maps the code point to a glyph. */
  has(codePoint: number): boolean;
  /**
   * The shaped advance of a run of text in em (one line, no letter spacing; bidi runs and
   * fallback fonts as the renderer draws them). Present on `shapedMetrics` (shaper.ts); without
   * it, sum `advance` over the code points.
   */
  textAdvance?(text: string): number;
}

const cache = new WeakMap<Uint8Array, FontMetrics>();

export function fontMetrics(bytes: Uint8Array): FontMetrics {
  const hit = cache.get(bytes);
  if (hit) return hit;
  const metrics = parse(bytes);
  cache.set(bytes, metrics);
  return metrics;
}

function parse(bytes: Uint8Array): FontMetrics {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const base = view.getUint32(0) === 0x74746366 ? view.getUint32(12) : 0;
  const table = (tag: string) => {
    const t = findTable(view, tag, base);
    if (!t) throw new Error(`font has no ${tag} table`);
    return t.offset;
  };
  const head = table('head');
  const unitsPerEm = view.getUint16(head + 18) || 1000;
  const hhea = table('hhea');
  let ascender = view.getInt16(hhea + 4);
  let descender = view.getInt16(hhea + 6);
  const os2 = findTable(view, 'OS/2', base);
  if (os2 && os2.length >= 78) {
    ascender = view.getInt16(os2.offset + 68);
    descender = view.getInt16(os2.offset + 70);
  }
  const numberOfHMetrics = view.getUint16(hhea + 34);
  const hmtx = table('hmtx');
  const advanceOfGlyph = (glyph: number) => view.getUint16(hmtx + 4 * Math.min(glyph, numberOfHMetrics - 1));
  const glyphOf = cmapLookup(view, table('cmap'));
  const widths = new Map<number, number>();
  // Font fallback asks for every character of every text: format 4 lookups walk the segments.
  const covered = new Map<number, boolean>();
  const dTop = glyphTop(view, base, glyphOf(0x64));
  return {
    unitsPerEm,
    ascender: ascender / unitsPerEm,
    descender: descender / unitsPerEm,
    ...(dTop !== undefined ? { lowercaseAscent: dTop / unitsPerEm } : {}),
    has(cp) {
      let hit = covered.get(cp);
      if (hit === undefined) covered.set(cp, (hit = glyphOf(cp) !== 0));
      return hit;
    },
    advance(cp) {
      let w = widths.get(cp);
      if (w === undefined) {
        w = advanceOfGlyph(glyphOf(cp)) / unitsPerEm;
        widths.set(cp, w);
      }
      return w;
    },
  };
}

/** A glyph's yMax in font units from its `glyf` header (OpenType spec, glyf); undefined without TrueType outlines or for an empty glyph. */
function glyphTop(view: DataView, base: number, glyph: number): number | undefined {
  const [head, loca, glyf] = ['head', 'loca', 'glyf'].map((tag) => findTable(view, tag, base));
  if (!head || !loca || !glyf || glyph <= 0) return undefined;
  const long = view.getInt16(head.offset + 50) === 1;
  const at = (i: number) => (long ? view.getUint32(loca.offset + i * 4) : view.getUint16(loca.offset + i * 2) * 2);
  if ((long ? 4 : 2) * (glyph + 2) > loca.length) return undefined;
  const start = at(glyph);
  if (at(glyph + 1) <= start || start + 10 > glyf.length) return undefined;
  return view.getInt16(glyf.offset + start + 8);
}

/** The best Unicode subtable of `cmap` as a code point → glyph id function. */
export function cmapLookup(view: DataView, cmap: number): (cp: number) => number {
  const count = view.getUint16(cmap + 2);
  let format4 = -1;
  let format12 = -1;
  for (let i = 0; i < count; i++) {
    const rec = cmap + 4 + i * 8;
    const platform = view.getUint16(rec);
    const encoding = view.getUint16(rec + 2);
    const offset = cmap + view.getUint32(rec + 4);
    const unicode = platform === 0 || (platform === 3 && (encoding === 1 || encoding === 10));
    if (!unicode) continue;
    const format = view.getUint16(offset);
    if (format === 12 && format12 < 0) format12 = offset;
    if (format === 4 && format4 < 0) format4 = offset;
  }
  if (format12 >= 0) {
    const groups = view.getUint32(format12 + 12);
    return (cp) => {
      let lo = 0;
      let hi = groups - 1;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        const g = format12 + 16 + mid * 12;
        const start = view.getUint32(g);
        const end = view.getUint32(g + 4);
        if (cp < start) hi = mid - 1;
        else if (cp > end) lo = mid + 1;
        else return view.getUint32(g + 8) + (cp - start);
      }
      return 0;
    };
  }
  if (format4 >= 0) {
    const segX2 = view.getUint16(format4 + 6);
    const ends = format4 + 14;
    const starts = ends + segX2 + 2;
    const deltas = starts + segX2;
    const rangeOffsets = deltas + segX2;
    return (cp) => {
      if (cp > 0xffff) return 0;
      for (let i = 0; i < segX2; i += 2) {
        if (cp > view.getUint16(ends + i)) continue;
        const start = view.getUint16(starts + i);
        if (cp < start) return 0;
        const delta = view.getUint16(deltas + i);
        const ro = view.getUint16(rangeOffsets + i);
        if (ro === 0) return (cp + delta) & 0xffff;
        const glyph = view.getUint16(rangeOffsets + i + ro + 2 * (cp - start));
        return glyph === 0 ? 0 : (glyph + delta) & 0xffff;
      }
      return 0;
    };
  }
  return () => 0;
}

/**
 * Metrics of a font with fallbacks: each code point is measured in the first font that has it
 * (as the renderer falls back for glyphs the main font lacks); vertical metrics are the main font's.
 */
export function withFallbacks(main: FontMetrics, fallbacks: FontMetrics[]): FontMetrics {
  if (!fallbacks.length) return main;
  const all = [main, ...fallbacks];
  const pick = (cp: number) => all.find((m) => m.has(cp)) ?? main;
  return { ...main, has: (cp) => all.some((m) => m.has(cp)), advance: (cp) => pick(cp).advance(cp) };
}
