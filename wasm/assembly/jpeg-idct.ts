// Full-size baseline JPEG decoding that gives libjpeg-turbo's own bytes (the bytes mozjpeg's
// decoder, @jsquash/jpeg, hands back with its defaults): the accurate integer 8×8 inverse DCT
// (JDCT_ISLOW: 13-bit constants, 2 extra bits between the passes, the post-IDCT range-limit
// table's wrap-around), "fancy" chroma upsampling (triangle filters: 3/4 nearer + 1/4 further
// sample, with libjpeg's biases), and the fixed-point YCbCr → RGB tables (16 fraction bits).
// Every step is the integer arithmetic libjpeg does, on SIMD lanes: i32x4 for the IDCT, i16x8
// for the upsampling and the colour tables' sums, so the results are the same bit for bit.
// jpeg-decode.ts decodes the scan into block-padded planes through idctIslow; jpegRowsExact
// turns rows of those planes into RGBA.

// FIX(x) = round(x · 2^13), jidctint.c's constants.
const F_0_298631336: i32 = 2446;
const F_0_390180644: i32 = 3196;
const F_0_541196100: i32 = 4433;
const F_0_765366865: i32 = 6270;
const F_0_899976223: i32 = 7373;
const F_1_175875602: i32 = 9633;
const F_1_501321110: i32 = 12299;
const F_1_847759065: i32 = 15137;
const F_1_961570560: i32 = 16069;
const F_2_053119869: i32 = 16819;
const F_2_562915447: i32 = 20995;
const F_3_072711026: i32 = 25172;

const ws: usize = memory.data(64 * 4, 16);
const wsT: usize = memory.data(64 * 4, 16);
const res: usize = memory.data(64 * 4, 16);

// @ts-ignore: decorator
@inline function mulc(v: v128, c: i32): v128 {
  return i32x4.mul(v, i32x4.splat(c));
}

/**
 * One 1-D pass of jidctint.c on four lanes: the 8 inputs at in + k·32 (k = frequency), the 8
 * outputs at out + j·32 (j = sample), each DESCALEd by `shift` (round half up, arithmetic shift).
 * `low`: inputs 4–7 are 0 and not read; the terms they would add are left out (the same sums:
 * the arithmetic is modulo 2^32 like libjpeg's in WASM, so the order of the additions is free).
 */
