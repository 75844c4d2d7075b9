import type { Bounds, RGBAImage } from '../types';
import { type Arena, freshKernels, inArena, kernels, markHeldPicture, type KernelExports } from './kernels';
import type { PushedRows } from './resample';

/** Working sets above this run in a fresh kernels instance, freed afterwards (see freshKernels). */
const SHARED_ARENA_LIMIT = 16 << 20;

/**
 * Scaled JPEG decoding (the DCT-domain reduction libjpeg calls `scale_num / scale_denom`): a
 * baseline JPEG decodes straight to k/8 of its size (k = 1…7), each 8×8 block becoming k×k
 * pixels through a k-point inverse DCT of its k×k lowest frequencies (wasm/assembly/jpeg-decode.ts). A shopper's
 * 12 MP photo placed at 1000 px then never exists at full size: less time and a fraction of the
 * memory. Covers what cameras and phones write (baseline, 8-bit, grey or YCbCr, any of the usual
 * chroma subsamplings, restart intervals); anything else (progressive, arithmetic, 12-bit, CMYK,
 * several scans) answers null and the caller decodes at full size with mozjpeg.
 */

/** How many eighths of the size each block keeps (libjpeg's scale_num over scale_denom 8). */
export type JpegScale = 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8;

interface Component {
  id: number;
  h: number;
  v: number;
  quant: number;
  dc: number;
  ac: number;
}

interface Frame {
  width: number;
  height: number;
  components: Component[];
}

/** Thrown for data that cannot be a valid JPEG; the callers map it to 422 as for mozjpeg. */
const corrupt = () => new Error('JPEG data is corrupt');

/**
 * The largest reduction (fewest eighths, any of 1…7) whose size still covers `width` × `height`;
 * 8 (the full-size decode) when none does.
 */
export function jpegScaleFor(source: { width: number; height: number }, width: number, height: number): JpegScale {
  for (const n of [1, 2, 3, 4, 5, 6, 7] as const) {
    if (Math.ceil((source.width * n) / 8) >= width && Math.ceil((source.height * n) / 8) >= height) return n;
  }
  return 8;
}

/**
 * The pixels of a decode that are wanted, [left, right) × [top, bottom) in the decoded picture's
 * pixels (a placement that reads only part of the picture: a 'fill' crops it).
 */
export type DecodeWindow = Bounds;

/**
 * Decodes `bytes` at `scale`/8 of its size (rounded up, as libjpeg does), or null when the file
 * uses a coding this decoder leaves to mozjpeg. Throws on corrupt data. `into`: where the pixels
 * go (exactly their length; every byte is written, but for a window's) instead of a new array.
 * `window`: only its pixels are made (the same bytes as the whole decode's there); the others are
 * left as they were (every block is still entropy-decoded, but those outside it, but for the MCU
 * beside it that chroma upsampling reads, are not transformed, and its rows alone converted).
 * `into` may instead be the picture kernels held for it (kernels.ts' holdPictureKernels): the
 * pixels are then made in their memory (converted in place, not copied out), and the result's
 * data is a view of them there, valid while they are held.
 */
export async function decodeJpegScaled(bytes: Uint8Array, scale: Exclude<JpegScale, 8>, into?: Uint8ClampedArray | { held: KernelExports }, window?: DecodeWindow): Promise<RGBAImage | null> {
  const parsed = parseJpeg(bytes);
  if (!parsed) return null;
  const { frame, quant, huff, restartInterval, start, adobeTransform, jfif } = parsed;
  const ycc = frame.components.length === 3 && (adobeTransform === undefined ? jfif || !isRgbIds(frame) : adobeTransform !== 0);
  return decodeScan(bytes, start, frame, quant, huff, restartInterval, scale, ycc, into, window);
}

/**
 * decodeJpegScaled's pixels of `window` (or all) resampled through `rows` (resample.ts'
 * pushedRows) as they are made, a strip of an MCU row at a time in the decoder's own arena: the
 * bytes of resampleWithTaps on decodeJpegScaled's picture, which is never made (its 4 bytes a
 * pixel written, copied and read again). Null where decodeJpegScaled answers null, for the
 * scales it decodes whole planes at (1/8, 1/4, 1/2), and when `size` (the decode's the taps were
 * made for) is not the frame's: the caller decodes, then resamples.
 */
