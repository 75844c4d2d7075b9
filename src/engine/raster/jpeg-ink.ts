import { concat } from './bytes';
import type { RGBAImage } from '../types';
import { subsamplingFor } from './codecs';
import { embedIcc } from './icc';
import { AAN, AC_CHROMA, AC_LUMA, CHROMA_Q, DC_CHROMA, DC_LUMA, huffCodes, LUMA_Q, scaledTable, ZIGZAG, type HuffSpec } from './jpeg';

/**
 * Baseline JPEGs of ink values (ITU T.81): CMYK as Adobe writes it (APP14 "Adobe" marker,
 * transform 2 = YCCK, samples inverted: 0 is full ink), and grey (JFIF). For print files and
 * for JPEG strips of CMYK and grey PDFs. Our WASM encoder (jpeg.ts) codes three components only
 * and lives in a kernel module this file does not build, so this one is plain TypeScript over
 * typed arrays: AAN float DCT, Annex K quantisation scaled by the IJG quality formula, the
 * Annex K.3 Huffman tables (no counting pass: one pass, nothing held but an MCU row).
 *
 * Why YCCK rather than plain CMYK: C, M and Y of a photograph are strongly correlated; turning
 * their inverse into YCbCr (as libjpeg's JCS_YCCK does) puts the detail in one component and
 * compresses like an RGB JPEG, K coded beside it as a second luma-like component. Photoshop,
 * Acrobat, libjpeg and Ghostscript all read it.
 */
export interface InkJpegOptions {
  /** 0–100 (IJG scale). */
  quality: number;
  /**
   * CMYK only: 2 codes Cb and Cr at half resolution (YCCK 4:2:0, as libjpeg does), 1 at full.
   * Default as for RGB JPEGs (subsamplingFor): 4:2:0 below quality 90, 4:4:4 from 90 up.
   */
  subsampling?: 1 | 2;
  /** Embedded in APP2 "ICC_PROFILE" segments (ICC.1 Annex B.4). */
  iccProfile?: Uint8Array;
}

/** Samples of a component: which quantisation and Huffman tables, and its sampling factor. */
interface Component {
  id: number;
  table: 0 | 1;
  /** Sampling factor (both directions). */
  factor: 1 | 2;
}

const DC_CODES = [huffCodes(DC_LUMA), huffCodes(DC_CHROMA)];
const AC_CODES = [huffCodes(AC_LUMA), huffCodes(AC_CHROMA)];

/**
 * An encoder fed a few rows at a time: `header()`, then `write(rows)` as often as needed (any
 * number of rows; full MCU rows are coded at once, a remainder waits for the next call), then
 * `end()`. Memory: one MCU row of samples and the coded bytes not yet taken.
 */
export class InkJpegEncoder {
  private readonly comps: Component[];
  private readonly mcuSize: number;
  private readonly mcusX: number;
  /** Level-shifted samples of the MCU row being coded, one plane per component (full resolution). */
  private readonly planes: Float64Array[];
  /** Half-resolution planes for subsampled components. */
  private readonly small: Float64Array[];
  /** Per table: reciprocal quantisers with the AAN scale folded in, in natural order. */
  private readonly fdtbl: Float64Array[];
  private readonly pending: Uint8Array;
  private pendingRows = 0;
  private rowsDone = 0;
  private readonly prevDc: Int32Array;
  private readonly block = new Float64Array(64);
  private readonly coef = new Int32Array(64);
  private readonly bits: BitWriter;