// @ts-ignore: decorator
@inline function pass(inp: usize, out: usize, shift: i32, low: bool): void {
  let tmp0: v128, tmp1: v128, tmp2: v128, tmp3: v128, z1: v128, z2: v128, z3: v128, z4: v128;
  // Even part.
  const in0 = v128.load(inp);
  const in2 = v128.load(inp, 2 * 32);
  if (low) {
    z1 = mulc(in2, F_0_541196100);
    tmp2 = z1;
    tmp3 = i32x4.add(z1, mulc(in2, F_0_765366865));
    tmp0 = i32x4.shl(in0, 13);
    tmp1 = tmp0;
  } else {
    const in6 = v128.load(inp, 6 * 32);
    const in4 = v128.load(inp, 4 * 32);
    z1 = mulc(i32x4.add(in2, in6), F_0_541196100);
    tmp2 = i32x4.add(z1, mulc(in6, -F_1_847759065));
    tmp3 = i32x4.add(z1, mulc(in2, F_0_765366865));
    tmp0 = i32x4.shl(i32x4.add(in0, in4), 13);
    tmp1 = i32x4.shl(i32x4.sub(in0, in4), 13);
  }
  const tmp10 = i32x4.add(tmp0, tmp3);
  const tmp13 = i32x4.sub(tmp0, tmp3);
  const tmp11 = i32x4.add(tmp1, tmp2);
  const tmp12 = i32x4.sub(tmp1, tmp2);
  // Odd part: tmp0..3 = inputs 7, 5, 3, 1.
  const in1 = v128.load(inp, 1 * 32);
  const in3 = v128.load(inp, 3 * 32);
  if (low) {
    const z5 = mulc(i32x4.add(in3, in1), F_1_175875602);
    z1 = mulc(in1, -F_0_899976223);
    z2 = mulc(in3, -F_2_562915447);
    z3 = i32x4.add(mulc(in3, -F_1_961570560), z5);
    z4 = i32x4.add(mulc(in1, -F_0_390180644), z5);
    tmp0 = i32x4.add(z1, z3);
    tmp1 = i32x4.add(z2, z4);
    tmp2 = i32x4.add(mulc(in3, F_3_072711026), i32x4.add(z2, z3));
    tmp3 = i32x4.add(mulc(in1, F_1_501321110), i32x4.add(z1, z4));
  } else {
    const in7 = v128.load(inp, 7 * 32);
    const in5 = v128.load(inp, 5 * 32);
    z1 = i32x4.add(in7, in1);
    z2 = i32x4.add(in5, in3);
    z3 = i32x4.add(in7, in3);
    z4 = i32x4.add(in5, in1);
    const z5 = mulc(i32x4.add(z3, z4), F_1_175875602);
    z1 = mulc(z1, -F_0_899976223);
    z2 = mulc(z2, -F_2_562915447);
    z3 = i32x4.add(mulc(z3, -F_1_961570560), z5);
    z4 = i32x4.add(mulc(z4, -F_0_390180644), z5);
    tmp0 = i32x4.add(mulc(in7, F_0_298631336), i32x4.add(z1, z3));
    tmp1 = i32x4.add(mulc(in5, F_2_053119869), i32x4.add(z2, z4));
    tmp2 = i32x4.add(mulc(in3, F_3_072711026), i32x4.add(z2, z3));
    tmp3 = i32x4.add(mulc(in1, F_1_501321110), i32x4.add(z1, z4));
  }
  const round = i32x4.splat(1 << (shift - 1));
  v128.store(out, i32x4.shr_s(i32x4.add(i32x4.add(tmp10, tmp3), round), shift));
  v128.store(out, i32x4.shr_s(i32x4.add(i32x4.sub(tmp10, tmp3), round), shift), 7 * 32);
  v128.store(out, i32x4.shr_s(i32x4.add(i32x4.add(tmp11, tmp2), round), shift), 1 * 32);
  v128.store(out, i32x4.shr_s(i32x4.add(i32x4.sub(tmp11, tmp2), round), shift), 6 * 32);
  v128.store(out, i32x4.shr_s(i32x4.add(i32x4.add(tmp12, tmp1), round), shift), 2 * 32);
  v128.store(out, i32x4.shr_s(i32x4.add(i32x4.sub(tmp12, tmp1), round), shift), 5 * 32);
  v128.store(out, i32x4.shr_s(i32x4.add(i32x4.add(tmp13, tmp0), round), shift), 3 * 32);
  v128.store(out, i32x4.shr_s(i32x4.add(i32x4.sub(tmp13, tmp0), round), shift), 4 * 32);
}

/** The 4×4 block of i32 at `a` (row stride 32 bytes) transposed into `b`. */
// @ts-ignore: decorator
@inline function transpose4(a: usize, b: usize): void {
  const r0 = v128.load(a), r1 = v128.load(a, 32), r2 = v128.load(a, 64), r3 = v128.load(a, 96);
  const t0 = v128.shuffle<i32>(r0, r1, 0, 4, 1, 5);
  const t1 = v128.shuffle<i32>(r0, r1, 2, 6, 3, 7);
  const t2 = v128.shuffle<i32>(r2, r3, 0, 4, 1, 5);
  const t3 = v128.shuffle<i32>(r2, r3, 2, 6, 3, 7);
  v128.store(b, v128.shuffle<i32>(t0, t2, 0, 1, 4, 5));
  v128.store(b, v128.shuffle<i32>(t0, t2, 2, 3, 6, 7), 32);
  v128.store(b, v128.shuffle<i32>(t1, t3, 0, 1, 4, 5), 64);
  v128.store(b, v128.shuffle<i32>(t1, t3, 2, 3, 6, 7), 96);
}

