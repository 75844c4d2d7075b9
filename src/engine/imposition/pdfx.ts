/**
 * Imposed sheets as PDF/X when their inputs are (issues 20, 24). The inputs decide: every input
 * carries a `/GTS_PDFX` output intent for the same print condition (identifier and profile bytes)
 * and names its version in `GTS_PDFXVersion`; the sheets are then PDF/X-1a when every input is,
 * else PDF/X-4 (X-4 takes X-1a and X-3 content as it is; X-4 content with transparency cannot
 * become X-1a). Anything else gives plain sheets, with the reason when some input was PDF/X.
 * The identification (information keys, XMP) comes from src/engine/pdf/pdfx.ts, as the
 * renderer writes it; here it is put into pdf-lib's objects.
 */
import { PDFArray, PDFDict, PDFDocument, PDFHexString, PDFName, PDFNumber, PDFRawStream, PDFRef, PDFString, type PDFObject } from 'pdf-lib';
import { PDFX, pdfxInfo, pdfxXmp, type PdfxMeta } from '../pdf/pdfx';
import { toPdfLib, withPdfHeader } from '../pdf/pdf-lib-values';
import { fnv1a32 } from '../hash';
import { str } from '../pdf/writer';

export type SheetFormat = keyof typeof PDFX;

/** What one input says about PDF/X: its output intent (a key for comparing) and version. */
export interface InputConformance {
  /** Identifier and profile of its `/GTS_PDFX` output intent; null when it has none. */
  intent: string | null;
  /** `GTS_PDFXVersion` from its information dictionary; null when absent. */
  version: string | null;
}

const text = (o: PDFObject | undefined): string | null => (o instanceof PDFString || o instanceof PDFHexString ? o.decodeText() : null);

/** Reads an input's output intent and PDF/X version. */
export function inputConformance(src: PDFDocument): InputConformance {
  // Lenient reads: a malformed entry means "not PDF/X", not an unreadable input.
  const deref = (o: PDFObject | undefined) => (o instanceof PDFRef ? src.context.lookup(o) : o);
  let intent: string | null = null;
  const intents = deref(src.catalog.get(PDFName.of('OutputIntents')));
  for (let i = 0; intents instanceof PDFArray && i < intents.size(); i++) {
    const d = deref(intents.get(i));
    if (!(d instanceof PDFDict) || d.get(PDFName.of('S')) !== PDFName.of('GTS_PDFX')) continue;
    const profile = deref(d.get(PDFName.of('DestOutputProfile')));
    const bytes = profile instanceof PDFRawStream ? profile.contents : new Uint8Array(0);
    intent = `${text(d.get(PDFName.of('OutputConditionIdentifier'))) ?? ''}|${bytes.length}|${fnv1a32(bytes).toString(16)}`;
    break;
  }
  const info = deref(src.context.trailerInfo.Info);
  return { intent, version: info instanceof PDFDict ? text(info.get(PDFName.of('GTS_PDFXVersion'))) : null };
}


const formatOf = (version: string): SheetFormat | null => (/^PDF\/X-1a/.test(version) ? 'PdfX1a' : /^PDF\/X-(3|4)(:|$)/.test(version) ? 'PdfX4' : null);

/**
 * The sheets' format from the inputs (in input order, `names` for the reason): PDF/X-4, PDF/X-1a,
 * or plain (`format: null`) with a sentence saying why when some input was PDF/X.
 */
export function sheetFormat(inputs: Array<InputConformance & { name: string }>): { format: SheetFormat | null; reason?: string } {
  const pdfx = inputs.filter((i) => i.intent && i.version);
  if (!pdfx.length) return { format: null };
  const plain = (why: string) => ({ format: null, reason: `The sheets are plain PDF, not PDF/X: ${why}.` });
  const notX = inputs.find((i) => !i.intent || !i.version);
  if (notX) return plain(`${notX.name} is not PDF/X`);
  const other = inputs.find((i) => i.intent !== inputs[0]!.intent);
  if (other) return plain(`${other.name} is for another print condition (output intent) than ${inputs[0]!.name}`);
  const formats = inputs.map((i) => ({ name: i.name, version: i.version!, format: formatOf(i.version!) }));
  const unknown = formats.find((f) => !f.format);
  if (unknown) return plain(`${unknown.name} is ${unknown.version}, which imposition does not write`);
  return { format: formats.every((f) => f.format === 'PdfX1a') ? 'PdfX1a' : 'PdfX4' };
}

/**
 * Makes `doc` PDF/X of `format`: the information keys and the same facts as XMP (`/Metadata`,
 * uncompressed), the trailer's `/ID` (required), and TrimBox = BleedBox = MediaBox on every page: a press sheet is not cut to a finished size, so
 * its trim is the whole sheet (as Imposition Wizard and Quite Imposing write their sheets); the
 * items' own trims are marked by the crop marks. The output intent is already the inputs'.
 * Returns whether object streams are allowed (not in PDF/X-1a, which is PDF 1.4); the saved
 * file then goes through `withPdfxHeader`.
 */
export function markPdfx(doc: PDFDocument, format: SheetFormat, meta: Omit<PdfxMeta, 'format'>): { useObjectStreams: boolean } {
  const full: PdfxMeta = { ...meta, format };
  const info = doc.context.lookup(doc.context.trailerInfo.Info, PDFDict);
  for (const [key, value] of Object.entries(pdfxInfo(full))) if (value !== undefined) info.set(PDFName.of(key), toPdfLib(doc.context, value, { strings: 'literal' }));
  // XMP's CreatorTool is the producer: Creator must agree (preflight compares the two).
  info.set(PDFName.of('Creator'), toPdfLib(doc.context, str(meta.producer), { strings: 'literal' }));
  const xmp = doc.context.stream(new TextEncoder().encode(pdfxXmp(full)), { Type: 'Metadata', Subtype: 'XML' });
  doc.catalog.set(PDFName.of('Metadata'), doc.context.register(xmp));
  const id = PDFHexString.of(meta.documentId.replace(/-/g, ''));
  doc.context.trailerInfo.ID = doc.context.obj([id, id]);
  for (const page of doc.getPages()) {
    const { x, y, width, height } = page.getMediaBox();
    page.setTrimBox(x, y, width, height);
    page.setBleedBox(x, y, width, height);
  }
  return { useObjectStreams: format !== 'PdfX1a' };
}

/** The saved file with the header version `format` is based on (1.6 for X-4, 1.4 for X-1a). */
export const withPdfxHeader = (bytes: Uint8Array, format: SheetFormat): Uint8Array => withPdfHeader(bytes, PDFX[format].pdf);

/** Colour components of `doc`'s output intent profile (`/N`): 4 CMYK, 3 RGB, 1 grey; null without one. */
export function outputIntentChannels(doc: PDFDocument): number | null {
  const deref = (o: PDFObject | undefined) => (o instanceof PDFRef ? doc.context.lookup(o) : o);
  const intents = deref(doc.catalog.get(PDFName.of('OutputIntents')));
  const intent = intents instanceof PDFArray && intents.size() ? deref(intents.get(0)) : undefined;
  const profile = intent instanceof PDFDict ? deref(intent.get(PDFName.of('DestOutputProfile'))) : undefined;
  const n = profile instanceof PDFRawStream ? profile.dict.get(PDFName.of('N')) : undefined;
  return n instanceof PDFNumber ? n.asNumber() : null;
}
