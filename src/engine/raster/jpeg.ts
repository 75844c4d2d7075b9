import type { RGBAImage } from '../types';
import { concat } from './bytes';
import { freeNow } from '../compiled/free';
import { withArena, type KernelExports } from './kernels';

/**
 * Our baseline JPEG encoder (ITU T.81): JFIF, Annex K quantisation tables scaled by the IJG
 * quality formula (so 0–100 means what it means in libjpeg/mozjpeg), Huffman tables fitted to
 * the image (Annex K.2) or the Annex K.3 ones, 4:2:0 or 4:4:4. The per-pixel work runs in WASM
 * (wasm/assembly/jpeg.ts) one MCU row at a time. Several times faster than mozjpeg, whose
 * trellis quantisation @jsquash cannot switch off; files are somewhat larger than mozjpeg's at
 * the same quality (docs/performance.md).
 */
export interface JpegEncodeOptions {
  /** 0–100 (IJG scale). */
  quality: number;
  /** 2: 4:2:0 (half-resolution chroma), 1: 4:4:4. */
  subsampling: 1 | 2;
  /**
   * Huffman tables fitted to the image (a counting pass first, T.81 Annex K.2): ~10 % smaller
   * files for ~30 % more time. Default true; false uses the Annex K.3 tables.
   */
  optimizeHuffman?: boolean;
  /** Bytes of recorded coefficients allowed before the second pass transforms again (tests). */
  maxCoefficientCache?: number;
}

// Annex K.1 tables, natural (row-major) order.
export const LUMA_Q = [
  16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56, 14, 17, 22, 29, 51, 87, 80, 62,
  18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92, 49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99,
];
export const CHROMA_Q = [
  17, 18, 24, 47, 99, 99, 99, 99, 18, 21, 26, 66, 99, 99, 99, 99, 24, 26, 56, 99, 99, 99, 99, 99, 47, 66, 99, 99, 99, 99, 99, 99,
  ...new Array(32).fill(99),
];
export const ZIGZAG = [
  0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28, 35, 42, 49, 56,
  57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
];
export const AAN = [1.0, 1.387039845, 1.306562965, 1.175875602, 1.0, 0.785694958, 0.5411961, 0.275899379];

// Annex K.3 Huffman tables: code counts per length 1..16, then symbols.
export interface HuffSpec { bits: number[]; values: number[] }
export const DC_LUMA: HuffSpec = { bits: [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0], values: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] };
export const DC_CHROMA: HuffSpec = { bits: [0, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0], values: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] };
export const AC_LUMA: HuffSpec = {
  bits: [0, 2, 1, 3, 3, 2, 4, 3, 5, 5, 4, 4, 0, 0, 1, 0x7d],
  values: hex(
    '01020300041105122131410613516107227114328191a1082342b1c11552d1f02433627282090a161718191a25262728292a3435363738393a434445464748494a535455565758595a636465666768696a737475767778797a838485868788898a92939495969798999aa2a3a4a5a6a7a8a9aab2b3b4b5b6b7b8b9bac2c3c4c5c6c7c8c9cad2d3d4d5d6d7d8d9dae1e2e3e4e5e6e7e8e9eaf1f2f3f4f5f6f7f8f9fa',
  ),
};
export const AC_CHROMA: HuffSpec = {
  bits: [0, 2, 1, 2, 4, 4, 3, 4, 7, 5, 4, 4, 0, 1, 2, 0x77],
  values: hex(
    '000102031104052131061241510761711322328108144291a1b1c109233352f0156272d10a162434e125f11718191a262728292a35363738393a434445464748494a535455565758595a636465666768696a737475767778797a82838485868788898a92939495969798999aa2a3a4a5a6a7a8a9aab2b3b4b5b6b7b8b9bac2c3c4c5c6c7c8c9cad2d3d4d5d6d7d8d9dae2e3e4e5e6e7e8e9eaf2f3f4f5f6f7f8f9fa',
  ),
};

function hex(s: string): number[] {
  return Array.from({ length: s.length / 2 }, (_, i) => parseInt(s.slice(2 * i, 2 * i + 2), 16));
}