/**
 * range_limit[v & 1023] of libjpeg's post-IDCT table, per lane: the low 10 bits taken as a signed
 * value, plus 128, clamped to 0..255 (its wrap-around for out-of-range sums included).
 */
// @ts-ignore: decorator
@inline function rangeLimit(v: v128): v128 {
  return i32x4.add(i32x4.shr_s(i32x4.shl(v, 22), 22), i32x4.splat(128));
}

/**
 * jpeg_idct_islow of the 64 dequantised coefficients (i32, natural order) at `coef`, written as
 * an 8×8 block of bytes at `out` (row stride `stride`). `used`: the OR of the natural indices of
 * the coefficients set, so bit 2 says whether any is in columns 4–7 and bit 5 in rows 4–7; the
 * passes leave out what is 0 (most blocks of a photo keep only their low frequencies).
 */
export function idctIslow(coef: usize, out: usize, stride: i32, used: i32): void {
  const rowsLow = (used & 32) == 0;
  const colsLow = (used & 4) == 0;
  // Pass 1: columns (four per lane set), DESCALE by CONST_BITS − PASS1_BITS; columns 4–7 of only
  // zeros give zeros, which pass 2 then does not read.
  if (rowsLow) pass(coef, ws, 11, true);
  else pass(coef, ws, 11, false);
  transpose4(ws, wsT);
  transpose4(ws + 128, wsT + 16);
  if (!colsLow) {
    if (rowsLow) pass(coef + 16, ws + 16, 11, true);
    else pass(coef + 16, ws + 16, 11, false);
    transpose4(ws + 16, wsT + 128);
    transpose4(ws + 144, wsT + 144);
  }
  // Pass 2: rows (four per lane set), DESCALE by CONST_BITS + PASS1_BITS + 3.
  if (colsLow) {
    pass(wsT, res, 18, true);
    pass(wsT + 16, res + 16, 18, true);
  } else {
    pass(wsT, res, 18, false);
    pass(wsT + 16, res + 16, 18, false);
  }
  // res[x][y] (x = column, lanes y): as i16 columns, transposed to rows of bytes.
  const c0 = i16x8.narrow_i32x4_s(rangeLimit(v128.load(res)), rangeLimit(v128.load(res, 16)));
  const c1 = i16x8.narrow_i32x4_s(rangeLimit(v128.load(res, 32)), rangeLimit(v128.load(res, 48)));
  const c2 = i16x8.narrow_i32x4_s(rangeLimit(v128.load(res, 64)), rangeLimit(v128.load(res, 80)));
  const c3 = i16x8.narrow_i32x4_s(rangeLimit(v128.load(res, 96)), rangeLimit(v128.load(res, 112)));
  const c4 = i16x8.narrow_i32x4_s(rangeLimit(v128.load(res, 128)), rangeLimit(v128.load(res, 144)));
  const c5 = i16x8.narrow_i32x4_s(rangeLimit(v128.load(res, 160)), rangeLimit(v128.load(res, 176)));
  const c6 = i16x8.narrow_i32x4_s(rangeLimit(v128.load(res, 192)), rangeLimit(v128.load(res, 208)));
  const c7 = i16x8.narrow_i32x4_s(rangeLimit(v128.load(res, 224)), rangeLimit(v128.load(res, 240)));
  // 8×8 i16 transpose: pairs, then quads, then halves.
  const a0 = v128.shuffle<i16>(c0, c1, 0, 8, 1, 9, 2, 10, 3, 11);
  const a1 = v128.shuffle<i16>(c0, c1, 4, 12, 5, 13, 6, 14, 7, 15);
  const a2 = v128.shuffle<i16>(c2, c3, 0, 8, 1, 9, 2, 10, 3, 11);
  const a3 = v128.shuffle<i16>(c2, c3, 4, 12, 5, 13, 6, 14, 7, 15);
  const a4 = v128.shuffle<i16>(c4, c5, 0, 8, 1, 9, 2, 10, 3, 11);
  const a5 = v128.shuffle<i16>(c4, c5, 4, 12, 5, 13, 6, 14, 7, 15);
  const a6 = v128.shuffle<i16>(c6, c7, 0, 8, 1, 9, 2, 10, 3, 11);
  const a7 = v128.shuffle<i16>(c6, c7, 4, 12, 5, 13, 6, 14, 7, 15);
  // a0 = y0: x0 x1, y1: x0 x1, y2.., y3..; a1 = y4..y7 of x0 x1.
  const b0 = v128.shuffle<i32>(a0, a2, 0, 4, 1, 5); // y0: x0..x3, y1: x0..x3
  const b1 = v128.shuffle<i32>(a0, a2, 2, 6, 3, 7); // y2, y3
  const b2 = v128.shuffle<i32>(a1, a3, 0, 4, 1, 5); // y4, y5
  const b3 = v128.shuffle<i32>(a1, a3, 2, 6, 3, 7); // y6, y7
  const b4 = v128.shuffle<i32>(a4, a6, 0, 4, 1, 5); // y0, y1 of x4..x7
  const b5 = v128.shuffle<i32>(a4, a6, 2, 6, 3, 7);
  const b6 = v128.shuffle<i32>(a5, a7, 0, 4, 1, 5);
  const b7 = v128.shuffle<i32>(a5, a7, 2, 6, 3, 7);
  // Rows y0|y1, y2|y3, …: x0..x3 from b_k, x4..x7 from b_{k+4}.
  const r01 = i8x16.narrow_i16x8_u(v128.shuffle<i64>(b0, b4, 0, 2), v128.shuffle<i64>(b0, b4, 1, 3));
  const r23 = i8x16.narrow_i16x8_u(v128.shuffle<i64>(b1, b5, 0, 2), v128.shuffle<i64>(b1, b5, 1, 3));
  const r45 = i8x16.narrow_i16x8_u(v128.shuffle<i64>(b2, b6, 0, 2), v128.shuffle<i64>(b2, b6, 1, 3));
  const r67 = i8x16.narrow_i16x8_u(v128.shuffle<i64>(b3, b7, 0, 2), v128.shuffle<i64>(b3, b7, 1, 3));
  const s = <usize>stride;
  v128.store64_lane(out, r01, 0);
  v128.store64_lane(out + s, r01, 1);
  v128.store64_lane(out + 2 * s, r23, 0);
  v128.store64_lane(out + 3 * s, r23, 1);
  v128.store64_lane(out + 4 * s, r45, 0);
  v128.store64_lane(out + 5 * s, r45, 1);
  v128.store64_lane(out + 6 * s, r67, 0);
  v128.store64_lane(out + 7 * s, r67, 1);
}

