// Baseline JPEG (ITU T.81) decoding straight to a reduced size, in the DCT domain, as libjpeg's
// scaled decoding does (jidctint.c's jpeg_idct_NxN): each 8×8 block becomes N×N pixels (N = 1…7)
// through an N-point inverse DCT of its N×N lowest frequencies, so a photo placed at a quarter of its size
// never exists at full size. Every coefficient is still entropy-decoded (Huffman coding has no
// shortcut), but only N² of 64 are dequantised and transformed, and the output is N²/64 as big.
//
// The JS side (src/engine/raster/jpeg-decode.ts) parses the markers, builds the Huffman lookup
// tables and component layout in the arena, and calls jpegDecodeScan once per image, then
// jpegToRgba. Layouts (i32 unless said):
//   huff: 8 tables (DC 0–3, AC 4–7) × 1024: [0, 512) 9-bit lookup ((length << 8) | symbol, 0 when
//         the code is longer), [512, 530) maxcode by length, [530, 548) value offset by length,
//         [548, 804) symbols.
//   comps: per component 8 fields: h, v, dc table, ac table, quant pointer (64 × i32, zigzag
//         order), plane pointer (u8), plane stride, block size; for jpegDecodeScanExact and
//         jpegRowsExact then three more at comps + 96: the first MCU row to decode, how many,
//         and the planes' ring (0: whole planes; R: each plane holds R MCU rows, row r at r mod R);
//         at comps + 108 jpegDecodeScanExact leaves the offset in the data where its reading stopped.
//         The window (a placement reads part of the picture): at comps + 112
//         the MCU columns [first, end) and rows [first, end) whose blocks are transformed (every
//         block is still entropy-decoded), at comps + 128 the output columns [first, end) and at
//         comps + 136 rows [first, end) the colour passes convert; the whole picture by default.

// The scan's state between jpegDecodeScanExact calls (MCU rows decoded a few at a time).
let pred0: i32 = 0, pred1: i32 = 0, pred2: i32 = 0;
let untilRestart: i32 = 0;

import { idctIslow, idctIslowDc, rgbaRow } from './jpeg-idct';
export { jpegRowsExact } from './jpeg-idct';

const HUFF_STRIDE: i32 = 1024;
const LOOKUP_BITS: i32 = 9;

// Zigzag position → natural index (row * 8 + col).
const ZIGZAG: usize = memory.data<u8>([
  0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28, 35, 42, 49, 56,
  57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
]);

let src: usize = 0;
let srcEnd: usize = 0;
let pos: usize = 0;
let bitBuf: u64 = 0;
let bitCnt: i32 = 0;
let huffBase: usize = 0;
// jpegDecodeScanExact: i32 coefficients and libjpeg's integer IDCT (every block size 8).
let exact = false;
// jpegDecodeScanRows: the DCT-scaled decode a few MCU rows at a time into planes of a ring (as
// the exact decode's), for the scales that convert row by row (jpegToRgbaRows).
let inRows = false;
// Zero bytes fill() has fed since the data ended or reached a marker: when any of their bits were
// used, the entropy data ran short, where libjpeg leaves the rest of the segment's blocks 0.
let fakeBytes: i32 = 0;
// Per block size n (1…8, and 10, 12, 14 for 4:2:0 chroma at 5/8–7/8; tables at n × 256 bytes):
// where each zigzag position lands in the n×n block (-1 when not needed), and (n ≤ 8)
// cos[x * n + u] = C(u)/2 · cos((2x + 1)uπ / 2n), with which the n-point IDCT keeps a block's
// mean (DC / 8) exactly as the 8-point one does. Past 8 points there are still 8 frequencies:
// the IDCT then interpolates in the DCT domain (libjpeg's jpeg_idct_10x10 … 14x14).
const MAX_N: i32 = 14;
const targets: usize = memory.data((MAX_N + 1) * 256, 4);
const cosTables: usize = memory.data(9 * 256, 4);
// Per block size n (at n × 512 bytes): cosLanes[u * 16 + x] = cos(x, u) for x < n and 0 beyond
// (u < min(n, 8)), so one f32x4 holds a frequency's factor for four output samples; cosRows[y * 8
// + v] = cos(y, v), the same numbers by output sample.
const cosLanes: usize = memory.data((MAX_N + 1) * 512, 16);
const cosRows: usize = memory.data((MAX_N + 1) * 512, 4);
// Zigzag position → (1 << row) | (1 << (8 + column)) of its natural place.
const ROW_COL: usize = memory.data(64 * 2, 2);
const coef: usize = memory.data(MAX_N * MAX_N * 4, 16);
const tmp: usize = memory.data(8 * 16 * 4, 16);

/**
 * Tops the bit buffer up to at least 57 bits: up to seven bytes in one load while none of the
 * next eight is 0xFF (libjpeg-turbo's fast fill), else a byte at a time through stuffed zeros and
 * markers. How far ahead it reads changes no bit decoded: it never passes a marker, and the bits
 * it holds past those used are dropped at a restart or the scan's end as the bytes after them.
 */
function fill(): void {
  if (pos + 8 <= srcEnd) {
    const word = load<u64>(pos);
    const ones = ~word; // a 0xFF byte is a zero byte here
    if (((ones - 0x0101010101010101) & ~ones & 0x8080808080808080) == 0) {
      const take = min(7, (64 - bitCnt) >> 3);
      bitBuf = (bitBuf << (<u64>take << 3)) | (bswap<u64>(word) >>> (<u64>(8 - take) << 3));
      pos += <usize>take;
      bitCnt += take << 3;
      return;
    }
  }
  while (bitCnt <= 56) {
    let byte: u64 = 0;
    if (pos < srcEnd) {
      byte = <u64>load<u8>(pos);
      if (byte == 0xff) {
        const next = pos + 1 < srcEnd ? load<u8>(pos + 1) : 0xd9;
        if (next == 0) pos += 2; // stuffed zero
        else {
          byte = 0; // a marker: feed zeros, leave it for the restart logic
          fakeBytes++;
        }
      } else pos++;
    } else fakeBytes++;
    bitBuf = (bitBuf << 8) | byte;
    bitCnt += 8;
  }
}

// @ts-ignore: decorator
@inline function bits(n: i32): i32 {
  if (bitCnt < n) fill();
  bitCnt -= n;
  return <i32>(bitBuf >>> <u64>bitCnt) & ((1 << n) - 1);
}

// @ts-ignore: decorator
@inline function extend(v: i32, n: i32): i32 {
  return v < 1 << (n - 1) ? v - (1 << n) + 1 : v;
}

/** The next LOOKUP_BITS of the stream (at least 16 held). */
// @ts-ignore: decorator
@inline function peek(): i32 {
  return peekIn(bitBuf, bitCnt);
}

/** peek() of a bit buffer held in locals. */
// @ts-ignore: decorator
@inline function peekIn(buf: u64, cnt: i32): i32 {
  return <i32>(buf >>> <u64>(cnt - LOOKUP_BITS)) & ((1 << LOOKUP_BITS) - 1);
}

/** The next Huffman symbol of table `t`, or -1 for an invalid code. */
function symbol(t: i32): i32 {
  if (bitCnt < 16) fill();
  const table = huffBase + <usize>(t * HUFF_STRIDE) * 4;
  const hit = load<i32>(table + (<usize>peek() << 2));
  if (hit != 0) {
    bitCnt -= hit >> 8;
    return hit & 0xff;
  }
  for (let len = LOOKUP_BITS + 1; len <= 16; len++) {
    const code = <i32>(bitBuf >>> <u64>(bitCnt - len)) & ((1 << len) - 1);
    if (code <= load<i32>(table + (<usize>(512 + len) << 2))) {
      bitCnt -= len;
      return load<i32>(table + (<usize>(548 + load<i32>(table + (<usize>(530 + len) << 2)) + code) << 2));
    }
  }
  return -1;
}

