// Baseline JPEG (ITU T.81) entropy-coded data: colour conversion, chroma subsampling, float AAN
// forward DCT on f32x4 lanes, quantisation and Huffman coding. The JS side
// (src/engine/raster/jpeg.ts) writes the headers and tables, then feeds one MCU row of RGBA at
// a time, copying the coded bytes out after each row: memory stays at one strip of the image.

// Tables, set once per image by jpegBegin (pointers into the arena, filled by JS):
//   fdtbl: 2 × 64 f32 (luma, chroma), natural order: 1 / (q · aan[row] · aan[col] · 8)
//   huff:  4 tables (DC luma, AC luma, DC chroma, AC chroma) × 256 × (u16 code, u16 size)
let fdtbl: usize = 0;
let huff: usize = 0;
let out: usize = 0;
let outPos: usize = 0;
// Bits not yet written, the newest in the low bitCnt bits (fewer than 32 between calls).
let bitBuf: u64 = 0;
let bitCnt: i32 = 0;
let dcY: i32 = 0;
let dcCb: i32 = 0;
let dcCr: i32 = 0;
let dcK: i32 = 0; // the fourth component of CMYK (YCCK) images
let block: usize = 0; // 64 f32 scratch
let planes: usize = 0; // Y (16 rows), Cb, Cr (and K) full-res strips, f32
// Statistics pass (for optimised Huffman tables): count symbols into `freq` (4 × 256 u32)
// instead of emitting bits.
let freq: usize = 0;
// Coefficient cache: the counting pass records each block's quantised coefficients (64 × i16)
// at `cache`; the emitting pass then replays them instead of converting and transforming again.
let cache: usize = 0;
let cachePos: usize = 0;
let replay = false;

// Zigzag: position k in the coded sequence → index in the transformed block, which holds
// coefficient (row r, column c) at c·8 + r (the row pass leaves it transposed).
const ZIGZAG_T: StaticArray<u8> = [
  0, 8, 1, 2, 9, 16, 24, 17, 10, 3, 4, 11, 18, 25, 32, 40, 33, 26, 19, 12, 5, 6, 13, 20, 27, 34, 41, 48, 56, 49, 42,
  35, 28, 21, 14, 7, 15, 22, 29, 36, 43, 50, 57, 58, 51, 44, 37, 30, 23, 31, 38, 45, 52, 59, 60, 53, 46, 39, 47, 54,
  61, 62, 55, 63,
];
// fdtbl transposed like the block (c·8 + r), so that quantising is lane for lane.
const fdtblT: usize = memory.data(2 * 64 * 4, 16);
// The row pass's input: the column pass's output transposed.
const blockT: usize = memory.data(64 * 4, 16);
// One block's quantised coefficients (i16, in the transformed order c·8 + r) when not recorded.
const coefs: usize = memory.data(64 * 2, 16);

export function jpegBegin(tables: usize, huffTables: usize, scratch: usize, outBuf: usize): void {
  fdtbl = tables;
  for (let t = 0; t < 2; t++)
    for (let r = 0; r < 8; r++)
      for (let c = 0; c < 8; c++) store<f32>(fdtblT + (<usize>(t * 64 + c * 8 + r) << 2), load<f32>(fdtbl + (<usize>(t * 64 + r * 8 + c) << 2)));
  huff = huffTables;
  block = scratch;
  planes = scratch + 512;
  out = outBuf;
  outPos = 0;
  bitBuf = 0;
  bitCnt = 0;
  dcY = dcCb = dcCr = dcK = 0;
  freq = 0;
  replay = false;
  cache = cachePos = 0;
}

/**
 * Switches to counting symbols into `counts` (4 × 256 u32, zeroed by the caller), recording
 * coefficients at `coefCache` (64 × i16 per block) unless it is 0.
 */
export function jpegCountSymbols(counts: usize, coefCache: usize): void {
  freq = counts;
  cache = cachePos = coefCache;
  dcY = dcCb = dcCr = dcK = 0;
}

/** After jpegBegin: emit from the coefficients recorded at `coefCache` (input rows are not read). */
export function jpegReplay(coefCache: usize): void {
  replay = true;
  cache = cachePos = coefCache;
}

