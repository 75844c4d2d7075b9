/**
 * Barcode items: the symbol is encoded by bwip-js (BWIPP, platform-independent build) and drawn
 * as vectors — bars and runs of dark modules as rectangles, one filled path —
 * in SVG (previews) and PDF (print), in item coordinates (y down). 1-D codes stretch their bars
 * over the box; QR and DataMatrix keep their square modules, centred in the box. A quiet zone
 * (10 modules for bars, 4 for QR, 1 for DataMatrix) is kept inside the box, on the background
 * colour, so a scanner finds the symbol whatever is around it.
 */
import { barcodeRects, rectsPathData, type BarcodeFormat, type ERROR_CORRECTION } from '../barcode';
import { resolveColor, type ResolvedColor } from './schema';

export { BARCODE_FORMATS, ERROR_CORRECTION, encodeBarcode, type BarcodeFormat } from '../barcode';

export interface BarcodeDrawing {
  /** Background rectangle (the whole box) or null when transparent. */
  background: ResolvedColor | null;
  color: ResolvedColor;
  /** Dark rectangles in item coordinates. */
  rects: Array<{ x: number; y: number; width: number; height: number }>;
}

export interface BarcodeLike {
  x: number;
  y: number;
  width: number;
  height: number;
  format: BarcodeFormat;
  value: string;
  errorCorrection: (typeof ERROR_CORRECTION)[number];
  color: string;
  backgroundColor: string;
}

/** The item's drawing, or null when it has no value (nothing to draw). Throws on a bad value. */
export function barcodeDrawing(item: BarcodeLike): BarcodeDrawing | null {
  if (!item.value || item.width <= 0 || item.height <= 0) return null;
  const rects = barcodeRects(item.format, item.value, item.errorCorrection, item);
  return { background: resolveColor(item.backgroundColor), color: resolveColor(item.color) ?? resolveColor('#000000')!, rects };
}

const f = (v: number) => String(Math.round(v * 1000) / 1000);

/** SVG elements of the item (no wrapper). */
export function barcodeSvg(item: BarcodeLike): string {
  const d = barcodeDrawing(item);
  if (!d) return '';
  const paint = (c: ResolvedColor) => `fill="rgb(${c.r},${c.g},${c.b})"${c.a < 1 ? ` fill-opacity="${f(c.a)}"` : ''}`;
  let out = d.background ? `<rect x="${f(item.x)}" y="${f(item.y)}" width="${f(item.width)}" height="${f(item.height)}" ${paint(d.background)}/>` : '';
  if (d.rects.length) out += `<path d="${rectsPathData(d.rects)}" ${paint(d.color)}/>`;
  return out;
}

/**
 * PDF content operators of the item in surface coordinates (the caller's CTM flips y), filled
 * with `fill(color)`: the PDF writer's own colour operator (RGB, or CMYK as the model says).
 */
export function barcodeOps(item: BarcodeLike, fill: (c: ResolvedColor) => string): string {
  const d = barcodeDrawing(item);
  if (!d) return '';
  const out: string[] = [];
  if (d.background) out.push(`${fill(d.background)}\n${f(item.x)} ${f(item.y)} ${f(item.width)} ${f(item.height)} re f`);
  if (d.rects.length) out.push(`${fill(d.color)}\n${d.rects.map((r) => `${f(r.x)} ${f(r.y)} ${f(r.width)} ${f(r.height)} re`).join('\n')}\nf`);
  return out.join('\n');
}