// Per AC table (4–7), per LOOKUP_BITS of look-ahead: when the code and its value bits both fit,
// (value << 16) | (run << 8) | bits used; an end of block, FAST_EOB | bits used; else 0 (the
// bit-by-bit path: symbol(), then bits()). The same coefficients as that path, fewer steps.
const fastAc: usize = memory.data(4 << 11, 4);
const FAST_EOB: i32 = 0x8000;
// The same per DC table (0–3) for the difference: (value << 16) | FAST_HIT | bits used, when the
// code (a size of at most 11) and its value bits fit; else 0.
const fastDc: usize = memory.data(4 << 11, 4);
const FAST_HIT: i32 = 0x8000;

function setFastTables(): void {
  for (let t = 0; t < 4; t++) {
    const acTable = huffBase + <usize>((t + 4) * HUFF_STRIDE) * 4;
    const dcTable = huffBase + <usize>(t * HUFF_STRIDE) * 4;
    const ac = fastAc + (<usize>t << 11);
    const dc = fastDc + (<usize>t << 11);
    for (let look = 0; look < 1 << LOOKUP_BITS; look++) {
      let hit = load<i32>(acTable + (<usize>look << 2));
      let f = 0;
      if (hit != 0) {
        const length = hit >> 8;
        const r = (hit & 0xff) >> 4;
        const size = hit & 15;
        if (size == 0 && r == 0) f = FAST_EOB | length;
        else if (size != 0 && length + size <= LOOKUP_BITS) {
          const value = extend((look >> (LOOKUP_BITS - length - size)) & ((1 << size) - 1), size);
          f = (value << 16) | (r << 8) | (length + size);
        }
      }
      store<i32>(ac + (<usize>look << 2), f);
      hit = load<i32>(dcTable + (<usize>look << 2));
      f = 0;
      if (hit != 0) {
        const length = hit >> 8;
        const size = hit & 0xff;
        if (size == 0) f = FAST_HIT | length;
        else if (size <= 11 && length + size <= LOOKUP_BITS) {
          const value = extend((look >> (LOOKUP_BITS - length - size)) & ((1 << size) - 1), size);
          f = (value << 16) | FAST_HIT | (length + size);
        }
      }
      store<i32>(dc + (<usize>look << 2), f);
    }
  }
}

/** Zeroes rows 0 … rows − 1 of the n×n f32 block in `coef` (what a block of the scaled decodes can have set). */
// @ts-ignore: decorator
@inline function clearRows(n: i32, rows: i32): void {
  const zero = f32x4.splat(0);
  for (let r = 0; r < rows; r++) {
    const row = coef + (<usize>(r * n) << 2);
    for (let i = 0; i < n; i += 4) v128.store(row + (<usize>i << 2), zero);
  }
}

/** Zeroes the quarters of the exact decode's 8×8 i32 block that `used` (idctIslow's) says were set. */
// @ts-ignore: decorator
@inline function clearExact(used: i32): void {
  const zero = i32x4.splat(0);
  const rows = used & 32 ? 8 : 4;
  const wide = (used & 4) != 0;
  for (let r = 0; r < rows; r++) {
    v128.store(coef + (<usize>r << 5), zero);
    if (wide) v128.store(coef + (<usize>r << 5), zero, 16);
  }
}

// The tables setScales makes depend on nothing decoded: made once per instance.
let scalesSet = false;

function setScales(): void {
  if (scalesSet) return;
  scalesSet = true;
  for (let k = 0; k < 64; k++) {
    const natural = <i32>load<u8>(ZIGZAG + <usize>k);
    const rowCol: i32 = (1 << (natural >> 3)) | (256 << (natural & 7));
    store<u16>(ROW_COL + (<usize>k << 1), <u16>rowCol);
  }
  for (let n = 1; n <= MAX_N; n++) {
    const target = targets + <usize>(n * 256);
    for (let k = 0; k < 64; k++) {
      const natural = <i32>load<u8>(ZIGZAG + <usize>k);
      const row = natural >> 3;
      const col = natural & 7;
      store<i32>(target + (<usize>k << 2), row < n && col < n ? row * n + col : -1);
    }
    const lanes = cosLanes + <usize>(n * 512);
    const rows = cosRows + <usize>(n * 512);
    for (let x = 0; x < 16; x++) {
      for (let u = 0; u < 8; u++) {
        const c: f64 = u == 0 ? Math.SQRT1_2 : 1.0;
        const value = x < n && u < n ? <f32>((c / 2) * Math.cos(((2 * x + 1) * u * Math.PI) / (2 * n))) : <f32>0;
        if (n <= 8 && x < n && u < n) store<f32>(cosTables + <usize>(n * 256) + (<usize>(x * n + u) << 2), value);
        store<f32>(lanes + (<usize>(u * 16 + x) << 2), value);
        store<f32>(rows + (<usize>(x * 8 + u) << 2), value);
      }
    }
  }
}

// @ts-ignore: decorator
@inline function clampByte(v: f32): u8 {
  const r = <i32>Mathf.floor(v + 128.5);
  return <u8>(r < 0 ? 0 : r > 255 ? 255 : r);
}

/** idct at n = 2 (a 1/4-scale decode, the usual one for a placed photo) unrolled: the same sums in the same order. */
// @ts-ignore: decorator
@inline function idct2(cosTable: usize, out: usize, stride: i32): void {
  const c00 = load<f32>(cosTable), c01 = load<f32>(cosTable, 4), c10 = load<f32>(cosTable, 8), c11 = load<f32>(cosTable, 12);
  const f00 = load<f32>(coef), f01 = load<f32>(coef, 4), f10 = load<f32>(coef, 8), f11 = load<f32>(coef, 12);
  // Rows: t[v][x] = (0 + cos[x][0]·F[v][0]) + cos[x][1]·F[v][1].
  let s: f32 = 0;
  s += c00 * f00; s += c01 * f01; const t00 = s;
  s = 0; s += c10 * f00; s += c11 * f01; const t01 = s;
  s = 0; s += c00 * f10; s += c01 * f11; const t10 = s;
  s = 0; s += c10 * f10; s += c11 * f11; const t11 = s;
  // Columns: pixel (y, x) = (0 + cos[y][0]·t[0][x]) + cos[y][1]·t[1][x].
  s = 0; s += c00 * t00; s += c01 * t10; store<u8>(out, clampByte(s));
  s = 0; s += c00 * t01; s += c01 * t11; store<u8>(out, clampByte(s), 1);
  s = 0; s += c10 * t00; s += c11 * t10; store<u8>(out + <usize>stride, clampByte(s));
  s = 0; s += c10 * t01; s += c11 * t11; store<u8>(out + <usize>stride, clampByte(s), 1);
}

/**
 * idct at n = 3…14 (libjpeg's scales other than 1/8 and 1/4, jidctint.c's jpeg_idct_NxN) on
 * f32x4 lanes: output samples 4g … 4g + 3 across the lanes of group g, each lane the n-point
 * sums of the lowest min(n, 8)² frequencies in order (0 + Σ over u for the rows, then over v for
 * the columns), products rounded before each addition: at n = 4 and 8 the bytes of the scalar
 * loops it replaced. `used`: the rows (bits 0–7) and columns (bits 8–15) of the block's AC
 * coefficients kept, 0 for the DC alone.
 */
function idctLanes(n: i32, out: usize, stride: i32, used: i32): void {
  // The usual sizes with n a constant (their loops and branches on n folded away), then any.
  if (n == 5) idctLanesOf(5, out, stride, used);
  else if (n == 6) idctLanesOf(6, out, stride, used);
  else if (n == 4) idctLanesOf(4, out, stride, used);
  else if (n == 3) idctLanesOf(3, out, stride, used);
  else idctLanesOf(n, out, stride, used);
}

