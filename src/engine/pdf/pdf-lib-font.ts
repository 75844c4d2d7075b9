/**
 * A TrueType subset as a pdf-lib Type0 / CIDFontType2 font (Identity-H, FontFile2, widths, and a
 * ToUnicode map), for the PDFs pdf-lib writes (print products, imposed sheets); our own writer's
 * fonts are src/engine/pdf/text.ts. Plain code: no WASM module comes with it.
 */
import { PDFString, type PDFContext, type PDFDict } from 'pdf-lib';
import { descriptorMetrics, subsetTrueType, type SfntFont } from './font-subset';
import { toUnicodeCMap } from './to-unicode';

export interface Type0FontOptions {
  font: SfntFont;
  /** Glyph id → the characters it stands for (the glyphs to keep). */
  used: Map<number, string>;
  /** The font's name in the PDF, with its subset tag (`ABCDEF+Name`). */
  fontName: string;
  /** FontDescriptor flags (ISO 32000-1 §9.8.2): 32 nonsymbolic, 4 symbolic. */
  flags: number;
}

/** The Type0 font dictionary, its parts registered in `context` (register or assign the dictionary itself). */
export function type0Font(context: PDFContext, { font, used, fontName, flags }: Type0FontOptions): PDFDict {
  const gids = [...used.keys()].sort((a, b) => a - b);
  const scale = 1000 / font.unitsPerEm;
  const program = subsetTrueType(font, gids);
  const file = context.register(context.flateStream(program, { Length1: program.length }));
  const descriptor = context.register(
    context.obj({
      Type: 'FontDescriptor',
      FontName: fontName,
      Flags: flags,
      ...descriptorMetrics(font),
      FontFile2: file,
    }),
  );
  const cid = context.register(
    context.obj({
      Type: 'Font',
      Subtype: 'CIDFontType2',
      BaseFont: fontName,
      CIDSystemInfo: { Registry: PDFString.of('Adobe'), Ordering: PDFString.of('Identity'), Supplement: 0 },
      FontDescriptor: descriptor,
      W: gids.flatMap((g) => [g, [Math.round(font.advance(g) * scale)]]),
      CIDToGIDMap: 'Identity',
    }),
  );
  const toUnicode = context.register(context.flateStream(toUnicodeCMap(used)));
  return context.obj({ Type: 'Font', Subtype: 'Type0', BaseFont: fontName, Encoding: 'Identity-H', DescendantFonts: [cid], ToUnicode: toUnicode });
}
