/**
 * TrueType subsets for PDF embedding (ISO 32000-1 §9.9, FontFile2 of a CIDFontType2 with
 * CIDToGIDMap /Identity): glyph ids stay as they are, glyphs not used (nor referenced by a used
 * composite glyph) become empty, and only the tables a PDF reader needs are kept (head, hhea,
 * maxp, hmtx, loca, glyf, cvt, fpgm, prep). CFF-flavoured fonts are not subset (callers fall
 * back to outlines).
 *
 * Licensing: OS/2 `fsType` (OpenType spec, OS/2 table) bit 1 (restricted licence), bit 9
 * (bitmap embedding only) or bit 8 (no subsetting) forbid what we do; such fonts are not embedded.
 */
import { findTable } from '../fonts/font-info';
import { cmapLookup } from '../fonts/metrics';
import { fnv1a32 } from '../hash';

export interface SfntFont {
  view: DataView;
  /** Offset of the table directory (0, or the first face of a collection). */
  base: number;
  unitsPerEm: number;
  numGlyphs: number;
  glyphOf(codePoint: number): number;
  /** Advance of a glyph in font units. */
  advance(gid: number): number;
  bbox: [number, number, number, number];
  ascender: number;
  descender: number;
  italicAngle: number;
  postscriptName?: string;
}

const KEEP = ['head', 'hhea', 'maxp', 'hmtx', 'cvt ', 'fpgm', 'prep'];

/** Null when the font is not a glyf-based TrueType font whose licence allows embedding a subset. */
export function openEmbeddable(bytes: Uint8Array): SfntFont | null {
  try {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const base = view.getUint32(0) === 0x74746366 ? view.getUint32(12) : 0;
    const t = (tag: string) => findTable(view, tag, base);
    const [head, hhea, maxp, hmtx, cmap, loca, glyf] = ['head', 'hhea', 'maxp', 'hmtx', 'cmap', 'loca', 'glyf'].map(t);
    if (!head || !hhea || !maxp || !hmtx || !cmap || !loca || !glyf) return null;
    const os2 = t('OS/2');
    const fsType = os2 ? view.getUint16(os2.offset + 8) : 0;
    if (fsType & (0x0002 | 0x0100 | 0x0200)) return null;
    const numGlyphs = view.getUint16(maxp.offset + 4);
    const numHMetrics = view.getUint16(hhea.offset + 34);
    const post = t('post');
    return {
      view,
      base,
      unitsPerEm: view.getUint16(head.offset + 18) || 1000,
      numGlyphs,
      glyphOf: cmapLookup(view, cmap.offset),
      advance: (gid) => view.getUint16(hmtx.offset + 4 * Math.min(gid, numHMetrics - 1)),
      bbox: [36, 38, 40, 42].map((o) => view.getInt16(head.offset + o)) as [number, number, number, number],
      ascender: view.getInt16(hhea.offset + 4),
      descender: view.getInt16(hhea.offset + 6),
      italicAngle: post ? view.getInt32(post.offset + 4) / 65536 : 0,
      postscriptName: psName(view, t('name')?.offset),
    };
  } catch {
    return null;
  }
}

function psName(view: DataView, name: number | undefined): string | undefined {
  if (name === undefined) return undefined;
  const count = view.getUint16(name + 2);
  const strings = name + view.getUint16(name + 4);
  for (let i = 0; i < count; i++) {
    const rec = name + 6 + i * 12;
    if (view.getUint16(rec + 6) !== 6) continue;
    const platform = view.getUint16(rec);
    const len = view.getUint16(rec + 8);
    const off = strings + view.getUint16(rec + 10);
    let s = '';
    if (platform === 1) for (let k = 0; k < len; k++) s += String.fromCharCode(view.getUint8(off + k));
    else for (let k = 0; k + 1 < len; k += 2) s += String.fromCharCode(view.getUint16(off + k));
    if (s) return s.replace(/[^\x21-\x7e]|[[\](){}<>/%]/g, '');
  }
  return undefined;
}

function glyphRange(font: SfntFont, gid: number): [number, number] {
  const { view, base } = font;
  const head = findTable(view, 'head', base)!.offset;
  const loca = findTable(view, 'loca', base)!.offset;
  const long = view.getInt16(head + 50) === 1;
  return long
    ? [view.getUint32(loca + gid * 4), view.getUint32(loca + gid * 4 + 4)]
    : [view.getUint16(loca + gid * 2) * 2, view.getUint16(loca + gid * 2 + 2) * 2];
}

/** Component glyph ids of a composite glyph (glyf spec: flags ARG_1_AND_2_ARE_WORDS, scales, MORE_COMPONENTS). */
function components(font: SfntFont, glyf: number, gid: number): number[] {
  const [start, end] = glyphRange(font, gid);
  if (end <= start) return [];
  const v = font.view;
  let p = glyf + start;
  if (v.getInt16(p) >= 0) return [];
  p += 10;
  const out: number[] = [];
  for (;;) {
    const flags = v.getUint16(p);
    out.push(v.getUint16(p + 2));
    p += 4 + (flags & 0x0001 ? 4 : 2);
    if (flags & 0x0008) p += 2;
    else if (flags & 0x0040) p += 4;
    else if (flags & 0x0080) p += 8;
    if (!(flags & 0x0020)) return out;
  }
}

