/**
 * One raster strip as PDF image XObjects (ISO 32000-1 §8.9.5, §11.6.5.3): opaque photographic
 * content as JPEG (DCTDecode), everything else Flate with the PNG Up predictor, transparency as
 * a DeviceGray soft mask. Colour values stay straight (not premultiplied), as PDF expects of an
 * image with an /SMask and no /Matte.
 */
import { encodeJpeg } from '../raster/codecs';
import { encodeCmykJpeg, encodeGrayJpeg } from '../raster/jpeg-ink';
import type { RGBAImage } from '../types';
import { upFiltered, zlib } from './flate';
import type { PdfValue } from './writer';
import { name } from './writer';

/** Contract: JPEG quality at least 92, no chroma subsampling. */
export const PDF_JPEG_QUALITY = 95;

/**
 * One image stream of a strip, free of document object references (the page's colour space is
 * supplied when it is written), so an encoded strip can be kept and written into other PDFs.
 */
export interface ImagePart {
  filter: 'DCTDecode' | 'FlateDecode';
  /** Components: 3 (RGB), 4 (CMYK) or 1 (grey) in the page's colour space; 1 for a soft mask. */
  colors: 1 | 3 | 4;
  /** PNG Up predictor (/Predictor 12) on the rows. */
  predictor: boolean;
  data: Uint8Array;
}

export interface EncodedStrip {
  kind: 'jpeg' | 'flate';
  width: number;
  height: number;
  image: ImagePart;
  /** Soft mask, present when some pixel is not opaque. */
  smask?: ImagePart;
}

/**
 * The image XObject dictionary of a strip part (without /Length, /SMask): the page's colour
 * space for the image, DeviceGray for its soft mask.
 */
export function partDict(strip: Pick<EncodedStrip, 'width' | 'height'>, part: ImagePart, colorSpace: PdfValue): Record<string, PdfValue | undefined> {
  const { width, height } = strip;
  return {
    Type: name('XObject'),
    Subtype: name('Image'),
    Width: width,
    Height: height,
    BitsPerComponent: 8,
    ColorSpace: colorSpace,
    Filter: name(part.filter),
    // Adobe CMYK JPEGs hold inverted samples (0 = full ink), as Photoshop and Acrobat write them.
    Decode: part.filter === 'DCTDecode' && part.colors === 4 ? [1, 0, 1, 0, 1, 0, 1, 0] : undefined,
    DecodeParms: part.predictor ? { Predictor: 12, Colors: part.colors, BitsPerComponent: 8, Columns: width } : undefined,
  };
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

/**
 * A print output's ink values (docs/pdf.md, "Colour"): strips are converted from the page's RGB
 * into CMYK or grey through the colour-managed transform, then written as RGB strips are:
 * opaque photographic strips as JPEG (Adobe CMYK or grey, src/engine/raster/jpeg-ink.ts), the
 * rest Flate. Ink that is a document's own (a CMYK template's merged image) stays Flate, exact.
 */
export interface StripColour {
  channels: 1 | 4;
  /**
   * Straight RGBA → `channels` bytes a pixel. A converter made by `convertedInk` may be written
   * lossily (JPEG); any other function supplies exact ink (Flate only).
   */
  convert(src: Uint8Array | Uint8ClampedArray, dst: Uint8Array, pixels: number): void;
  /** PDF/X-1a (no soft masks): transparent pixels are laid on paper, i.e. their ink scaled by alpha. */
  flatten: boolean;
}

const converters = new WeakSet<StripColour['convert']>();

/**
 * Marks `convert` as a conversion from the page's RGB (output.ts), so photographic strips it
 * fills may be JPEG like RGB strips; ink passed through unconverted is never marked.
 */
export function convertedInk(convert: StripColour['convert']): StripColour['convert'] {
  converters.add(convert);
  return convert;
}

/** Encodes one strip (written with `partDict` in the page's colour space). */
export async function encodeStrip(
  img: RGBAImage,
  alpha: AlphaSummary = alphaSummary(img),
  scratch: StripScratch = new StripScratch(),
  colour?: StripColour,
): Promise<EncodedStrip> {
  const { width, height } = img;
  if (colour) return encodeInk(img, alpha, scratch, colour);
  if (alpha.opaque && looksPhotographic(img)) {
    // Baseline, no chroma subsampling (4:4:4): print shows colour fringes that screens hide.
    const data = await encodeJpeg(img, PDF_JPEG_QUALITY, { subsampling: 1 });
    return { kind: 'jpeg', width, height, image: { filter: 'DCTDecode', colors: 3, predictor: false, data } };
  }
  const rgb = upFiltered(img.data, width, height, 0, 3, scratch.get(0, (width * 3 + 1) * height));
  const image: ImagePart = { filter: 'FlateDecode', colors: 3, predictor: true, data: await zlib(rgb.data) };
  if (alpha.opaque) return { kind: 'flate', width, height, image };
  const a = upFiltered(img.data, width, height, 3, 1, scratch.get(1, (width + 1) * height));
  return { kind: 'flate', width, height, image, smask: { filter: 'FlateDecode', colors: 1, predictor: true, data: await zlib(a.data) } };
}

async function encodeInk(img: RGBAImage, alpha: AlphaSummary, scratch: StripScratch, colour: StripColour): Promise<EncodedStrip> {
  const { width, height, data } = img;
  const n = colour.channels;
  const pixels = width * height;
  const ink = scratch.get(2, pixels * n).subarray(0, pixels * n);
  colour.convert(data, ink, pixels);
  const flatten = colour.flatten && !alpha.opaque;
  if (alpha.opaque && converters.has(colour.convert) && looksPhotographic(img)) {
    // As RGB strips: quality 95, no chroma subsampling.
    const options = { quality: PDF_JPEG_QUALITY, subsampling: 1 } as const;
    const data = n === 4 ? await encodeCmykJpeg(ink, width, height, options) : await encodeGrayJpeg(ink, width, height, options);
    return { kind: 'jpeg', width, height, image: { filter: 'DCTDecode', colors: n, predictor: false, data } };
  }
  if (flatten) {
    for (let i = 0; i < pixels; i++) {
      const a = data[i * 4 + 3];
      if (a === 255) continue;
      // CMYK values are ink (0 = paper); a grey value is lightness (255 = paper).
      for (let c = 0; c < n; c++) {
        const v = ink[i * n + c];
        ink[i * n + c] = n === 1 ? 255 - Math.round(((255 - v) * a) / 255) : Math.round((v * a) / 255);
      }
    }
  }
  const filtered = upFiltered(ink, width, height, 0, n, scratch.get(0, (width * n + 1) * height), n);
  const image: ImagePart = { filter: 'FlateDecode', colors: n, predictor: true, data: await zlib(filtered.data) };
  if (alpha.opaque || flatten) return { kind: 'flate', width, height, image };
  const a = upFiltered(data, width, height, 3, 1, scratch.get(1, (width + 1) * height));
  return { kind: 'flate', width, height, image, smask: { filter: 'FlateDecode', colors: 1, predictor: true, data: await zlib(a.data) } };
}
