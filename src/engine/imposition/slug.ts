/**
 * The slug line's embedded font (PDF/X forbids unembedded fonts, and plain sheets are better for
 * it too): the bundled Latin-1 DejaVu Sans (slug-font.ts), subset to the glyphs the sheets' slug
 * lines use and embedded once as a Type0 / CIDFontType2 font with Identity-H and a ToUnicode
 * map, as the renderer embeds text (src/engine/pdf/text.ts), so pdftotext reads the lines back.
 * The map is written here: text.ts's toUnicodeCMap would bring the HarfBuzz shaper (a WASM
 * module) into src/engine/imposition, which otherwise needs pdf-lib and plain code only.
 */
import { PDFString, type PDFDocument, type PDFRef } from 'pdf-lib';
import { openEmbeddable, subsetTrueType } from '../pdf/font-subset';
import { slugFontBytes } from './slug-font';

export interface SlugFont {
  ref: PDFRef;
  /** `text` as a hex string operand for `Tj` (characters the font lacks are shown as `?`). */
  show(text: string): string;
}

const hex4 = (n: number) => n.toString(16).padStart(4, '0').toUpperCase();

/** Embeds the font with the glyphs of `texts` (every line the sheets will show). */
export function embedSlugFont(doc: PDFDocument, texts: string[]): SlugFont {
  const font = openEmbeddable(slugFontBytes());
  if (!font) throw new Error('the bundled slug font cannot be embedded');
  const question = font.glyphOf(0x3f);
  const glyphs = (text: string) => [...text].map((ch) => font.glyphOf(ch.codePointAt(0)!) || question);
  const used = new Map<number, string>();
  for (const text of texts) for (const ch of text) used.set(font.glyphOf(ch.codePointAt(0)!) || question, font.glyphOf(ch.codePointAt(0)!) ? ch : '?');
  const gids = [...used.keys()].sort((a, b) => a - b);
  const scale = 1000 / font.unitsPerEm;
  const fontName = `SLUGAA+${font.postscriptName ?? 'DejaVuSans'}`;
  const ctx = doc.context;
  const program = subsetTrueType(font, gids);
  const file = ctx.register(ctx.flateStream(program, { Length1: program.length }));
  const descriptor = ctx.register(
    ctx.obj({
      Type: 'FontDescriptor',
      FontName: fontName,
      Flags: 32, // nonsymbolic: Latin text
      FontBBox: font.bbox.map((v) => Math.round(v * scale)),
      ItalicAngle: font.italicAngle,
      Ascent: Math.round(font.ascender * scale),
      Descent: Math.round(font.descender * scale),
      CapHeight: Math.round(font.ascender * scale),
      StemV: 80,
      FontFile2: file,
    }),
  );
  const cid = ctx.register(
    ctx.obj({
      Type: 'Font',
      Subtype: 'CIDFontType2',
      BaseFont: fontName,
      CIDSystemInfo: { Registry: PDFString.of('Adobe'), Ordering: PDFString.of('Identity'), Supplement: 0 },
      FontDescriptor: descriptor,
      W: gids.flatMap((g) => [g, [Math.round(font.advance(g) * scale)]]),
      CIDToGIDMap: 'Identity',
    }),
  );
  const toUnicode = ctx.register(ctx.flateStream(toUnicodeCMap(used)));
  const ref = ctx.register(ctx.obj({ Type: 'Font', Subtype: 'Type0', BaseFont: fontName, Encoding: 'Identity-H', DescendantFonts: [cid], ToUnicode: toUnicode }));
  return { ref, show: (text) => `<${glyphs(text).map(hex4).join('')}>` };
}

/** ToUnicode CMap (Adobe Technical Note #5411) of one character per glyph (Latin-1: one UTF-16 unit). */
function toUnicodeCMap(used: Map<number, string>): string {
  const entries = [...used].map(([gid, ch]) => `<${hex4(gid)}> <${hex4(ch.charCodeAt(0))}>`);
  return [
    '/CIDInit /ProcSet findresource begin 12 dict begin begincmap',
    '/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def',
    '/CMapName /Adobe-Identity-UCS def /CMapType 2 def',
    '1 begincodespacerange <0000> <FFFF> endcodespacerange',
    `${entries.length} beginbfchar`,
    ...entries,
    'endbfchar',
    'endcmap CMapName currentdict /CMap defineresource pop end end',
  ].join('\n');
}