/** Bytes written since the last call; the JS side copies them out and we start over. */
export function jpegTakeOutput(): i32 {
  const n = <i32>outPos;
  outPos = 0;
  return n;
}

// @ts-ignore: decorator
@inline function emitByte(b: u32): void {
  store<u8>(out + outPos, <u8>b);
  outPos++;
  if (b == 0xff) {
    store<u8>(out + outPos, 0);
    outPos++;
  }
}

/**
 * Appends the low `size` bits of `code` (which has no bits above them), size ≤ 32. Whole 32-bit
 * words go out at once, a byte at a time only when one of them is 0xFF (stuffed with a 0).
 */
// @ts-ignore: decorator
@inline function putBits(code: u32, size: i32): void {
  bitBuf = (bitBuf << <u64>size) | <u64>code;
  bitCnt += size;
  if (bitCnt >= 32) {
    bitCnt -= 32;
    const w = <u32>(bitBuf >> <u64>bitCnt);
    // A byte of w is 0xFF when the same byte of ~w is 0 (the classic zero-byte test).
    if ((~w - 0x01010101) & w & 0x80808080) {
      emitByte(w >> 24);
      emitByte((w >> 16) & 0xff);
      emitByte((w >> 8) & 0xff);
      emitByte(w & 0xff);
    } else {
      store<u32>(out + outPos, bswap<u32>(w));
      outPos += 4;
    }
  }
}

/** Pads the last byte with 1-bits (T.81 F.1.2.3) and writes the bits held. */
export function jpegFlush(): void {
  const pad = (8 - (bitCnt & 7)) & 7;
  bitBuf = (bitBuf << <u64>pad) | <u64>((1 << pad) - 1);
  bitCnt += pad;
  while (bitCnt >= 8) {
    bitCnt -= 8;
    emitByte(<u32>(bitBuf >> <u64>bitCnt) & 0xff);
  }
  bitBuf = 0;
}

/** Ends a restart interval (T.81 E.1.4): byte-aligns the output and resets the DC predictors. */
export function jpegRestart(): void {
  jpegFlush();
  dcY = dcCb = dcCr = dcK = 0;
}

// @ts-ignore: decorator
@inline function category(v: i32): i32 {
  const a = v < 0 ? -v : v;
  return a == 0 ? 0 : 32 - clz<i32>(a);
}

// The DCT's constants as memory (a load each, where a v128 constant is several instructions in V8).
const DCT_K: usize = memory.data<f32>([
  0.707106781, 0.707106781, 0.707106781, 0.707106781, 0.382683433, 0.382683433, 0.382683433, 0.382683433,
  0.5411961, 0.5411961, 0.5411961, 0.5411961, 1.306562965, 1.306562965, 1.306562965, 1.306562965,
  12582912, 12582912, 12582912, 12582912, // 1.5 · 2^23 (transformBlock's rounding)
], 16);

/**
 * Column pass of the float AAN DCT on 4 columns at once: rows at src + r·stride, written to
 * ptr + r·32 (+ half·16; may be src itself).
 */
