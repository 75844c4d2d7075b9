/**
 * One raster strip as PDF image XObjects (ISO 32000-1 §8.9.5, §11.6.5.3): opaque photographic
 * content as JPEG (DCTDecode), everything else Flate with the PNG Up predictor, transparency as
 * a DeviceGray soft mask. Colour values stay straight (not premultiplied), as PDF expects of an
 * image with an /SMask and no /Matte.
 */
import { encodeJpeg } from '../raster/codecs';
import type { RGBAImage } from '../types';
import { upFiltered, zlib } from './flate';
import type { PdfValue } from './writer';
import { name } from './writer';

/** Contract: JPEG quality at least 92, no chroma subsampling. */
export const PDF_JPEG_QUALITY = 95;

export interface ImageStream {
  dict: Record<string, PdfValue>;
  data: Uint8Array;
}

export interface EncodedStrip {
  image: ImageStream;
  /** Soft mask, present when some pixel is not opaque. */
  smask?: ImageStream;
  kind: 'jpeg' | 'flate';
}

export interface AlphaSummary {
  opaque: boolean;
  empty: boolean;
}

export function alphaSummary(img: RGBAImage): AlphaSummary {
  const d = img.data;
  let opaque = true;
  let empty = true;
  for (let i = 3; i < d.length; i += 4) {
    const a = d[i];
    if (a !== 255) opaque = false;
    if (a !== 0) empty = false;
    if (!opaque && !empty) break;
  }
  return { opaque, empty };
}

/**
 * Photographic content has many distinct colours; flat artwork (type, logos, fills) has few and
 * would show JPEG ringing at its edges, while it deflates well. Samples at most ~16k pixels.
 */
export function looksPhotographic(img: RGBAImage): boolean {
  const { width, height, data } = img;
  const total = width * height;
  const step = Math.max(1, Math.floor(Math.sqrt(total / 16384)));
  const seen = new Set<number>();
  let samples = 0;
  for (let y = 0; y < height; y += step) {
    for (let x = 0; x < width; x += step) {
      const p = (y * width + x) * 4;
      seen.add((data[p] << 16) | (data[p + 1] << 8) | data[p + 2]);
      samples++;
    }
  }
  return seen.size >= Math.min(1024, samples / 4);
}

/** Filter buffers shared by the strips of a page (each strip's data is deflated before the next). */
export class StripScratch {
  private buffers: Uint8Array[] = [];
  get(slot: number, bytes: number): Uint8Array {
    if ((this.buffers[slot]?.length ?? 0) < bytes) this.buffers[slot] = new Uint8Array(bytes);
    return this.buffers[slot];
  }
}

/** Encodes one strip; `colorSpace` is the page's ICCBased colour space. */
export async function encodeStrip(
  img: RGBAImage,
  colorSpace: PdfValue,
  alpha: AlphaSummary = alphaSummary(img),
  scratch: StripScratch = new StripScratch(),
): Promise<EncodedStrip> {
  const { width, height } = img;
  const base = { Type: name('XObject'), Subtype: name('Image'), Width: width, Height: height, BitsPerComponent: 8 };
  if (alpha.opaque && looksPhotographic(img)) {
    // Baseline, no chroma subsampling (4:4:4): print shows colour fringes that screens hide.
    const data = await encodeJpeg(img, PDF_JPEG_QUALITY, { subsampling: 1 });
    return { kind: 'jpeg', image: { dict: { ...base, ColorSpace: colorSpace, Filter: name('DCTDecode') }, data } };
  }
  const rgb = upFiltered(img.data, width, height, 0, 3, scratch.get(0, (width * 3 + 1) * height));
  const image = {
    dict: { ...base, ColorSpace: colorSpace, Filter: name('FlateDecode'), DecodeParms: rgb.decodeParms },
    data: await zlib(rgb.data),
  };
  if (alpha.opaque) return { kind: 'flate', image };
  const a = upFiltered(img.data, width, height, 3, 1, scratch.get(1, (width + 1) * height));
  const smask = {
    dict: { ...base, ColorSpace: name('DeviceGray'), Filter: name('FlateDecode'), DecodeParms: a.decodeParms },
    data: await zlib(a.data),
  };
  return { kind: 'flate', image, smask };
}