  constructor(
    readonly width: number,
    readonly height: number,
    readonly channels: 1 | 4,
    private readonly options: InkJpegOptions,
  ) {
    if (width < 1 || height < 1 || width > 65535 || height > 65535) throw new RangeError(`JPEG size ${width}×${height} out of range`);
    const sub = channels === 4 ? (options.subsampling ?? subsamplingFor(options.quality)) : 1;
    // libjpeg's YCCK layout: Y and K on the luma tables, Cb and Cr on the chroma ones.
    this.comps =
      channels === 1
        ? [{ id: 1, table: 0, factor: 1 }]
        : [
            { id: 1, table: 0, factor: sub },
            { id: 2, table: 1, factor: 1 },
            { id: 3, table: 1, factor: 1 },
            { id: 4, table: 0, factor: sub },
          ];
    this.mcuSize = 8 * sub;
    this.mcusX = Math.ceil(width / this.mcuSize);
    const pw = this.mcusX * this.mcuSize;
    this.planes = this.comps.map(() => new Float64Array(pw * this.mcuSize));
    this.small = sub === 2 ? [new Float64Array((pw / 2) * 8), new Float64Array((pw / 2) * 8)] : [];
    const q = Math.max(1, Math.min(100, Math.round(options.quality)));
    this.fdtbl = [LUMA_Q, CHROMA_Q].map((base) => {
      const table = scaledTable(base, q);
      return Float64Array.from(table, (q, i) => 1 / (q * AAN[i >> 3]! * AAN[i & 7]! * 8));
    });
    this.pending = new Uint8Array(width * this.mcuSize * channels);
    this.prevDc = new Int32Array(this.comps.length);
    // Room for one MCU row at q100 without growing in the common case.
    this.bits = new BitWriter(Math.max(4096, (pw * this.mcuSize * channels) >> 1));
  }

  /** SOI to SOS: APP0 JFIF (grey) or APP14 Adobe (CMYK), APP2 ICC, DQT, SOF0, DHT, SOS. */
  async header(): Promise<Uint8Array> {
    const { width, height, comps } = this;
    const q = Math.max(1, Math.min(100, Math.round(this.options.quality)));
    const b: number[] = [0xff, 0xd8];
    const segment = (marker: number, body: number[]) => b.push(0xff, marker, (body.length + 2) >> 8, (body.length + 2) & 255, ...body);
    if (this.channels === 1) segment(0xe0, [0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0]); // JFIF 1.01
    // "Adobe", DCTEncodeVersion 100, flags 0, 0, ColorTransform 2 (YCCK).
    else segment(0xee, [0x41, 0x64, 0x6f, 0x62, 0x65, 0, 100, 0, 0, 0, 0, 2]);
    const tables = this.channels === 1 ? [0] : [0, 1];
    segment(0xdb, tables.flatMap((t) => [t, ...ZIGZAG.map((i) => scaledTable(t ? CHROMA_Q : LUMA_Q, q)[i]!)]));
    segment(0xc0, [8, height >> 8, height & 255, width >> 8, width & 255, comps.length, ...comps.flatMap((c) => [c.id, c.factor * 17, c.table])]);
    const dht = (cls: number, spec: HuffSpec) => [cls, ...spec.bits, ...spec.values];
    segment(0xc4, [...dht(0x00, DC_LUMA), ...dht(0x10, AC_LUMA), ...(this.channels === 4 ? [...dht(0x01, DC_CHROMA), ...dht(0x11, AC_CHROMA)] : [])]);
    segment(0xda, [comps.length, ...comps.flatMap((c) => [c.id, c.table * 17]), 0, 63, 0]);
    const head = new Uint8Array(b);
    return this.options.iccProfile ? embedIcc(head, 'jpeg', this.options.iccProfile) : head;
  }

  /**
   * Codes the next `rows` pixel rows of `pixels` (`channels` bytes a pixel: CMYK ink, 0 = none,
   * 255 = full; or grey, 255 = white), returning the coded bytes ready so far.
   */
  write(pixels: Uint8Array, rows: number): Uint8Array {
    const stride = this.width * this.channels;
    const mcu = this.mcuSize;
    let at = 0;
    if (this.pendingRows) {
      const take = Math.min(rows, mcu - this.pendingRows);
      this.pending.set(pixels.subarray(0, take * stride), this.pendingRows * stride);
      this.pendingRows += take;
      at = take;
      if (this.pendingRows === mcu) {
        this.codeMcuRow(this.pending, 0, mcu);
        this.pendingRows = 0;
      }
    }
    for (; at + mcu <= rows; at += mcu) this.codeMcuRow(pixels, at * stride, mcu);
    if (at < rows) {
      this.pending.set(pixels.subarray(at * stride, rows * stride));
      this.pendingRows = rows - at;
    }
    return this.bits.take();
  }