export async function decodeJpegScaledThrough(bytes: Uint8Array, scale: Exclude<JpegScale, 8>, rows: PushedRows, window?: DecodeWindow, size?: { width: number; height: number }): Promise<RGBAImage | null> {
  if (scale === 1 || scale === 2 || scale === 4) return null;
  const parsed = parseJpeg(bytes);
  if (!parsed) return null;
  const { frame, quant, huff, restartInterval, start, adobeTransform, jfif } = parsed;
  // `size`: the decode's the taps were made for; a frame of another size answers null.
  if (size && (Math.ceil((frame.width * scale) / 8) !== size.width || Math.ceil((frame.height * scale) / 8) !== size.height)) return null;
  const ycc = frame.components.length === 3 && (adobeTransform === undefined ? jfif || !isRgbIds(frame) : adobeTransform !== 0);
  return decodeScan(bytes, start, frame, quant, huff, restartInterval, scale, ycc, undefined, window, rows);
}

type Quant = (Int32Array | undefined)[];
type Huff = ({ bits: Uint8Array; values: Uint8Array } | undefined)[];

/**
 * What the markers up to the (one) scan say, or null for a coding left to mozjpeg. Throws on corrupt data.
 * `strict` (the full-size decode, which must give mozjpeg's answer): also null wherever libjpeg's
 * marker reader (jdmarker.c) or its set-up (jdinput.c, jdhuff.c) would stop with an error, and
 * wherever we are not sure it would not, so that mozjpeg says what such a file gives.
 */
