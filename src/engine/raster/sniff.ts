/**
 * Reads an image's type, dimensions and EXIF orientation from its header, before any decoding,
 * so that limits are enforced without allocating pixels.
 */

export type SniffedFormat = 'jpeg' | 'png' | 'webp' | 'gif';

export interface SniffedImage {
  format: SniffedFormat;
  /** Stored (pre-orientation) size. */
  width: number;
  height: number;
  /** EXIF orientation 1–8 (1 when absent). 5–8 swap width and height when displayed. */
  orientation: number;
}

/** Displayed size: stored size with EXIF orientation applied. */
export function orientedSize(s: { width: number; height: number; orientation: number }): { width: number; height: number } {
  return s.orientation >= 5 ? { width: s.height, height: s.width } : { width: s.width, height: s.height };
}

/** The header facts of a JPEG, PNG, WebP or GIF; null when the bytes are none of these or are truncated. */
export function sniffImage(bytes: Uint8Array): SniffedImage | null {
  try {
    if (bytes[0] === 0xff && bytes[1] === 0xd8) return sniffJpeg(bytes);
    if (bytes[0] === 0x89 && ascii(bytes, 1, 3) === 'PNG') return sniffPng(bytes);
    if (ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 4) === 'WEBP') return sniffWebp(bytes);
    if (ascii(bytes, 0, 4) === 'GIF8') return sniffGif(bytes);
  } catch (e) {
    if (e instanceof RangeError) return null; // truncated header
    throw e;
  }
  return null;
}

const ascii = (b: Uint8Array, at: number, n: number) => String.fromCharCode(...b.subarray(at, at + n));
const view = (b: Uint8Array) => new DataView(b.buffer, b.byteOffset, b.byteLength);

const SOF = new Set([0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf]);

function sniffJpeg(bytes: Uint8Array): SniffedImage | null {
  const found = jpegFrameHeader(bytes);
  if (!found) return null;
  const v = view(bytes);
  const height = v.getUint16(found.at + 5);
  const width = v.getUint16(found.at + 7);
  if (!width || !height) return null; // DNL-defined height: not supported
  return { format: 'jpeg', width, height, orientation: found.orientation };
}

/** Where a JPEG's frame header (SOF) starts, its marker, and the EXIF orientation met before it; null without one. */
function jpegFrameHeader(bytes: Uint8Array): { at: number; marker: number; orientation: number } | null {
  const v = view(bytes);
  let orientation = 1;
  let p = 2;
  while (p + 4 <= bytes.length) {
    if (bytes[p] !== 0xff) return null;
    const marker = bytes[p + 1]!;
    if (marker === 0xff) {
      p++;
      continue;
    }
    if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      p += 2;
      continue;
    }
    const length = v.getUint16(p + 2);
    if (marker === 0xe1 && ascii(bytes, p + 4, 6) === 'Exif\0\0') {
      orientation = exifOrientation(bytes.subarray(p + 10, p + 2 + length)) ?? orientation;
    }
    if (SOF.has(marker)) return { at: p, marker, orientation };
    if (marker === 0xda || marker === 0xd9) return null; // scan before any frame header
    p += 2 + length;
  }
  return null;
}

/**
 * A JPEG's coding process as its frame header gives it: the SOF marker (0xc0 baseline, 0xc2
 * progressive, 0xc9 and up arithmetic), the sample precision and the component count (4: CMYK or
 * YCCK); null when the bytes hold no frame header.
 */
export function jpegFrame(bytes: Uint8Array): { marker: number; precision: number; components: number } | null {
  try {
    const found = bytes[0] === 0xff && bytes[1] === 0xd8 ? jpegFrameHeader(bytes) : null;
    return found && { marker: found.marker, precision: bytes[found.at + 4]!, components: bytes[found.at + 9]! };
  } catch (e) {
    if (e instanceof RangeError) return null; // truncated header
    throw e;
  }
}

/** Orientation tag (0x0112) of IFD0 in a TIFF-structured EXIF block. */
export function exifOrientation(tiff: Uint8Array): number | null {
  const v = view(tiff);
  const order = ascii(tiff, 0, 2);
  if (order !== 'II' && order !== 'MM') return null;
  const le = order === 'II';
  if (v.getUint16(2, le) !== 42) return null;
  const ifd = v.getUint32(4, le);
  const count = v.getUint16(ifd, le);
  for (let i = 0; i < count; i++) {
    const entry = ifd + 2 + i * 12;
    if (v.getUint16(entry, le) === 0x0112) {
      const value = v.getUint16(entry + 8, le);
      return value >= 1 && value <= 8 ? value : null;
    }
  }
  return null;
}

function sniffPng(bytes: Uint8Array): SniffedImage | null {
  const v = view(bytes);
  if (ascii(bytes, 12, 4) !== 'IHDR') return null;
  const width = v.getUint32(16);
  const height = v.getUint32(20);
  let orientation = 1;
  // An eXIf chunk (PNG 1.5) must come before IDAT.
  for (let p = 8; p + 12 <= bytes.length; ) {
    const length = v.getUint32(p);
    const type = ascii(bytes, p + 4, 4);
    if (type === 'IDAT' || type === 'IEND') break;
    if (type === 'eXIf') orientation = exifOrientation(bytes.subarray(p + 8, p + 8 + length)) ?? 1;
    p += 12 + length;
  }
  return width && height ? { format: 'png', width, height, orientation } : null;
}

function sniffWebp(bytes: Uint8Array): SniffedImage | null {
  const v = view(bytes);
  const chunk = ascii(bytes, 12, 4);
  if (chunk === 'VP8X') {
    const width = 1 + (v.getUint32(24, true) & 0xffffff);
    const height = 1 + (v.getUint32(27, true) & 0xffffff);
    return { format: 'webp', width, height, orientation: 1 };
  }
  if (chunk === 'VP8 ') {
    return { format: 'webp', width: v.getUint16(26, true) & 0x3fff, height: v.getUint16(28, true) & 0x3fff, orientation: 1 };
  }
  if (chunk === 'VP8L') {
    const bits = v.getUint32(21, true);
    return { format: 'webp', width: 1 + (bits & 0x3fff), height: 1 + ((bits >>> 14) & 0x3fff), orientation: 1 };
  }
  return null;
}

function sniffGif(bytes: Uint8Array): SniffedImage | null {
  const v = view(bytes);
  const width = v.getUint16(6, true);
  const height = v.getUint16(8, true);
  return width && height ? { format: 'gif', width, height, orientation: 1 } : null;
}