  /** The last (partial) MCU row, the final bits and EOI. */
  end(): Uint8Array {
    if (this.pendingRows) this.codeMcuRow(this.pending, 0, this.pendingRows);
    this.pendingRows = 0;
    if (this.rowsDone < this.height) throw new Error(`JPEG: ${this.rowsDone} of ${this.height} rows written`);
    this.bits.flush();
    this.bits.byte(0xff);
    this.bits.byte(0xd9);
    return this.bits.take();
  }

  /** Converts `rows` (≤ MCU height; the last repeated below, the right column to the MCU edge) and codes the MCU row. */
  private codeMcuRow(src: Uint8Array, offset: number, rows: number): void {
    const { width, mcuSize: mcu, mcusX, planes } = this;
    const pw = mcusX * mcu;
    if (this.channels === 1) {
      const plane = planes[0]!;
      for (let y = 0; y < mcu; y++) {
        const row = offset + Math.min(y, rows - 1) * width;
        const o = y * pw;
        for (let x = 0; x < width; x++) plane[o + x] = src[row + x]! - 128;
        const last = plane[o + width - 1]!;
        for (let x = width; x < pw; x++) plane[o + x] = last;
      }
    } else {
      const [py, pb, pr, pk] = planes as [Float64Array, Float64Array, Float64Array, Float64Array];
      for (let y = 0; y < mcu; y++) {
        let s = offset + Math.min(y, rows - 1) * width * 4;
        const o = y * pw;
        for (let x = 0; x < width; x++, s += 4) {
          // YCCK: the inverse of the Adobe-inverted C, M, Y (i.e. the ink itself) as R, G, B.
          const c = src[s]!;
          const m = src[s + 1]!;
          const ye = src[s + 2]!;
          py[o + x] = 0.299 * c + 0.587 * m + 0.114 * ye - 128;
          pb[o + x] = -0.168736 * c - 0.331264 * m + 0.5 * ye;
          pr[o + x] = 0.5 * c - 0.418688 * m - 0.081312 * ye;
          pk[o + x] = 127 - src[s + 3]!; // (255 − k) − 128: K stored inverted
        }
        for (const p of planes) {
          const last = p[o + width - 1]!;
          for (let x = width; x < pw; x++) p[o + x] = last;
        }
      }
      if (mcu === 16) {
        for (let i = 0; i < 2; i++) downsample(planes[i + 1]!, this.small[i]!, pw);
      }
    }
    const sub = mcu === 16;
    for (let mx = 0; mx < mcusX; mx++) {
      for (let ci = 0; ci < this.comps.length; ci++) {
        const comp = this.comps[ci]!;
        const fdtbl = this.fdtbl[comp.table]!;
        const dc = DC_CODES[comp.table]!;
        const ac = AC_CODES[comp.table]!;
        if (sub && comp.factor === 1) {
          this.codeBlock(this.small[ci - 1]!, mx * 8, pw / 2, fdtbl, ci, dc, ac);
        } else {
          for (let by = 0; by < comp.factor; by++)
            for (let bx = 0; bx < comp.factor; bx++) this.codeBlock(planes[ci]!, by * 8 * pw + mx * mcu + bx * 8, pw, fdtbl, ci, dc, ac);
        }
      }
    }
    this.rowsDone = Math.min(this.height, this.rowsDone + mcu);
  }

