/**
 * A CMYK template's own ink values (docs/pdf.md, "CMYK templates"): Photoshop's merged image,
 * read from the PSD's sections as they lie (Adobe's file format: header, colour mode data, image
 * resources, layer and mask information, image data), so a print PDF can write the document's
 * CMYK unchanged wherever the request changed nothing (with a merged transparency, the colour
 * as Photoshop stores it, matted over white, and the transparency beside it). The engine composites in RGB; these are
 * the values a printer expects.
 */
import { ColorMode } from '../psd/color-modes';
import { concat } from '../raster/bytes';
import { compositeRows } from '../psd/composite';
import { readImageResources } from '../psd/resources';
import { imageResources, psdLayout, spotRows } from '../psd/spots';
import type { PsdSource } from '../psd/source';

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

/** What psdInk gives, its rows read from a stored file by range as strips ask for them. */
export interface RangedPsdInk {
  width: number;
  height: number;
  rows(top: number, bottom: number): Promise<Uint8Array>;
  alpha?(top: number, bottom: number): Promise<Uint8Array>;
}

/**
 * psdInk over a file read by range (InputStore.source): the merged image's rows [top, bottom) of
 * each plane are read when a strip asks for them, not the whole file for the page's length (an
 * 8,000² CMYK template's print PDF held its 11 MB from its first strip to its last, issue 25 §1).
 * The rows are decoded by the same readers, over a section made of those rows alone: RLE and raw
 * rows are coded each on its own, so they are the same bytes. Null where that cannot be: ZIP
 * planes (one stream, read from its start) or a file psdInk would not read (the caller then reads
 * it whole, as before).
 */
export async function rangedPsdInk(source: PsdSource): Promise<RangedPsdInk | null> {
  try {
    const at = await imageSectionAt(source);
    if (at === null) return null;
    const head = await source.read(0, 26);
    const v = new DataView(head.buffer, head.byteOffset, head.byteLength);
    const large = v.getUint16(4) === 2;
    const channels = v.getUint16(12);
    const height = v.getUint32(14);
    const width = v.getUint32(18);
    const depth = v.getUint16(22);
    if (v.getUint16(24) !== ColorMode.CMYK || channels < 4 || (depth !== 8 && depth !== 16)) return null;
    const transparent = channels > 4 ? await mergedAlpha(source, at.layers, large) : false;
    if (transparent === null) return null;
    const word = await source.read(at.image, 2);
    if (word.length < 2) return null;
    const compression = (word[0] << 8) | word[1];
    if (compression !== 0 && compression !== 1) return null;
    const rowBytes = (width * depth) / 8;
    const countSize = large ? 4 : 2;
    const planes = transparent ? 5 : 4;
    // Where each plane's rows start, and each row's coded length (RLE).
    let lengths: Uint8Array | null = null;
    const starts: number[] = [];
    if (compression === 1) {
      lengths = await source.read(at.image + 2, channels * height * countSize);
      if (lengths.length < channels * height * countSize) return null;
      const lv = new DataView(lengths.buffer, lengths.byteOffset, lengths.byteLength);
      let offset = at.image + 2 + channels * height * countSize;
      for (let c = 0; c < planes; c++) {
        starts.push(offset);
        for (let y = 0; y < height; y++) offset += large ? lv.getUint32((c * height + y) * 4) : lv.getUint16((c * height + y) * 2);
      }
      if (offset > source.size) return null; // cut short: as psdInk reads it, whole
    } else {
      for (let c = 0; c < planes; c++) starts.push(at.image + 2 + c * rowBytes * height);
      if (at.image + 2 + planes * rowBytes * height > source.size) return null;
    }
    const rowLength = (c: number, y: number) =>
      !lengths ? rowBytes : large ? new DataView(lengths.buffer, lengths.byteOffset).getUint32((c * height + y) * 4) : new DataView(lengths.buffer, lengths.byteOffset).getUint16((c * height + y) * 2);
    /** A section (compression word, counts, rows) of planes `from`…`to` − 1's rows [top, bottom) alone. */
    const section = async (from: number, to: number, top: number, bottom: number): Promise<Uint8Array> => {
      const n = bottom - top;
      const parts: Uint8Array[] = [];
      const counts = new Uint8Array(compression === 1 ? (to - from) * n * countSize : 0);
      const cv = new DataView(counts.buffer);
      for (let c = from; c < to; c++) {
        let offset = starts[c];
        let length = 0;
        for (let y = 0; y < bottom; y++) {
          const l = rowLength(c, y);
          if (y < top) offset += l;
          else {
            if (compression === 1) large ? cv.setUint32(((c - from) * n + y - top) * 4, l) : cv.setUint16(((c - from) * n + y - top) * 2, l);
            length += l;
          }
        }
        const rows = await source.read(offset, length);
        if (rows.length < length) throw new Error('short read');
        parts.push(rows);
      }
      return concat([new Uint8Array([0, compression]), counts, ...parts]);
    };
    const read = async (top: number, bottom: number, from: number, to: number, write: (rows: { next(): Uint8Array }, out: Uint8Array) => void, bytes: number) => {
      const out = new Uint8Array(bytes * (bottom - top));
      if (bottom <= top) return out;
      const part = await section(from, to, top, bottom);
      const n = bottom - top;
      write(
        from === 4
          ? spotRows({ large, channels: 1, width, height: n, depth, mode: ColorMode.CMYK, resources: new Uint8Array(0), image: part }, 0)
          : compositeRows(part, width, n, 4, large, true, ColorMode.RGB, depth),
        out,
      );
      return out;
    };
    return {
      width,
      height,
      // As psdInk: the four planes read as RGB plus "alpha" (interleaved as stored), inverted.
      rows: (top, bottom) =>
        read(top, bottom, 0, 4, (rows, out) => {
          for (let row = 0, o = 0; row < bottom - top; row++, o += width * 4) {
            const stored = rows.next();
            for (let i = 0; i < width * 4; i++) out[o + i] = 255 - stored[i];
          }
        }, width * 4),
      ...(transparent
        ? {
            alpha: (top: number, bottom: number) =>
              read(top, bottom, 4, 5, (rows, out) => {
                for (let row = 0, o = 0; row < bottom - top; row++, o += width) {
                  const tint = rows.next();
                  for (let i = 0; i < width; i++) out[o + i] = 255 - tint[i];
                }
              }, width),
          }
        : {}),
    };
  } catch {
    return null;
  }
}