// @ts-ignore: decorator
@inline function dctColumns(src: usize, stride: usize, ptr: usize): void {
  const d0 = v128.load(src), d1 = v128.load(src + stride), d2 = v128.load(src + 2 * stride), d3 = v128.load(src + 3 * stride);
  const d4 = v128.load(src + 4 * stride), d5 = v128.load(src + 5 * stride), d6 = v128.load(src + 6 * stride), d7 = v128.load(src + 7 * stride);
  const tmp0 = f32x4.add(d0, d7), tmp7 = f32x4.sub(d0, d7);
  const tmp1 = f32x4.add(d1, d6), tmp6 = f32x4.sub(d1, d6);
  const tmp2 = f32x4.add(d2, d5), tmp5 = f32x4.sub(d2, d5);
  const tmp3 = f32x4.add(d3, d4), tmp4 = f32x4.sub(d3, d4);
  // Even part
  let tmp10 = f32x4.add(tmp0, tmp3);
  const tmp13 = f32x4.sub(tmp0, tmp3);
  let tmp11 = f32x4.add(tmp1, tmp2);
  let tmp12 = f32x4.sub(tmp1, tmp2);
  v128.store(ptr, f32x4.add(tmp10, tmp11));
  v128.store(ptr, f32x4.sub(tmp10, tmp11), 128);
  const z1 = f32x4.mul(f32x4.add(tmp12, tmp13), v128.load(DCT_K));
  v128.store(ptr, f32x4.add(tmp13, z1), 64);
  v128.store(ptr, f32x4.sub(tmp13, z1), 192);
  // Odd part
  tmp10 = f32x4.add(tmp4, tmp5);
  tmp11 = f32x4.add(tmp5, tmp6);
  tmp12 = f32x4.add(tmp6, tmp7);
  const z5 = f32x4.mul(f32x4.sub(tmp10, tmp12), v128.load(DCT_K, 16));
  const z2 = f32x4.add(f32x4.mul(tmp10, v128.load(DCT_K, 32)), z5);
  const z4 = f32x4.add(f32x4.mul(tmp12, v128.load(DCT_K, 48)), z5);
  const z3 = f32x4.mul(tmp11, v128.load(DCT_K));
  const z11 = f32x4.add(tmp7, z3);
  const z13 = f32x4.sub(tmp7, z3);
  v128.store(ptr, f32x4.add(z13, z2), 160);
  v128.store(ptr, f32x4.sub(z13, z2), 96);
  v128.store(ptr, f32x4.add(z11, z4), 32);
  v128.store(ptr, f32x4.sub(z11, z4), 224);
}

/** A 4×4 quadrant of `src` (rows 32 bytes apart) transposed into `dst`. */
// @ts-ignore: decorator
@inline function transpose4(src: usize, dst: usize): void {
  const a = v128.load(src), b = v128.load(src, 32), c = v128.load(src, 64), d = v128.load(src, 96);
  const ab0 = v128.shuffle<f32>(a, b, 0, 4, 1, 5), ab1 = v128.shuffle<f32>(a, b, 2, 6, 3, 7);
  const cd0 = v128.shuffle<f32>(c, d, 0, 4, 1, 5), cd1 = v128.shuffle<f32>(c, d, 2, 6, 3, 7);
  v128.store(dst, v128.shuffle<f32>(ab0, cd0, 0, 1, 4, 5));
  v128.store(dst, v128.shuffle<f32>(ab0, cd0, 2, 3, 6, 7), 32);
  v128.store(dst, v128.shuffle<f32>(ab1, cd1, 0, 1, 4, 5), 64);
  v128.store(dst, v128.shuffle<f32>(ab1, cd1, 2, 3, 6, 7), 96);
}

/**
 * DCT and quantise the 8×8 f32 samples at `src` (level-shifted; rows `stride` bytes apart): where the i16 coefficients
 * went (the coefficient record when counting, else `coefs`). The same f32 operations as one
 * coefficient at a time.
 */
function transformBlock(src: usize, stride: usize, table: i32): usize {
  dctColumns(src, stride, block);
  dctColumns(src + 16, stride, block + 16);
  transpose4(block, blockT);
  transpose4(block + 16, blockT + 128);
  transpose4(block + 128, blockT + 16);
  transpose4(block + 144, blockT + 144);
  dctColumns(blockT, 32, blockT);
  dctColumns(blockT + 16, 32, blockT + 16);
  // Now blockT[c·8 + r] holds coefficient (r, c); so does the transposed table's entry.
  // Coefficients of 8-bit samples lie within ±2^11: i16 holds them exactly.
  const q = fdtblT + (<usize>table << 8);
  const to = cache && !replay ? cachePos : coefs;
  // Rounded to the nearest integer, ties to even (f32x4.nearest), by adding 1.5 · 2^23: for |v| < 2^22
  // the sum lies where f32 steps by 1, so IEEE rounding leaves 1.5 · 2^23 + nearest(v), whose
  // bits are 0x4B400000 + nearest(v) (fewer instructions in V8 than nearest and trunc_sat).
  const magic = v128.load(DCT_K, 64);
  for (let i: usize = 0; i < 256; i += 32) {
    const a = i32x4.sub(f32x4.add(f32x4.mul(v128.load(blockT + i), v128.load(q + i)), magic), magic);
    const b = i32x4.sub(f32x4.add(f32x4.mul(v128.load(blockT + i, 16), v128.load(q + i, 16)), magic), magic);
    v128.store(to + (i >> 1), i16x8.narrow_i32x4_s(a, b));
  }
  if (to == cachePos) cachePos += 128;
  return to;
}