// @ts-ignore: decorator
@inline function idctLanesOf(n: i32, out: usize, stride: i32, used: i32): void {
  const lanes = cosLanes + <usize>(n * 512);
  const rows = cosRows + <usize>(n * 512);
  const zero = f32x4.splat(0);
  if (used == 0) {
    // DC alone: every sample (0 + c·(0 + c·F)) alike.
    const c = load<f32>(rows);
    let t: f32 = 0;
    t += c * load<f32>(coef);
    let v: f32 = 0;
    v += c * t;
    const b = i8x16.splat(clampByte(v));
    for (let y = 0; y < n; y++) putRow(out + <usize>(y * stride), n, b, b);
    return;
  }
  // The scales 1/2 and 1 keep the plain sums (their bytes, as before); the others use the
  // basis' symmetry, cos(n − 1 − x, u) = (−1)^u · cos(x, u): the even and odd frequencies' sums of
  // the first half's samples give both halves (E + O, E − O), half the products.
  // Frequencies past the last row and column set are 0: the sums leave their terms out, which
  // changes no sum (x + 0 = x), so every block gives the bytes of the full loops. Sums may also
  // start from their first product instead of 0 + it: the two differ at most in a zero's sign,
  // which no byte sees (x + ±0 = x for x ≠ 0, c · ±0 = ±0, ±0 + 128.5 = 128.5).
  const rowBound = 31 - clz(used & 0xff);
  const colBound = 31 - clz(used >> 8);
  const mirrored = n != 4 && n != 8;
  if (colBound == 0) {
    firstColumn(n, out, stride, rowBound, lanes, mirrored);
    return;
  }
  if (mirrored) mirroredRows(n, rowBound, colBound, lanes);
  else {
    // Rows: tmp[v] (samples x in the lanes, 16 floats a row) = Σ_u cos(x, u) · F[v][u]; lanes
    // group 1 (samples 4–7) at 8 points.
    const wide = n > 4;
    for (let v = 0; v <= rowBound; v++) {
      const f = coef + (<usize>(v * n) << 2);
      let s0 = zero, s1 = zero;
      for (let u = 0; u <= colBound; u++) {
        const c = v128.load32_splat(f + (<usize>u << 2));
        const k = lanes + (<usize>(u * 16) << 2);
        s0 = f32x4.add(s0, f32x4.mul(v128.load(k), c));
        if (wide) s1 = f32x4.add(s1, f32x4.mul(v128.load(k, 16), c));
      }
      const t = tmp + (<usize>(v * 16) << 2);
      v128.store(t, s0);
      v128.store(t, s1, 16);
    }
  }
  if (rowBound == 0) {
    // One row of frequencies: every pixel row is 0 + cos(y, 0)·tmp[0], and cos(y, 0) is the same for every y.
    const k = v128.load32_splat(rows);
    const lo = clampBytes8(f32x4.mul(k, v128.load(tmp)), f32x4.mul(k, v128.load(tmp, 16)));
    const hi = n > 8 ? clampBytes8(f32x4.mul(k, v128.load(tmp, 32)), f32x4.mul(k, v128.load(tmp, 48))) : lo;
    for (let y = 0; y < n; y++) putRow(out + <usize>(y * stride), n, lo, hi);
    return;
  }
  if (mirrored) {
    mirroredColumns(n, out, stride, rowBound, rows);
    return;
  }
  // Columns: pixel row y = Σ_v cos(y, v) · tmp[v].
  const wide = n > 4;
  for (let y = 0; y < n; y++) {
    const c = rows + (<usize>(y * 8) << 2);
    let s0 = zero, s1 = zero;
    for (let v = 0; v <= rowBound; v++) {
      const k = v128.load32_splat(c + (<usize>v << 2));
      const t = tmp + (<usize>(v * 16) << 2);
      s0 = f32x4.add(s0, f32x4.mul(k, v128.load(t)));
      if (wide) s1 = f32x4.add(s1, f32x4.mul(k, v128.load(t, 16)));
    }
    // n bytes of the row, no more (the plane's next block may lie beside it).
    const bytes = clampBytes8(s0, s1);
    putRow(out + <usize>(y * stride), n, bytes, bytes);
  }
}

/**
 * idctLanes for a block whose AC coefficients all lie in column 0 (rowBound ≥ 1): every sample
 * of row v of tmp is a(v) = 0 + cos(x, 0)·F[v][0], cos(x, 0) the same for every x, so each pixel
 * row is one value, its sums over v made with the pixel rows y in the lanes (cosLanes[v] holds
 * cos(y, v) by y), in the order the full loops add them (plain, or E ± O when `mirrored`).
 */
// @ts-ignore: decorator
@inline function firstColumn(n: i32, out: usize, stride: i32, rowBound: i32, lanes: usize, mirrored: bool): void {
  const zero = f32x4.splat(0);
  const c0 = load<f32>(lanes);
  let e0 = zero, e1 = zero, o0 = zero, o1 = zero;
  for (let v = 0; v <= rowBound; v++) {
    let a: f32 = 0;
    a += c0 * load<f32>(coef + (<usize>(v * n) << 2));
    const av = f32x4.splat(a);
    const k = lanes + (<usize>(v * 16) << 2);
    if (mirrored && (v & 1)) {
      o0 = f32x4.add(o0, f32x4.mul(v128.load(k), av));
      o1 = f32x4.add(o1, f32x4.mul(v128.load(k, 16), av));
    } else {
      e0 = f32x4.add(e0, f32x4.mul(v128.load(k), av));
      e1 = f32x4.add(e1, f32x4.mul(v128.load(k, 16), av));
    }
  }
  // Bytes of pixel rows y (lanes) at `rowBytes`, and for the mirrored sums those of rows n − 1 − y at rowBytes + 8.
  if (mirrored) {
    v128.store64_lane(rowBytes, clampBytes8(f32x4.add(e0, o0), f32x4.add(e1, o1)), 0);
    v128.store64_lane(rowBytes + 8, clampBytes8(f32x4.sub(e0, o0), f32x4.sub(e1, o1)), 0);
    for (let y = 0; y < (n + 1) >> 1; y++) {
      const b = i8x16.splat(load<u8>(rowBytes + <usize>y));
      putRow(out + <usize>(y * stride), n, b, b);
      if (n - 1 - y != y) {
        const m = i8x16.splat(load<u8>(rowBytes + 8 + <usize>y));
        putRow(out + <usize>((n - 1 - y) * stride), n, m, m);
      }
    }
  } else {
    v128.store64_lane(rowBytes, clampBytes8(e0, e1), 0);
    for (let y = 0; y < n; y++) {
      const b = i8x16.splat(load<u8>(rowBytes + <usize>y));
      putRow(out + <usize>(y * stride), n, b, b);
    }
  }
}

const rowBytes: usize = memory.data(16, 16);

/** idctLanes' rows (tmp) at n = 3, 5, 6, 7 and 10, 12, 14 by even and odd frequencies (see there). */
// @ts-ignore: decorator
@inline function mirroredRows(n: i32, rowBound: i32, colBound: i32, lanes: usize): void {
  const zero = f32x4.splat(0);
  const widest = n > 12;
  for (let v = 0; v <= rowBound; v++) {
    const f = coef + (<usize>(v * n) << 2);
    const t = tmp + (<usize>(v * 16) << 2);
    if (n < 8) {
      // Samples 0–3 in one vector: E over even u, O over odd u; then the row from E ± O.
      // Columns u = 0 and 1 (colBound ≥ 1 here) start E and O.
      let e = f32x4.mul(v128.load(lanes), v128.load32_splat(f));
      let o = f32x4.mul(v128.load(lanes, 64), v128.load32_splat(f + 4));
      for (let u = 2; u <= colBound; u += 2) e = f32x4.add(e, f32x4.mul(v128.load(lanes + (<usize>(u * 16) << 2)), v128.load32_splat(f + (<usize>u << 2))));
      for (let u = 3; u <= colBound; u += 2) o = f32x4.add(o, f32x4.mul(v128.load(lanes + (<usize>(u * 16) << 2)), v128.load32_splat(f + (<usize>u << 2))));
      const p = f32x4.add(e, o), m = f32x4.sub(e, o);
      let lo: v128, hi: v128;
      if (n == 3) { lo = v128.shuffle<f32>(p, m, 0, 1, 4, 4); hi = zero; }
      else if (n == 5) { lo = v128.shuffle<f32>(p, m, 0, 1, 2, 5); hi = v128.shuffle<f32>(m, zero, 0, 4, 4, 4); }
      else if (n == 6) { lo = v128.shuffle<f32>(p, m, 0, 1, 2, 6); hi = v128.shuffle<f32>(m, zero, 1, 0, 4, 4); }
      else { lo = p; hi = v128.shuffle<f32>(m, zero, 2, 1, 0, 4); }
      v128.store(t, lo);
      v128.store(t, hi, 16);
      continue;
    }
    let s0 = zero, s1 = zero, s2 = zero, s3 = zero;
    for (let u = 0; u <= colBound; u++) {
      const c = v128.load32_splat(f + (<usize>u << 2));
      const k = lanes + (<usize>(u * 16) << 2);
      s0 = f32x4.add(s0, f32x4.mul(v128.load(k), c));
      s1 = f32x4.add(s1, f32x4.mul(v128.load(k, 16), c));
      s2 = f32x4.add(s2, f32x4.mul(v128.load(k, 32), c));
      if (widest) s3 = f32x4.add(s3, f32x4.mul(v128.load(k, 48), c));
    }
    v128.store(t, s0);
    v128.store(t, s1, 16);
    v128.store(t, s2, 32);
    v128.store(t, s3, 48);
  }
}

