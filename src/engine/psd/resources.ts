import { findLayerInfo } from './layer-section';

/**
 * The few image resources ag-psd does not hand us: the ICC profile (1039) and the resolution
 * (1005, read here too so compile needs one pass). Walks the image-resources section directly.
 */
export interface ImageResourceInfo {
  icc?: Uint8Array;
  /** Horizontal resolution in pixels per inch. */
  resolution?: number;
  /** XMP CreatorTool, e.g. "Adobe Photoshop CS6 (Macintosh)". */
  creatorTool?: string;
  /** The merged image's first extra channel is its transparency (negative layer count). */
  mergedAlpha: boolean;
}

export function readImageResources(bytes: Uint8Array): ImageResourceInfo {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: ImageResourceInfo = { mergedAlpha: false };
  let at = 26;
  at += 4 + view.getUint32(at); // colour mode data
  const length = view.getUint32(at);
  at += 4;
  const end = Math.min(at + length, bytes.length);
  while (at + 12 <= end) {
    if (view.getUint32(at) !== 0x3842494d) break; // '8BIM'
    const id = view.getUint16(at + 4);
    const nameLength = bytes[at + 6];
    at += 6 + ((nameLength + 2) & ~1);
    const size = view.getUint32(at);
    at += 4;
    if (at + size > end) break;
    if (id === 1060 && size > 0) {
      const xmp = new TextDecoder().decode(bytes.subarray(at, at + size));
      const m = /<xmp:CreatorTool>([^<]*)<\/xmp:CreatorTool>|xmp:CreatorTool="([^"]*)"/.exec(xmp);
      if (m) out.creatorTool = m[1] ?? m[2];
    }
    if (id === 1039 && size > 0) out.icc = bytes.slice(at, at + size);
    if (id === 1005 && size >= 16) {
      const fixed = view.getUint32(at) / 65536;
      const unit = view.getUint16(at + 4); // 1 = PPI, 2 = PPCM
      out.resolution = unit === 2 ? fixed * 2.54 : fixed;
    }
    at += (size + 1) & ~1;
  }
  // The signed layer count that opens the layer info (in 'Lr16'/'Lr32' at 16 and 32 bits).
  const countAt = findLayerInfo(bytes);
  if (countAt !== undefined && countAt + 2 <= bytes.length) out.mergedAlpha = view.getInt16(countAt) < 0;
  return out;
}