// nonZero's byte shuffles, 14 × 16: zigzag position → byte of one of the four vectors (-128: from another).
const ZZ_MASKS: usize = memory.data<i8>([
  0, 8, 1, 2, 9, -128, -128, -128, 10, 3, 4, 11, -128, -128, -128, -128,
  -128, -128, -128, -128, -128, 0, 8, 1, -128, -128, -128, -128, 2, 9, -128, -128,
  -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, 0, 8,
  -128, -128, -128, 12, 5, 6, 13, -128, -128, -128, -128, -128, -128, -128, -128, -128,
  -128, 10, 3, -128, -128, -128, -128, 4, 11, -128, -128, -128, -128, -128, -128, -128,
  1, -128, -128, -128, -128, -128, -128, -128, -128, 2, 9, -128, -128, -128, 10, 3,
  -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, 0, 8, 1, -128, -128,
  -128, -128, 14, 7, 15, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128,
  12, 5, -128, -128, -128, 6, 13, -128, -128, -128, -128, -128, -128, -128, -128, 14,
  -128, -128, -128, -128, -128, -128, -128, 4, 11, -128, -128, -128, -128, 12, 5, -128,
  -128, -128, -128, -128, -128, -128, -128, -128, -128, 2, 9, 10, 3, -128, -128, -128,
  7, 15, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128,
  -128, -128, 6, 13, -128, -128, -128, -128, 14, 7, 15, -128, -128, -128, -128, -128,
  -128, -128, -128, -128, 4, 11, 12, 5, -128, -128, -128, 6, 13, 14, 7, 15,
], 16);

/** Bits k of the zigzag coefficients at `c` (i16, transformed order) that are not 0 (bit 0 the DC). */
// @ts-ignore: decorator
@inline function nonZero(c: usize): u64 {
  const z = i16x8.splat(0);
  // Bytes 0xFF where a coefficient is not 0, transformed order, 16 a vector.
  const n0 = i8x16.narrow_i16x8_s(i16x8.ne(v128.load(c), z), i16x8.ne(v128.load(c, 16), z));
  const n1 = i8x16.narrow_i16x8_s(i16x8.ne(v128.load(c, 32), z), i16x8.ne(v128.load(c, 48), z));
  const n2 = i8x16.narrow_i16x8_s(i16x8.ne(v128.load(c, 64), z), i16x8.ne(v128.load(c, 80), z));
  const n3 = i8x16.narrow_i16x8_s(i16x8.ne(v128.load(c, 96), z), i16x8.ne(v128.load(c, 112), z));
  // Zigzag order, 16 positions a vector: ZIGZAG_T as byte shuffles (ZZ_MASKS).
  const z0 = v128.or(v128.or(
    v128.swizzle(n0, v128.load(ZZ_MASKS, 0)),
    v128.swizzle(n1, v128.load(ZZ_MASKS, 16))),
    v128.swizzle(n2, v128.load(ZZ_MASKS, 32)));
  const z1 = v128.or(v128.or(
    v128.swizzle(n0, v128.load(ZZ_MASKS, 48)),
    v128.swizzle(n1, v128.load(ZZ_MASKS, 64))), v128.or(
    v128.swizzle(n2, v128.load(ZZ_MASKS, 80)),
    v128.swizzle(n3, v128.load(ZZ_MASKS, 96))));
  const z2 = v128.or(v128.or(
    v128.swizzle(n0, v128.load(ZZ_MASKS, 112)),
    v128.swizzle(n1, v128.load(ZZ_MASKS, 128))), v128.or(
    v128.swizzle(n2, v128.load(ZZ_MASKS, 144)),
    v128.swizzle(n3, v128.load(ZZ_MASKS, 160))));
  const z3 = v128.or(v128.or(
    v128.swizzle(n1, v128.load(ZZ_MASKS, 176)),
    v128.swizzle(n2, v128.load(ZZ_MASKS, 192))),
    v128.swizzle(n3, v128.load(ZZ_MASKS, 208)));
  return <u64>i8x16.bitmask(z0) | (<u64>i8x16.bitmask(z1) << 16) | (<u64>i8x16.bitmask(z2) << 32) | (<u64>i8x16.bitmask(z3) << 48);
}