  private codeBlock(plane: Float64Array, at: number, stride: number, fdtbl: Float64Array, ci: number, dcCodes: Uint16Array, acCodes: Uint16Array): void {
    const coef = this.coef;
    if (flat(plane, at, stride)) {
      // A block of one value (K where there is no black, paper): its DC alone, no transform.
      const v = plane[at]! * 64 * fdtbl[0]!;
      coef.fill(0);
      coef[0] = v > 0 ? (v + 0.5) | 0 : (v - 0.5) | 0;
    } else fdctQuant(plane, at, stride, this.block, fdtbl, coef);
    const bits = this.bits;
    bits.reserve(MAX_BLOCK_BYTES);
    const diff = coef[0]! - this.prevDc[ci]!;
    this.prevDc[ci] = coef[0]!;
    if (diff === 0) bits.put(dcCodes[0]!, dcCodes[1]!);
    else {
      const a = diff < 0 ? -diff : diff;
      const cat = 32 - Math.clz32(a);
      // Code and magnitude bits in one write (≤ 16 + 11 bits: split when over 24).
      const len = dcCodes[cat * 2 + 1]!;
      const extra = (diff < 0 ? diff - 1 : diff) & ((1 << cat) - 1);
      if (len + cat <= 24) bits.put((dcCodes[cat * 2]! << cat) | extra, len + cat);
      else {
        bits.put(dcCodes[cat * 2]!, len);
        bits.put(extra, cat);
      }
    }
    let end = 63;
    while (end > 0 && coef[end] === 0) end--;
    let run = 0;
    for (let k = 1; k <= end; k++) {
      const v = coef[k]!;
      if (v === 0) {
        run++;
        continue;
      }
      while (run > 15) {
        bits.put(acCodes[0xf0 * 2]!, acCodes[0xf0 * 2 + 1]!);
        run -= 16;
      }
      const a = v < 0 ? -v : v;
      const cat = 32 - Math.clz32(a);
      const sym = (run << 4) | cat;
      const len = acCodes[sym * 2 + 1]!;
      const extra = (v < 0 ? v - 1 : v) & ((1 << cat) - 1);
      if (len + cat <= 24) bits.put((acCodes[sym * 2]! << cat) | extra, len + cat);
      else {
        bits.put(acCodes[sym * 2]!, len);
        bits.put(extra, cat);
      }
      run = 0;
    }
    if (end < 63) bits.put(acCodes[0]!, acCodes[1]!);
  }
}

/** Most bytes one block can code to: 64 symbols of ≤ 16 + 11 bits, every byte stuffed. */
const MAX_BLOCK_BYTES = ((64 * 27) / 8) * 2 + 8;

/** Whether the 8×8 block at `at` holds one value. */
function flat(plane: Float64Array, at: number, stride: number): boolean {
  const v = plane[at]!;
  for (let r = 0; r < 8; r++) {
    const o = at + r * stride;
    for (let c = 0; c < 8; c++) if (plane[o + c] !== v) return false;
  }
  return true;
}

/** 2×2 box average of a plane `pw` wide and 16 rows into one pw/2 wide and 8 rows. */
function downsample(src: Float64Array, dst: Float64Array, pw: number): void {
  const hw = pw >> 1;
  for (let y = 0; y < 8; y++) {
    const a = 2 * y * pw;
    const b = a + pw;
    const o = y * hw;
    for (let x = 0; x < hw; x++) dst[o + x] = (src[a + 2 * x]! + src[a + 2 * x + 1]! + src[b + 2 * x]! + src[b + 2 * x + 1]!) * 0.25;
  }
}

/**
 * AAN forward DCT (Arai, Agui, Nakajima; as libjpeg's jfdctflt.c) of the 8×8 block at `at`,
 * quantised with `fdtbl` (reciprocals with the AAN scale folded in) into `out` in zigzag order.
 * One function with locals only: V8 keeps it in registers (a helper per pass cost 2×).
 */
