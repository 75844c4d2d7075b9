/**
 * Inflate (RFC 1951, deflate-raw) of a whole stored blob into an array the caller gives, with
 * decoding tables kept from call to call. fflate's inflateSync builds new tables for every
 * dynamic block (a Uint16Array of up to 64 KB each): large-poster-6000x4000's first print PDF
 * inflated its bands through 4,590 of them, 69 MB of arrays that workerd kept until V8 collected
 * (issue 25 §1). Here no array of a block's size is made per call: psd/inflate.ts' huffmanTable
 * builds the tables into arrays kept here. Corrupt data throws InflateError.
 */
import { CODE_LENGTH_ORDER, DIST_BASE, DIST_EXTRA, fixedTables, huffmanTable, InflateError, LEN_BASE, LEN_EXTRA, readCodeLengths } from '../psd/inflate';

/**
 * The decoding tables of a dynamic block (psd/inflate.ts huffmanTable's entries), kept for every
 * call: each block's codes are built into them.
 */
const dynamicLit = new Int32Array(1 << 15);
const dynamicDist = new Int32Array(1 << 15);
const codeLengthTable = new Int32Array(1 << 7);
const lengths = new Uint8Array(286 + 30);
const codeLengthLengths = new Uint8Array(19);

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
      at = inflateBlock(b, out, at, f.lit.entries, f.lit.bits, f.dist.entries, f.dist.bits);
    } else if (type === 2) {
      const hlit = take(b, 5) + 257;
      const hdist = take(b, 5) + 1;
      const hclen = take(b, 4) + 4;
      if (hlit > 286 || hdist > 30) throw new InflateError('too many length or distance codes');
      codeLengthLengths.fill(0);
      for (let i = 0; i < hclen; i++) codeLengthLengths[CODE_LENGTH_ORDER[i]!] = take(b, 3);
      const clBits = huffmanTable(codeLengthLengths, 19, codeLengthTable).bits;
      const total = hlit + hdist;
      readCodeLengths(lengths, total, () => {
        const e = codeLengthTable[peek(b, clBits)]!;
        if (!e) throw new InflateError('invalid Huffman code');
        b.buf >>>= e & 15;
        b.cnt -= e & 15;
        return e >> 4;
      }, (n) => take(b, n));
      const litBits = huffmanTable(lengths, hlit, dynamicLit).bits;
      const distBits = huffmanTable(lengths.subarray(hlit), hdist, dynamicDist).bits;
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
    // Long runs (a flat band row is matches of 258 at distance 1 or one row back) natively; an
    // overlapping match byte by byte, as RFC 1951 reads it (it repeats what it has just written).
    const stop = at + length;
    if (length >= 32 && distance === 1) out.fill(out[at - 1]!, at, stop);
    else if (length >= 32 && distance >= length) out.copyWithin(at, at - distance, stop - distance);
    else for (let from = at - distance; at < stop; ) out[at++] = out[from++]!;
    at = stop;
  }
  b.pos = pos;
  b.buf = buf;
  b.cnt = cnt;
  return at;
}