/** Huffman-codes the block at `c` (i16 coefficients, transformed order), or counts its symbols. Returns the new DC predictor. */
function codeBlock(table: i32, lastDc: i32, c: usize): i32 {
  if (replay) {
    c = cachePos;
    cachePos += 128;
  }
  return freq ? countBlock(table, lastDc, c) : emitBlock(table, lastDc, c);
}

// @ts-ignore: decorator
@inline function coefficient(c: usize, k: i32): i32 {
  return <i32>load<i16>(c + (<usize>unchecked(ZIGZAG_T[k]) << 1));
}

/** The bits after a symbol of category `cat`: v, or v − 1 for negative v, in cat bits. */
// @ts-ignore: decorator
@inline function extraBits(v: i32, cat: i32): u32 {
  return <u32>(v < 0 ? v - 1 : v) & ((1 << cat) - 1);
}

function emitBlock(table: i32, lastDc: i32, c: usize): i32 {
  const dcTable = huff + (<usize>table << 11);
  const acTable = dcTable + 1024;
  const dc = <i32>load<i16>(c);
  const diff = dc - lastDc;
  const dcCat = category(diff);
  // A symbol's code (u16) and size (u16) in one load; the code and the bits after it in one putBits (≤ 16 + 11 bits).
  let e = load<u32>(dcTable + (<usize>dcCat << 2));
  putBits(((e & 0xffff) << dcCat) | extraBits(diff, dcCat), <i32>(e >> 16) + dcCat);
  // Only the coefficients that are not 0, in order: a run of zeros is the gap before one.
  let mask = nonZero(c) & ~(<u64>1);
  let last = 0;
  while (mask) {
    const k = <i32>ctz<u64>(mask);
    mask &= mask - 1;
    let run = k - last - 1;
    if (run > 15) {
      const zrl = load<u32>(acTable + (0xf0 << 2));
      do {
        putBits(zrl & 0xffff, <i32>(zrl >> 16));
        run -= 16;
      } while (run > 15);
    }
    const v = coefficient(c, k);
    const cat = category(v);
    e = load<u32>(acTable + (<usize>((run << 4) | cat) << 2));
    putBits(((e & 0xffff) << cat) | extraBits(v, cat), <i32>(e >> 16) + cat);
    last = k;
  }
  if (last < 63) {
    e = load<u32>(acTable);
    putBits(e & 0xffff, <i32>(e >> 16));
  }
  return dc;
}

// @ts-ignore: decorator
@inline function count(f: usize): void {
  store<u32>(f, load<u32>(f) + 1);
}

function countBlock(table: i32, lastDc: i32, c: usize): i32 {
  const dcFreq = freq + (<usize>table << 11);
  const acFreq = dcFreq + 1024;
  const dc = <i32>load<i16>(c);
  count(dcFreq + (<usize>category(dc - lastDc) << 2));
  let mask = nonZero(c) & ~(<u64>1);
  let last = 0;
  while (mask) {
    const k = <i32>ctz<u64>(mask);
    mask &= mask - 1;
    let run = k - last - 1;
    while (run > 15) {
      count(acFreq + (0xf0 << 2));
      run -= 16;
    }
    count(acFreq + (<usize>((run << 4) | category(coefficient(c, k))) << 2));
    last = k;
  }
  if (last < 63) count(acFreq);
  return dc;
}

