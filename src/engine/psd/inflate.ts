/**
 * Inflate (RFC 1951, optionally inside RFC 1950's zlib wrapper) of compressed bytes that are
 * already in memory, producing output only as it is asked for. PSD ZIP channels need this: the
 * platform's DecompressionStream inflates each written chunk in full before the first read, so a
 * one-megabyte channel that inflates to a gigabyte would be a gigabyte in memory. Here the output
 * lives in a 64 KB ring, the caller reads a row at a time, and stops when the channel's rectangle
 * is full. Corrupt data throws InflateError.
 */

export class InflateError extends Error {
  override name = 'InflateError';
}

export const LEN_BASE = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258];
export const LEN_EXTRA = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
export const DIST_BASE = [
  1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145,
  8193, 12289, 16385, 24577,
];
export const DIST_EXTRA = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13];
export const CODE_LENGTH_ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];

const RING = 1 << 16;
const MASK = RING - 1;
/** The producer pauses once this much output waits to be read (the other half is history). */
const PAUSE = RING >> 1;

/** A single-level decoding table: index by the next `bits` input bits; entry = symbol << 4 | length. */
export interface Table {
  bits: number;
  entries: Int32Array;
}

/**
 * The decoding table of a code. `reuse` (when long enough) holds its entries instead of a new
 * array: a dynamic block's tables are up to 128 KB each, and a 10 MB ZIP channel has hundreds
 * of blocks, which made tens of MB of garbage per compile (issue 25 §1). Only its first
 * 1 << bits entries are written and read. Also compiled/inflate.ts' (whole stored blobs).
 */
export function huffmanTable(lengths: ArrayLike<number>, count: number, reuse?: Int32Array): Table {
  const perLength = new Uint16Array(16);
  let max = 0;
  for (let i = 0; i < count; i++) {
    perLength[lengths[i]]++;
    if (lengths[i] > max) max = lengths[i];
  }
  perLength[0] = 0;
  let left = 1;
  for (let len = 1; len < 16; len++) {
    left = (left << 1) - perLength[len];
    if (left < 0) throw new InflateError('over-subscribed Huffman code');
  }
  const next = new Uint16Array(16);
  for (let len = 1, code = 0; len < 16; len++) {
    code = (code + perLength[len - 1]) << 1;
    next[len] = code;
  }
  const bits = Math.max(max, 1);
  const size = 1 << bits;
  const entries = reuse && reuse.length >= size ? reuse : new Int32Array(size);
  if (entries === reuse) entries.fill(0, 0, size); // a code left incomplete reads as invalid
  for (let sym = 0; sym < count; sym++) {
    const len = lengths[sym];
    if (!len) continue;
    // Codes arrive most significant bit first, our bit buffer least significant first: reverse.
    let code = next[len]++;
    let rev = 0;
    for (let i = 0; i < len; i++, code >>= 1) rev = (rev << 1) | (code & 1);
    for (let k = rev; k < size; k += 1 << len) entries[k] = (sym << 4) | len;
  }
  return { bits, entries };
}

let fixed: { lit: Table; dist: Table } | undefined;
/** The fixed code's tables (RFC 1951 3.2.6), built once. */
export function fixedTables() {
  if (!fixed) {
    const lit = new Uint8Array(288);
    lit.fill(8, 0, 144);
    lit.fill(9, 144, 256);
    lit.fill(7, 256, 280);
    lit.fill(8, 280, 288);
    fixed = { lit: huffmanTable(lit, 288), dist: huffmanTable(new Uint8Array(30).fill(5), 30) };
  }
  return fixed;
}

/**
 * A dynamic block's literal/length and distance code lengths (RFC 1951 3.2.7) into lengths[0…total),
 * each read as `symbol` decodes it with the code-length code, its repeats' extra bits by `bits`.
 * Also compiled/inflate.ts' (whole stored blobs), whose bit reader is its own.
 */
export function readCodeLengths(lengths: Uint8Array, total: number, symbol: () => number, bits: (n: number) => number): void {
  for (let i = 0; i < total; ) {
    const sym = symbol();
    if (sym < 16) {
      lengths[i++] = sym;
      continue;
    }
    let repeat: number;
    let value = 0;
    if (sym === 16) {
      if (i === 0) throw new InflateError('repeat with no previous length');
      value = lengths[i - 1]!;
      repeat = 3 + bits(2);
    } else if (sym === 17) repeat = 3 + bits(3);
    else repeat = 11 + bits(7);
    if (i + repeat > total) throw new InflateError('code lengths overflow');
    lengths.fill(value, i, i + repeat);
    i += repeat;
  }
  if (!lengths[256]) throw new InflateError('no end-of-block code');
}

/**
 * Copies a match of `length` bytes from `distance` back to ring position `produced` (a total
 * count). Long runs (a flat row is one literal then matches of 258 at distance 1) are a native
 * fill or copyWithin when neither range wraps and they do not overlap; the rest byte by byte as
 * RFC 1951 reads them (an overlapping match repeats what it has just written). Same bytes either way.
 */
function copyMatch(ring: Uint8Array, produced: number, distance: number, length: number): void {
  const to = produced & MASK;
  const from = (produced - distance) & MASK;
  if (length >= 32 && to + length <= RING) {
    if (distance === 1) {
      ring.fill(ring[from], to, to + length);
      return;
    }
    if (distance >= length && from + length <= RING) {
      ring.copyWithin(to, from, from + length);
      return;
    }
  }
  for (let i = 0; i < length; i++, produced++) ring[produced & MASK] = ring[(produced - distance) & MASK];
}