function parseJpeg(bytes: Uint8Array, strict = false): { frame: Frame; quant: Quant; huff: Huff; restartInterval: number; start: number; adobeTransform: number | undefined; jfif: boolean; jfifMarker: boolean } | null {
  const quant: Quant = [];
  const huff: Huff = [];
  let frame: Frame | undefined;
  let restartInterval = 0;
  let adobeTransform: number | undefined;
  let jfif = false;
  let jfifMarker = false; // as libjpeg reads it: "JFIF\0" in an APP0 of at least 14 bytes
  if (bytes[0] !== 0xff || bytes[1] !== 0xd8) throw corrupt();
  let p = 2;
  for (;;) {
    while (p < bytes.length && bytes[p] !== 0xff) p++; // tolerate junk between segments
    while (p < bytes.length && bytes[p] === 0xff) p++;
    if (p + 2 >= bytes.length) throw corrupt();
    const marker = bytes[p]!;
    p++;
    // libjpeg: a second SOI is an error; FF 00 is skipped as data, not a marker.
    if (strict && (marker === 0xd8 || marker === 0)) return null;
    if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) continue;
    // libjpeg refuses markers it does not know ("Unsupported marker type"), JPG and the other SOFs;
    // DAC (arithmetic conditioning) and DNL are left to it too.
    if (strict && !knownMarker(marker)) return null;
    if (marker === 0xd9) throw corrupt(); // EOI before any scan
    const length = (bytes[p]! << 8) | bytes[p + 1]!;
    const end = p + length;
    if (length < 2 || end > bytes.length) throw corrupt();
    const seg = bytes.subarray(p + 2, end);
    switch (marker) {
      case 0xdb: // DQT
        for (let i = 0; i < seg.length; ) {
          const precision = seg[i]! >> 4;
          const id = seg[i]! & 15;
          const size = precision ? 128 : 64;
          if (id > 3 || i + 1 + size > seg.length) throw corrupt();
          if (strict && precision > 1) return null;
          const table = new Int32Array(64);
          for (let k = 0; k < 64; k++) table[k] = precision ? (seg[i + 1 + 2 * k]! << 8) | seg[i + 2 + 2 * k]! : seg[i + 1 + k]!;
          // Above 32767 libjpeg's multiplier type (short in SIMD builds) could differ from ours.
          if (strict && table.some((q) => q > 32767)) return null;
          quant[id] = table;
          i += 1 + size;
        }
        break;
      case 0xc4: // DHT
        for (let i = 0; i < seg.length; ) {
          const cls = seg[i]! >> 4;
          const id = seg[i]! & 15;
          if (cls > 1 || id > 3 || i + 17 > seg.length) throw corrupt();
          const bits = seg.slice(i + 1, i + 17);
          const count = bits.reduce((a, b) => a + b, 0);
          if (count > 256 || i + 17 + count > seg.length) throw corrupt();
          huff[cls * 4 + id] = { bits, values: seg.slice(i + 17, i + 17 + count) };
          i += 17 + count;
        }
        break;
      case 0xdd: // DRI
        if (seg.length < 2) throw corrupt();
        if (strict && seg.length !== 2) return null; // libjpeg: "Bogus marker length"
        restartInterval = (seg[0]! << 8) | seg[1]!;
        break;
      case 0xe0:
        if (seg[0] === 0x4a && seg[1] === 0x46 && seg[2] === 0x49 && seg[3] === 0x46) {
          jfif = true;
          if (seg[4] === 0 && seg.length >= 14) jfifMarker = true;
        }
        break;
      case 0xee: // Adobe: its transform flag says whether three components are YCbCr or RGB
        if (seg.length >= 12 && seg[0] === 0x41 && seg[1] === 0x64 && seg[2] === 0x6f && seg[3] === 0x62 && seg[4] === 0x65) adobeTransform = seg[11];
        break;
      case 0xc0:
      case 0xc1: {
        if (seg.length < 6 || seg[0] !== 8) return null; // 12-bit
        const height = (seg[1]! << 8) | seg[2]!;
        const width = (seg[3]! << 8) | seg[4]!;
        const n = seg[5]!;
        if (!width || !height || (n !== 1 && n !== 3) || seg.length < 6 + 3 * n) return null;
        // libjpeg: a second SOF, a length not 8 + 3n, a size past JPEG_MAX_DIMENSION (65500).
        if (strict && (frame || seg.length !== 6 + 3 * n || width > 65500 || height > 65500)) return null;
        const components: Component[] = [];
        for (let c = 0; c < n; c++) {
          const o = 6 + 3 * c;
          components.push({ id: seg[o]!, h: seg[o + 1]! >> 4, v: seg[o + 1]! & 15, quant: seg[o + 2]!, dc: 0, ac: 0 });
        }
        // Each sampling factor 1..4 (jdinput.c's initial_setup), even a single component's, which
        // then decodes as 1 × 1; ids alike are left to libjpeg's matching.
        if (strict && components.some((c, i) => c.h < 1 || c.h > 4 || c.v < 1 || c.v > 4 || components.findIndex((d) => d.id === c.id) !== i)) return null;
        // At most 10 blocks in an interleaved MCU (D_MAX_BLOCKS_IN_MCU): 2×2 all three is 12.
        if (strict && n > 1 && components.reduce((sum, c) => sum + c.h * c.v, 0) > 10) return null;
        frame = { width, height, components };
        break;
      }
      case 0xda: { // SOS: the one scan we decode
        if (!frame) throw corrupt();
        const count = seg[0]!;
        if (count !== frame.components.length || seg.length < 1 + 2 * count + 3) return null; // several scans
        // libjpeg: the length exactly 6 + 2n. Its MCU takes the components in the scan's order, ours
        // in the frame's: null unless they agree. Ss, Se, Ah/Al other than 0, 63, 0 are a warning there.
        if (strict && (seg.length !== 1 + 2 * count + 3 || seg[1 + 2 * count] !== 0 || seg[2 + 2 * count] !== 63 || seg[3 + 2 * count] !== 0)) return null;
        for (let i = 0; i < count; i++) {
          const component = frame.components.find((c) => c.id === seg[1 + 2 * i]);
          if (!component) throw corrupt();
          if (strict && component !== frame.components[i]) return null;
          component.dc = seg[2 + 2 * i]! >> 4;
          component.ac = seg[2 + 2 * i]! & 15;
          // Table numbers 0..3 (jdhuff.c: "Huffman table 0x.. was not defined"); ours would read huff[dc] past the DC tables.
          if (strict && (component.dc > 3 || component.ac > 3)) return null;
          // jpeg_make_d_derived_tbl's checks on the tables the scan uses.
          if (strict && (!huffmanValid(huff[component.dc], true) || !huffmanValid(huff[4 + component.ac], false))) return null;
        }
        return { frame, quant, huff, restartInterval, start: end, adobeTransform, jfif, jfifMarker };
      }
      default:
        // Progressive, lossless, hierarchical and arithmetic frames: leave them to mozjpeg.
        if (marker >= 0xc2 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) return null;
    }
    p = end;
  }
}

