/**
 * Bleed of a PSD template (docs/pdf.md, "Bleed"): declared at upload (`bleed=3mm`; also cm, in,
 * pt, px), kept with the template file, and turned into pixels with the template's resolution
 * when a PDF is written: TrimBox = canvas inset by the bleed, BleedBox = MediaBox = canvas.
 */
import { invalidInput, unprocessable } from '../errors';

const UNIT_INCHES = { mm: 1 / 25.4, cm: 1 / 2.54, in: 1, pt: 1 / 72 } as const;
const BLEED = /^\s*(\d+(?:\.\d+)?)\s*(mm|cm|in|pt|px)\s*$/i;

/** The normalised bleed (`3mm`, `0.125in`, `9pt`, `36px`); a 400 naming `path` when malformed. */
export function parseBleed(value: string, path = 'bleed'): string {
  const m = BLEED.exec(value);
  if (!m) throw invalidInput(`"${value}" is not a bleed; give a number and a unit: mm, cm, in, pt or px (e.g. 3mm).`, [{ path, reason: 'must be a length such as 3mm' }]);
  return `${Number(m[1])}${m[2].toLowerCase()}`;
}

/** The bleed in pixels at `ppi` (72 when the template stores none). */
export function bleedPixels(bleed: string, ppi: number): number {
  const m = BLEED.exec(bleed);
  if (!m) return 0;
  const n = Number(m[1]);
  const unit = m[2].toLowerCase();
  return unit === 'px' ? n : n * UNIT_INCHES[unit as keyof typeof UNIT_INCHES] * (ppi > 0 ? ppi : 72);
}

/** Refuses a bleed that leaves no trim (a 422 naming `path`). */
export function checkBleed(bleed: string, size: { width: number; height: number; resolution: number }, path = 'bleed'): void {
  const px = bleedPixels(bleed, size.resolution);
  if (2 * px >= Math.min(size.width, size.height)) {
    throw unprocessable(`A bleed of ${bleed} (${px.toFixed(1)} px) leaves no trim on a ${size.width} × ${size.height} px template.`, [{ path, reason: 'bleed too large for the template' }]);
  }
}