/** IJG quality scaling of a base table (libjpeg jcparam.c), baseline-limited to 1..255. */
export function scaledTable(base: number[], quality: number): number[] {
  const q = Math.max(1, Math.min(100, Math.round(quality)));
  const scale = q < 50 ? 5000 / q : 200 - 2 * q;
  return base.map((v) => Math.max(1, Math.min(255, Math.floor((v * scale + 50) / 100))));
}

/** Symbol → (code, size), T.81 Annex C. */
export function huffCodes({ bits, values }: HuffSpec): Uint16Array {
  const table = new Uint16Array(512);
  let code = 0;
  let k = 0;
  for (let len = 1; len <= 16; len++) {
    for (let i = 0; i < bits[len - 1]!; i++) {
      table[values[k]! * 2] = code;
      table[values[k]! * 2 + 1] = len;
      code++;
      k++;
    }
    code <<= 1;
  }
  return table;
}

/**
 * Code lengths for symbol counts (T.81 Annex K.2, as libjpeg's jpeg_gen_optimal_table): Huffman
 * merging with a reserved symbol so no code is all ones, then lengths limited to 16 bits.
 */
export function optimalTable(counts: Uint32Array): HuffSpec {
  const freq = new Float64Array(257);
  freq.set(counts);
  freq[256] = 1;
  const codesize = new Int32Array(257);
  const others = new Int32Array(257).fill(-1);
  // The symbols still counted in a heap, least count first and of equal counts the highest symbol
  // first: the order in which libjpeg's two scans over all 257 (`<=`: a tie's last) take them.
  const heap = new Int32Array(257);
  let n = 0;
  const before = (a: number, b: number) => freq[a]! < freq[b]! || (freq[a] === freq[b] && a > b);
  const push = (s: number) => {
    let j = n++;
    for (; j > 0; j = (j - 1) >> 1) {
      const parent = heap[(j - 1) >> 1]!;
      if (!before(s, parent)) break;
      heap[j] = parent;
    }
    heap[j] = s;
  };
  const pop = () => {
    const top = heap[0]!;
    const s = heap[--n]!;
    let j = 0;
    for (;;) {
      let c = 2 * j + 1;
      if (c >= n) break;
      if (c + 1 < n && before(heap[c + 1]!, heap[c]!)) c++;
      if (!before(heap[c]!, s)) break;
      heap[j] = heap[c]!;
      j = c;
    }
    heap[j] = s;
    return top;
  };
  for (let i = 0; i <= 256; i++) if (freq[i]) push(i);
  while (n >= 2) {
    let c1 = pop();
    let c2 = pop();
    freq[c1]! += freq[c2]!;
    freq[c2] = 0;
    push(c1);
    codesize[c1]!++;
    while (others[c1]! >= 0) { c1 = others[c1]!; codesize[c1]!++; }
    others[c1] = c2;
    codesize[c2]!++;
    while (others[c2]! >= 0) { c2 = others[c2]!; codesize[c2]!++; }
  }
  const bits = new Int32Array(33);
  for (let i = 0; i <= 256; i++) if (codesize[i]) bits[codesize[i]!]!++;
  for (let i = 32; i > 16; i--) {
    while (bits[i]! > 0) {
      let j = i - 2;
      while (bits[j] === 0) j--;
      bits[i]! -= 2;
      bits[i - 1]!++;
      bits[j + 1]! += 2;
      bits[j]!--;
    }
  }
  let i = 16;
  while (bits[i] === 0) i--;
  bits[i]!--; // drop the reserved symbol
  const values: number[] = [];
  for (let sym = 0; sym < 256; sym++) if (codesize[sym]) values.push(sym);
  values.sort((a, b) => codesize[a]! - codesize[b]! || a - b); // by code length, then symbol
  return { bits: Array.from(bits.subarray(1, 17)), values };
}