/**
 * Markers libjpeg's read_markers accepts before the scan and we read: SOF0/1, DHT, DQT, DRI, SOS,
 * EOI, APPn and COM (SOI, RSTn and TEM are handled before). Progressive and other SOFs answer
 * null as codings left to mozjpeg; anything else is left to it as possibly an error there.
 */
const knownMarker = (m: number) => m === 0xc0 || m === 0xc1 || m === 0xc4 || m === 0xdb || m === 0xdd || m === 0xda || m === 0xd9 || (m >= 0xe0 && m <= 0xef) || m === 0xfe || (m >= 0xc2 && m <= 0xcf && m !== 0xc8 && m !== 0xcc);

/**
 * A Huffman table libjpeg's jpeg_make_d_derived_tbl accepts: defined, at most 256 codes, no
 * length's codes running out of its bits (a last code of all ones included), DC symbols 0..15.
 */
function huffmanValid(spec: Huff[number], dc: boolean): boolean {
  if (!spec) return false;
  let code = 0;
  for (let len = 1; len <= 16; len++) {
    const count = spec.bits[len - 1]!;
    code += count;
    if (count && code >= 1 << len) return false;
    code <<= 1;
  }
  return !dc || spec.values.every((v) => v <= 15);
}

/**
 * Whether the markers after the scan's data (from `p`, where our reading stopped) pass libjpeg's
 * jpeg_finish_decompress, which reads on to EOI: junk bytes and FF 00 are skipped (a warning),
 * RSTn, TEM, APPn and COM are passed over, the data ending early is a warning. Anything else
 * (another SOF or SOS, a table, an unknown marker, a segment running past the end) is left to mozjpeg.
 */
function endsCleanly(bytes: Uint8Array, p: number): boolean {
  const n = bytes.length;
  for (;;) {
    while (p < n && bytes[p] !== 0xff) p++;
    while (p < n && bytes[p] === 0xff) p++;
    if (p >= n) return true;
    const m = bytes[p++]!;
    if (m === 0 || m === 0x01 || (m >= 0xd0 && m <= 0xd7)) continue;
    if (m === 0xd9) return true;
    if (!((m >= 0xe0 && m <= 0xef) || m === 0xfe) || p + 2 > n) return false;
    const length = (bytes[p]! << 8) | bytes[p + 1]!;
    if (length < 2 || p + length > n) return false;
    p += length;
  }
}

/** MCU rows the full-size decode's planes hold (see decodeJpegFull). */
const RING = 3;

/**
 * Decodes `bytes` at full size to the same RGBA bytes as libjpeg-turbo with its defaults (what
 * mozjpeg's decoder in decodeImage returns): the accurate integer IDCT, fancy upsampling, the
 * fixed-point YCbCr tables (wasm/assembly/jpeg-idct.ts). Null for a coding this decoder leaves
 * to mozjpeg (as decodeJpegScaled), and for damaged data (markers, entropy data it cannot read,
 * data that runs short): mozjpeg then decides what such a file gives, as before.
 * Decoded one MCU row at a time into planes of three MCU rows, each converted and copied out as
 * soon as the row below it is decoded: the arena holds the file and ~0.1 MB per 1,000 px of
 * width; the picture itself is built in JS (4 bytes a pixel), or goes into `into` when that is
 * exactly its length (every byte is written when the answer is not null; a header that said
 * another size than the frame's leaves `into` unused, so the caller's size check still tells).
 * `window`: as decodeJpegScaled's (only the blocks under it and beside it transformed, its rows
 * alone converted: whole rows, the columns outside it from blocks not transformed).
 */