/**
 * Codes one MCU row. `rgba` holds `rows` (8 or 16 = MCU height) rows of `width` pixels, the
 * image's bottom edge already repeated by the caller; `sub` is 1 (4:4:4) or 2 (4:2:0).
 */
export function jpegEncodeRow(rgba: usize, width: i32, sub: i32): void {
  encodeRow(rgba, width, sub, RGB);
}

/**
 * The same for CMYK ink (4 bytes a pixel, 0 = no ink) as Adobe's YCCK (APP14 transform 2): the
 * ink of C, M and Y (the inverse of Adobe's inverted samples) converted like R, G and B, and K
 * stored inverted as a fourth component on the luma tables, at full resolution.
 */
export function jpegEncodeInkRow(cmyk: usize, width: i32, sub: i32): void {
  encodeRow(cmyk, width, sub, INK);
}

/** The same for grey (1 byte a pixel, 255 = white): one component, 8 rows, no chroma. */
export function jpegEncodeGrayRow(gray: usize, width: i32): void {
  encodeRow(gray, width, 1, GRAY);
}

const RGB = 0;
const INK = 1;
const GRAY = 2;

// Eight pixels at the right edge, the last one repeated.
const edge: usize = memory.data(32, 16);

// The conversion's constants as memory (a load each, where a v128 constant in the loop is several instructions).
const K: usize = memory.data<f32>([
  0.299, 0.299, 0.299, 0.299, 0.587, 0.587, 0.587, 0.587, 0.114, 0.114, 0.114, 0.114, 128, 128, 128, 128,
  -0.168736, -0.168736, -0.168736, -0.168736, 0.331264, 0.331264, 0.331264, 0.331264, 0.5, 0.5, 0.5, 0.5, 0.418688, 0.418688, 0.418688, 0.418688,
  0.081312, 0.081312, 0.081312, 0.081312, 0.25, 0.25, 0.25, 0.25,
], 16);
const BYTE: usize = memory.data<i32>([0xff, 0xff, 0xff, 0xff], 16);

// @ts-ignore: decorator
@inline function channel(v: v128, shift: u32): v128 {
  // Bytes: the signed conversion gives the unsigned one's floats, in one x86 instruction (the unsigned one is emulated).
  return f32x4.convert_i32x4_s(v128.and(i32x4.shr_u(v, shift), v128.load(BYTE)));
}

// JFIF YCbCr, Y level-shifted by −128: the f32 operations of the pixel loop in encodeRow, lane for lane.
// @ts-ignore: decorator
@inline function lumaOf(r: v128, g: v128, b: v128): v128 {
  return f32x4.sub(f32x4.add(f32x4.add(f32x4.mul(v128.load(K), r), f32x4.mul(v128.load(K, 16), g)), f32x4.mul(v128.load(K, 32), b)), v128.load(K, 48));
}
// @ts-ignore: decorator
@inline function cbOf(r: v128, g: v128, b: v128): v128 {
  return f32x4.add(f32x4.sub(f32x4.mul(v128.load(K, 64), r), f32x4.mul(v128.load(K, 80), g)), f32x4.mul(v128.load(K, 96), b));
}
// @ts-ignore: decorator
@inline function crOf(r: v128, g: v128, b: v128): v128 {
  return f32x4.sub(f32x4.sub(f32x4.mul(v128.load(K, 96), r), f32x4.mul(v128.load(K, 112), g)), f32x4.mul(v128.load(K, 128), b));
}

/**
 * Half of a 2×2 mean of 8 pixels' chroma (`a`, `b`: pixels 0–3, 4–7) into `at`: the sums of the
 * top row's pairs, then the bottom row's added and the quarter taken, in the order encodeRow
 * sums them: ((top left + top right) + bottom left) + bottom right.
 */
// @ts-ignore: decorator
@inline function downsample(a: v128, b: v128, at: usize, bottom: bool): void {
  const even = v128.shuffle<f32>(a, b, 0, 2, 4, 6), odd = v128.shuffle<f32>(a, b, 1, 3, 5, 7);
  if (bottom) v128.store(at, f32x4.mul(f32x4.add(f32x4.add(v128.load(at), even), odd), v128.load(K, 144)));
  else v128.store(at, f32x4.add(even, odd));
}

