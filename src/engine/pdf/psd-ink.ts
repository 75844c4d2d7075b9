/**
 * A CMYK template's own ink values (docs/pdf.md, "CMYK templates"): Photoshop's merged image,
 * read from the PSD's sections as they lie (Adobe's file format: header, colour mode data, image
 * resources, layer and mask information, image data), so a print PDF can write the document's
 * CMYK unchanged wherever the request changed nothing. The engine composites in RGB; these are
 * the values a printer expects.
 */
import { ColorMode } from '../psd/color-modes';
import { compositeRows } from '../psd/composite';

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
 * (other modes, a merged alpha channel, a file too short to hold one).
 */
export function psdInk(psd: Uint8Array): PsdInk | null {
  const v = new DataView(psd.buffer, psd.byteOffset, psd.byteLength);
  if (psd.length < 26 || v.getUint32(0) !== 0x38425053) return null; // '8BPS'
  const large = v.getUint16(4) === 2;
  const channels = v.getUint16(12);
  const height = v.getUint32(14);
  const width = v.getUint32(18);
  const depth = v.getUint16(22);
  const mode = v.getUint16(24);
  // Extra channels (alpha, spot) would change what the merged image means: exact only for plain CMYK.
  if (mode !== ColorMode.CMYK || channels !== 4 || (depth !== 8 && depth !== 16)) return null;
  let at = 26;
  const section = () => {
    const length = v.getUint32(at);
    const start = at + 4;
    at = start + length;
    return psd.subarray(start, start + length);
  };
  try {
    section(); // colour mode data
    const resources = section();
    const layers = large ? Number(v.getBigUint64(at)) + 8 : v.getUint32(at) + 4;
    at += layers;
    if (at + 2 >= psd.length) return null;
    const image = psd.subarray(at);
    const icc = iccResource(resources);
    let reader: { next(): Uint8Array } | null = null;
    let y = 0;
    return {
      width,
      height,
      icc,
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

/** Image resource 1039 (ICC profile) of the image resources section. */
function iccResource(resources: Uint8Array): Uint8Array | undefined {
  const v = new DataView(resources.buffer, resources.byteOffset, resources.byteLength);
  let at = 0;
  while (at + 12 <= resources.length) {
    if (v.getUint32(at) !== 0x3842494d) return undefined; // '8BIM'
    const id = v.getUint16(at + 4);
    const nameLength = resources[at + 6];
    at += 6 + ((nameLength + 2) & ~1); // Pascal name padded to an even length
    const size = v.getUint32(at);
    at += 4;
    if (id === 1039) return resources.slice(at, at + size);
    at += (size + 1) & ~1;
  }
  return undefined;
}
