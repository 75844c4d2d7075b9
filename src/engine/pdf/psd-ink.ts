/**
 * A CMYK template's own ink values (docs/pdf.md, "CMYK templates"): Photoshop's merged image,
 * read from the PSD's sections as they lie (Adobe's file format: header, colour mode data, image
 * resources, layer and mask information, image data), so a print PDF can write the document's
 * CMYK unchanged wherever the request changed nothing (with a merged transparency, the colour
 * as Photoshop stores it, matted over white, and the transparency beside it). The engine composites in RGB; these are
 * the values a printer expects.
 */
import { ColorMode } from '../psd/color-modes';
import { compositeRows } from '../psd/composite';
import { readImageResources } from '../psd/resources';
import { imageResources, psdLayout, spotRows } from '../psd/spots';

export interface PsdInk {
  width: number;
  height: number;
  /** The document's embedded ICC profile (resource 1039), when it has one. */
  icc?: Uint8Array;
  /**
   * Rows [top, bottom) of the merged image as ink (C, M, Y, K; 0 = no ink), 4 bytes a pixel. With
   * a merged transparency, as Photoshop stores it: matted over white (paper), ink × alpha.
   */
  rows(top: number, bottom: number): Uint8Array;
  /** The merged transparency's rows (one byte a pixel), for documents that have one. */
  alpha?(top: number, bottom: number): Uint8Array;
}

/**
 * The merged CMYK of `psd`, or null when it is not a CMYK document with a merged image (other
 * modes, a file too short to hold one). Spot channels after the four colour planes (and the
 * merged transparency) are their own separations (./spots.ts) and leave these values as they are.
 */
export function psdInk(psd: Uint8Array): PsdInk | null {
  try {
    const layout = psdLayout(psd);
    if (!layout) return null;
    const { width, height, channels, large, depth, image } = layout;
    if (layout.mode !== ColorMode.CMYK || channels < 4 || (depth !== 8 && depth !== 16)) return null;
    const transparent = channels > 4 && readImageResources(psd).mergedAlpha;
    const icc = imageResources(layout.resources).get(1039)?.slice();
    // Read as RGB plus "alpha": the four planes C, M, Y, K come out interleaved as stored.
    const colour = sequential(() => compositeRows(image, width, height, channels, large, true, ColorMode.RGB, depth), width * 4, (stored, out, o) => {
      // Photoshop stores CMYK inverted (255 = no ink).
      for (let i = 0; i < width * 4; i++) out[o + i] = 255 - stored[i];
    });
    // The fifth plane; spotRows hands planes back inverted (as tints).
    const alpha = transparent
      ? sequential(() => spotRows(layout, 4), width, (tint, out, o) => {
          for (let i = 0; i < width; i++) out[o + i] = 255 - tint[i];
        })
      : undefined;
    return { width, height, icc: icc?.length ? icc : undefined, rows: colour, ...(alpha ? { alpha } : {}) };
  } catch {
    return null;
  }
}

/**
 * Rows [top, bottom) from a reader that only goes forward (strips come top to bottom; a jump
 * back starts it anew), each row written by `write` at `rowBytes` a row.
 */
function sequential(open: () => { next(): Uint8Array }, rowBytes: number, write: (row: Uint8Array, out: Uint8Array, at: number) => void) {
  let reader: { next(): Uint8Array } | null = null;
  let y = 0;
  return (top: number, bottom: number): Uint8Array => {
    if (!reader || top < y) {
      reader = open();
      y = 0;
    }
    for (; y < top; y++) reader.next();
    const out = new Uint8Array(rowBytes * (bottom - top));
    for (let row = 0; y < bottom; y++, row++) write(reader.next(), out, row * rowBytes);
    return out;
  };
}