/**
 * One MCU row (16 rows) of RGBA as Y (pw × 16) and 4:2:0 Cb, Cr (pw / 2 × 8), the chroma
 * never held at full resolution; right edge repeated. The values encodeRow's planes and
 * means give.
 */
function convertRows420(pixels: usize, width: i32, pw: i32, yPlane: usize, cbHalf: usize, crHalf: usize): void {
  for (let y = 0; y < 16; y++) {
    const src = pixels + (<usize>(y * width) << 2);
    const yRow = yPlane + (<usize>(y * pw) << 2);
    const half = <usize>((y >> 1) * pw) << 1;
    const cbRow = cbHalf + half, crRow = crHalf + half;
    const bottom = (y & 1) != 0;
    for (let x = 0; x < pw; x += 8) {
      let p = src + (<usize>x << 2);
      if (x + 8 > width) {
        for (let i = 0; i < 8; i++) store<u32>(edge + (<usize>i << 2), load<u32>(src + (<usize>min(x + i, width - 1) << 2)));
        p = edge;
      }
      const v0 = v128.load(p), v1 = v128.load(p, 16);
      const r0 = channel(v0, 0), g0 = channel(v0, 8), b0 = channel(v0, 16);
      const r1 = channel(v1, 0), g1 = channel(v1, 8), b1 = channel(v1, 16);
      const at = yRow + (<usize>x << 2);
      v128.store(at, lumaOf(r0, g0, b0));
      v128.store(at, lumaOf(r1, g1, b1), 16);
      const c = <usize>x << 1;
      if (bottom) {
        downsample(cbOf(r0, g0, b0), cbOf(r1, g1, b1), cbRow + c, true);
        downsample(crOf(r0, g0, b0), crOf(r1, g1, b1), crRow + c, true);
      } else {
        downsample(cbOf(r0, g0, b0), cbOf(r1, g1, b1), cbRow + c, false);
        downsample(crOf(r0, g0, b0), crOf(r1, g1, b1), crRow + c, false);
      }
    }
  }
}

