/**
 * Barcode encoding with bwip-js (BWIPP, platform-independent build): a value → the symbol's bars
 * or runs of dark modules in module units (y down). Used by the design atoms' Barcode item
 * (src/engine/print-product/barcode.ts) and the Dynamic Image `barcode` command
 * (engine/personalise), which both draw it as vectors.
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

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * The dark rectangles of a symbol in a box (box units, y down): 1-D codes stretch their bars over
 * the box's height with the quiet zone on both sides; 2-D codes keep square modules, the symbol
 * and its quiet zone centred. Throws on a value the format cannot encode.
 */
export function barcodeRects(format: BarcodeFormat, value: string, errorCorrection: (typeof ERROR_CORRECTION)[number], box: Rect): Rect[] {
  const sym = encodeBarcode(format, value, errorCorrection);
  const q = QUIET[format];
  if (TWO_D.has(format)) {
    const unit = Math.min(box.width / (sym.columns + 2 * q), box.height / (sym.rows + 2 * q));
    const ox = box.x + (box.width - sym.columns * unit) / 2;
    const oy = box.y + (box.height - sym.rows * unit) / 2;
    return sym.rects.map((r) => ({ x: ox + r.x * unit, y: oy + r.y * unit, width: r.width * unit, height: r.height * unit }));
  }
  const unit = box.width / (sym.columns + 2 * q);
  return sym.rects.map((r) => ({ x: box.x + (q + r.x) * unit, y: box.y, width: r.width * unit, height: box.height }));
}

const f = (v: number) => String(Math.round(v * 1000) / 1000);

/** The rectangles as one SVG path's data (one path: abutting modules share edges without seams). */
export const rectsPathData = (rects: Rect[]) => rects.map((r) => `M${f(r.x)} ${f(r.y)}h${f(r.width)}v${f(r.height)}h${f(-r.width)}Z`).join('');