/** idctLanes' columns at n = 3, 5, 6, 7 and 10, 12, 14: rows y and n − 1 − y from E ± O over the rows of tmp. */
// @ts-ignore: decorator
@inline function mirroredColumns(n: i32, out: usize, stride: i32, rowBound: i32, rows: usize): void {
  const zero = f32x4.splat(0);
  const wide = n > 4, wider = n > 8, widest = n > 12;
  for (let y = 0; y < (n + 1) >> 1; y++) {
    const c = rows + (<usize>(y * 8) << 2);
    // Rows v = 0 and 1 (rowBound ≥ 1 here) start E and O.
    const k0 = v128.load32_splat(c), k1 = v128.load32_splat(c, 4);
    let e0 = f32x4.mul(k0, v128.load(tmp)), e1 = zero, e2 = zero, e3 = zero;
    let o0 = f32x4.mul(k1, v128.load(tmp, 64)), o1 = zero, o2 = zero, o3 = zero;
    if (wide) { e1 = f32x4.mul(k0, v128.load(tmp, 16)); o1 = f32x4.mul(k1, v128.load(tmp, 80)); }
    if (wider) { e2 = f32x4.mul(k0, v128.load(tmp, 32)); o2 = f32x4.mul(k1, v128.load(tmp, 96)); }
    if (widest) { e3 = f32x4.mul(k0, v128.load(tmp, 48)); o3 = f32x4.mul(k1, v128.load(tmp, 112)); }
    for (let v = 2; v <= rowBound; v += 2) {
      const k = v128.load32_splat(c + (<usize>v << 2));
      const t = tmp + (<usize>(v * 16) << 2);
      e0 = f32x4.add(e0, f32x4.mul(k, v128.load(t)));
      if (wide) e1 = f32x4.add(e1, f32x4.mul(k, v128.load(t, 16)));
      if (wider) e2 = f32x4.add(e2, f32x4.mul(k, v128.load(t, 32)));
      if (widest) e3 = f32x4.add(e3, f32x4.mul(k, v128.load(t, 48)));
    }
    for (let v = 3; v <= rowBound; v += 2) {
      const k = v128.load32_splat(c + (<usize>v << 2));
      const t = tmp + (<usize>(v * 16) << 2);
      o0 = f32x4.add(o0, f32x4.mul(k, v128.load(t)));
      if (wide) o1 = f32x4.add(o1, f32x4.mul(k, v128.load(t, 16)));
      if (wider) o2 = f32x4.add(o2, f32x4.mul(k, v128.load(t, 32)));
      if (widest) o3 = f32x4.add(o3, f32x4.mul(k, v128.load(t, 48)));
    }
    writeRow(out + <usize>(y * stride), n, f32x4.add(e0, o0), f32x4.add(e1, o1), f32x4.add(e2, o2), f32x4.add(e3, o3));
    if (n - 1 - y != y) writeRow(out + <usize>((n - 1 - y) * stride), n, f32x4.sub(e0, o0), f32x4.sub(e1, o1), f32x4.sub(e2, o2), f32x4.sub(e3, o3));
  }
}

/** n samples (lanes of s0 … s3 in order) rounded and clamped as clampByte, at `dst`, no more. */
// @ts-ignore: decorator
@inline function writeRow(dst: usize, n: i32, s0: v128, s1: v128, s2: v128, s3: v128): void {
  const lo = clampBytes8(s0, s1);
  putRow(dst, n, lo, n > 8 ? clampBytes8(s2, s3) : lo);
}

/** A row of n bytes at `dst`, no more (the plane's next block may lie beside it): the low 8 of `lo`, then of `hi` past 8. */
// @ts-ignore: decorator
@inline function putRow(dst: usize, n: i32, lo: v128, hi: v128): void {
  if (n < 8) storeBytes(dst, lo, n);
  else {
    v128.store64_lane(dst, lo, 0);
    if (n > 8) storeBytes(dst + 8, hi, n - 8);
  }
}

/** clampByte per lane of two f32x4 (samples 0–3 and 4–7) as eight bytes in the low half. */
// @ts-ignore: decorator
@inline function clampBytes8(lo: v128, hi: v128): v128 {
  const half = f32x4.splat(128.5);
  // Truncated, not floored: the two differ only below 0, which the narrowing clamps to 0 either way.
  const a = i32x4.trunc_sat_f32x4_s(f32x4.add(lo, half));
  const b = i32x4.trunc_sat_f32x4_s(f32x4.add(hi, half));
  const w = i16x8.narrow_i32x4_s(a, b);
  return i8x16.narrow_i16x8_u(w, w);
}

/** The first `count` (1…7) bytes of `bytes` at `dst`. */
// @ts-ignore: decorator
@inline function storeBytes(dst: usize, bytes: v128, count: i32): void {
  if (count >= 4) {
    v128.store32_lane(dst, bytes, 0);
    if (count == 5) v128.store8_lane(dst, bytes, 4, 4);
    else if (count >= 6) {
      v128.store16_lane(dst, bytes, 2, 4);
      if (count == 7) v128.store8_lane(dst, bytes, 6, 6);
    }
  } else if (count >= 2) {
    v128.store16_lane(dst, bytes, 0);
    if (count == 3) v128.store8_lane(dst, bytes, 2, 2);
  } else v128.store8_lane(dst, bytes, 0);
}

/** Writes the n×n block held in `coef` (dequantised) at `out` (row stride `stride`). */
// @ts-ignore: decorator
@inline function idct(n: i32, out: usize, stride: i32, used: i32): void {
  const cosTable = cosTables + <usize>(n * 256);
  if (n == 1) {
    store<u8>(out, clampByte(load<f32>(coef) / 8));
    return;
  }
  if (n == 2) {
    idct2(cosTable, out, stride);
    return;
  }
  idctLanes(n, out, stride, used);
}

let lastRestart: i32 = 7;

/** Finds and skips the next RSTn marker after a restart interval; false when there is none. */
function restart(): bool {
  bitBuf = 0;
  bitCnt = 0;
  fakeBytes = 0;
  while (pos + 1 < srcEnd) {
    if (load<u8>(pos) == 0xff) {
      const m = load<u8>(pos + 1);
      if (m >= 0xd0 && m <= 0xd7) {
        pos += 2;
        lastRestart = m & 7;
        return true;
      }
      if (m != 0xff && m != 0) return false; // another marker: the data ends early
    }
    pos++;
  }
  return false;
}

/**
 * Decodes one interleaved baseline scan (all components) into the component planes, each block
 * at its component's block size. Returns 0, or -1 for corrupt entropy data, or (exact decodes
 * only) 1 when the data ran short or a restart marker is missing or out of order. Data that ends early leaves the rest of the
 * planes as decoded from zero bits, as libjpeg does (a warning there, not an error).
 */
export function jpegDecodeScan(
  data: usize, dataLen: i32, start: i32, ncomp: i32, comps: usize, huff: usize,
  mcusX: i32, mcusY: i32, restartInterval: i32,
): i32 {
  exact = false;
  inRows = false;
  return decodeScan(data, dataLen, start, ncomp, comps, huff, mcusX, mcusY, restartInterval);
}

/**
 * jpegDecodeScan for the MCU rows asked at comps + 96 (first, how many) into planes holding the
 * ring of MCU rows at comps + 104, as jpegDecodeScanExact takes them: the scales 3/8 and 5/8–7/8,
 * converted a row at a time (jpegToRgbaRows), so neither their planes nor their RGBA exist whole.
 */
