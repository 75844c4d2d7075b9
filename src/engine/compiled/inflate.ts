/**
 * Inflate (RFC 1951, deflate-raw) of a whole stored blob into an array the caller gives, with
 * decoding tables kept from call to call. fflate's inflateSync builds new tables for every
 * dynamic block (a Uint16Array of up to 64 KB each): large-poster-6000x4000's first print PDF
 * inflated its bands through 4,590 of them, 69 MB of arrays that workerd kept until V8 collected
 * (issue 25 §1). Here nothing is allocated per call. Corrupt data throws InflateError.
 */
import { InflateError } from '../psd/inflate';

const LEN_BASE = Uint16Array.of(3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258);
const LEN_EXTRA = Uint8Array.of(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0);
const DIST_BASE = Uint16Array.of(1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577);
const DIST_EXTRA = Uint8Array.of(0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13);
const CODE_LENGTH_ORDER = Uint8Array.of(16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15);

/**
 * Single-level decoding tables, indexed by the next `bits` input bits; an entry is
 * symbol << 4 | code length, 0 where no code starts with those bits. Kept for every call: a
 * dynamic block's codes are built into them, a fixed block's are built once.
 */
const dynamicLit = new Int32Array(1 << 15);
const dynamicDist = new Int32Array(1 << 15);
const codeLengthTable = new Int32Array(1 << 7);
const lengths = new Uint8Array(286 + 30);
const codeLengthLengths = new Uint8Array(19);
const perLength = new Uint16Array(16);
const nextCode = new Uint16Array(16);

/** Builds the code of `count` symbols with code lengths lengths[from…] into `entries`; its bits. */
function build(codeLengths: Uint8Array, from: number, count: number, entries: Int32Array): number {
  perLength.fill(0);
  let max = 0;
  for (let i = 0; i < count; i++) {
    const len = codeLengths[from + i]!;
    perLength[len]!++;
    if (len > max) max = len;
  }
  perLength[0] = 0;
  let left = 1;
  for (let len = 1; len < 16; len++) {
    left = (left << 1) - perLength[len]!;
    if (left < 0) throw new InflateError('over-subscribed Huffman code');
  }
  for (let len = 1, code = 0; len < 16; len++) {
    code = (code + perLength[len - 1]!) << 1;
    nextCode[len] = code;
  }
  const bits = Math.max(max, 1);
  const size = 1 << bits;
  entries.fill(0, 0, size); // a code left incomplete reads as invalid
  for (let sym = 0; sym < count; sym++) {
    const len = codeLengths[from + sym]!;
    if (!len) continue;
    // Codes arrive most significant bit first, the bit buffer least significant first: reversed.
    let code = nextCode[len]!++;
    let rev = 0;
    for (let i = 0; i < len; i++, code >>= 1) rev = (rev << 1) | (code & 1);
    for (let k = rev; k < size; k += 1 << len) entries[k] = (sym << 4) | len;
  }
  return bits;
}

let fixed: { lit: Int32Array; litBits: number; dist: Int32Array; distBits: number } | undefined;
function fixedTables() {
  if (!fixed) {
    const codeLengths = new Uint8Array(288 + 30);
    codeLengths.fill(8, 0, 144).fill(9, 144, 256).fill(7, 256, 280).fill(8, 280, 288).fill(5, 288);
    const lit = new Int32Array(1 << 9);
    const dist = new Int32Array(1 << 5);
    fixed = { lit, litBits: build(codeLengths, 0, 288, lit), dist, distBits: build(codeLengths, 288, 30, dist) };
  }
  return fixed;
}

/** Where reading stands: the next byte, and the bits read ahead (least significant first). */
interface Bits {
  src: Uint8Array;
  pos: number;
  buf: number;
  cnt: number;
}

/** The next `n` bits (n ≤ 16); past the end of the data they read as zeros (see inflateRawInto). */
function take(b: Bits, n: number): number {
  while (b.cnt < n) {
    b.buf |= (b.pos < b.src.length ? b.src[b.pos]! : 0) << b.cnt;
    b.pos++;
    b.cnt += 8;
  }
  const v = b.buf & ((1 << n) - 1);
  b.buf >>>= n;
  b.cnt -= n;
  return v;
}

/**
 * Inflates deflate-raw `src` into `out`; the number of bytes it holds, or out.length + 1 when it
 * inflates to more than `out` holds (inflating stops there).
 */