function headers(width: number, height: number, lq: number[], cq: number[], sub: 1 | 2, tables: HuffSpec[], restartInterval = 0, kind: PixelKind = 'rgb'): Uint8Array {
  const b: number[] = [0xff, 0xd8];
  const segment = (marker: number, body: number[]) => b.push(0xff, marker, (body.length + 2) >> 8, (body.length + 2) & 255, ...body);
  if (kind === 'ink') segment(0xee, [0x41, 0x64, 0x6f, 0x62, 0x65, 0, 100, 0, 0, 0, 0, 2]); // "Adobe", version 100, ColorTransform 2 (YCCK)
  else segment(0xe0, [0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0]); // JFIF 1.01, aspect 1:1
  const dht = (cls: number, spec: HuffSpec) => [cls, ...spec.bits, ...spec.values];
  const [dcL, acL, dcC, acC] = tables as [HuffSpec, HuffSpec, HuffSpec, HuffSpec];
  if (kind === 'gray') {
    segment(0xdb, [0, ...ZIGZAG.map((i) => lq[i]!)]);
    segment(0xc0, [8, height >> 8, height & 255, width >> 8, width & 255, 1, 1, 0x11, 0]);
    segment(0xc4, [...dht(0x00, dcL), ...dht(0x10, acL)]);
    if (restartInterval) segment(0xdd, [restartInterval >> 8, restartInterval & 255]);
    segment(0xda, [1, 1, 0x00, 0, 63, 0]);
    return new Uint8Array(b);
  }
  segment(0xdb, [0, ...ZIGZAG.map((i) => lq[i]!), 1, ...ZIGZAG.map((i) => cq[i]!)]);
  const samp = sub === 2 ? 0x22 : 0x11;
  // Components: Y, Cb, Cr (and K, sampled and tabled like Y).
  const ink = kind === 'ink';
  const frame = [1, samp, 0, 2, 0x11, 1, 3, 0x11, 1, ...(ink ? [4, samp, 0] : [])];
  segment(0xc0, [8, height >> 8, height & 255, width >> 8, width & 255, ink ? 4 : 3, ...frame]);
  segment(0xc4, [...dht(0x00, dcL), ...dht(0x10, acL), ...dht(0x01, dcC), ...dht(0x11, acC)]);
  if (restartInterval) segment(0xdd, [restartInterval >> 8, restartInterval & 255]);
  segment(0xda, [ink ? 4 : 3, 1, 0x00, 2, 0x11, 3, 0x11, ...(ink ? [4, 0x00] : []), 0, 63, 0]);
  return new Uint8Array(b);
}

const STANDARD_TABLES = [DC_LUMA, AC_LUMA, DC_CHROMA, AC_CHROMA];

/** Quantisation tables at `quality` and their reciprocals with the AAN scale factors folded in (kept per quality: read-only). */
function quantisation(quality: number): { lq: number[]; cq: number[]; fdtbl: Float32Array } {
  // scaledTable's own rounding and clamping: at most 100 entries (and NaN).
  const key = Math.max(1, Math.min(100, Math.round(quality)));
  let kept = quantisations.get(key);
  if (!kept) quantisations.set(key, (kept = makeQuantisation(quality)));
  return kept;
}

const quantisations = new Map<number, { lq: number[]; cq: number[]; fdtbl: Float32Array }>();

function makeQuantisation(quality: number) {
  const lq = scaledTable(LUMA_Q, quality);
  const cq = scaledTable(CHROMA_Q, quality);
  const fdtbl = new Float32Array(128);
  for (let r = 0; r < 8; r++)
    for (let c = 0; c < 8; c++) {
      const k = r * 8 + c;
      fdtbl[k] = 1 / (lq[k]! * AAN[r]! * AAN[c]! * 8);
      fdtbl[64 + k] = 1 / (cq[k]! * AAN[r]! * AAN[c]! * 8);
    }
  return { lq, cq, fdtbl };
}

function codeTables(specs: HuffSpec[]): Uint16Array {
  const t = new Uint16Array(4 * 512);
  specs.forEach((spec, i) => t.set(huffCodes(spec), i * 512));
  return t;
}

/**
 * The code tables of `specs`, kept per tables object (read-only): a kept frame's rows are
 * re-coded with the same tables every request.
 */
function codesOf(specs: HuffSpec[]): Uint16Array {
  let codes = codesBySpecs.get(specs);
  if (!codes) codesBySpecs.set(specs, (codes = codeTables(specs)));
  return codes;
}