export class Inflater {
  private readonly ring = new Uint8Array(RING);
  /** Bytes produced and bytes handed out, in total. */
  private produced = 0;
  private consumed = 0;
  private done = false;
  private readonly steps: Generator<void, void, void>;
  private pos = 0;
  private bitBuf = 0;
  private bitCount = 0;
  /** Arrays the dynamic blocks' tables and code lengths are built in, one block after another. */
  private readonly scratch: { lit?: Int32Array; dist?: Int32Array; cl?: Int32Array; clLengths: Uint8Array; lengths: Uint8Array } = {
    clLengths: new Uint8Array(19),
    lengths: new Uint8Array(286 + 30),
  };

  constructor(
    private readonly src: Uint8Array,
    zlib = true,
  ) {
    this.steps = this.run(zlib);
  }

  /** Fills `out` as far as the stream goes; returns the number of bytes written (less at the end). */
  read(out: Uint8Array): number {
    let at = 0;
    while (at < out.length) {
      if (this.produced === this.consumed) {
        if (this.done) break;
        if (this.steps.next().done) this.done = true;
        continue;
      }
      const start = this.consumed & MASK;
      const n = Math.min(out.length - at, this.produced - this.consumed, RING - start);
      out.set(this.ring.subarray(start, start + n), at);
      at += n;
      this.consumed += n;
    }
    return at;
  }

  private need(n: number): void {
    while (this.bitCount < n) {
      if (this.pos >= this.src.length + 4) throw new InflateError('compressed data ends early');
      // Past the end read zeros: a final code may be shorter than the lookahead.
      this.bitBuf |= (this.pos < this.src.length ? this.src[this.pos] : 0) << this.bitCount;
      this.pos++;
      this.bitCount += 8;
    }
  }

  private bits(n: number): number {
    if (n === 0) return 0;
    this.need(n);
    const v = this.bitBuf & ((1 << n) - 1);
    this.bitBuf >>>= n;
    this.bitCount -= n;
    return v;
  }

  private decode(t: Table): number {
    this.need(t.bits);
    const e = t.entries[this.bitBuf & ((1 << t.bits) - 1)];
    if (!e) throw new InflateError('invalid Huffman code');
    const len = e & 15;
    this.bitBuf >>>= len;
    this.bitCount -= len;
    return e >> 4;
  }

  private *run(zlib: boolean): Generator<void, void, void> {
    if (zlib) {
      const cmf = this.bits(8);
      const flg = this.bits(8);
      if ((cmf & 15) !== 8 || (cmf * 256 + flg) % 31 !== 0 || flg & 32) throw new InflateError('not a zlib stream');
    }
    const ring = this.ring;
    let final = 0;
    while (!final) {
      final = this.bits(1);
      const type = this.bits(2);
      if (type === 0) {
        // Skip to the byte boundary: give back the whole bytes the bit buffer read ahead.
        this.pos -= this.bitCount >> 3;
        this.bitBuf = 0;
        this.bitCount = 0;
        if (this.pos + 4 > this.src.length) throw new InflateError('compressed data ends early');
        const len = this.src[this.pos] | (this.src[this.pos + 1] << 8);
        const nlen = this.src[this.pos + 2] | (this.src[this.pos + 3] << 8);
        if ((len ^ 0xffff) !== nlen) throw new InflateError('stored block length mismatch');
        this.pos += 4;
        if (this.pos + len > this.src.length) throw new InflateError('compressed data ends early');
        for (let i = 0; i < len; i++) {
          if (this.produced - this.consumed >= PAUSE) yield;
          ring[this.produced++ & MASK] = this.src[this.pos++];
        }
        continue;
      }
      let lit: Table;
      let dist: Table;
      if (type === 1) ({ lit, dist } = fixedTables());
      else if (type === 2) ({ lit, dist } = this.dynamicTables());
      else throw new InflateError('invalid block type');
      for (;;) {
        if (this.produced - this.consumed >= PAUSE) yield;
        const sym = this.decode(lit);
        if (sym < 256) {
          ring[this.produced++ & MASK] = sym;
          continue;
        }
        if (sym === 256) break;
        const l = sym - 257;
        if (l >= 29) throw new InflateError('invalid length code');
        const length = LEN_BASE[l] + this.bits(LEN_EXTRA[l]);
        const d = this.decode(dist);
        if (d >= 30) throw new InflateError('invalid distance code');
        const distance = DIST_BASE[d] + this.bits(DIST_EXTRA[d]);
        if (distance > this.produced) throw new InflateError('distance before the start of the data');
        copyMatch(ring, this.produced, distance, length);
        this.produced += length;
      }
    }
    // The Adler-32 trailer is not checked: a PSD channel's size is checked against its rectangle.
  }

  private dynamicTables(): { lit: Table; dist: Table } {
    const hlit = this.bits(5) + 257;
    const hdist = this.bits(5) + 1;
    const hclen = this.bits(4) + 4;
    if (hlit > 286 || hdist > 30) throw new InflateError('too many length or distance codes');
    const scratch = this.scratch;
    const clLengths = scratch.clLengths.fill(0);
    for (let i = 0; i < hclen; i++) clLengths[CODE_LENGTH_ORDER[i]] = this.bits(3);
    const cl = huffmanTable(clLengths, 19, scratch.cl);
    scratch.cl = cl.entries;
    // Every length is written by readCodeLengths before it is read.
    const lengths = scratch.lengths.subarray(0, hlit + hdist);
    readCodeLengths(lengths, lengths.length, () => this.decode(cl), (n) => this.bits(n));
    const lit = huffmanTable(lengths.subarray(0, hlit), hlit, scratch.lit);
    const dist = huffmanTable(lengths.subarray(hlit), hdist, scratch.dist);
    scratch.lit = lit.entries;
    scratch.dist = dist.entries;
    return { lit, dist };
  }
}
