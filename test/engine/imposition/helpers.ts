// Helpers of the imposition tests: a business-card PDF with bleed, and the placements
// (`q <matrix> cm /Name Do Q`) read back from a sheet's content stream.
import { PDFDocument, PDFRawStream, decodePDFRawStream, rgb, type PDFPage } from 'pdf-lib';
import { PT_PER } from '../../../src/engine/imposition/units';

export const MM = PT_PER.mm;

/** A business card: 85 × 55 mm trim, 3 mm bleed (MediaBox = BleedBox), `label` in its corner. */
export async function card(label = 'A', opts: { bleed?: number; width?: number; height?: number; pages?: number } = {}): Promise<Uint8Array> {
  const bleed = (opts.bleed ?? 3) * MM;
  const w = (opts.width ?? 85) * MM;
  const h = (opts.height ?? 55) * MM;
  const doc = await PDFDocument.create();
  for (let i = 0; i < (opts.pages ?? 1); i++) {
    const page = doc.addPage([w + 2 * bleed, h + 2 * bleed]);
    page.setBleedBox(0, 0, w + 2 * bleed, h + 2 * bleed);
    page.setTrimBox(bleed, bleed, w, h);
    page.drawRectangle({ x: 0, y: 0, width: w + 2 * bleed, height: h + 2 * bleed, color: rgb(0.8, 0.9, 1) });
    page.drawText(`${label}${i}`, { x: bleed + 10, y: bleed + 10, size: 12 });
  }
  return doc.save();
}

export function contentOf(page: PDFPage): string {
  const c = page.node.Contents();
  const streams = c && 'size' in c ? Array.from({ length: (c as { size(): number }).size() }, (_, i) => page.doc.context.lookup((c as unknown as { get(i: number): never }).get(i))) : [c];
  return streams
    .map((s) => (s instanceof PDFRawStream ? new TextDecoder('latin1').decode(decodePDFRawStream(s).decode()) : ''))
    .join('\n');
}

/** The `q a b c d e f cm /Name Do Q` placements of a page. */
export function placements(page: PDFPage): Array<{ m: number[]; name: string }> {
  return [...contentOf(page).matchAll(/q ([-\d. ]+) cm (\/\S+) Do Q/g)].map((x) => ({ m: x[1]!.trim().split(' ').map(Number), name: x[2]! }));
}

