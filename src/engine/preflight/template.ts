/**
 * What the layer checks of a PSD template need to know about its print size (issue 21): the trim
 * box (the canvas inset by the bleed declared at upload, src/engine/pdf/bleed.ts) and the ppi
 * placed pictures are measured against. Previews, print PDFs and preflight pass the same values,
 * so each finds the same problems.
 */
import { bleedPixels } from '../pdf/bleed';
import type { Bounds, CompiledTemplate } from '../types';

export interface PrintGeometry {
  /** Absent: the trim is the canvas (no bleed declared). */
  trim?: Bounds;
  /** The template's ppi (72 when the PSD stores none). */
  resolution: number;
}

/** The trim box and resolution of a compiled template whose file declares `bleed` (or none). */
export function printGeometry(compiled: Pick<CompiledTemplate, 'width' | 'height' | 'resolution'>, bleed: string | undefined): PrintGeometry {
  const resolution = compiled.resolution > 0 ? compiled.resolution : 72;
  const inset = bleed ? bleedPixels(bleed, resolution) : 0;
  if (!(inset > 0)) return { resolution };
  return { resolution, trim: { left: inset, top: inset, right: compiled.width - inset, bottom: compiled.height - inset } };
}