const codesBySpecs = new WeakMap<HuffSpec[], Uint16Array>();

// WASM memory never shrinks, so the record is capped: 8 MB ≈ 2.7 MP at 4:2:0 (an 800² preview
// needs 1.9 MB); bigger images get fitted tables from two transforming passes instead.
const MAX_COEFFICIENT_CACHE = 8 * 1024 * 1024;

/**
 * JPEG bytes of `img` (alpha ignored: flatten first). Memory: one MCU row of input and coded
 * output inside WASM, plus the coded chunks.
 */
export async function encodeBaselineJpeg(img: RGBAImage, { quality, subsampling, optimizeHuffman = true, maxCoefficientCache = MAX_COEFFICIENT_CACHE }: JpegEncodeOptions): Promise<Uint8Array> {
  const { width, height } = img;
  const { rows, specs } = await codeRows(rgbaRows(img), {
    quality,
    subsampling,
    tables: optimizeHuffman ? 'fit' : STANDARD_TABLES,
    restart: false,
    maxCoefficientCache,
  });
  const { lq, cq } = quantisation(quality);
  return joinRows(headers(width, height, lq, cq, subsampling, specs), rows);
}

/**
 * The file: headers, the coded rows, EOI. Each row (its own copy out of WASM memory) is freed
 * once joined, not left to the collector: a print page's JPEG strips left 4.3 MB of them a
 * poster (issue 25 §1).
 */
function joinRows(head: Uint8Array, rows: Uint8Array[]): Uint8Array {
  const file = concat([head, ...rows, new Uint8Array([0xff, 0xd9])]);
  freeNow(rows);
  return file;
}

/**
 * What a source's pixels are: RGBA (4 bytes, alpha ignored; coded YCbCr), CMYK ink (4 bytes,
 * 0 = no ink; coded as Adobe YCCK) or grey (1 byte, 255 = white; one component).
 */
export type PixelKind = 'rgb' | 'ink' | 'gray';

/** Pixels to code: `read` writes rows [top, top + rows) into `into` (`width` × bytes a pixel a row). */
export interface JpegRowSource {
  width: number;
  height: number;
  kind: PixelKind;
  read(top: number, rows: number, into: Uint8Array): void;
}

/**
 * RGBA rows as a JpegRowSource: `img.data` holds the rows from `top` on (a whole image by
 * default, or a strip or band of an image `height` rows tall).
 */
export function rgbaRows(img: { width: number; height: number; data: Uint8ClampedArray | Uint8Array }, top = 0): JpegRowSource {
  // A view of the same type as `into`, so that set() copies bytes rather than converting elements.
  const bytes = new Uint8Array(img.data.buffer, img.data.byteOffset, img.data.byteLength);
  const rowBytes = img.width * 4;
  return { width: img.width, height: img.height, kind: 'rgb', read: (y, rows, into) => into.set(bytes.subarray((y - top) * rowBytes, (y - top + rows) * rowBytes)) };
}

/**
 * A JPEG of ink: CMYK as Adobe writes it (APP14 ColorTransform 2: YCCK, samples inverted), or
 * grey (JFIF, one component), coded in WASM like our RGB JPEGs, Huffman tables fitted when the
 * counting pass can keep its coefficients (else the Annex K.3 ones: `read` may be a colour
 * conversion, not to be done twice). Photoshop, Acrobat, libjpeg and Ghostscript read both. The
 * caller embeds the ICC profile.
 */
export async function encodeInkJpeg(source: JpegRowSource, { quality, subsampling }: { quality: number; subsampling: 1 | 2 }): Promise<Uint8Array> {
  const sub = source.kind === 'gray' ? 1 : subsampling;
  const { rows, specs } = await codeRows(source, { quality, subsampling: sub, tables: 'fit', restart: false, fitOnlyWhenKept: true });
  const { lq, cq } = quantisation(quality);
  return joinRows(headers(source.width, source.height, lq, cq, sub, specs, 0, source.kind), rows);
}

