/**
 * Values of the engine's own PDF writer (src/engine/pdf/writer.ts) as pdf-lib objects, and the
 * header version pdf-lib cannot set: the PDF/X pieces of pdfx.ts (output intent, information
 * keys) are built once and serve both our streaming writer and the pdf-lib documents (print
 * products, imposed sheets). Plain TypeScript on pdf-lib: no WASM to initialise.
 */
import { PDFArray, PDFBool, PDFDict, PDFHexString, PDFName, PDFNull, PDFNumber, PDFString, type PDFContext, type PDFObject, type PDFRef } from 'pdf-lib';
import { PdfName, PdfRaw, PdfRef, PdfString, type PdfValue } from './writer';

export interface PdfLibValueOptions {
  /** Our writer's references (placeholders) → the pdf-lib objects they stand for. */
  refs?: Map<PdfRef, PDFRef>;
  /**
   * Text strings: `hex` (default) always as hex UTF-16 with a byte-order mark; `literal` as our
   * writer writes them: printable ASCII as an escaped literal `( … )`, anything else hex UTF-16.
   */
  strings?: 'hex' | 'literal';
}

/** pdf-lib writes a literal string's value as given, so `\`, `(` and `)` are escaped here. */
function textString(value: string, strings: PdfLibValueOptions['strings']): PDFObject {
  if (strings === 'literal' && /^[\x20-\x7e]*$/.test(value)) return PDFString.of(value.replace(/[\\()]/g, (m) => `\\${m}`));
  return PDFHexString.fromText(value);
}

/** `v` as a pdf-lib object of `context` (dictionaries drop undefined entries, as our writer does). */
export function toPdfLib(context: PDFContext, v: PdfValue, opts: PdfLibValueOptions = {}): PDFObject {
  if (v instanceof PdfRef) {
    const ref = opts.refs?.get(v);
    if (!ref) throw new Error(`toPdfLib: no pdf-lib object for reference ${v.num}`);
    return ref;
  }
  if (v instanceof PdfName) return PDFName.of(v.name);
  if (v instanceof PdfString) return textString(v.value, opts.strings);
  // Raw content is our writer's syntax, which pdf-lib cannot take as an object.
  if (v instanceof PdfRaw) throw new Error('toPdfLib: raw PDF syntax has no pdf-lib object');
  if (v === null) return PDFNull;
  if (typeof v === 'boolean') return v ? PDFBool.True : PDFBool.False;
  if (typeof v === 'number') return PDFNumber.of(v);
  if (Array.isArray(v)) {
    const array = PDFArray.withContext(context);
    for (const item of v) array.push(toPdfLib(context, item, opts));
    return array;
  }
  const dict = PDFDict.withContext(context);
  for (const [key, value] of Object.entries(v)) if (value !== undefined) dict.set(PDFName.of(key), toPdfLib(context, value, opts));
  return dict;
}

/**
 * The saved file with `%PDF-<version>` as its header, in place: pdf-lib always writes
 * `%PDF-1.7`, and PDF/X preflights reject a header newer than the standard's base (1.6 for X-4,
 * 1.4 for X-1a). Same length, so no offset moves.
 */
export function withPdfHeader(bytes: Uint8Array, version: `1.${number}`): Uint8Array {
  const header = new TextEncoder().encode(`%PDF-${version}`);
  if (new TextDecoder().decode(bytes.subarray(0, 5)) !== '%PDF-' || header.length !== 8) throw new Error('unexpected PDF header');
  bytes.set(header, 0);
  return bytes;
}
