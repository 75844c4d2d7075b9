/**
 * pdf-lib's load of a PDF from outside (an upload, a URL image, a pipeline input), after the
 * decompression-bomb check: pdf-lib decodes object streams on load and page contents when it embeds
 * a page, so every stream's decoded size is bounded first (bounds.ts; an EngineError when refused).
 */
import { PDFDocument, type LoadOptions } from 'pdf-lib';
import { checkPdfDecodedSizes, PDF_LIB_DECODE_LIMITS } from './bounds';

export async function loadCheckedPdf(bytes: Uint8Array, options?: LoadOptions): Promise<PDFDocument> {
  checkPdfDecodedSizes(bytes, PDF_LIB_DECODE_LIMITS);
  return PDFDocument.load(bytes, options);
}