/** Where the file's image resources, layer section and image data section start (psdLayout's walk), or null. */
async function imageSectionAt(source: PsdSource): Promise<{ resources: number; layers: number; image: number } | null> {
  const u32 = async (at: number) => {
    const b = await source.read(at, 4);
    return b.length < 4 ? null : new DataView(b.buffer, b.byteOffset, 4).getUint32(0);
  };
  const head = await source.read(0, 26);
  if (head.length < 26 || new DataView(head.buffer, head.byteOffset).getUint32(0) !== 0x38425053) return null;
  const large = new DataView(head.buffer, head.byteOffset).getUint16(4) === 2;
  const colourData = await u32(26);
  if (colourData === null) return null;
  const resources = 30 + colourData;
  const resourceBytes = await u32(resources);
  if (resourceBytes === null) return null;
  const layers = resources + 4 + resourceBytes;
  if (layers + (large ? 8 : 4) > source.size) return null;
  const lb = await source.read(layers, large ? 8 : 4);
  const lv = new DataView(lb.buffer, lb.byteOffset, lb.byteLength);
  const image = layers + (large ? Number(lv.getBigUint64(0)) + 8 : lv.getUint32(0) + 4);
  if (image + 2 >= source.size) return null;
  return { resources: resources + 4, layers, image };
}

/**
 * readImageResources' mergedAlpha (a negative layer count) where the layer info opens the layer
 * section (8 bits); null where it lies in a global 'Lr16' / 'Lr32' block (the caller reads whole).
 */
async function mergedAlpha(source: PsdSource, layers: number, large: boolean): Promise<boolean | null> {
  const size = large ? 8 : 4;
  const lengths = await source.read(layers, 2 * size + 2);
  if (lengths.length < 2 * size) return null;
  const v = new DataView(lengths.buffer, lengths.byteOffset, lengths.byteLength);
  const u = (at: number) => (large ? v.getUint32(at) * 2 ** 32 + v.getUint32(at + 4) : v.getUint32(at));
  if (u(0) === 0) return false; // no layer section: no layers found
  if (u(size) === 0) return null;
  return lengths.length >= 2 * size + 2 ? v.getInt16(2 * size) < 0 : false;
}