export async function decodeJpegFull(bytes: Uint8Array, into?: Uint8ClampedArray, window?: DecodeWindow): Promise<RGBAImage | null> {
  let parsed: ReturnType<typeof parseJpeg>;
  try {
    parsed = parseJpeg(bytes, true);
  } catch {
    return null; // what damaged markers give (a picture or an error) is mozjpeg's to say, as before
  }
  if (!parsed) return null;
  const { frame, quant, huff, restartInterval, start, adobeTransform, jfifMarker } = parsed;
  const { width, height } = frame;
  // libjpeg's colour space for three components (jdapimin.c): JFIF, else Adobe's transform, else the ids.
  const ycc = frame.components.length === 3 && (jfifMarker || (adobeTransform === undefined ? !isRgbIds(frame) : adobeTransform !== 0));
  const mcus = mcuLayout(frame);
  if (!mcus) return null;
  const { single, comps, hMax, vMax, mcusX, mcusY } = mcus;
  if (comps.some((c) => !quant[c.quant] || !huff[c.dc] || !huff[4 + c.ac])) return null;
  // The planes hold RING MCU rows: the one converted, the one above (the context row of its
  // subsampled components' first rows) and the one below (decoded ahead for its last rows).
  const layout = comps.map((c) => {
    const stride = mcusX * c.h * 8;
    return { stride, bytes: stride * RING * c.v * 8 };
  });
  const mcuRows = single ? Math.ceil(height / 8) : mcusY;
  const mcuHeight = single ? 8 : 8 * vMax; // output rows per MCU row
  const scratchBytes = 5 * (((width + 15) & ~15) + 64);
  const workingSet = bytes.length + layout.reduce((sum, plane) => sum + plane.bytes, 0) + scratchBytes + mcuHeight * width * 4;
  const instance = workingSet > SHARED_ARENA_LIMIT ? await freshKernels() : await kernels();
  return inArena(instance, (k, arena) => {
    const scratch = arena.alloc(scratchBytes);
    const strip = arena.alloc(mcuHeight * width * 4);
    const { data, huffPtr, compsPtr } = loadScan(arena, bytes, quant, huff, comps, layout, () => 8);
    const u8 = arena.u8();
    const i32 = arena.i32();
    const out = into?.length === width * height * 4 ? into : new Uint8ClampedArray(width * height * 4);
    if (window) i32.set(windowWords(window, { across: 8 * hMax, down: 8 * vMax }), (compsPtr >> 2) + 28);
    // MCU row m is decoded, then the rows of MCU row m − 1 converted (their context is in the ring).
    const convert = mcuRowConverter(windowRows(window, height), mcuHeight, width, out, u8, strip, (y0, y1) =>
      k.jpegRowsExact(comps.length, compsPtr, hMax, vMax, width, height, ycc ? 1 : 0, y0, y1, strip, scratch),
    );
    for (let m = 0; m < mcuRows; m++) {
      i32.set([m, 1, RING], (compsPtr >> 2) + 24);
      const status = k.jpegDecodeScanExact(data, bytes.length, start, comps.length, compsPtr, huffPtr, single ? Math.ceil(width / 8) : mcusX, mcuRows, restartInterval);
      if (status !== 0) return null;
      if (m > 0) convert(m - 1);
    }
    if (!endsCleanly(bytes, i32[(compsPtr >> 2) + 27]!)) return null;
    convert(mcuRows - 1);
    return { width, height, data: out };
  });
}

/**
 * The components as the scan decoders take them (a grey file's one component as 1 × 1) and its MCU
 * grid, or null for subsampling they leave to mozjpeg: luma at most 2 × 2, each factor dividing the largest.
 */
function mcuLayout(frame: Frame) {
  const single = frame.components.length === 1;
  const comps = single ? [{ ...frame.components[0]!, h: 1, v: 1 }] : frame.components;
  const hMax = Math.max(...comps.map((c) => c.h));
  const vMax = Math.max(...comps.map((c) => c.v));
  if (comps.some((c) => c.h < 1 || c.v < 1 || c.h > 2 || c.v > 2 || hMax % c.h || vMax % c.v)) return null;
  return { single, comps, hMax, vMax, mcusX: Math.ceil(frame.width / (8 * hMax)), mcusY: Math.ceil(frame.height / (8 * vMax)) };
}

/**
 * Puts what both scan decoders read into the arena: the file, the Huffman tables and, per
 * component, its quantisation table and a plane of `layout`'s bytes, described in eight words at
 * compsPtr (h, v, DC and AC tables, the quantisation table, the plane, its stride, `blockSize(i)`).
 * Words 24-27 are the full-size decode's (the MCU row asked, rows, ring, where the scan stopped);
 * 28-35 the window (MCU columns, MCU rows, output columns, output rows: the whole picture here).
 * Allocate what else the caller needs first, and take fresh views afterwards.
 */