export function jpegDecodeScanRows(
  data: usize, dataLen: i32, start: i32, ncomp: i32, comps: usize, huff: usize,
  mcusX: i32, mcusY: i32, restartInterval: i32,
): i32 {
  exact = false;
  inRows = true;
  return decodeScan(data, dataLen, start, ncomp, comps, huff, mcusX, mcusY, restartInterval);
}

// Both entries set `exact` first, so a call cut short (a trap) leaves nothing for the next one.
function decodeScan(
  data: usize, dataLen: i32, start: i32, ncomp: i32, comps: usize, huff: usize,
  mcusX: i32, mcusY: i32, restartInterval: i32,
): i32 {
  let my0 = 0, my1 = mcusY, ring = 0;
  if (exact || inRows) {
    my0 = load<i32>(comps, 96);
    my1 = min(mcusY, my0 + load<i32>(comps, 100));
    ring = load<i32>(comps, 104);
  }
  if (my0 == 0) {
    src = data;
    srcEnd = data + <usize>dataLen;
    pos = data + <usize>start;
    bitBuf = 0;
    bitCnt = 0;
    fakeBytes = 0;
    lastRestart = 7;
    huffBase = huff;
    setScales();
    setFastTables();
    memory.fill(coef, 0, MAX_N * MAX_N * 4);
    pred0 = 0; pred1 = 0; pred2 = 0;
    untilRestart = restartInterval;
  }
  // The bit buffer in locals while blocks decode (globals between calls and for fill, symbol, restart).
  let buf = bitBuf, cnt = bitCnt;
  // The window's blocks alone are transformed.
  const wx0 = load<i32>(comps, 112), wx1 = load<i32>(comps, 116);
  const wy0 = load<i32>(comps, 120), wy1 = load<i32>(comps, 124);
  for (let my = my0; my < my1; my++) {
    // This MCU row's place in the planes (their ring of MCU rows, or all of them).
    const myInPlane = ring ? my % ring : my;
    const rowShown = my >= wy0 && my < wy1;
    for (let mx = 0; mx < mcusX; mx++) {
      if (restartInterval > 0) {
        if (untilRestart == 0) {
          // Exact: the data of the interval must have sufficed, and the marker be the next RSTn
          // (else libjpeg's resynchronisation decides: mozjpeg's output is the answer).
          if (exact && fakeBytes * 8 > cnt) return 1;
          const expected = (lastRestart + 1) & 7;
          if (!restart() && exact) return 1;
          if (exact && lastRestart != expected) return 1;
          buf = bitBuf; cnt = bitCnt;
          pred0 = 0; pred1 = 0; pred2 = 0;
          untilRestart = restartInterval;
        }
        untilRestart--;
      }
      const shown = rowShown && mx >= wx0 && mx < wx1;
      for (let c = 0; c < ncomp; c++) {
        const info = comps + <usize>(c * 32);
        const h = load<i32>(info);
        const v = load<i32>(info, 4);
        const dcT = load<i32>(info, 8);
        const acT = load<i32>(info, 12);
        const quant = <usize>load<i32>(info, 16);
        const plane = <usize>load<i32>(info, 20);
        const stride = load<i32>(info, 24);
        const bn = load<i32>(info, 28); // this component's block size: N, or more for subsampled chroma
        const target = targets + <usize>(bn * 256);
        for (let by = 0; by < v; by++) {
          for (let bx = 0; bx < h; bx++) {
            // The block's coefficients start at 0: cleared after each block (only the rows it set)
            // and once per scan, not filled per block.
            let diff = 0;
            if (cnt < 16) { bitCnt = cnt; fill(); buf = bitBuf; cnt = bitCnt; }
            const fd = load<i32>(fastDc + (<usize>dcT << 11) + (<usize>peekIn(buf, cnt) << 2));
            if (fd != 0) {
              cnt -= fd & 0xff;
              diff = fd >> 16;
            } else {
              bitCnt = cnt;
              const t = symbol(dcT);
              if (t < 0 || t > 11) return -1;
              diff = t == 0 ? 0 : extend(bits(t), t);
              buf = bitBuf; cnt = bitCnt;
            }
            let pred = (c == 0 ? pred0 : c == 1 ? pred1 : pred2) + diff;
            if (c == 0) pred0 = pred; else if (c == 1) pred1 = pred; else pred2 = pred;
            // libjpeg keeps coefficients as 16-bit JCOEF and multiplies them by the table's entries.
            if (exact) store<i32>(coef, <i32><i16>pred * load<i32>(quant));
            else store<f32>(coef, <f32>(pred * load<i32>(quant)));
            // Exact: the OR of the natural indices set, with 64 for any (idctIslow); else the rows
            // (bits 0–7) and columns (bits 8–15) of the AC coefficients kept (0: the DC alone).
            let used = 0;
            const fast = fastAc + (<usize>(acT - 4) << 11);
            for (let k = 1; k < 64; ) {
              // A short code and its value bits within the next LOOKUP_BITS: decoded by one look-up.
              if (cnt < 16) { bitCnt = cnt; fill(); buf = bitBuf; cnt = bitCnt; }
              const f = load<i32>(fast + (<usize>peekIn(buf, cnt) << 2));
              let value: i32;
              if (f != 0) {
                cnt -= f & 0xff;
                if (f & FAST_EOB) break;
                k += (f >> 8) & 15;
                value = f >> 16;
              } else {
                bitCnt = cnt;
                const rs = symbol(acT);
                if (rs < 0) return -1;
                const r = rs >> 4;
                const s = rs & 15;
                if (s == 0) {
                  buf = bitBuf; cnt = bitCnt;
                  if (r != 15) break; // end of block
                  k += 16;
                  continue;
                }
                k += r;
                value = extend(bits(s), s);
                buf = bitBuf; cnt = bitCnt;
              }
              if (k > 63) return -1;
              const at = load<i32>(target + (<usize>k << 2));
              if (exact) {
                store<i32>(coef + (<usize>(at) << 2), value * load<i32>(quant + (<usize>k << 2)));
                used |= at | 64;
              } else if (at >= 0) {
                store<f32>(coef + (<usize>(at) << 2), <f32>(value * load<i32>(quant + (<usize>k << 2))));
                used |= <i32>load<u16>(ROW_COL + (<usize>k << 1));
              }
              k++;
            }
            const bxAll = mx * h + bx;
            const rowInPlane = (myInPlane * v + by) * bn;
            const dst = plane + <usize>(rowInPlane * stride + bxAll * bn);
            if (!exact) {
              if (shown) idct(bn, dst, stride, used);
              clearRows(bn, used == 0 ? 1 : 32 - clz(used & 0xff));
            } else if (used != 0) {
              if (shown) idctIslow(coef, dst, stride, used);
              clearExact(used);
            } else {
              if (shown) idctIslowDc(load<i32>(coef), dst, stride);
              store<i32>(coef, 0);
            }
          }
        }
      }
    }
  }
  bitBuf = buf; bitCnt = cnt;
  // Exact: where the entropy data read so far ends (comps + 108), from which the JS side reads the
  // markers after the scan as libjpeg's jpeg_finish_decompress does.
  if (exact) store<i32>(comps, <i32>(pos - src), 108);
  return exact && my1 == mcusY && fakeBytes * 8 > bitCnt ? 1 : 0;
}

/**
 * jpegDecodeScan with libjpeg's accurate integer IDCT (jidctint.c, jpeg-idct.ts) on every
 * block at full size (each component's block size 8): the planes libjpeg-turbo decodes, for
 * jpegRowsExact.
 */
export function jpegDecodeScanExact(
  data: usize, dataLen: i32, start: i32, ncomp: i32, comps: usize, huff: usize,
  mcusX: i32, mcusY: i32, restartInterval: i32,
): i32 {
  exact = true;
  inRows = false;
  return decodeScan(data, dataLen, start, ncomp, comps, huff, mcusX, mcusY, restartInterval);
}