const checksum = (b: Uint8Array): number => {
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  let sum = 0;
  for (let i = 0; i + 4 <= b.length; i += 4) sum = (sum + v.getUint32(i)) >>> 0;
  const rest = b.length % 4;
  if (rest) {
    let last = 0;
    for (let i = 0; i < 4; i++) last = (last << 8) | (i < rest ? b[b.length - rest + i] : 0);
    sum = (sum + (last >>> 0)) >>> 0;
  }
  return sum;
};

/** A new sfnt keeping `gids` (plus .notdef and composite components), glyph ids unchanged. */
export function subsetTrueType(font: SfntFont, gids: Iterable<number>): Uint8Array {
  const { view, base } = font;
  const glyf = findTable(view, 'glyf', base)!.offset;
  const keep = new Set<number>([0]);
  const queue = [...gids];
  while (queue.length) {
    const g = queue.pop()!;
    if (g >= font.numGlyphs || keep.has(g)) continue;
    keep.add(g);
    queue.push(...components(font, glyf, g));
  }
  // glyf and a long-format loca with the kept glyphs' data, 4-byte aligned.
  const pieces: Uint8Array[] = [];
  const loca = new DataView(new ArrayBuffer((font.numGlyphs + 1) * 4));
  let at = 0;
  for (let g = 0; g < font.numGlyphs; g++) {
    loca.setUint32(g * 4, at);
    if (!keep.has(g)) continue;
    const [s, e] = glyphRange(font, g);
    if (e <= s) continue;
    const data = new Uint8Array(view.buffer, view.byteOffset + glyf + s, e - s);
    const padded = new Uint8Array((data.length + 3) & ~3);
    padded.set(data);
    pieces.push(padded);
    at += padded.length;
  }
  loca.setUint32(font.numGlyphs * 4, at);
  const glyfBytes = new Uint8Array(at);
  let o = 0;
  for (const p of pieces) {
    glyfBytes.set(p, o);
    o += p.length;
  }

  const tables = new Map<string, Uint8Array>();
  for (const tag of KEEP) {
    const t = findTable(view, tag, base);
    if (t) tables.set(tag, new Uint8Array(view.buffer, view.byteOffset + t.offset, t.length).slice());
  }
  const head = tables.get('head')!;
  const hv = new DataView(head.buffer, head.byteOffset, head.byteLength);
  hv.setUint32(8, 0); // checkSumAdjustment, set below
  hv.setInt16(50, 1); // indexToLocFormat: long
  tables.set('loca', new Uint8Array(loca.buffer));
  tables.set('glyf', glyfBytes);

  const tags = [...tables.keys()].sort();
  const n = tags.length;
  const entrySelector = Math.floor(Math.log2(n));
  const searchRange = 2 ** entrySelector * 16;
  let offset = 12 + n * 16;
  const size = offset + tags.reduce((s, t) => s + ((tables.get(t)!.length + 3) & ~3), 0);
  const out = new Uint8Array(size);
  const ov = new DataView(out.buffer);
  ov.setUint32(0, 0x00010000);
  ov.setUint16(4, n);
  ov.setUint16(6, searchRange);
  ov.setUint16(8, entrySelector);
  ov.setUint16(10, n * 16 - searchRange);
  let headAt = 0;
  tags.forEach((tag, i) => {
    const data = tables.get(tag)!;
    const rec = 12 + i * 16;
    for (let k = 0; k < 4; k++) ov.setUint8(rec + k, tag.charCodeAt(k));
    ov.setUint32(rec + 4, checksum(data));
    ov.setUint32(rec + 8, offset);
    ov.setUint32(rec + 12, data.length);
    out.set(data, offset);
    if (tag === 'head') headAt = offset;
    offset += (data.length + 3) & ~3;
  });
  ov.setUint32(headAt + 8, (0xb1b0afba - checksum(out)) >>> 0);
  return out;
}

/**
 * A subset's PDF font name, `ABCDEF+PostScriptName`: the tag is six capitals hashed from the font
 * and the glyphs kept (ISO 32000-1 §9.6.4), so equal subsets get equal names; `key` is what the
 * tag is hashed from (a document's fonts are told apart by it).
 */
export function subsetFontName(font: SfntFont, bytes: Uint8Array, gids: readonly number[]): { fontName: string; tag: string; key: string } {
  const base = font.postscriptName ?? 'Font';
  const key = `${base}:${bytes.length}:${gids.join(',')}`;
  let h = fnv1a32(key);
  let tag = '';
  for (let i = 0; i < 6; i++, h = Math.floor(h / 26)) tag += String.fromCharCode(65 + (h % 26));
  return { fontName: `${tag}+${base}`, tag, key };
}

/** The FontDescriptor's metrics of `font`, in 1/1000 em (ISO 32000-1 §9.8.1). */
export function descriptorMetrics(font: SfntFont) {
  const scale = 1000 / font.unitsPerEm;
  return {
    FontBBox: font.bbox.map((v) => Math.round(v * scale)),
    ItalicAngle: font.italicAngle,
    Ascent: Math.round(font.ascender * scale),
    Descent: Math.round(font.descender * scale),
    CapHeight: Math.round(font.ascender * scale),
    StemV: 80,
  };
}