interface CodeRowsOptions {
  quality: number;
  subsampling: 1 | 2;
  /**
   * Huffman tables: given, or fitted to the coded rows by a counting pass first ('fit'; T.81
   * K.2), or fitted and completed so that they can code any block ('complete').
   */
  tables: HuffSpec[] | 'fit' | 'complete';
  /** One restart interval per MCU row (DC predictors reset, byte-aligned) instead of one scan-long interval. */
  restart: boolean;
  /** MCU rows to code (default all). */
  from?: number;
  to?: number;
  maxCoefficientCache?: number;
  /**
   * With 'fit': fit the tables only when the coefficients of the counting pass can be kept (no
   * second read of the rows); else code in one pass with the Annex K.3 tables. For sources whose
   * `read` is costly (a colour conversion).
   */
  fitOnlyWhenKept?: boolean;
  /**
   * With 'fit' or 'complete': the counting pass alone, its symbol counts added to these (4 × 256:
   * DC luma, AC luma, DC chroma, AC chroma); nothing is coded.
   */
  countInto?: Uint32Array;
}

/**
 * Huffman tables fitted to symbol counts (4 × 256, as codeRows counts them), completed so that
 * they can code any block when `complete`. Grey codes no chroma: its chroma tables stay the
 * standard ones (never written).
 */
function fittedTables(freq: Uint32Array, kind: PixelKind, complete: boolean): HuffSpec[] {
  const count = (t: number) => freq.subarray(t * 256, (t + 1) * 256);
  return [0, 1, 2, 3].map((t) => (kind === 'gray' && t > 1 ? STANDARD_TABLES[t]! : optimalTable(complete ? completed(count(t), t % 2 === 1) : count(t))));
}

/**
 * Codes MCU rows of `img` (the whole image): the coded bytes of each row (the last one flushed)
 * and the tables used. The counting pass records the quantised coefficients (128 B per block)
 * so the emitting pass replays them instead of transforming again, up to maxCoefficientCache;
 * beyond it both passes transform (WASM memory never shrinks).
 */
async function codeRows(img: JpegRowSource, o: CodeRowsOptions): Promise<{ rows: Uint8Array[]; specs: HuffSpec[] }> {
  const { width, height, kind } = img;
  if (width < 1 || height < 1 || width > 65535 || height > 65535) throw new RangeError(`JPEG size ${width}×${height} out of range`);
  const { subsampling } = o;
  const { fdtbl } = quantisation(o.quality);
  const mcu = 8 * subsampling;
  const mcus = Math.ceil(width / mcu);
  const pw = mcus * mcu;
  const from = o.from ?? 0;
  const to = o.to ?? Math.ceil(height / mcu);
  // Blocks per MCU: Y (sub²), Cb, Cr, and K (sub²) for ink; grey: Y alone.
  const blocksPerMcu = kind === 'gray' ? 1 : subsampling * subsampling * (kind === 'ink' ? 2 : 1) + 2;
  const pixelBytes = kind === 'gray' ? 1 : 4;
  const cacheBytes = mcus * (to - from) * blocksPerMcu * 128;
  const kept = cacheBytes <= (o.maxCoefficientCache ?? MAX_COEFFICIENT_CACHE);
  const fit = typeof o.tables === 'string' && (kept || !o.fitOnlyWhenKept);
  let specs = typeof o.tables === 'string' ? STANDARD_TABLES : o.tables;
  const rows: Uint8Array[] = [];

  await withArena((k: KernelExports, arena) => {
    const tables = arena.alloc(fdtbl.byteLength);
    const huff = arena.alloc(4 * 512 * 2);
    const counts = arena.alloc(4 * 256 * 4);
    const scratch = arena.alloc(512 + pw * mcu * 4 * (kind === 'ink' ? 4 : 3));
    const input = arena.alloc(width * mcu * pixelBytes);
    // Worst case per block ≈ 64 symbols × (16 + 11) bits, doubled for 0xFF stuffing.
    const outBuf = arena.alloc((mcus * blocksPerMcu * 64 * 27 * 2) / 8 + 64);
    const cache = fit && kept ? arena.alloc(cacheBytes) : 0;
    const u8 = arena.u8();
    arena.f32().set(fdtbl, tables >> 2);
    const stride = width * pixelBytes;
    const pass = (emit: boolean, replay: boolean) => {
      for (let m = from; m < to; m++) {
        if (!replay) {
          const top = m * mcu;
          const have = Math.min(mcu, height - top);
          img.read(top, have, u8.subarray(input, input + have * stride));
          // Repeat the last row below the image (T.81 leaves padding to the encoder).
          for (let y = have; y < mcu; y++) u8.copyWithin(input + y * stride, input + (have - 1) * stride, input + have * stride);
        }
        if (kind === 'ink') k.jpegEncodeInkRow(input, width, subsampling);
        else if (kind === 'gray') k.jpegEncodeGrayRow(input, width);
        else k.jpegEncodeRow(input, width, subsampling);
        if (o.restart) k.jpegRestart();
        else if (m === to - 1) k.jpegFlush();
        if (emit) rows.push(u8.slice(outBuf, outBuf + k.jpegTakeOutput()));
      }
    };
    k.jpegBegin(tables, huff, scratch, outBuf);
    if (fit) {
      u8.fill(0, counts, counts + 4 * 256 * 4);
      k.jpegCountSymbols(counts, cache);
      pass(false, false);
      const freq = new Uint32Array(u8.buffer, counts, 4 * 256);
      if (o.countInto) {
        for (let i = 0; i < freq.length; i++) o.countInto[i]! += freq[i]!;
        return;
      }
      specs = fittedTables(freq, kind, o.tables === 'complete');
      k.jpegBegin(tables, huff, scratch, outBuf);
      if (cache) k.jpegReplay(cache);
    }
    new Uint16Array(u8.buffer, huff, 4 * 512).set(codesOf(specs));
    pass(true, cache !== 0);
  });
  return { rows, specs };
}