/** The four bytes in the low lane of `v` as f32 lanes (converted as signed: the same floats for bytes, one x86 instruction). */
// @ts-ignore: decorator
@inline function bytesToF32(v: v128): v128 {
  return f32x4.convert_i32x4_s(i32x4.extend_low_i16x8_u(i16x8.extend_low_i8x16_u(v)));
}

/** The two bytes at `p`, each twice, as f32 lanes (a plane at half the output's columns). */
// @ts-ignore: decorator
@inline function pairsToF32(p: usize): v128 {
  const two = i16x8.splat(load<u16>(p));
  return bytesToF32(v128.shuffle<u8>(two, two, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0));
}

/** min(255, max(0, trunc(v + 0.5))) in each lane, as the pixel loop rounds. */
// @ts-ignore: decorator
@inline function roundedByte(v: v128): v128 {
  return i32x4.min_s(i32x4.max_s(i32x4.trunc_sat_f32x4_s(f32x4.add(v, f32x4.splat(0.5))), i32x4.splat(0)), i32x4.splat(255));
}

/** Four pixels from luma and chroma (chroma already less 128) as opaque RGBA words: the f32 colour pass's step. */
// @ts-ignore: decorator
@inline function yccToRgbaQuad(l: v128, cb: v128, cr: v128): v128 {
  const r = f32x4.add(l, f32x4.mul(f32x4.splat(1.402), cr));
  const g = f32x4.sub(f32x4.sub(l, f32x4.mul(f32x4.splat(0.344136), cb)), f32x4.mul(f32x4.splat(0.714136), cr));
  const b = f32x4.add(l, f32x4.mul(f32x4.splat(1.772), cb));
  return v128.or(v128.or(roundedByte(r), i32x4.shl(roundedByte(g), 8)), v128.or(i32x4.shl(roundedByte(b), 16), i32x4.splat(0xff000000)));
}

/** One pixel of the f32 colour pass past the four-at-a-time loops (chroma not yet less 128), as an opaque RGBA word. */
// @ts-ignore: decorator
@inline function yccToRgbaPixel(l: f32, cb: f32, cr: f32): u32 {
  return rgbToRgbaPixel(l + 1.402 * (cr - 128), l - 0.344136 * (cb - 128) - 0.714136 * (cr - 128), l + 1.772 * (cb - 128));
}

/** r, g, b rounded to bytes as roundedByte does, as an opaque RGBA word. */
// @ts-ignore: decorator
@inline function rgbToRgbaPixel(r: f32, g: f32, b: f32): u32 {
  const ri = <u32>min<i32>(255, max<i32>(0, <i32>(r + 0.5)));
  const gi = <u32>min<i32>(255, max<i32>(0, <i32>(g + 0.5)));
  const bi = <u32>min<i32>(255, max<i32>(0, <i32>(b + 0.5)));
  return 0xff000000 | (bi << 16) | (gi << 8) | ri;
}

/**
 * A component's record (32 bytes at comps + 32·c) as the colour passes read it: its decoded
 * plane and row stride, and its sampling against the output (h or v × the block size it was
 * decoded at; denominators hMax · n, vMax · n). A grey picture's "chroma" is its one component.
 */
// @ts-ignore: decorator
@inline function chroma(ncomp: i32, comps: usize, c: i32): usize { return ncomp == 3 ? comps + <usize>(32 * c) : comps; }
// @ts-ignore: decorator
@inline function plane(comp: usize): usize { return <usize>load<i32>(comp, 20); }
// @ts-ignore: decorator
@inline function stride(comp: usize): i32 { return load<i32>(comp, 24); }
// @ts-ignore: decorator
@inline function across(comp: usize): i32 { return load<i32>(comp) * load<i32>(comp, 28); }
// @ts-ignore: decorator
@inline function down(comp: usize): i32 { return load<i32>(comp, 4) * load<i32>(comp, 28); }

/**
 * YCbCr (JFIF, BT.601 full range) or grey planes → RGBA8 at `out`, width × height, for output
 * scale n/8. A component's plane holds (h · bn) / (hMax · n) of the output's pixels across (and
 * likewise down): 1 when its blocks were decoded large enough (libjpeg's choice too), else its
 * pixels are replicated; the picture is resampled to its placement next, which smooths them.
 * `ycc` 0 copies three planes as RGB (Adobe transform 0).
 */
export function jpegToRgba(ncomp: i32, comps: usize, hMax: i32, vMax: i32, n: i32, width: i32, height: i32, ycc: i32, out: usize): void {
  const c1 = chroma(ncomp, comps, 1), c2 = chroma(ncomp, comps, 2);
  const yPlane = plane(comps), yStride = stride(comps);
  const bPlane = plane(c1), bStride = stride(c1);
  const rPlane = plane(c2), rStride = stride(c2);
  // Numerators of each plane's sampling against the output (denominators hMax · n, vMax · n).
  const yx = across(comps), yy = down(comps);
  const bx = across(c1), by = down(c1);
  const rx = across(c2), ry = down(c2);
  const dx = hMax * n, dy = vMax * n;
  // The window (comps + 128): the pixels outside it are not written.
  const cx0 = windowStart(comps, 128, width), cx1 = windowEnd(comps, 128, width);
  const cy0 = windowStart(comps, 136, height), cy1 = windowEnd(comps, 136, height);
  if (ncomp == 3 && ycc != 0 && yx == dx && yy == dy) {
    const bMode = upsampling(n, bx, by, dx, dy, width), rMode = upsampling(n, rx, ry, dx, dy, width);
    if (bMode >= 0 && rMode >= 0 && bMode + rMode > 0) {
      fancyToRgba(comps, bMode, rMode, width, height, out, cx0, cx1, cy0, cy1);
      return;
    }
  }
  for (let y = cy0; y < cy1; y++) {
    const yRow = yPlane + <usize>(((y * yy) / dy) * yStride);
    const bRow = bPlane + <usize>(((y * by) / dy) * bStride);
    const rRow = rPlane + <usize>(((y * ry) / dy) * rStride);
    const dst = out + <usize>(y * width * 4);
    // Each plane's column floor(x · num / dx), stepped instead of divided (three integer
    // divisions a pixel were a third of a 1/4-scale decode's colour pass).
    let x = cx0;
    // Luma at the output's resolution and chroma at it or at half (4:4:4 and 4:2:0 decoded to
    // a size that keeps the luma's): four pixels at a time, each lane the loop's f32 operations.
    if (ncomp == 3 && ycc != 0 && yx == dx && (bx == dx || 2 * bx == dx) && (rx == dx || 2 * rx == dx)) {
      for (; x + 4 <= cx1; x += 4) {
        const l = bytesToF32(v128.load32_zero(yRow + <usize>x));
        const cb = f32x4.sub(bx == dx ? bytesToF32(v128.load32_zero(bRow + <usize>x)) : pairsToF32(bRow + <usize>(x >> 1)), f32x4.splat(128));
        const cr = f32x4.sub(rx == dx ? bytesToF32(v128.load32_zero(rRow + <usize>x)) : pairsToF32(rRow + <usize>(x >> 1)), f32x4.splat(128));
        v128.store(dst + (<usize>x << 2), yccToRgbaQuad(l, cb, cr));
      }
    }
    let yi = (x * yx) / dx, yr = (x * yx) % dx;
    let bi0 = (x * bx) / dx, br = (x * bx) % dx;
    let ri0 = (x * rx) / dx, rr = (x * rx) % dx;
    for (; x < cx1; x++) {
      const l = <f32>load<u8>(yRow + <usize>yi);
      yr += yx;
      while (yr >= dx) { yr -= dx; yi++; }
      if (ncomp == 1) {
        const g = <u32>l;
        store<u32>(dst + (<usize>x << 2), 0xff000000 | (g << 16) | (g << 8) | g);
        continue;
      }
      const cb = <f32>load<u8>(bRow + <usize>bi0);
      const cr = <f32>load<u8>(rRow + <usize>ri0);
      br += bx;
      while (br >= dx) { br -= dx; bi0++; }
      rr += rx;
      while (rr >= dx) { rr -= dx; ri0++; }
      store<u32>(dst + (<usize>x << 2), ycc != 0 ? yccToRgbaPixel(l, cb, cr) : rgbToRgbaPixel(l, cb, cr));
    }
  }
}

