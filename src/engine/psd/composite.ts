import { unprocessable } from '../errors';
import { ColorMode, cmykToSrgb, colorChannels, type IndexedPalette, inksToRgba, sampleNarrowing, toRgbaRow } from './color-modes';
import { InflateError, Inflater } from './inflate';

/**
 * Decodes Photoshop's merged composite (the image-data section) into RGBA. The first extra
 * channel becomes alpha when the document is transparent; RGB is left as Photoshop stores it
 * (matted over white). ag-psd's raw-data path reads PSB row counts as 16-bit, so we decode here.
 * Other modes and depths are converted as layers are (see ./color-modes.ts); a Multichannel
 * document's inks (its `palette`) are drawn over white (./multichannel.ts). Takes compositeRows'
 * arguments.
 */
export function decodeComposite(...args: Parameters<typeof compositeRows>): Uint8Array {
  const [, width, height] = args;
  const out = new Uint8Array(width * height * 4);
  const rows = compositeRows(...args);
  for (let y = 0; y < height; y++) out.set(rows.next(), y * width * 4);
  return out;
}

/**
 * The merged composite row by row (RGBA; the same buffer each call), reading each channel's
 * plane where it lies, so a flat document never needs its whole image in memory.
 */
export function compositeRows(
  section: Uint8Array,
  width: number,
  height: number,
  channels: number,
  large: boolean,
  hasAlpha: boolean,
  mode: number = ColorMode.RGB,
  depth = 8,
  palette?: IndexedPalette,
  /** A CMYK document's embedded profile (else the default CMYK profile). */
  icc?: Uint8Array,
): { next(): Uint8Array } {
  const view = new DataView(section.buffer, section.byteOffset, section.byteLength);
  const compression = view.getUint16(0);
  if (compression > 3) throw unprocessable(`Composite compression ${compression} is not supported.`);
  // A Multichannel document's channels are all inks (no transparency: it has no layers).
  const inks = mode === ColorMode.Multichannel;
  const colors = inks ? channels : colorChannels(mode);
  const planes = Math.min(channels, hasAlpha && !inks ? colors + 1 : colors);
  const bytes = depth === 1 ? Math.ceil(width / 8) : (width * depth) / 8;
  if (mode === ColorMode.Indexed && !palette) throw unprocessable('The Indexed document has no colour table.');
  const countSize = large ? 4 : 2;
  const rowLength = (c: number, y: number) =>
    large ? view.getUint32(2 + (c * height + y) * 4) : view.getUint16(2 + (c * height + y) * 2);
  // Where each plane's next row starts.
  const at: number[] = [];
  let offset = compression === 0 ? 2 : 2 + channels * height * countSize;
  for (let c = 0; c < planes && compression < 2; c++) {
    at.push(offset);
    if (compression === 0) offset += bytes * height;
    else for (let y = 0; y < height; y++) offset += rowLength(c, y);
  }
  // ZIP: the planes one after the other in a single stream, which cannot seek: each plane reads
  // it through its own inflater, dropping the planes before its own (memory stays a row each).
  const inflaters: Inflater[] = [];
  const skipped = new Uint8Array(compression >= 2 ? bytes : 0);
  for (let c = 0; c < planes && compression >= 2; c++) {
    const inflater = new Inflater(section.subarray(2));
    for (let r = 0; r < c * height; r++) inflateRow(inflater, skipped, MERGED_ZIP);
    inflaters.push(inflater);
  }
  const rgba = new Uint8Array(width * 4);
  const wide = new Uint8Array(bytes);
  const cmyk = mode === ColorMode.CMYK ? cmykToSrgb(icc) : undefined;
  // One 8-bit row per plane; a plane the file lacks stays empty (255: no ink in CMYK; Lab's a, b 0).
  const empty = (c: number) => (c >= colors ? 0 : mode === ColorMode.CMYK || inks ? 255 : mode === ColorMode.Lab && c > 0 ? 128 : 0);
  const rows = Array.from({ length: colors + 1 }, (_, c) => new Uint8Array(width).fill(empty(c)));
  const narrowings = rows.map((_, c) => sampleNarrowing(depth, mode, c < colors && !inks ? c : -1));
  let y = 0;
  return {
    next() {
      for (let c = 0; c < planes; c++) {
        if (compression === 0) {
          wide.fill(0);
          wide.set(section.subarray(at[c], at[c] + bytes));
          at[c] += bytes;
        } else if (compression >= 2) {
          inflateRow(inflaters[c], wide, MERGED_ZIP);
          if (compression === 3) unpredict(wide, width, depth);
        } else {
          const length = rowLength(c, y);
          unpackBits(section, at[c], length, wide);
          at[c] += length;
        }
        const row = rows[c];
        if (depth === 1) for (let x = 0; x < width; x++) row[x] = (wide[x >> 3] >> (7 - (x & 7))) & 1 ? 0 : 255; // 1 = black
        else narrowings[c](wide, row, width);
      }
      const alpha = hasAlpha && planes > colors ? rows[colors] : null;
      if (mode === ColorMode.Indexed) {
        const { colors: table, transparent } = palette!;
        for (let x = 0, o = 0; x < width; x++, o += 4) {
          const i = rows[0][x];
          rgba[o] = table[i];
          rgba[o + 1] = table[256 + i];
          rgba[o + 2] = table[512 + i];
          rgba[o + 3] = i === transparent ? 0 : alpha ? alpha[x] : 255;
        }
      } else if (inks) inksToRgba(rows.slice(0, colors), palette?.inks ?? [], rgba, width);
      else toRgbaRow(mode, rows.slice(0, colors), alpha, rgba, 0, width, cmyk);
      y++;
      return rgba;
    },
  };
}