/** A block whose AC coefficients are all 0: jidctint.c's sums reduce to one value, DESCALE(dc · 4, 5). */
export function idctIslowDc(dc: i32, out: usize, stride: i32): void {
  let v = (((dc << 2) + 16) >> 5);
  v = ((v << 22) >> 22) + 128;
  const b = <u8>(v < 0 ? 0 : v > 255 ? 255 : v);
  const row = i8x16.splat(b);
  for (let y = 0; y < 8; y++) v128.store64_lane(out + <usize>(y * stride), row, 0);
}

/** Bytes of one row buffer of jpegRowsExact's scratch (five of them: three components' rows, then the i16 column sums). */
// @ts-ignore: decorator
@inline function rowBytes(width: i32): usize {
  return <usize>(((width + 15) & ~15) + 64);
}

/** Eight bytes at `p` as i16 lanes. */
// @ts-ignore: decorator
@inline function load8(p: usize): v128 {
  return i16x8.extend_low_i8x16_u(v128.load64_zero(p));
}

/**
 * Row `y` of component `i` (its plane described at `info`) at the output's resolution, as
 * libjpeg-turbo's jdsample.c makes it: as decoded when it is not subsampled; else "fancy"
 * upsampled — h2v1: (3·near + far + 1 or 2) >> 2; h1v2: (3·near + far + 1) >> 2 with the row
 * above or below; h2v2: column sums 3·near + far of the row and the one above or below, then
 * (3·sum + sum beside + 8 or 7) >> 4 — with edges repeating the first and last real sample (and
 * row: jdmainct.c's context rows); a component at most 2 samples wide is replicated across
 * instead (h2v1_upsample, h2v2_upsample).
 */