/**
 * jpegToRgba for the scales 3/8 and 5/8–7/8, rows y0 … y1 − 1 (row y at out + (y − y0)·width·4),
 * in libjpeg's fixed-point YCbCr → RGB (jpeg-idct.ts' pixels8, eight pixels at a time): each
 * plane's row at the output's resolution, a chroma plane at half the output's columns (4:2:2)
 * or rows (4:4:0) upsampled as libjpeg-turbo does into `scratch` (three rows of
 * roundUp(width + 16, 16) bytes), other ratios replicated. 1/8, 1/4 and 1/2 keep jpegToRgba's
 * float arithmetic (their bytes, and the renditions made of them). `height`: the output's, or 0.
 */
export function jpegToRgbaRows(ncomp: i32, comps: usize, hMax: i32, vMax: i32, n: i32, width: i32, ycc: i32, y0: i32, y1: i32, out: usize, scratch: usize, height: i32): void {
  const kind = ncomp == 1 ? 0 : ycc != 0 ? 1 : 2;
  const c1 = chroma(ncomp, comps, 1), c2 = chroma(ncomp, comps, 2);
  const yPlane = plane(comps), yStride = stride(comps);
  const bPlane = plane(c1), bStride = stride(c1);
  const rPlane = plane(c2), rStride = stride(c2);
  const yx = across(comps), yy = down(comps);
  const bx = across(c1), by = down(c1);
  const rx = across(c2), ry = down(c2);
  const dx = hMax * n, dy = vMax * n;
  const rowBytes = <usize>((width + 31) & ~15);
  // The planes' ring (comps + 104, MCU rows; 0: whole planes): a plane holds ring · v · size rows.
  const ring = load<i32>(comps, 104);
  // 4:2:2 and 4:4:0 chroma upsampled as libjpeg-turbo does (fancyAcross, fancyDown).
  let bMode = -1, rMode = -1;
  if (ncomp == 3 && yx == dx && yy == dy) {
    bMode = upsampling(n, bx, by, dx, dy, width);
    rMode = upsampling(n, rx, ry, dx, dy, width);
  }
  const samples = (width + 1) >> 1;
  // The window's columns [cx0, cx1) (cx0 even, as fancyAcross starts): each pixel's sums are its own.
  const cx0 = windowStart(comps, 128, width), cx1 = windowEnd(comps, 128, width);
  if (cx0 >= cx1) return;
  const cw = cx1 - cx0;
  // DOWN: the chroma rows the ring holds (the MCU rows up to the last one decoded, comps + 96
  // and + 100) and, when `height` (the output's) is given, none past the picture's last (0, as
  // a caller of eleven arguments passes: the last MCU row's rows past it are as decoded).
  const newest = load<i32>(comps, 96) + load<i32>(comps, 100) - 1;
  for (let y = y0; y < y1; y++) {
    let yr = (y * yy) / dy, br = (y * by) / dy, rr = (y * ry) / dy;
    const near = br;
    if (ring) { yr %= ring * yy; br %= ring * by; rr %= ring * ry; }
    let yRow = yPlane + <usize>(yr * yStride);
    let bRow = bPlane + <usize>(br * bStride);
    let rRow = rPlane + <usize>(rr * rStride);
    if (bMode >= 0 && rMode >= 0 && bMode + rMode > 0) {
      let far = 0;
      if (bMode == DOWN || rMode == DOWN) {
        const mcuRows = bMode == DOWN ? by : ry; // a DOWN plane's rows per MCU row
        const first = ring ? max(0, newest - ring + 1) * mcuRows : 0;
        let last = (newest + 1) * mcuRows - 1;
        if (height > 0) last = min(last, ((height + 1) >> 1) - 1);
        far = y & 1 ? min(near + 1, last) : max(near - 1, first);
        if (ring) far %= ring * mcuRows;
      }
      const bias = y & 1 ? 2 : 1;
      // Upsampled into the scratch rows at the columns' own places.
      const c0 = <usize>cx0;
      if (bMode == ACROSS) { fancyAcross(bRow, samples, cx0, cw, scratch + c0); bRow = scratch; }
      else if (bMode == DOWN) { fancyDown(bRow + c0, bPlane + <usize>(far * bStride) + c0, bias, cw, scratch + c0); bRow = scratch; }
      if (rMode == ACROSS) { fancyAcross(rRow, samples, cx0, cw, scratch + rowBytes + c0); rRow = scratch + rowBytes; }
      else if (rMode == DOWN) { fancyDown(rRow + c0, rPlane + <usize>(far * rStride) + c0, bias, cw, scratch + rowBytes + c0); rRow = scratch + rowBytes; }
    } else if (ncomp == 3) {
      if (bx != dx) bRow = widened(bRow, bx, dx, width, scratch);
      if (rx != dx) rRow = widened(rRow, rx, dx, width, scratch + rowBytes);
    }
    if (yx != dx) yRow = widened(yRow, yx, dx, width, scratch + 2 * rowBytes);
    rgbaRow(kind, yRow + <usize>cx0, bRow + <usize>cx0, rRow + <usize>cx0, cw, out + <usize>((y - y0) * width * 4) + (<usize>cx0 << 2));
  }
}

/** The window's first output column (or row) at comps + at, even, within [0, size]. */
// @ts-ignore: decorator
@inline function windowStart(comps: usize, at: usize, size: i32): i32 {
  return min(size, max(0, load<i32>(comps + at))) & ~1;
}

/** The window's end column (or row) at comps + at + 4, within [0, size]. */
// @ts-ignore: decorator
@inline function windowEnd(comps: usize, at: usize, size: i32): i32 {
  return min(size, max(0, load<i32>(comps + at, 4)));
}

/** A plane's row holding `num`/`den` of the output's columns, each sample repeated to the output's `width` at `dst`. */
function widened(src: usize, num: i32, den: i32, width: i32, dst: usize): usize {
  if (2 * num == den) {
    const pairs = (width + 1) >> 1;
    let i = 0;
    for (; i + 8 <= pairs; i += 8) {
      const a = v128.load64_zero(src + <usize>i);
      v128.store(dst + (<usize>i << 1), v128.shuffle<u8>(a, a, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7));
    }
    for (; i < pairs; i++) {
      const v = load<u8>(src + <usize>i);
      store<u8>(dst + (<usize>i << 1), v);
      store<u8>(dst + (<usize>i << 1), v, 1);
    }
    return dst;
  }
  let at = 0, rest = 0;
  for (let x = 0; x < width; x++) {
    store<u8>(dst + <usize>x, load<u8>(src + <usize>at));
    rest += num;
    while (rest >= den) { rest -= den; at++; }
  }
  return dst;
}

// 4:2:2 and 4:4:0 chroma at 2/8–7/8 (a plane at half the output's columns or rows): libjpeg-turbo
// decodes it at k points a block as we do, then upsamples it with jdsample.c's triangle filters
// ("fancy" upsampling, djpeg's default, off only at 1/8); replicating it instead gave 31–41 dB
// against djpeg on the 4:2:2 test asset and 45–54 on 4:2:2 photos.
const AS_IS: i32 = 0;
const ACROSS: i32 = 1; // h2v1_fancy_upsample
const DOWN: i32 = 2; // h1v2_fancy_upsample

/**
 * How a chroma plane (sampled bx / dx across, by / dy down against the output) reaches the
 * output's resolution at scale n/8: AS_IS, ACROSS, DOWN, or -1 for what the replicating
 * passes keep (1/8, where libjpeg-turbo replicates too; planes at most 2 samples wide, which
 * h2v1_upsample replicates; other ratios).
 */
function upsampling(n: i32, bx: i32, by: i32, dx: i32, dy: i32, width: i32): i32 {
  if (bx == dx && by == dy) return AS_IS;
  if (n == 1) return -1;
  if (2 * bx == dx && by == dy) return (width + 1) >> 1 > 2 ? ACROSS : -1;
  if (bx == dx && 2 * by == dy) return DOWN;
  return -1;
}

/** Eight bytes at `p` as i16 lanes. */
// @ts-ignore: decorator
@inline function load8(p: usize): v128 {
  return i16x8.extend_low_i8x16_u(v128.load64_zero(p));
}