// --- restart intervals: images re-coded a few rows at a time ----------------------------------

/**
 * A baseline JPEG cut into restart intervals of one MCU row each (T.81 DRI / RSTn): every row is
 * coded on its own (DC predictors reset, byte-aligned), so rows that change can be re-coded and
 * spliced between the others' bytes. The Huffman tables are fitted to the image and completed
 * (every symbol a baseline block can need gets a code), so they can code any replacement row.
 */
export interface JpegRows {
  width: number;
  height: number;
  quality: number;
  subsampling: 1 | 2;
  specs: HuffSpec[];
  /** Entropy-coded bytes of each MCU row, top to bottom. */
  rows: Uint8Array[];
}

/** Counts plus one for every symbol of a baseline table: DC categories 0–11; AC EOB, ZRL, run/size up to 15/10. */
function completed(counts: Uint32Array, ac: boolean): Uint32Array {
  const c = Uint32Array.from(counts);
  if (!ac) for (let cat = 0; cat <= 11; cat++) c[cat]!++;
  else {
    c[0x00]!++;
    c[0xf0]!++;
    for (let run = 0; run < 16; run++) for (let cat = 1; cat <= 10; cat++) c[(run << 4) | cat]!++;
  }
  return c;
}

/** `img` coded as JpegRows (tables fitted to it). */
export async function encodeJpegRows(img: RGBAImage, { quality, subsampling }: { quality: number; subsampling: 1 | 2 }): Promise<JpegRows> {
  const { rows, specs } = await codeRows(rgbaRows(img), { quality, subsampling, tables: 'complete', restart: true });
  return { width: img.width, height: img.height, quality, subsampling, specs, rows };
}

/**
 * `base` with the MCU rows covering pixel rows [top, bottom) re-coded from `source` (an image of
 * the same size, equal to the one `base` was made from outside those rows; it is read only in
 * those MCU rows, so a band of them will do: `rgbaRows(band, bandTop)`).
 */
export async function replaceJpegRows(base: JpegRows, source: JpegRowSource, { top, bottom }: { top: number; bottom: number }): Promise<JpegRows> {
  if (source.width !== base.width || source.height !== base.height) throw new RangeError('replaceJpegRows: size differs from the base');
  const mcu = 8 * base.subsampling;
  const from = Math.max(0, Math.floor(top / mcu));
  const to = Math.min(base.rows.length, Math.ceil(bottom / mcu));
  if (to <= from) return base;
  const { rows } = await encodeJpegRowsOf(source, { quality: base.quality, subsampling: base.subsampling, from, to, tables: base.specs });
  return { ...base, rows: [...base.rows.slice(0, from), ...rows, ...base.rows.slice(to)] };
}