function componentRow(info: usize, i: i32, hMax: i32, vMax: i32, width: i32, height: i32, y: i32, scratch: usize, ring: i32): usize {
  const h = load<i32>(info), v = load<i32>(info, 4);
  const plane = <usize>load<i32>(info, 20);
  const stride = load<i32>(info, 24);
  const hr = hMax / h, vr = vMax / v;
  const ringRows = ring * v * 8; // rows of this component the plane holds (0: all)
  if (hr == 1 && vr == 1) return plane + <usize>((ringRows ? y % ringRows : y) * stride);
  const dsW = (width * h + hMax - 1) / hMax;
  const dsH = (height * v + vMax - 1) / vMax;
  const bytes = rowBytes(width);
  const dst = scratch + <usize>i * bytes;
  const cs = scratch + 3 * bytes + 32; // i16 sums, cs[-1] and cs[dsW] the edge copies
  const fancyH = hr == 2 && dsW > 2;
  let shift = 2, biasE = 1, biasO = 2;
  // Down only (h1v2, 4:4:0): (3·near + far + 1) >> 2 on both output rows, as mozjpeg's decoder
  // gives; libjpeg-turbo 2.1's djpeg adds 2 on the lower one (one level on ~1/30 of those rows).
  if (vr == 2 && (fancyH || hr == 1)) {
    const r = y >> 1;
    const nb = y & 1 ? min(r + 1, dsH - 1) : max(r - 1, 0);
    const in0 = plane + <usize>((ringRows ? r % ringRows : r) * stride);
    const in1 = plane + <usize>((ringRows ? nb % ringRows : nb) * stride);
    if (hr == 1) {
      const bias = i16x8.splat(1);
      for (let c = 0; c < dsW; c += 8) {
        const a = load8(in0 + <usize>c);
        const s = i16x8.add(i16x8.add(i16x8.add(a, a), i16x8.add(a, load8(in1 + <usize>c))), bias);
        v128.store64_lane(dst + <usize>c, i8x16.narrow_i16x8_u(i16x8.shr_u(s, 2), s), 0);
      }
      return dst;
    }
    for (let c = 0; c < dsW; c += 8) {
      const a = load8(in0 + <usize>c);
      v128.store(cs + (<usize>c << 1), i16x8.add(i16x8.add(a, a), i16x8.add(a, load8(in1 + <usize>c))));
    }
    shift = 4; biasE = 8; biasO = 7;
  } else {
    const r = vr == 2 ? y >> 1 : y;
    const src = plane + <usize>((ringRows ? r % ringRows : r) * stride);
    if (hr == 1) return src;
    if (!fancyH) {
      for (let c = 0; c < dsW; c += 8) {
        const a = v128.load64_zero(src + <usize>c);
        v128.store(dst + (<usize>c << 1), v128.shuffle<u8>(a, a, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7));
      }
      return dst;
    }
    for (let c = 0; c < dsW; c += 8) v128.store(cs + (<usize>c << 1), load8(src + <usize>c));
  }
  store<i16>(cs - 2, load<i16>(cs));
  store<i16>(cs + (<usize>dsW << 1), load<i16>(cs + (<usize>(dsW - 1) << 1)));
  const bE = i16x8.splat(<i16>biasE), bO = i16x8.splat(<i16>biasO);
  for (let c = 0; c < dsW; c += 8) {
    const p = cs + (<usize>c << 1);
    const m = v128.load(p);
    const m3 = i16x8.add(i16x8.add(m, m), m);
    const e = i16x8.shr_u(i16x8.add(i16x8.add(m3, v128.load(p - 2)), bE), shift);
    const o = i16x8.shr_u(i16x8.add(i16x8.add(m3, v128.load(p + 2)), bO), shift);
    const lo = v128.shuffle<i16>(e, o, 0, 8, 1, 9, 2, 10, 3, 11);
    const hi = v128.shuffle<i16>(e, o, 4, 12, 5, 13, 6, 14, 7, 15);
    v128.store(dst + (<usize>c << 1), i8x16.narrow_i16x8_u(lo, hi));
  }
  return dst;
}