function fdctQuant(src: Float64Array, at: number, stride: number, d: Float64Array, fdtbl: Float64Array, out: Int32Array): void {
  for (let r = 0; r < 8; r++) {
    const s = at + r * stride;
    const o = r * 8;
    const s0 = src[s]!, s1 = src[s + 1]!, s2 = src[s + 2]!, s3 = src[s + 3]!, s4 = src[s + 4]!, s5 = src[s + 5]!, s6 = src[s + 6]!, s7 = src[s + 7]!;
    const t0 = s0 + s7, t7 = s0 - s7, t1 = s1 + s6, t6 = s1 - s6, t2 = s2 + s5, t5 = s2 - s5, t3 = s3 + s4, t4 = s3 - s4;
    let t10 = t0 + t3;
    const t13 = t0 - t3;
    let t11 = t1 + t2;
    let t12 = t1 - t2;
    d[o] = t10 + t11;
    d[o + 4] = t10 - t11;
    const z1 = (t12 + t13) * 0.707106781;
    d[o + 2] = t13 + z1;
    d[o + 6] = t13 - z1;
    t10 = t4 + t5;
    t11 = t5 + t6;
    t12 = t6 + t7;
    const z5 = (t10 - t12) * 0.382683433;
    const z2 = 0.5411961 * t10 + z5;
    const z4 = 1.306562965 * t12 + z5;
    const z3 = t11 * 0.707106781;
    const z11 = t7 + z3;
    const z13 = t7 - z3;
    d[o + 5] = z13 + z2;
    d[o + 3] = z13 - z2;
    d[o + 1] = z11 + z4;
    d[o + 7] = z11 - z4;
  }
  // Columns, each output quantised straight into its zigzag position.
  for (let c = 0; c < 8; c++) {
    const s0 = d[c]!, s1 = d[c + 8]!, s2 = d[c + 16]!, s3 = d[c + 24]!, s4 = d[c + 32]!, s5 = d[c + 40]!, s6 = d[c + 48]!, s7 = d[c + 56]!;
    const t0 = s0 + s7, t7 = s0 - s7, t1 = s1 + s6, t6 = s1 - s6, t2 = s2 + s5, t5 = s2 - s5, t3 = s3 + s4, t4 = s3 - s4;
    let t10 = t0 + t3;
    const t13 = t0 - t3;
    let t11 = t1 + t2;
    let t12 = t1 - t2;
    const z1 = (t12 + t13) * 0.707106781;
    quant(out, c, t10 + t11, fdtbl);
    quant(out, c + 32, t10 - t11, fdtbl);
    quant(out, c + 16, t13 + z1, fdtbl);
    quant(out, c + 48, t13 - z1, fdtbl);
    t10 = t4 + t5;
    t11 = t5 + t6;
    t12 = t6 + t7;
    const z5 = (t10 - t12) * 0.382683433;
    const z2 = 0.5411961 * t10 + z5;
    const z4 = 1.306562965 * t12 + z5;
    const z3 = t11 * 0.707106781;
    const z11 = t7 + z3;
    const z13 = t7 - z3;
    quant(out, c + 40, z13 + z2, fdtbl);
    quant(out, c + 24, z13 - z2, fdtbl);
    quant(out, c + 8, z11 + z4, fdtbl);
    quant(out, c + 56, z11 - z4, fdtbl);
  }
}

/** Coefficient `i` (natural order) quantised, rounded half away from zero, at its zigzag position. */
function quant(out: Int32Array, i: number, value: number, fdtbl: Float64Array): void {
  const v = value * fdtbl[i]!;
  out[UNZIGZAG[i]!] = v > 0 ? (v + 0.5) | 0 : (v - 0.5) | 0;
}

/** Natural index → position in the zigzag sequence. */
const UNZIGZAG = (() => {
  const u = new Int32Array(64);
  ZIGZAG.forEach((natural, k) => (u[natural] = k));
  return u;
})();