/**
 * MCU rows [from, to) of `source`, one restart interval each, with `tables`, or without them with
 * tables fitted to these rows and completed (any later row can be coded with them): a JPEG made a
 * strip at a time (the pixels come as they are drawn, never held whole), whose rows join with
 * `jpegFromRows`. Each call is complete in itself (no encoder state is kept between calls, so the
 * strip drawn between them may use the WASM kernels). Decodes to the same pixels as
 * encodeBaselineJpeg of the same image (same quantised coefficients; only the entropy coding differs).
 */
export async function encodeJpegRowsOf(
  source: JpegRowSource,
  { quality, subsampling, from, to, tables }: { quality: number; subsampling: 1 | 2; from: number; to: number; tables?: HuffSpec[] },
): Promise<{ rows: Uint8Array[]; specs: HuffSpec[] }> {
  // Fitting reads the rows twice, transforming both times: no coefficient record grows WASM memory.
  return codeRows(source, { quality, subsampling, tables: tables ?? 'complete', restart: true, from, to, maxCoefficientCache: 0 });
}

/**
 * Adds the symbol counts of MCU rows [from, to) of `source`, coded as encodeJpegRowsOf codes them
 * (one restart interval each, so no row's symbols depend on another's), to `counts` (4 × 256).
 * Counted strip by strip over some rows, then `completedTables(counts)`, they give the tables
 * encodeJpegRowsOf fits to those rows at once, without holding the rows together.
 */
export async function countJpegRowsOf(source: JpegRowSource, { quality, subsampling, from, to }: { quality: number; subsampling: 1 | 2; from: number; to: number }, counts: Uint32Array): Promise<void> {
  if (counts.length !== 4 * 256) throw new RangeError('countJpegRowsOf: counts must hold 4 × 256');
  await codeRows(source, { quality, subsampling, tables: 'complete', restart: true, from, to, maxCoefficientCache: 0, countInto: counts });
}

/** The completed tables fitted to counts summed by countJpegRowsOf (as encodeJpegRowsOf fits them). */
export function completedTables(counts: Uint32Array, kind: PixelKind = 'rgb'): HuffSpec[] {
  return fittedTables(counts, kind, true);
}

/** The JPEG file: headers with the restart interval, the rows with RST0–7 between them, EOI. */
export function jpegFromRows(j: JpegRows): Uint8Array {
  const head = rowsHeaders(j);
  const out = new Uint8Array(head.byteLength + j.rows.reduce((n, row) => n + row.byteLength + 2, 0) + (j.rows.length ? 0 : 2));
  out.set(head);
  let at = head.byteLength;
  if (!j.rows.length) out.set([0xff, 0xd9], at);
  j.rows.forEach((row, i) => {
    out.set(row, at);
    at += row.byteLength;
    out[at++] = 0xff;
    out[at++] = i < j.rows.length - 1 ? 0xd0 + (i % 8) : 0xd9; // RSTn between rows, EOI after the last
  });
  return out;
}

/**
 * The headers of JpegRows, kept per Huffman tables object: a personalised JPEG is the kept
 * template frame's rows with some re-coded, the same tables and headers every request.
 */
function rowsHeaders(j: JpegRows): Uint8Array {
  const key = `${j.width}x${j.height}/${j.quality}/${j.subsampling}`;
  let kept = headersOf.get(j.specs);
  if (kept?.key !== key) {
    const { lq, cq } = quantisation(j.quality);
    kept = { key, bytes: headers(j.width, j.height, lq, cq, j.subsampling, j.specs, Math.ceil(j.width / (8 * j.subsampling))) };
    headersOf.set(j.specs, kept);
  }
  return kept.bytes;
}

const headersOf = new WeakMap<HuffSpec[], { key: string; bytes: Uint8Array }>();

/** Bytes a JpegRows holds (cache accounting). */
export const jpegRowsBytes = (j: JpegRows): number => j.rows.reduce((n, r) => n + r.byteLength, 0) + 2048;