function loadScan(
  arena: Arena, bytes: Uint8Array, quant: Quant, huff: Huff, comps: Component[], layout: { stride: number; bytes: number }[], blockSize: (i: number) => number,
): { data: number; huffPtr: number; compsPtr: number } {
  const data = arena.alloc(bytes.length);
  const huffPtr = arena.alloc(8 * 1024 * 4);
  const compsPtr = arena.alloc(3 * 32 + 48);
  const quantPtrs = comps.map(() => arena.alloc(64 * 4));
  const planes = layout.map((plane) => arena.alloc(plane.bytes));
  const i32 = arena.i32();
  arena.u8().set(bytes, data);
  for (let t = 0; t < 8; t++) {
    const spec = huff[t];
    if (spec) writeHuffman(i32, (huffPtr >> 2) + t * 1024, spec);
  }
  comps.forEach((c, i) => {
    i32.set(quant[c.quant]!, quantPtrs[i]! >> 2);
    i32.set([c.h, c.v, c.dc, 4 + c.ac, quantPtrs[i]!, planes[i]!, layout[i]!.stride, blockSize(i)], (compsPtr >> 2) + i * 8);
  });
  i32.set(WHOLE, (compsPtr >> 2) + 28);
  return { data, huffPtr, compsPtr };
}

/** Words 28-35 of loadScan's record: every MCU and every pixel ([0, 2^31 − 1) each way). */
const WHOLE = [0, 0x7fffffff, 0, 0x7fffffff, 0, 0x7fffffff, 0, 0x7fffffff];

/**
 * Words 28-35 of loadScan's record for `window` (output pixels; `mcu`: an MCU's output pixels
 * across and down): the MCUs under it and one more each side (the neighbours chroma upsampling
 * reads: fancy upsampling's one sample beyond, a 4:4:0 MCU row's context rows), the columns from
 * the even one at or before its left, its rows.
 */
function windowWords(window: DecodeWindow, mcu: { across: number; down: number }): number[] {
  const { left, top, right, bottom } = window;
  return [
    Math.floor(left / mcu.across) - 1, Math.ceil(right / mcu.across) + 1, Math.floor(top / mcu.down) - 1, Math.ceil(bottom / mcu.down) + 1,
    left & ~1, right, top, bottom,
  ];
}

/** The output rows a decode converts, [top, bottom) of `height`: a window's (within the picture), or all. */
function windowRows(window: DecodeWindow | undefined, height: number): { top: number; bottom: number } {
  if (!window) return { top: 0, bottom: height };
  const top = Math.min(height, Math.max(0, window.top));
  return { top, bottom: Math.max(top, Math.min(height, window.bottom)) };
}

/**
 * Converts MCU row m's output rows within `rows` (none when it has none there): `toRgba(y0, y1)`
 * writes them at `strip` in the arena (`u8`), from where they are copied into `out`; with no
 * `out`, where they belong (a held picture's rows, in place).
 */
function mcuRowConverter(
  rows: { top: number; bottom: number }, mcuHeight: number, width: number, out: Uint8ClampedArray | undefined, u8: Uint8Array, strip: number, toRgba: (y0: number, y1: number) => void,
): (m: number) => void {
  return (m) => {
    const y0 = Math.max(rows.top, m * mcuHeight);
    const y1 = Math.min(rows.bottom, (m + 1) * mcuHeight);
    if (y0 >= y1) return;
    toRgba(y0, y1);
    out?.set(u8.subarray(strip, strip + (y1 - y0) * width * 4), y0 * width * 4);
  };
}

/** Components named 'R', 'G', 'B' (an RGB JPEG without an Adobe marker, as libjpeg guesses). */
const isRgbIds = (frame: Frame) => frame.components.map((c) => c.id).join() === '82,71,66';

