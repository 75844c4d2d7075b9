/**
 * A CMYK template's own ink values (docs/pdf.md, "CMYK templates"): Photoshop's merged image,
 * read from the PSD's sections as they lie (Adobe's file format: header, colour mode data, image
 * resources, layer and mask information, image data), so a print PDF can write the document's
 * CMYK unchanged wherever the request changed nothing. The engine composites in RGB; these are
 * the values a printer expects.
 */
import { ColorMode } from '../psd/color-modes';
import { compositeRows } from '../psd/composite';
import { readImageResources } from '../psd/resources';
import { imageResources, psdLayout } from '../psd/spots';

export interface PsdInk {
  width: number;
  height: number;
  /** The document's embedded ICC profile (resource 1039), when it has one. */
  icc?: Uint8Array;
  /** Rows [top, bottom) of the merged image as ink (C, M, Y, K; 0 = no ink), 4 bytes a pixel. */
  rows(top: number, bottom: number): Uint8Array;
}

/**
 * The merged CMYK of `psd`, or null when it is not an opaque CMYK document with a merged image
 * (other modes, a merged alpha channel, a file too short to hold one). Spot channels after the
 * four colour planes are their own separations (./spots.ts) and leave these values as they are.
 */
export function psdInk(psd: Uint8Array): PsdInk | null {
  try {
    const layout = psdLayout(psd);
    if (!layout) return null;
    const { width, height, channels, large, depth, image } = layout;
    // A merged alpha channel would change what the merged image means: exact only for opaque CMYK.
    if (layout.mode !== ColorMode.CMYK || channels < 4 || (depth !== 8 && depth !== 16)) return null;
    if (channels > 4 && readImageResources(psd).mergedAlpha) return null;
    const icc = imageResources(layout.resources).get(1039)?.slice();
    let reader: { next(): Uint8Array } | null = null;
    let y = 0;
    return {
      width,
      height,
      icc: icc?.length ? icc : undefined,
      rows(top, bottom) {
        // Sequential reader (strips come top to bottom); a jump back starts it anew.
        if (!reader || top < y) {
          // Read as RGB plus "alpha": the four planes C, M, Y, K come out interleaved as stored.
          reader = compositeRows(image, width, height, channels, large, true, ColorMode.RGB, depth);
          y = 0;
        }
        for (; y < top; y++) reader.next();
        const out = new Uint8Array(width * (bottom - top) * 4);
        for (let row = 0; y < bottom; y++, row++) {
          const stored = reader.next();
          // Photoshop stores CMYK inverted (255 = no ink).
          for (let i = 0, o = row * width * 4; i < width * 4; i++, o++) out[o] = 255 - stored[i];
        }
        return out;
      },
    };
  } catch {
    return null;
  }
}