const MERGED_ZIP = "The merged image's ZIP data";

/**
 * The next row of a ZIP stream into `row` (zeros past its end); returns how many bytes the stream
 * still had. Corrupt data is a 422 naming `what`.
 */
export function inflateRow(inflater: Inflater, row: Uint8Array, what: string): number {
  let n: number;
  try {
    n = inflater.read(row);
  } catch (e) {
    if (e instanceof InflateError) throw unprocessable(`${what} could not be inflated: ${e.message}.`);
    throw e;
  }
  row.fill(0, n);
  return n;
}

let keptPlanar = new Uint8Array(0);
/**
 * The widest 32-bit row whose byte-planar scratch is kept for the next (4 bytes a pixel of a
 * 30,000 px layer or merged row, MAX_LAYER_SIDE): a wider one, only a pattern's (psd/patterns.ts,
 * which counts it in what its decode holds), takes a scratch of its own, not kept, so that a
 * crafted pattern millions of pixels wide does not leave tens of MB here for the isolate's life.
 */
const PLANAR_KEPT = 4 * 30_000;

/**
 * Undoes ZIP prediction on one row: each sample (a big-endian word at 16 bits) adds the one
 * before. At 32 bits the row's floats are stored byte-planar (every sample's first byte, then
 * every second byte, …) and each byte adds the one before across the whole row, as psd-tools'
 * and ag-psd's decoders read Photoshop's files; the floats are put back together here.
 */
export function unpredict(row: Uint8Array, width: number, depth: number): void {
  if (depth === 32) {
    const n = width * 4;
    for (let i = 1; i < n; i++) row[i] = (row[i] + row[i - 1]) & 255;
    if (keptPlanar.length < n && n <= PLANAR_KEPT) keptPlanar = new Uint8Array(n);
    const planar = n <= PLANAR_KEPT ? keptPlanar : new Uint8Array(n);
    planar.set(row.subarray(0, n));
    for (let x = 0; x < width; x++) {
      row[4 * x] = planar[x];
      row[4 * x + 1] = planar[width + x];
      row[4 * x + 2] = planar[2 * width + x];
      row[4 * x + 3] = planar[3 * width + x];
    }
  } else if (depth === 16) {
    for (let x = 1, prev = (row[0] << 8) | row[1]; x < width; x++) {
      prev = (prev + ((row[2 * x] << 8) | row[2 * x + 1])) & 0xffff;
      row[2 * x] = prev >> 8;
      row[2 * x + 1] = prev & 255;
    }
  } else for (let x = 1; x < width; x++) row[x] = (row[x] + row[x - 1]) & 255;
}

/** PackBits (Apple RLE) into `out`; short input leaves the rest zero. */
export function unpackBits(src: Uint8Array, start: number, length: number, out: Uint8Array): void {
  let i = start;
  const end = Math.min(src.length, start + length);
  let o = 0;
  while (i < end && o < out.length) {
    const n = src[i++];
    if (n < 128) {
      const count = Math.min(n + 1, out.length - o, end - i);
      if (count < 16) for (let k = 0; k < count; k++) out[o + k] = src[i + k];
      else out.set(src.subarray(i, i + count), o);
      i += n + 1;
      o += count;
    } else if (n > 128) {
      const count = Math.min(257 - n, out.length - o);
      const v = src[i++];
      // Short runs (grain: runs of 2 and 3 between literals) in a loop: a call per run cost 4 × as
      // much (docs/performance.md, "Session 28: compile CPU").
      if (count < 16) for (let k = 0; k < count; k++) out[o + k] = v;
      else out.fill(v, o, o + count);
      o += count;
    }
  }
  out.fill(0, o); // what the row's runs leave short
}