async function decodeScan(
  bytes: Uint8Array, start: number, frame: Frame, quant: Quant, huff: Huff, restartInterval: number, scale: number, ycc: boolean, given?: Uint8ClampedArray | { held: KernelExports }, window?: DecodeWindow,
  /** decodeJpegScaledThrough's: each MCU row's rows converted into the strip and pushed through these (the scales decoded by rows alone). */
  through?: PushedRows,
): Promise<RGBAImage | null> {
  const held = given && 'held' in given ? given.held : undefined;
  const into = held ? undefined : (given as Uint8ClampedArray | undefined);
  const { width, height } = frame;
  const mcus = mcuLayout(frame);
  if (!mcus) return null;
  const { single, comps, hMax, vMax, mcusX, mcusY } = mcus;
  if (comps.some((c) => !quant[c.quant] || !huff[c.dc] || !huff[4 + c.ac])) throw corrupt();
  const outW = Math.ceil((width * scale) / 8);
  const outH = Math.ceil((height * scale) / 8);
  if (into && into.length !== outW * outH * 4) throw new RangeError(`decodeJpegScaled: ${into.length} bytes given for ${outW}×${outH} pixels`);
  const mcuRows = single ? Math.ceil(height / 8) : mcusY;
  // 3/8 and 5/8–7/8 decode an MCU row at a time into planes of one MCU row, each converted into
  // the RGBA right away (jpegToRgbaRows): only the picture itself is whole (4 bytes a pixel, in
  // JS), as in the full-size decode. 1/8, 1/4 and 1/2 decode whole planes, then convert (as ever).
  const byRows = scale !== 1 && scale !== 2 && scale !== 4;
  // 4:4:0 chroma is upsampled down the rows (libjpeg-turbo's h1v2_fancy_upsample): an MCU row's
  // last rows need the next one's first, its first the previous one's last. Its planes then hold
  // three MCU rows and each is converted after the next is decoded.
  const ring = comps.some((c) => c.h === hMax && 2 * c.v === vMax) ? 3 : 1;
  const layout = comps.map((c) => {
    const size = blockSize(c, hMax, vMax, scale);
    const stride = mcusX * c.h * size;
    return { size, stride, bytes: stride * (byRows ? ring : mcusY) * c.v * size };
  });
  const mcuHeight = vMax * scale; // output rows per MCU row
  const scratchBytes = 3 * ((outW + 31) & ~15) + 16;
  const planeBytes = layout.reduce((sum, plane) => sum + plane.bytes, 0);
  const workingSet = bytes.length + planeBytes + (byRows ? scratchBytes + mcuHeight * outW * 4 : outW * outH * 4);
  const instance = held ?? (workingSet > SHARED_ARENA_LIMIT ? await freshKernels() : await kernels());
  const converted = windowRows(window, outH);
  const mcu = { across: single ? scale : hMax * scale, down: single ? scale : vMax * scale };
  return inArena(instance, (k, arena) => {
    // Held: the picture is made in the picture kernels' memory (kernels.ts' holdPictureKernels), in place.
    const picture = held ? arena.alloc(outW * outH * 4) : 0;
    /** The held picture: a view of the kernels' memory, taken after the last allocation. */
    const heldView = (): Uint8ClampedArray => {
      const view = new Uint8ClampedArray(k.memory.buffer, picture, outW * outH * 4);
      markHeldPicture(view);
      return view;
    };
    if (byRows) {
      // Held, the rows are converted in place: no strip, no copy.
      const strip = held || through ? 0 : arena.alloc(mcuHeight * outW * 4);
      const scratch = arena.alloc(scratchBytes);
      const { data, huffPtr, compsPtr } = loadScan(arena, bytes, quant, huff, comps, layout, (i) => layout[i]!.size);
      arena.alloc(16); // jpegToRgbaRows reads up to 7 bytes past a plane's row
      through?.alloc(k, arena, outW * 4, mcuHeight);
      const u8 = arena.u8();
      const i32 = arena.i32();
      through?.start();
      if (window) i32.set(windowWords(window, mcu), (compsPtr >> 2) + 28);
      const rows = k as unknown as RowsKernel;
      // Every row is written (a window's rows alone): the MCU rows cover outH (mcuRows × mcuHeight ≥ outH).
      const out = held || through ? undefined : into ?? new Uint8ClampedArray(outW * outH * 4);
      const toRgba = (y0: number, y1: number) => {
        rows.jpegToRgbaRows(comps.length, compsPtr, hMax, vMax, scale, outW, ycc ? 1 : 0, y0, y1, held ? picture + y0 * outW * 4 : through ? through.rowsAt(y0) : strip, scratch, outH);
        through?.push(y0, y1);
      };
      const convert = mcuRowConverter(converted, mcuHeight, outW, out, u8, strip, toRgba);
      for (let m = 0; m < mcuRows; m++) {
        i32.set([m, 1, ring], (compsPtr >> 2) + 24);
        if (rows.jpegDecodeScanRows(data, bytes.length, start, comps.length, compsPtr, huffPtr, single ? Math.ceil(width / 8) : mcusX, mcuRows, restartInterval) !== 0) throw corrupt();
        if (ring === 1) convert(m);
        else if (m > 0) convert(m - 1);
      }
      if (ring > 1) convert(mcuRows - 1);
      if (through) return through.finish();
      return { width: outW, height: outH, data: out ?? heldView() };
    }
    const out = held ? picture : arena.alloc(outW * outH * 4);
    const { data, huffPtr, compsPtr } = loadScan(arena, bytes, quant, huff, comps, layout, (i) => layout[i]!.size);
    if (window) arena.i32().set(windowWords(window, mcu), (compsPtr >> 2) + 28);
    const status = k.jpegDecodeScan(data, bytes.length, start, comps.length, compsPtr, huffPtr, single ? Math.ceil(width / 8) : mcusX, mcuRows, restartInterval);
    if (status !== 0) throw corrupt();
    k.jpegToRgba(comps.length, compsPtr, hMax, vMax, scale, outW, outH, ycc ? 1 : 0, out);
    if (held) return { width: outW, height: outH, data: heldView() };
    const u8 = arena.u8();
    if (into) into.set(u8.subarray(out + converted.top * outW * 4, out + converted.bottom * outW * 4), converted.top * outW * 4);
    return { width: outW, height: outH, data: into ?? new Uint8ClampedArray(u8.slice(out, out + outW * outH * 4).buffer) };
  });
}