/**
 * Output columns x0 … x0 + count − 1 (x0 even) of a row at half the output's columns (`src`,
 * `samples` of them) into `dst`, as h2v1_fancy_upsample: column 2i (3·c[i] + c[i − 1] + 1) >> 2,
 * 2i + 1 (3·c[i] + c[i + 1] + 2) >> 2, the first and last sample repeated past the edges.
 * Sixteen samples at a time where both neighbours are in the row (the last group overlapping
 * the one before), on u8 lanes: with ⌊x, y⌋ = (x + y) >> 1 and ⌈x, y⌉ = (x + y + 1) >> 1 (avgr),
 * (3a + b + 1) >> 2 = ⌊a, ⌈a, b⌉⌋ and (3a + b + 2) >> 2 = ⌈a, ⌊a, b⌋⌉ exactly (the inner
 * rounding never carries past a multiple of 4). Writes up to one byte past the count.
 */
function fancyAcross(src: usize, samples: i32, x0: i32, count: i32, dst: usize): void {
  const i0 = x0 >> 1;
  const end = i0 + min(samples - i0, (count + 1) >> 1);
  // Sample i's columns at dst + 2(i − i0).
  const origin = dst - (<usize>i0 << 1);
  const lo = max(i0, 1), hi = min(end, samples - 1);
  let i = lo;
  for (; i + 16 <= hi; i += 16) fancy16(src, i, origin);
  if (i < hi) {
    if (hi - 16 >= lo) fancy16(src, hi - 16, origin);
    else for (; i < hi; i++) fancyPair(src, samples, i, origin);
  }
  if (i0 == 0) fancyPair(src, samples, 0, origin);
  if (end == samples && samples - 1 >= lo) fancyPair(src, samples, samples - 1, origin);
}

/** fancyAcross' columns of samples i … i + 15, their neighbours i − 1 and i + 16 in the row. */
// @ts-ignore: decorator
@inline function fancy16(src: usize, i: i32, origin: usize): void {
  const p = src + <usize>i;
  const a = v128.load(p), before = v128.load(p - 1), after = v128.load(p + 1);
  const up = i8x16.avgr_u(a, before);
  const e = v128.sub<u8>(i8x16.avgr_u(a, up), v128.and(v128.xor(a, up), i8x16.splat(1)));
  const down = v128.sub<u8>(i8x16.avgr_u(a, after), v128.and(v128.xor(a, after), i8x16.splat(1)));
  const o = i8x16.avgr_u(a, down);
  const out = origin + (<usize>i << 1);
  v128.store(out, v128.shuffle<u8>(e, o, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23));
  v128.store(out, v128.shuffle<u8>(e, o, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31), 16);
}

/** fancyAcross' two columns of sample i, at origin + 2i. */
// @ts-ignore: decorator
@inline function fancyPair(src: usize, samples: i32, i: i32, dst: usize): void {
  const m3 = 3 * <i32>load<u8>(src + <usize>i);
  store<u8>(dst + (<usize>i << 1), <u8>((m3 + <i32>load<u8>(src + <usize>max(i - 1, 0)) + 1) >> 2));
  store<u8>(dst + (<usize>i << 1), <u8>((m3 + <i32>load<u8>(src + <usize>min(i + 1, samples - 1)) + 2) >> 2), 1);
}

/**
 * `count` samples of a row at half the output's rows from its nearer row and the one beyond
 * (above for an even output row, below for an odd one), as libjpeg-turbo 2.1's
 * h1v2_fancy_upsample: (3·near + far + 1) >> 2 above, + 2 below (`bias`); sixteen at a time as
 * fancyAcross makes them.
 */
function fancyDown(near: usize, far: usize, bias: i32, count: i32, dst: usize): void {
  let x = 0;
  for (; x + 16 <= count; x += 16) {
    const a = v128.load(near + <usize>x), b = v128.load(far + <usize>x);
    const round = v128.and(v128.xor(a, b), i8x16.splat(1));
    // bias 1: ⌊a, ⌈a, b⌉⌋; 2: ⌈a, ⌊a, b⌋⌉
    const v = bias == 1
      ? v128.sub<u8>(i8x16.avgr_u(a, i8x16.avgr_u(a, b)), v128.and(v128.xor(a, i8x16.avgr_u(a, b)), i8x16.splat(1)))
      : i8x16.avgr_u(a, v128.sub<u8>(i8x16.avgr_u(a, b), round));
    v128.store(dst + <usize>x, v);
  }
  for (; x < count; x++) store<u8>(dst + <usize>x, <u8>((3 * <i32>load<u8>(near + <usize>x) + <i32>load<u8>(far + <usize>x) + bias) >> 2));
}

const CHUNK: i32 = 1024; // output columns upsampled at a time (fancyToRgba's rows are any width)
const chunkB: usize = memory.data(CHUNK + 32, 16);
const chunkR: usize = memory.data(CHUNK + 32, 16);

/**
 * jpegToRgba (the float YCbCr → RGB of 1/4 and 1/2) when a chroma plane is at half the output's
 * columns or rows (`bMode`, `rMode`: upsampling's answers): the planes upsampled as
 * libjpeg-turbo does, a chunk of a row at a time, then the colour pass of full-resolution chroma.
 */
function fancyToRgba(comps: usize, bMode: i32, rMode: i32, width: i32, height: i32, out: usize, cx0: i32, cx1: i32, cy0: i32, cy1: i32): void {
  const yPlane = plane(comps), yStride = stride(comps);
  const bPlane = plane(comps + 32), bStride = stride(comps + 32);
  const rPlane = plane(comps + 64), rStride = stride(comps + 64);
  const samples = (width + 1) >> 1, rows = (height + 1) >> 1;
  for (let y = cy0; y < cy1; y++) {
    const yRow = yPlane + <usize>(y * yStride);
    // DOWN: the nearer row and the one beyond it, the first and last repeated past the edges.
    const near = y >> 1;
    const far = y & 1 ? min(near + 1, rows - 1) : max(near - 1, 0);
    const bias = y & 1 ? 2 : 1;
    const bRow = bPlane + <usize>((bMode == DOWN ? near : y) * bStride);
    const rRow = rPlane + <usize>((rMode == DOWN ? near : y) * rStride);
    const dst = out + <usize>(y * width * 4);
    for (let x0 = cx0; x0 < cx1; x0 += CHUNK) {
      const count = min(CHUNK, cx1 - x0);
      let b = bRow + <usize>x0, r = rRow + <usize>x0;
      if (bMode == ACROSS) { fancyAcross(bRow, samples, x0, count, chunkB); b = chunkB; }
      else if (bMode == DOWN) { fancyDown(b, bPlane + <usize>(far * bStride + x0), bias, count, chunkB); b = chunkB; }
      if (rMode == ACROSS) { fancyAcross(rRow, samples, x0, count, chunkR); r = chunkR; }
      else if (rMode == DOWN) { fancyDown(r, rPlane + <usize>(far * rStride + x0), bias, count, chunkR); r = chunkR; }
      floatRgba(yRow + <usize>x0, b, r, count, dst + (<usize>x0 << 2));
    }
  }
}

/** `count` pixels from rows at the output's resolution, in jpegToRgba's float arithmetic (four at a time, then one). */
function floatRgba(yRow: usize, bRow: usize, rRow: usize, count: i32, dst: usize): void {
  let x = 0;
  for (; x + 4 <= count; x += 4) {
    const l = bytesToF32(v128.load32_zero(yRow + <usize>x));
    const cb = f32x4.sub(bytesToF32(v128.load32_zero(bRow + <usize>x)), f32x4.splat(128));
    const cr = f32x4.sub(bytesToF32(v128.load32_zero(rRow + <usize>x)), f32x4.splat(128));
    v128.store(dst + (<usize>x << 2), yccToRgbaQuad(l, cb, cr));
  }
  for (; x < count; x++) {
    const l = <f32>load<u8>(yRow + <usize>x);
    const cb = <f32>load<u8>(bRow + <usize>x);
    const cr = <f32>load<u8>(rRow + <usize>x);
    store<u32>(dst + (<usize>x << 2), yccToRgbaPixel(l, cb, cr));
  }
}