/** Entropy-coded bytes with 0xFF stuffing (T.81 F.1.2.3), in a buffer that grows as needed. */
class BitWriter {
  private buf: Uint8Array;
  private n = 0;
  private acc = 0;
  private count = 0;
  constructor(size: number) {
    this.buf = new Uint8Array(size);
  }
  /** Makes room for `bytes` more (put does not check). */
  reserve(bytes: number): void {
    if (this.n + bytes <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.n + bytes));
    next.set(this.buf.subarray(0, this.n));
    this.buf = next;
  }
  /** The low `len` (≤ 24) bits of `code`, most significant first. */
  put(code: number, len: number): void {
    // At most 7 bits wait in acc, so 7 + 24 bits fit in 32.
    const acc = (this.acc << len) | code;
    let count = this.count + len;
    const buf = this.buf;
    while (count >= 8) {
      count -= 8;
      const byte = (acc >>> count) & 255;
      buf[this.n++] = byte;
      if (byte === 0xff) buf[this.n++] = 0;
    }
    this.acc = acc & ((1 << count) - 1);
    this.count = count;
  }
  /** Pads the last byte with 1 bits (T.81 F.1.2.3). */
  flush(): void {
    this.reserve(2);
    if (this.count > 0) this.put((1 << (8 - this.count)) - 1, 8 - this.count);
  }
  byte(b: number): void {
    this.reserve(1);
    this.buf[this.n++] = b;
  }
  /** The bytes written since the last take (a copy; the buffer is reused). */
  take(): Uint8Array {
    const out = this.buf.slice(0, this.n);
    this.n = 0;
    return out;
  }
}

/**
 * A CMYK JPEG of `pixels` (4 bytes a pixel, ink 0–255 as LittleCMS writes TYPE_CMYK_8) with the
 * Adobe marker (YCCK, inverted samples, as Photoshop writes) and `iccProfile` embedded.
 *
 * @example const jpeg = await encodeCmykJpeg(ink, 4000, 4000, { quality: 95, iccProfile: defaultProfile('Cmyk') });
 */
export async function encodeCmykJpeg(pixels: Uint8Array, width: number, height: number, options: InkJpegOptions): Promise<Uint8Array> {
  return encodeWhole(new InkJpegEncoder(width, height, 4, options), pixels, height);
}

/** A grey JPEG (JFIF, one component, 255 = white) with `iccProfile` embedded. */
export async function encodeGrayJpeg(pixels: Uint8Array, width: number, height: number, options: Omit<InkJpegOptions, 'subsampling'>): Promise<Uint8Array> {
  return encodeWhole(new InkJpegEncoder(width, height, 1, options), pixels, height);
}

/**
 * A CMYK or grey JPEG of an RGBA page converted a strip at a time by `convert` (RGBA → ink, e.g.
 * a LittleCMS transform's apply): memory holds one strip of ink, never the page's (a 25 MP
 * print file would need 100 MB of CMYK beside its RGBA).
 *
 * @example
 * const t = await colourTransform({ from: defaultProfile('Rgb'), to: profile, fromLayout: 'RGBA', toLayout: 'CMYK' });
 * const jpeg = await encodeConvertedJpeg(img, 4, (src, dst, n) => t.apply(src, dst, n), { quality: 90, iccProfile: profile });
 */
export async function encodeConvertedJpeg(
  img: RGBAImage,
  channels: 1 | 4,
  convert: (rgba: Uint8Array, ink: Uint8Array, pixels: number) => void,
  options: InkJpegOptions,
): Promise<Uint8Array> {
  const { width, height } = img;
  const encoder = new InkJpegEncoder(width, height, channels, options);
  const rows = Math.max(16, Math.floor((1 << 20) / width) & ~15);
  const ink = new Uint8Array(width * rows * channels);
  const rgba = new Uint8Array(img.data.buffer, img.data.byteOffset, img.data.byteLength);
  const parts = [await encoder.header()];
  for (let top = 0; top < height; top += rows) {
    const n = Math.min(rows, height - top);
    convert(rgba.subarray(top * width * 4, (top + n) * width * 4), ink, width * n);
    parts.push(encoder.write(ink, n));
  }
  parts.push(encoder.end());
  return concat(parts);
}

async function encodeWhole(encoder: InkJpegEncoder, pixels: Uint8Array, height: number): Promise<Uint8Array> {
  if (pixels.length < encoder.width * height * encoder.channels) throw new RangeError('JPEG: fewer pixels than width × height');
  return concat([await encoder.header(), encoder.write(pixels, height), encoder.end()]);
}
