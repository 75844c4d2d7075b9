/**
 * Barcode encoding with bwip-js (BWIPP, platform-independent build): a value → the symbol's bars
 * or module polygons in its own units (y down). Kept apart from the drawing (barcode.ts) so the
 * model schema can check values without an import cycle.
 */
import * as bwip from 'bwip-js/generic';

export const BARCODE_FORMATS = ['QrCode', 'Code128', 'Ean13', 'UpcA', 'DataMatrix'] as const;
export type BarcodeFormat = (typeof BARCODE_FORMATS)[number];
export const ERROR_CORRECTION = ['L', 'M', 'Q', 'H'] as const;

const BCID: Record<BarcodeFormat, string> = { QrCode: 'qrcode', Code128: 'code128', Ean13: 'ean13', UpcA: 'upca', DataMatrix: 'datamatrix' };
export const QUIET: Record<BarcodeFormat, number> = { QrCode: 4, Code128: 10, Ean13: 10, UpcA: 10, DataMatrix: 1 };
export const TWO_D = new Set<BarcodeFormat>(['QrCode', 'DataMatrix']);

/**
 * The symbol in modules: dark rectangles (1-D: one per bar, full height; 2-D: one per run of
 * dark modules in a row), with the symbol's size in modules (`rows` is 1 for 1-D codes).
 */
export interface Symbol {
  columns: number;
  rows: number;
  rects: Array<{ x: number; y: number; width: number; height: number }>;
}

interface Raw {
  sbs?: number[];
  pixs?: number[];
  pixx?: number;
  pixy?: number;
}

/** Encodes `value`; throws an Error saying what is wrong with it (check digit, characters, length). */
export function encodeBarcode(format: BarcodeFormat, value: string, errorCorrection: (typeof ERROR_CORRECTION)[number] = 'M'): Symbol {
  const options: Record<string, unknown> = { bcid: BCID[format], text: value };
  if (format === 'QrCode') options.eclevel = errorCorrection;
  let raw: Raw;
  try {
    // The default export's raw() is BWIPP's encoder output (bar widths, module matrix).
    [raw] = (bwip as unknown as { default: { raw(o: Record<string, unknown>): Raw[] } }).default.raw(options);
  } catch (e) {
    // BWIPP errors read "bwipp.ean13badCheckDigit: Incorrect EAN-13 check digit provided".
    const message = String((e as Error)?.message ?? e).replace(/^bwipp\.\w+:\s*/, '');
    throw new Error(`not a valid ${format} value: ${message}`);
  }
  const rects: Symbol['rects'] = [];
  if (raw.sbs) {
    let x = 0;
    raw.sbs.forEach((w, i) => {
      if (i % 2 === 0) rects.push({ x, y: 0, width: w, height: 1 });
      x += w;
    });
    return { columns: x, rows: 1, rects };
  }
  const cols = raw.pixx ?? 0;
  const rows = raw.pixy ?? 0;
  const pix = raw.pixs ?? [];
  for (let y = 0; y < rows; y++) {
    for (let x = 0; x < cols; ) {
      if (!pix[y * cols + x]) {
        x++;
        continue;
      }
      let end = x;
      while (end < cols && pix[y * cols + end]) end++;
      rects.push({ x, y, width: end - x, height: 1 });
      x = end;
    }
  }
  return { columns: cols, rows, rects };
}