export function inflateRawInto(src: Uint8Array, out: Uint8Array): number {
  const end = src.length;
  const cap = out.length;
  // Past the end of `src` the bits read as zeros (a final code may be shorter than the bits
  // looked ahead); a stream that needs them is cut short.
  const b: Bits = { src, pos: 0, buf: 0, cnt: 0 };
  let at = 0;
  let final = 0;
  while (!final) {
    final = take(b, 1);
    const type = take(b, 2);
    if (type === 0) {
      // To the byte boundary: the whole bytes the bit buffer read ahead are given back.
      let pos = b.pos - (b.cnt >> 3);
      b.buf = 0;
      b.cnt = 0;
      if (pos + 4 > end) throw new InflateError('compressed data ends early');
      const len = src[pos]! | (src[pos + 1]! << 8);
      const nlen = src[pos + 2]! | (src[pos + 3]! << 8);
      if ((len ^ 0xffff) !== nlen) throw new InflateError('stored block length mismatch');
      pos += 4;
      if (pos + len > end) throw new InflateError('compressed data ends early');
      if (at + len > cap) return cap + 1;
      out.set(src.subarray(pos, pos + len), at);
      b.pos = pos + len;
      at += len;
      continue;
    }
    if (type === 1) {
      const f = fixedTables();
      at = inflateBlock(b, out, at, f.lit, f.litBits, f.dist, f.distBits);
    } else if (type === 2) {
      const hlit = take(b, 5) + 257;
      const hdist = take(b, 5) + 1;
      const hclen = take(b, 4) + 4;
      if (hlit > 286 || hdist > 30) throw new InflateError('too many length or distance codes');
      codeLengthLengths.fill(0);
      for (let i = 0; i < hclen; i++) codeLengthLengths[CODE_LENGTH_ORDER[i]!] = take(b, 3);
      const clBits = build(codeLengthLengths, 0, 19, codeLengthTable);
      const total = hlit + hdist;
      for (let i = 0; i < total; ) {
        const e = codeLengthTable[peek(b, clBits)]!;
        if (!e) throw new InflateError('invalid Huffman code');
        b.buf >>>= e & 15;
        b.cnt -= e & 15;
        const sym = e >> 4;
        if (sym < 16) {
          lengths[i++] = sym;
          continue;
        }
        let repeat: number;
        let value = 0;
        if (sym === 16) {
          if (i === 0) throw new InflateError('repeat with no previous length');
          value = lengths[i - 1]!;
          repeat = 3 + take(b, 2);
        } else if (sym === 17) repeat = 3 + take(b, 3);
        else repeat = 11 + take(b, 7);
        if (i + repeat > total) throw new InflateError('code lengths overflow');
        lengths.fill(value, i, i + repeat);
        i += repeat;
      }
      if (!lengths[256]) throw new InflateError('no end-of-block code');
      const litBits = build(lengths, 0, hlit, dynamicLit);
      const distBits = build(lengths, hlit, hdist, dynamicDist);
      at = inflateBlock(b, out, at, dynamicLit, litBits, dynamicDist, distBits);
    } else throw new InflateError('invalid block type');
    if (at > cap) return cap + 1;
  }
  if (b.pos - (b.cnt >> 3) > end) throw new InflateError('compressed data ends early');
  return at;
}

/** The next `n` bits without taking them. */
function peek(b: Bits, n: number): number {
  while (b.cnt < n) {
    b.buf |= (b.pos < b.src.length ? b.src[b.pos]! : 0) << b.cnt;
    b.pos++;
    b.cnt += 8;
  }
  return b.buf & ((1 << n) - 1);
}

/**
 * One Huffman-coded block's symbols into `out` from `at`, up to its end-of-block code; where
 * `out` then ends (out.length + 1 when it would not hold them). The bit state in locals here.
 */
function inflateBlock(b: Bits, out: Uint8Array, at: number, lit: Int32Array, litBits: number, dist: Int32Array, distBits: number): number {
  const src = b.src;
  const end = src.length;
  const cap = out.length;
  const litMask = (1 << litBits) - 1;
  const distMask = (1 << distBits) - 1;
  let pos = b.pos;
  let buf = b.buf;
  let cnt = b.cnt;
  for (;;) {
    if (pos > end + 4) throw new InflateError('compressed data ends early');
    while (cnt < 15) {
      buf |= (pos < end ? src[pos]! : 0) << cnt;
      pos++;
      cnt += 8;
    }
    let e = lit[buf & litMask]!;
    if (!e) throw new InflateError('invalid Huffman code');
    buf >>>= e & 15;
    cnt -= e & 15;
    let sym = e >> 4;
    if (sym < 256) {
      if (at >= cap) return cap + 1;
      out[at++] = sym;
      continue;
    }
    if (sym === 256) break;
    sym -= 257;
    if (sym >= 29) throw new InflateError('invalid length code');
    let extra = LEN_EXTRA[sym]!;
    while (cnt < extra + 15) {
      buf |= (pos < end ? src[pos]! : 0) << cnt;
      pos++;
      cnt += 8;
    }
    const length = LEN_BASE[sym]! + (buf & ((1 << extra) - 1));
    buf >>>= extra;
    cnt -= extra;
    e = dist[buf & distMask]!;
    if (!e) throw new InflateError('invalid Huffman code');
    buf >>>= e & 15;
    cnt -= e & 15;
    const d = e >> 4;
    if (d >= 30) throw new InflateError('invalid distance code');
    extra = DIST_EXTRA[d]!;
    while (cnt < extra) {
      buf |= (pos < end ? src[pos]! : 0) << cnt;
      pos++;
      cnt += 8;
    }
    const distance = DIST_BASE[d]! + (buf & ((1 << extra) - 1));
    buf >>>= extra;
    cnt -= extra;
    if (distance > at) throw new InflateError('distance before the start of the data');
    if (at + length > cap) return cap + 1;
    for (let from = at - distance, stop = at + length; at < stop; ) out[at++] = out[from++]!;
  }
  b.pos = pos;
  b.buf = buf;
  b.cnt = cnt;
  return at;
}