const tail: usize = memory.data(32, 16);

/**
 * Eight pixels' RGBA from rows at `yp`, `bp`, `rp` (x to x + 8) into `dst` (32 bytes).
 * YCbCr: jdcolor.c's tables, R = Y + ((FIX(1.402)·Cr' + ½) >> 16), G = Y + ((−FIX(0.34414)·Cb'
 * − FIX(0.71414)·Cr' + ½) >> 16), B = Y + ((FIX(1.772)·Cb' + ½) >> 16) with Cb' = Cb − 128,
 * FIX(x) = round(x · 65536), then clamped to 0..255. Each constant is split as k·65536 + a
 * 16-bit rest, so the products of the rest are made on i16 lanes into i32 and the whole
 * multiples added after the shift: the same integers as the tables.
 */
// @ts-ignore: decorator
@inline function pixels8(kind: i32, yp: usize, bp: usize, rp: usize, dst: usize): void {
  const y = load8(yp);
  let r: v128, g: v128, b: v128;
  if (kind == 0) {
    r = y; g = y; b = y;
  } else if (kind == 1) {
    const xb = i16x8.sub(load8(bp), i16x8.splat(128));
    const xr = i16x8.sub(load8(rp), i16x8.splat(128));
    // Products summed in pairs by i32x4.dot (one multiply-add a pair on x86): each pixel's two
    // i16 terms side by side, the constants likewise in each i32 lane (low half first).
    // 91881 = 65536 + 26345: Cr'·26345 + 2·16384 (the rounding half as a second product).
    const two = i16x8.splat(2);
    const rk = i32x4.splat((16384 << 16) | 26345);
    const rt = i16x8.narrow_i32x4_s(
      i32x4.shr_s(i32x4.dot_i16x8_s(v128.shuffle<i16>(xr, two, 0, 8, 1, 9, 2, 10, 3, 11), rk), 16),
      i32x4.shr_s(i32x4.dot_i16x8_s(v128.shuffle<i16>(xr, two, 4, 12, 5, 13, 6, 14, 7, 15), rk), 16));
    // 116130 = 2 · 65536 − 14942; (x·−14942 + 2^15) >> 16 = (x·−7471 + 2^14) >> 15, q15mulr's
    // rounding multiply on the i16 lanes in one step (no saturation: |x·7471| < 2^30).
    const bt = i16x8.q15mulr_sat_s(xb, i16x8.splat(-7471));
    // −22554·Cb' − 46802·Cr' with 46802 = 65536 − 18734
    const half = i32x4.splat(32768);
    const gk = i32x4.splat((18734 << 16) | (-22554 & 0xffff));
    const gt = i16x8.narrow_i32x4_s(
      i32x4.shr_s(i32x4.add(i32x4.dot_i16x8_s(v128.shuffle<i16>(xb, xr, 0, 8, 1, 9, 2, 10, 3, 11), gk), half), 16),
      i32x4.shr_s(i32x4.add(i32x4.dot_i16x8_s(v128.shuffle<i16>(xb, xr, 4, 12, 5, 13, 6, 14, 7, 15), gk), half), 16));
    r = i16x8.add(i16x8.add(y, xr), rt);
    g = i16x8.sub(i16x8.add(y, gt), xr);
    b = i16x8.add(i16x8.add(y, i16x8.add(xb, xb)), bt);
  } else {
    r = y; g = load8(bp); b = load8(rp);
  }
  const rg = i8x16.narrow_i16x8_u(r, g);
  const ba = i8x16.narrow_i16x8_u(b, i16x8.splat(255));
  v128.store(dst, v128.shuffle<u8>(rg, ba, 0, 8, 16, 24, 1, 9, 17, 25, 2, 10, 18, 26, 3, 11, 19, 27));
  v128.store(dst, v128.shuffle<u8>(rg, ba, 4, 12, 20, 28, 5, 13, 21, 29, 6, 14, 22, 30, 7, 15, 23, 31), 16);
}