/** wasm/assembly/jpeg-decode.ts' jpegDecodeScanRows and jpegToRgbaRows (declared here until kernels.ts' Kernels lists them). */
interface RowsKernel {
  jpegDecodeScanRows(data: number, dataLen: number, start: number, ncomp: number, comps: number, huff: number, mcusX: number, mcusY: number, restartInterval: number): number;
  jpegToRgbaRows(ncomp: number, comps: number, hMax: number, vMax: number, scale: number, width: number, ycc: number, y0: number, y1: number, out: number, scratch: number, height: number): void;
}

/**
 * A component's decoded block size: `scale`, or for subsampled chroma as much more as brings it
 * to the output's resolution when it is subsampled alike both ways, as libjpeg does, so colour
 * edges stay as sharp as the luma's: 4:2:0 chroma at 5/8–7/8 becomes 10–14 points a block (its
 * 8×8 frequencies interpolated, jpeg_idct_10x10 … 14x14). Other subsampling (4:2:2, 4:4:0) stays
 * at `scale` and is upsampled as libjpeg-turbo does, replicated at 1/8 (jpegToRgba, jpegToRgbaRows).
 */
function blockSize(c: Component, hMax: number, vMax: number, scale: number): number {
  const factor = hMax / c.h;
  return factor === vMax / c.v ? scale * factor : scale;
}

/** T.81 Annex C code assignment, laid out as wasm/assembly/jpeg-decode.ts reads it. */
function writeHuffman(i32: Int32Array, at: number, { bits, values }: { bits: Uint8Array; values: Uint8Array }): void {
  i32.fill(0, at, at + 1024);
  let code = 0;
  let k = 0;
  for (let len = 1; len <= 16; len++) {
    const count = bits[len - 1]!;
    i32[at + 530 + len] = k - code; // value index of a code of this length = code + offset
    for (let i = 0; i < count; i++, k++, code++) {
      if (len <= 9) {
        const first = code << (9 - len);
        i32.fill((len << 8) | values[k]!, at + first, at + first + (1 << (9 - len)));
      }
    }
    i32[at + 512 + len] = count ? code - 1 : -1;
    code <<= 1;
  }
  i32.set(values, at + 548);
}
