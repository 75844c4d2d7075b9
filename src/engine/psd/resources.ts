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
    // A 32-bit document's pixels reach us through the sRGB curve (./color-modes.ts): a profile
    // with a linear tone curve (the 32-bit working space's) no longer describes them, and is left
    // out (outputs untagged are sRGB); one with its usual curve still does.
    if (id === 1039 && size > 0 && !(view.getUint16(22) === 32 && linearTone(bytes.subarray(at, at + size)))) out.icc = bytes.slice(at, at + size);
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

/**
 * Whether an ICC profile's tone curve (rTRC, or kTRC for grey; ICC.1 §10.6 'curv', §10.18 'para')
 * is linear: an empty curve, a gamma of 1.0, or a parametric gamma of 1.0 with no other term.
 */
export function linearTone(icc: Uint8Array): boolean {
  if (icc.length < 132) return false;
  const view = new DataView(icc.buffer, icc.byteOffset, icc.byteLength);
  const count = view.getUint32(128);
  for (let i = 0, at = 132; i < count && at + 12 <= icc.length; i++, at += 12) {
    const tag = view.getUint32(at);
    if (tag !== 0x72545243 && tag !== 0x6b545243) continue; // 'rTRC', 'kTRC'
    const o = view.getUint32(at + 4);
    if (o + 12 > icc.length) return false;
    const type = view.getUint32(o);
    if (type === 0x63757276) return view.getUint32(o + 8) === 0 || (view.getUint32(o + 8) === 1 && o + 14 <= icc.length && view.getUint16(o + 12) === 0x0100); // 'curv'
    if (type === 0x70617261) return o + 16 <= icc.length && view.getUint16(o + 8) === 0 && view.getInt32(o + 12) === 0x10000; // 'para'
    return false;
  }
  return false;
}