/**
 * One row of `width` pixels from rows at output resolution (`yRow`, `bRow`, `rRow`) as RGBA at
 * `dst`, with pixels8's arithmetic (libjpeg's tables; `kind` 0 grey, 1 YCbCr, 2 RGB). For the
 * DCT-scaled decodes at 3/8 and 5/8–7/8 (jpeg-decode.ts' jpegToRgbaRows).
 */
export function rgbaRow(kind: i32, yRow: usize, bRow: usize, rRow: usize, width: i32, dst: usize): void {
  const full = width & ~7;
  let x = 0;
  for (; x < full; x += 8) pixels8(kind, yRow + <usize>x, bRow + <usize>x, rRow + <usize>x, dst + (<usize>x << 2));
  if (x < width) {
    pixels8(kind, yRow + <usize>x, bRow + <usize>x, rRow + <usize>x, tail);
    memory.copy(dst + (<usize>x << 2), tail, <usize>(width - x) << 2);
  }
}

/**
 * Rows y0 … y1 − 1 of the full-size picture as RGBA at `out` (row y at out + (y − y0)·width·4),
 * from the planes jpegDecodeScanExact decoded (`comps` as jpegDecodeScan reads them, every
 * block size 8, the ring at comps + 104: the MCU rows these rows need, and for subsampled
 * components the one above and below, must be in it). `ycc` 1: YCbCr → RGB; 0 with three components: copied as RGB (Adobe
 * transform 0); one component: grey. `scratch`: 5 · (roundUp(width, 16) + 64) bytes.
 */
export function jpegRowsExact(ncomp: i32, comps: usize, hMax: i32, vMax: i32, width: i32, height: i32, ycc: i32, y0: i32, y1: i32, out: usize, scratch: usize): void {
  const kind = ncomp == 1 ? 0 : ycc != 0 ? 1 : 2;
  const ring = load<i32>(comps, 104);
  const full = width & ~7;
  for (let y = y0; y < y1; y++) {
    const yRow = componentRow(comps, 0, hMax, vMax, width, height, y, scratch, ring);
    let bRow = yRow, rRow = yRow;
    if (ncomp == 3) {
      bRow = componentRow(comps + 32, 1, hMax, vMax, width, height, y, scratch, ring);
      rRow = componentRow(comps + 64, 2, hMax, vMax, width, height, y, scratch, ring);
    }
    const dst = out + <usize>((y - y0) * width) * 4;
    let x = 0;
    for (; x < full; x += 8) pixels8(kind, yRow + <usize>x, bRow + <usize>x, rRow + <usize>x, dst + (<usize>x << 2));
    if (x < width) {
      pixels8(kind, yRow + <usize>x, bRow + <usize>x, rRow + <usize>x, tail);
      memory.copy(dst + (<usize>x << 2), tail, <usize>(width - x) << 2);
    }
  }
}