function encodeRow(pixels: usize, width: i32, sub: i32, kind: i32): void {
  const ink = kind == INK;
  const mcu = 8 * sub;
  const mcus = (width + mcu - 1) / mcu;
  if (replay) {
    for (let m = 0; m < mcus; m++) {
      for (let b = 0; b < sub * sub; b++) dcY = codeBlock(0, dcY, 0);
      if (kind == GRAY) continue;
      dcCb = codeBlock(1, dcCb, 0);
      dcCr = codeBlock(1, dcCr, 0);
      if (ink) for (let b = 0; b < sub * sub; b++) dcK = codeBlock(0, dcK, 0);
    }
    return;
  }
  const pw = mcus * mcu; // padded width
  const yPlane = planes;
  const cbPlane = yPlane + (<usize>(pw * mcu) << 2);
  const crPlane = cbPlane + (<usize>(pw * mcu) << 2);
  const kPlane = crPlane + (<usize>(pw * mcu) << 2);
  // Colour conversion (JFIF), level-shifted by −128; right edge repeated.
  if (kind == GRAY) {
    for (let y = 0; y < mcu; y++) {
      for (let x = 0; x < pw; x++) {
        store<f32>(yPlane + (<usize>(y * pw + x) << 2), <f32>load<u8>(pixels + <usize>(y * width + min(x, width - 1))) - 128);
      }
    }
    for (let m = 0; m < mcus; m++) dcY = codeFullBlocks(yPlane, pw, m * mcu, 1, dcY);
    return;
  }
  if (kind == RGB && sub == 2) {
    // Chroma at half resolution straight from the conversion: planes pw / 2 wide, 8 rows.
    convertRows420(pixels, width, pw, yPlane, cbPlane, crPlane);
    const halfStride = <usize>pw << 1;
    for (let m = 0; m < mcus; m++) {
      dcY = codeFullBlocks(yPlane, pw, m * 16, 2, dcY);
      dcCb = codeBlock(1, dcCb, transformBlock(cbPlane + (<usize>m << 5), halfStride, 1));
      dcCr = codeBlock(1, dcCr, transformBlock(crPlane + (<usize>m << 5), halfStride, 1));
    }
    return;
  }
  for (let y = 0; y < mcu; y++) {
    // Four pixels at a time (each lane the same f32 operations as the pixel loop below).
    let x = 0;
    if (!ink) {
      for (; x + 4 <= width; x += 4) {
        const v = v128.load(pixels + (<usize>(y * width + x) << 2));
        const r = channel(v, 0), g = channel(v, 8), b = channel(v, 16);
        const i = <usize>(y * pw + x) << 2;
        v128.store(yPlane + i, lumaOf(r, g, b));
        v128.store(cbPlane + i, cbOf(r, g, b));
        v128.store(crPlane + i, crOf(r, g, b));
      }
    }
    for (; x < pw; x++) {
      const p = pixels + (<usize>(y * width + min(x, width - 1)) << 2);
      const r = <f32>load<u8>(p), g = <f32>load<u8>(p, 1), b = <f32>load<u8>(p, 2);
      const i = <usize>(y * pw + x) << 2;
      store<f32>(yPlane + i, 0.299 * r + 0.587 * g + 0.114 * b - 128);
      store<f32>(cbPlane + i, -0.168736 * r - 0.331264 * g + 0.5 * b);
      store<f32>(crPlane + i, 0.5 * r - 0.418688 * g - 0.081312 * b);
      if (ink) store<f32>(kPlane + i, 127 - <f32>load<u8>(p, 3)); // (255 − k) − 128
    }
  }
  for (let m = 0; m < mcus; m++) {
    const x0 = m * mcu;
    dcY = codeFullBlocks(yPlane, pw, x0, sub, dcY);
    for (let c = 0; c < 2; c++) {
      const plane = c == 0 ? cbPlane : crPlane;
      if (sub == 1) {
        const coded = transformBlock(plane + (<usize>x0 << 2), <usize>pw << 2, 1);
        if (c == 0) dcCb = codeBlock(1, dcCb, coded);
        else dcCr = codeBlock(1, dcCr, coded);
        continue;
      }
      for (let y = 0; y < 8; y++) {
        const to = block + (<usize>y << 5);
        // The mean of each 2×2: ((top left + top right) + bottom left) + bottom right, a quarter.
        for (let half = 0; half < 2; half++) {
          const i = plane + (<usize>(2 * y * pw + x0 + 8 * half) << 2);
          const j = i + (<usize>pw << 2);
          const a0 = v128.load(i), a1 = v128.load(i, 16), b0 = v128.load(j), b1 = v128.load(j, 16);
          let v = f32x4.add(v128.shuffle<f32>(a0, a1, 0, 2, 4, 6), v128.shuffle<f32>(a0, a1, 1, 3, 5, 7));
          v = f32x4.add(v, v128.shuffle<f32>(b0, b1, 0, 2, 4, 6));
          v = f32x4.add(v, v128.shuffle<f32>(b0, b1, 1, 3, 5, 7));
          v128.store(to + (<usize>half << 4), f32x4.mul(v, f32x4.splat(0.25)));
        }
      }
      const coded = transformBlock(block, 32, 1);
      if (c == 0) dcCb = codeBlock(1, dcCb, coded);
      else dcCr = codeBlock(1, dcCr, coded);
    }
    if (ink) dcK = codeFullBlocks(kPlane, pw, x0, sub, dcK);
  }
}

/** The sub × sub full-resolution blocks of one MCU of a luma-table plane (Y or K); the new DC predictor. */
function codeFullBlocks(plane: usize, pw: i32, x0: i32, sub: i32, dc: i32): i32 {
  for (let by = 0; by < sub; by++) {
    for (let bx = 0; bx < sub; bx++) {
      const from = plane + (<usize>(by * 8 * pw + x0 + bx * 8) << 2);
      dc = codeBlock(0, dc, transformBlock(from, <usize>pw << 2, 0));
    }
  }
  return dc;
}
