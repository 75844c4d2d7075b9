/**
 * The slug line's embedded font (PDF/X forbids unembedded fonts, and plain sheets are better for
 * it too): the bundled Latin-1 DejaVu Sans (slug-font.ts), subset to the glyphs the sheets' slug
 * lines use and embedded once as a Type0 / CIDFontType2 font with Identity-H and a ToUnicode
 * map (src/engine/pdf/pdf-lib-font.ts, as print products embed theirs), so pdftotext reads the
 * lines back. Nothing here loads a WASM module (no shaper: Latin-1 maps one glyph a character).
 */
import type { PDFDocument, PDFRef } from 'pdf-lib';
import { openEmbeddable } from '../pdf/font-subset';
import { type0Font } from '../pdf/pdf-lib-font';
import { hex4 } from '../pdf/to-unicode';
import { slugFontBytes } from './slug-font';

export interface SlugFont {
  ref: PDFRef;
  /** `text` as a hex string operand for `Tj` (characters the font lacks are shown as `?`). */
  show(text: string): string;
}

/** Embeds the font with the glyphs of `texts` (every line the sheets will show). */
export function embedSlugFont(doc: PDFDocument, texts: string[]): SlugFont {
  const font = openEmbeddable(slugFontBytes());
  if (!font) throw new Error('the bundled slug font cannot be embedded');
  const question = font.glyphOf(0x3f);
  const glyphs = (text: string) => [...text].map((ch) => font.glyphOf(ch.codePointAt(0)!) || question);
  const used = new Map<number, string>();
  for (const text of texts) for (const ch of text) used.set(font.glyphOf(ch.codePointAt(0)!) || question, font.glyphOf(ch.codePointAt(0)!) ? ch : '?');
  const ref = doc.context.register(type0Font(doc.context, { font, used, fontName: `SLUGAA+${font.postscriptName ?? 'DejaVuSans'}`, flags: 32 /* nonsymbolic: Latin text */ }));
  return { ref, show: (text) => `<${glyphs(text).map(hex4).join('')}>` };
}
