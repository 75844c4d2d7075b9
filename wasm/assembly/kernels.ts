// Raster kernels compiled to WebAssembly (v128 SIMD) by scripts/build/10-wasm.mjs.
//
// Memory is a bump arena owned by the JS wrappers (src/engine/raster/kernels.ts): they call
// reset(), alloc() every buffer one operation needs, copy pixels in, run a kernel, copy the
// result out. Nothing is kept between operations, so the linear memory only ever grows to the
// largest working set of one operation (the wrappers stream big images through in strips).
//
// Pixel formats: "u8" buffers are RGBA8 straight alpha (like RGBAImage); "f32" buffers hold
// one f32x4 per pixel, premultiplied, channels in 0..255.

// ---------------------------------------------------------------------------------------------
// Arena

let top: usize = (__heap_base + 15) & ~15;
const base: usize = top;

export function alloc(bytes: usize): usize {
  const ptr = top;
  top = (top + bytes + 15) & ~15;
  const needed = <i32>((top + 0xffff) >>> 16) - memory.size();
  if (needed > 0 && memory.grow(needed) < 0) unreachable();
  return ptr;
}

export function reset(): void {
  top = base;
}

// ---------------------------------------------------------------------------------------------
// Pixel helpers

const INV255: f32 = 1.0 / 255.0;

// @ts-ignore: decorator
@inline function loadPixel(ptr: usize): v128 {
  // 4 × u8 → f32x4
  const b = v128.load32_zero(ptr);
  return f32x4.convert_i32x4_s(i32x4.extend_low_i16x8_u(i16x8.extend_low_i8x16_u(b)));
}

// @ts-ignore: decorator
@inline function storePixel(ptr: usize, v: v128): void {
  // f32x4 (already in 0..255) → round half up → 4 × u8
  const i = i32x4.trunc_sat_f32x4_s(f32x4.add(v, f32x4.splat(0.5)));
  const w = i16x8.narrow_i32x4_u(i, i);
  v128.store32_lane(ptr, i8x16.narrow_i16x8_u(w, w), 0);
}

/**
 * storePixel's rounding, trunc(v + 0.5) as i32 lanes, for channels known to be in 0 … 255 and
 * not NaN: by floor and the 2^23 bias (an integer below 2^23 plus 2^23 is exact in f32, its low
 * mantissa bits the integer), three instructions where V8 spends seven on trunc_sat_f32x4_s.
 */
// @ts-ignore: decorator
@inline function roundedBytes(v: v128): v128 {
  return i32x4.sub(f32x4.add(f32x4.floor(f32x4.add(v, f32x4.splat(0.5))), f32x4.splat(8388608.0)), i32x4.splat(0x4b000000));
}

/** A pixel's colour lanes (bitselect: colour from one pixel, alpha from another). */
const RGB_LANES = i32x4(-1, -1, -1, 0);

// @ts-ignore: decorator
@inline function premultiplyPixel(p: v128): v128 {
  const a = f32x4.extract_lane(p, 3);
  return f32x4.mul(p, f32x4.replace_lane(f32x4.splat(a * INV255), 3, 1.0));
}

// @ts-ignore: decorator
@inline function unpremultiplyPixel(p: v128): v128 {
  // Clamp alpha to 0..255 and colour to 0..alpha (filters with negative lobes overshoot),
  // then divide colour by alpha/255. Fully transparent → all zero.
  const a = min<f32>(max<f32>(f32x4.extract_lane(p, 3), 0), 255);
  if (a < 0.5) return f32x4.splat(0);
  const clamped = f32x4.min(f32x4.max(p, f32x4.splat(0)), f32x4.splat(a));
  return f32x4.replace_lane(f32x4.mul(clamped, f32x4.splat(255.0 / a)), 3, a);
}

/** u8 straight → f32 premultiplied, `count` pixels. */
export function toPremultipliedF32(src: usize, dst: usize, count: i32): void {
  premultipliedRow(src, dst, count);
}

/**
 * `count` pixels u8 straight → f32 premultiplied, each `step` bytes after the last at `dst`; four
 * opaque pixels at a time converted only (they premultiply to themselves: 255 · f32(1/255) is 1).
 */
// @ts-ignore: decorator
@inline function premultipliedRow(src: usize, dst: usize, count: i32, step: usize = 16): void {
  let i = 0;
  for (; i + 4 <= count; i += 4) {
    const s = src + (<usize>i << 2);
    const d = dst + <usize>i * step;
    if (opaque4(alphas4(s))) {
      const b = v128.load(s);
      const lo = i16x8.extend_low_i8x16_u(b);
      const hi = i16x8.extend_high_i8x16_u(b);
      v128.store(d, f32x4.convert_i32x4_s(i32x4.extend_low_i16x8_u(lo)));
      v128.store(d + step, f32x4.convert_i32x4_s(i32x4.extend_high_i16x8_u(lo)));
      v128.store(d + 2 * step, f32x4.convert_i32x4_s(i32x4.extend_low_i16x8_u(hi)));
      v128.store(d + 3 * step, f32x4.convert_i32x4_s(i32x4.extend_high_i16x8_u(hi)));
    } else {
      for (let j = 0; j < 4; j++) v128.store(d + <usize>j * step, premultiplyPixel(loadPixel(s + (<usize>j << 2))));
    }
  }
  for (; i < count; i++) v128.store(dst + <usize>i * step, premultiplyPixel(loadPixel(src + (<usize>i << 2))));
}


/** f32 premultiplied → u8 straight, `count` pixels. */
export function fromPremultipliedF32(src: usize, dst: usize, count: i32): void {
  for (let i = 0; i < count; i++) {
    storePixel(dst + (<usize>i << 2), unpremultiplyPixel(v128.load(src + (<usize>i << 4))));
  }
}

// ---------------------------------------------------------------------------------------------
// Separable resampling. Weights are laid out per destination index: bounds[2i] = first source
// index, bounds[2i+1] = tap count, weights[i*stride + k] = normalised weight of tap k.

/** One source row (u8 straight, srcW px) → one row of dstW premultiplied f32 px. */
export function resampleRowH(
  src: usize, srcW: i32, scratch: usize, out: usize, dstW: i32,
  bounds: usize, weights: usize, stride: i32,
): void {
  toPremultipliedF32(src, scratch, srcW);
  let x = 0;
  // Four pixels per step: independent sums (each pixel's taps in its order, so the same floats)
  // keep the adds' latency hidden; the taps all four share first, then each one's rest.
  for (; x + 3 < dstW; x += 4) {
    const b = bounds + (<usize>x << 3);
    const f0 = load<i32>(b), c0 = load<i32>(b, 4);
    const f1 = load<i32>(b, 8), c1 = load<i32>(b, 12);
    const f2 = load<i32>(b, 16), c2 = load<i32>(b, 20);
    const f3 = load<i32>(b, 24), c3 = load<i32>(b, 28);
    const common = min<i32>(min<i32>(c0, c1), min<i32>(c2, c3));
    let a0 = f32x4.splat(0), a1 = f32x4.splat(0), a2 = f32x4.splat(0), a3 = f32x4.splat(0);
    let p0 = scratch + (<usize>f0 << 4), p1 = scratch + (<usize>f1 << 4), p2 = scratch + (<usize>f2 << 4), p3 = scratch + (<usize>f3 << 4);
    let w0 = weights + (<usize>(x * stride) << 2);
    let w1 = w0 + (<usize>stride << 2), w2 = w1 + (<usize>stride << 2), w3 = w2 + (<usize>stride << 2);
    for (let k = 0; k < common; k++) {
      a0 = f32x4.add(a0, f32x4.mul(v128.load(p0), f32x4.splat(load<f32>(w0))));
      a1 = f32x4.add(a1, f32x4.mul(v128.load(p1), f32x4.splat(load<f32>(w1))));
      a2 = f32x4.add(a2, f32x4.mul(v128.load(p2), f32x4.splat(load<f32>(w2))));
      a3 = f32x4.add(a3, f32x4.mul(v128.load(p3), f32x4.splat(load<f32>(w3))));
      p0 += 16; p1 += 16; p2 += 16; p3 += 16;
      w0 += 4; w1 += 4; w2 += 4; w3 += 4;
    }
    for (let k = common; k < c0; k++) { a0 = f32x4.add(a0, f32x4.mul(v128.load(p0), f32x4.splat(load<f32>(w0)))); p0 += 16; w0 += 4; }
    for (let k = common; k < c1; k++) { a1 = f32x4.add(a1, f32x4.mul(v128.load(p1), f32x4.splat(load<f32>(w1)))); p1 += 16; w1 += 4; }
    for (let k = common; k < c2; k++) { a2 = f32x4.add(a2, f32x4.mul(v128.load(p2), f32x4.splat(load<f32>(w2)))); p2 += 16; w2 += 4; }
    for (let k = common; k < c3; k++) { a3 = f32x4.add(a3, f32x4.mul(v128.load(p3), f32x4.splat(load<f32>(w3)))); p3 += 16; w3 += 4; }
    const o = out + (<usize>x << 4);
    v128.store(o, a0);
    v128.store(o, a1, 16);
    v128.store(o, a2, 32);
    v128.store(o, a3, 48);
  }
  for (; x < dstW; x++) {
    const first = load<i32>(bounds + (<usize>x << 3));
    const count = load<i32>(bounds + (<usize>x << 3), 4);
    let acc = f32x4.splat(0);
    let p = scratch + (<usize>first << 4);
    let w = weights + (<usize>(x * stride) << 2);
    for (let k = 0; k < count; k++) {
      acc = f32x4.add(acc, f32x4.mul(v128.load(p), f32x4.splat(load<f32>(w))));
      p += 16;
      w += 4;
    }
    v128.store(out + (<usize>x << 4), acc);
  }
}

/**
 * Two source rows (u8 straight, srcW px each, `src1` the row after `src0` or any other) → two
 * rows of dstW premultiplied f32 px, each the same floats as resampleRowH gives it: every pixel's
 * taps are summed in their order into an accumulator of its own. The two rows share each tap's
 * weight and address (their premultiplied pixels interleaved in `scratch`, srcW × 32 bytes), so a
 * weight is loaded once for both.
 */
export function resampleRowsH2(
  src0: usize, src1: usize, srcW: i32, scratch: usize, out0: usize, out1: usize, dstW: i32,
  bounds: usize, weights: usize, stride: i32,
): void {
  premultipliedRow(src0, scratch, srcW, 32);
  premultipliedRow(src1, scratch + 16, srcW, 32);
  let x = 0;
  for (; x + 3 < dstW; x += 4) {
    const b = bounds + (<usize>x << 3);
    const f0 = load<i32>(b), c0 = load<i32>(b, 4);
    const f1 = load<i32>(b, 8), c1 = load<i32>(b, 12);
    const f2 = load<i32>(b, 16), c2 = load<i32>(b, 20);
    const f3 = load<i32>(b, 24), c3 = load<i32>(b, 28);
    const common = min<i32>(min<i32>(c0, c1), min<i32>(c2, c3));
    let a0 = f32x4.splat(0), a1 = f32x4.splat(0), a2 = f32x4.splat(0), a3 = f32x4.splat(0);
    let b0 = f32x4.splat(0), b1 = f32x4.splat(0), b2 = f32x4.splat(0), b3 = f32x4.splat(0);
    let p0 = scratch + (<usize>f0 << 5), p1 = scratch + (<usize>f1 << 5), p2 = scratch + (<usize>f2 << 5), p3 = scratch + (<usize>f3 << 5);
    let w0 = weights + (<usize>(x * stride) << 2);
    let w1 = w0 + (<usize>stride << 2), w2 = w1 + (<usize>stride << 2), w3 = w2 + (<usize>stride << 2);
    for (let k = 0; k < common; k++) {
      const v0 = v128.load32_splat(w0), v1 = v128.load32_splat(w1), v2 = v128.load32_splat(w2), v3 = v128.load32_splat(w3);
      a0 = f32x4.add(a0, f32x4.mul(v128.load(p0), v0));
      b0 = f32x4.add(b0, f32x4.mul(v128.load(p0, 16), v0));
      a1 = f32x4.add(a1, f32x4.mul(v128.load(p1), v1));
      b1 = f32x4.add(b1, f32x4.mul(v128.load(p1, 16), v1));
      a2 = f32x4.add(a2, f32x4.mul(v128.load(p2), v2));
      b2 = f32x4.add(b2, f32x4.mul(v128.load(p2, 16), v2));
      a3 = f32x4.add(a3, f32x4.mul(v128.load(p3), v3));
      b3 = f32x4.add(b3, f32x4.mul(v128.load(p3, 16), v3));
      p0 += 32; p1 += 32; p2 += 32; p3 += 32;
      w0 += 4; w1 += 4; w2 += 4; w3 += 4;
    }
    for (let k = common; k < c0; k++) { const v = v128.load32_splat(w0); a0 = f32x4.add(a0, f32x4.mul(v128.load(p0), v)); b0 = f32x4.add(b0, f32x4.mul(v128.load(p0, 16), v)); p0 += 32; w0 += 4; }
    for (let k = common; k < c1; k++) { const v = v128.load32_splat(w1); a1 = f32x4.add(a1, f32x4.mul(v128.load(p1), v)); b1 = f32x4.add(b1, f32x4.mul(v128.load(p1, 16), v)); p1 += 32; w1 += 4; }
    for (let k = common; k < c2; k++) { const v = v128.load32_splat(w2); a2 = f32x4.add(a2, f32x4.mul(v128.load(p2), v)); b2 = f32x4.add(b2, f32x4.mul(v128.load(p2, 16), v)); p2 += 32; w2 += 4; }
    for (let k = common; k < c3; k++) { const v = v128.load32_splat(w3); a3 = f32x4.add(a3, f32x4.mul(v128.load(p3), v)); b3 = f32x4.add(b3, f32x4.mul(v128.load(p3, 16), v)); p3 += 32; w3 += 4; }
    const o0 = out0 + (<usize>x << 4);
    const o1 = out1 + (<usize>x << 4);
    v128.store(o0, a0); v128.store(o0, a1, 16); v128.store(o0, a2, 32); v128.store(o0, a3, 48);
    v128.store(o1, b0); v128.store(o1, b1, 16); v128.store(o1, b2, 32); v128.store(o1, b3, 48);
  }
  for (; x < dstW; x++) {
    const first = load<i32>(bounds + (<usize>x << 3));
    const count = load<i32>(bounds + (<usize>x << 3), 4);
    let a = f32x4.splat(0);
    let c = f32x4.splat(0);
    let p = scratch + (<usize>first << 5);
    let w = weights + (<usize>(x * stride) << 2);
    for (let k = 0; k < count; k++) {
      const v = v128.load32_splat(w);
      a = f32x4.add(a, f32x4.mul(v128.load(p), v));
      c = f32x4.add(c, f32x4.mul(v128.load(p, 16), v));
      p += 32;
      w += 4;
    }
    v128.store(out0 + (<usize>x << 4), a);
    v128.store(out1 + (<usize>x << 4), c);
  }
}

/**
 * Four source rows (u8 straight, srcW px each, `srcStride` bytes apart) → four rows of dstW
 * premultiplied f32 px, each the same floats as resampleRowH gives it (each pixel's taps in their
 * order, into an accumulator of its own); a tap's weight loaded once for the four rows. Output
 * pixels go in pairs where the second's taps start no earlier than the first's, meet them and end
 * no earlier (a resize's do): a source pixel both read is loaded once for both, eight sums at
 * once. (Two pixels each loading their own, V8 keeps all sixteen loads and sums in registers at
 * once and spills two sums to the stack, whose every add then waits on a store and a load.)
 */
export function resampleRowsH4(
  src: usize, srcStride: i32, srcW: i32, scratch: usize,
  out0: usize, out1: usize, out2: usize, out3: usize, dstW: i32,
  bounds: usize, weights: usize, stride: i32,
): void {
  for (let r = 0; r < 4; r++) premultipliedRow(src + <usize>(r * srcStride), scratch + (<usize>r << 4), srcW, 64);
  for (let x = 0; x < dstW; ) {
    const b = bounds + (<usize>x << 3);
    const first = load<i32>(b);
    const count = load<i32>(b, 4);
    const o = <usize>x << 4;
    let p = scratch + (<usize>first << 6);
    let w = weights + (<usize>(x * stride) << 2);
    if (x + 1 < dstW) {
      const both = load<i32>(b, 8) - first; // where the second pixel's taps start, from the first's
      const end = both + load<i32>(b, 12); // and end
      if (both >= 0 && both <= count && end >= count) {
        // The second pixel's weight for source pixel first + j at 4·j from u.
        let u = w + (<usize>stride << 2) - (<usize>both << 2);
        let a0 = f32x4.splat(0), a1 = f32x4.splat(0), a2 = f32x4.splat(0), a3 = f32x4.splat(0);
        let b0 = f32x4.splat(0), b1 = f32x4.splat(0), b2 = f32x4.splat(0), b3 = f32x4.splat(0);
        let j = 0;
        for (; j < both; j++) {
          const v = v128.load32_splat(w);
          a0 = f32x4.add(a0, f32x4.mul(v128.load(p), v)); a1 = f32x4.add(a1, f32x4.mul(v128.load(p, 16), v));
          a2 = f32x4.add(a2, f32x4.mul(v128.load(p, 32), v)); a3 = f32x4.add(a3, f32x4.mul(v128.load(p, 48), v));
          p += 64; w += 4; u += 4;
        }
        for (; j < count; j++) {
          const v = v128.load32_splat(w);
          const t = v128.load32_splat(u);
          const q0 = v128.load(p), q1 = v128.load(p, 16), q2 = v128.load(p, 32), q3 = v128.load(p, 48);
          a0 = f32x4.add(a0, f32x4.mul(q0, v)); b0 = f32x4.add(b0, f32x4.mul(q0, t));
          a1 = f32x4.add(a1, f32x4.mul(q1, v)); b1 = f32x4.add(b1, f32x4.mul(q1, t));
          a2 = f32x4.add(a2, f32x4.mul(q2, v)); b2 = f32x4.add(b2, f32x4.mul(q2, t));
          a3 = f32x4.add(a3, f32x4.mul(q3, v)); b3 = f32x4.add(b3, f32x4.mul(q3, t));
          p += 64; w += 4; u += 4;
        }
        for (; j < end; j++) {
          const t = v128.load32_splat(u);
          b0 = f32x4.add(b0, f32x4.mul(v128.load(p), t)); b1 = f32x4.add(b1, f32x4.mul(v128.load(p, 16), t));
          b2 = f32x4.add(b2, f32x4.mul(v128.load(p, 32), t)); b3 = f32x4.add(b3, f32x4.mul(v128.load(p, 48), t));
          p += 64; u += 4;
        }
        v128.store(out0 + o, a0); v128.store(out1 + o, a1); v128.store(out2 + o, a2); v128.store(out3 + o, a3);
        v128.store(out0 + o, b0, 16); v128.store(out1 + o, b1, 16); v128.store(out2 + o, b2, 16); v128.store(out3 + o, b3, 16);
        x += 2;
        continue;
      }
    }
    let a0 = f32x4.splat(0), a1 = f32x4.splat(0), a2 = f32x4.splat(0), a3 = f32x4.splat(0);
    for (let k = 0; k < count; k++) {
      const v = v128.load32_splat(w);
      a0 = f32x4.add(a0, f32x4.mul(v128.load(p), v)); a1 = f32x4.add(a1, f32x4.mul(v128.load(p, 16), v));
      a2 = f32x4.add(a2, f32x4.mul(v128.load(p, 32), v)); a3 = f32x4.add(a3, f32x4.mul(v128.load(p, 48), v));
      p += 64; w += 4;
    }
    v128.store(out0 + o, a0); v128.store(out1 + o, a1); v128.store(out2 + o, a2); v128.store(out3 + o, a3);
    x++;
  }
}

/**
 * One output row from `count` horizontally filtered rows held in a ring of `ringRows` rows
 * (row r of the source lives in slot r % ringRows) → u8 straight.
 */
export function resampleRowV(
  ring: usize, ringRows: i32, width: i32, first: i32, count: i32, weights: usize, out: usize,
): void {
  const rowBytes = <usize>width << 4;
  // The taps' row addresses, resolved once per output row (no modulo per pixel and tap).
  const rows = count <= MAX_V_TAPS ? vRows : 0;
  if (rows) for (let k = 0; k < count; k++) store<usize>(rows + (<usize>k << 2), ring + <usize>((first + k) % ringRows) * rowBytes);
  let x = 0;
  if (rows) {
    // Four pixels per step: independent sums (same order per pixel) keep the FPU busy; the last
    // one to three pixels of the row take the loop below, each the same sum.
    for (; x + 3 < width; x += 4) {
      let a = f32x4.splat(0);
      let b = f32x4.splat(0);
      let c = f32x4.splat(0);
      let d = f32x4.splat(0);
      const col = <usize>x << 4;
      for (let k = 0; k < count; k++) {
        const p = load<usize>(rows + (<usize>k << 2)) + col;
        const w = f32x4.splat(load<f32>(weights + (<usize>k << 2)));
        a = f32x4.add(a, f32x4.mul(v128.load(p), w));
        b = f32x4.add(b, f32x4.mul(v128.load(p, 16), w));
        c = f32x4.add(c, f32x4.mul(v128.load(p, 32), w));
        d = f32x4.add(d, f32x4.mul(v128.load(p, 48), w));
      }
      storeStraight4(out + (<usize>x << 2), a, b, c, d);
    }
  }
  for (; x < width; x++) {
    let acc = f32x4.splat(0);
    const col = <usize>x << 4;
    for (let k = 0; k < count; k++) {
      const row = rows ? load<usize>(rows + (<usize>k << 2)) : ring + <usize>((first + k) % ringRows) * rowBytes;
      acc = f32x4.add(acc, f32x4.mul(v128.load(row + col), f32x4.splat(load<f32>(weights + (<usize>k << 2)))));
    }
    storePixel(out + (<usize>x << 2), unpremultiplyPixel(acc));
  }
}

/**
 * Two output rows at once, as resampleRowV gives each: the second's taps (first1, count1) start
 * no earlier than the first's and end no earlier, and meet them (first0 ≤ first1 ≤ first0 +
 * count0 ≤ first1 + count1). A ring row both read is loaded once for both; each pixel's sum
 * still takes its own taps in their order.
 */
export function resampleRowsV2(
  ring: usize, ringRows: i32, width: i32,
  first0: i32, count0: i32, weights0: usize, first1: i32, count1: i32, weights1: usize,
  out0: usize, out1: usize,
): void {
  const rowBytes = <usize>width << 4;
  const span = first1 + count1 - first0;
  if (span > MAX_V_TAPS) {
    resampleRowV(ring, ringRows, width, first0, count0, weights0, out0);
    resampleRowV(ring, ringRows, width, first1, count1, weights1, out1);
    return;
  }
  for (let k = 0; k < span; k++) store<usize>(vRows + (<usize>k << 2), ring + <usize>((first0 + k) % ringRows) * rowBytes);
  // Ring rows [0, both) only the first row reads, [both, end0) both, [end0, span) the second.
  const both = first1 - first0;
  const end0 = count0;
  // weights0 − 4·0 and weights1 − 4·both: each tap's weight at 4·j from them.
  const w1 = weights1 - (<usize>both << 2);
  let x = 0;
  for (; x + 3 < width; x += 4) {
    let a0 = f32x4.splat(0), a1 = f32x4.splat(0), a2 = f32x4.splat(0), a3 = f32x4.splat(0);
    let b0 = f32x4.splat(0), b1 = f32x4.splat(0), b2 = f32x4.splat(0), b3 = f32x4.splat(0);
    const col = <usize>x << 4;
    let j = 0;
    for (; j < both; j++) {
      const p = load<usize>(vRows + (<usize>j << 2)) + col;
      const w = v128.load32_splat(weights0 + (<usize>j << 2));
      a0 = f32x4.add(a0, f32x4.mul(v128.load(p), w));
      a1 = f32x4.add(a1, f32x4.mul(v128.load(p, 16), w));
      a2 = f32x4.add(a2, f32x4.mul(v128.load(p, 32), w));
      a3 = f32x4.add(a3, f32x4.mul(v128.load(p, 48), w));
    }
    for (; j < end0; j++) {
      const p = load<usize>(vRows + (<usize>j << 2)) + col;
      const w = v128.load32_splat(weights0 + (<usize>j << 2));
      const u = v128.load32_splat(w1 + (<usize>j << 2));
      const q0 = v128.load(p), q1 = v128.load(p, 16), q2 = v128.load(p, 32), q3 = v128.load(p, 48);
      a0 = f32x4.add(a0, f32x4.mul(q0, w));
      b0 = f32x4.add(b0, f32x4.mul(q0, u));
      a1 = f32x4.add(a1, f32x4.mul(q1, w));
      b1 = f32x4.add(b1, f32x4.mul(q1, u));
      a2 = f32x4.add(a2, f32x4.mul(q2, w));
      b2 = f32x4.add(b2, f32x4.mul(q2, u));
      a3 = f32x4.add(a3, f32x4.mul(q3, w));
      b3 = f32x4.add(b3, f32x4.mul(q3, u));
    }
    for (; j < span; j++) {
      const p = load<usize>(vRows + (<usize>j << 2)) + col;
      const u = v128.load32_splat(w1 + (<usize>j << 2));
      b0 = f32x4.add(b0, f32x4.mul(v128.load(p), u));
      b1 = f32x4.add(b1, f32x4.mul(v128.load(p, 16), u));
      b2 = f32x4.add(b2, f32x4.mul(v128.load(p, 32), u));
      b3 = f32x4.add(b3, f32x4.mul(v128.load(p, 48), u));
    }
    storeStraight4(out0 + (<usize>x << 2), a0, a1, a2, a3);
    storeStraight4(out1 + (<usize>x << 2), b0, b1, b2, b3);
  }
  for (; x < width; x++) {
    let a = f32x4.splat(0), b = f32x4.splat(0);
    const col = <usize>x << 4;
    for (let j = 0; j < end0; j++) a = f32x4.add(a, f32x4.mul(v128.load(load<usize>(vRows + (<usize>j << 2)) + col), v128.load32_splat(weights0 + (<usize>j << 2))));
    for (let j = both; j < span; j++) b = f32x4.add(b, f32x4.mul(v128.load(load<usize>(vRows + (<usize>j << 2)) + col), v128.load32_splat(w1 + (<usize>j << 2))));
    storePixel(out0 + (<usize>x << 2), unpremultiplyPixel(a));
    storePixel(out1 + (<usize>x << 2), unpremultiplyPixel(b));
  }
}

/**
 * Four premultiplied pixels → u8 straight at `ptr`, the bytes storePixel(unpremultiplyPixel(p))
 * gives each. Where all four alphas clamp to 0.5 … 255 (a NaN clamps to 0 here, so it takes the
 * per-pixel form) the four are done at once: the alphas clamped and 255 ÷ alpha divided in one
 * vector; colour clamped to 0 … alpha by pmax/pmin (the bytes of max/min: they differ only in a
 * NaN, which pmax with 0 first makes 0 as max then trunc_sat does, and in the sign of a zero),
 * which leaves the alpha lane the clamped alpha, multiplied by 1 where colour is by 255 ÷ alpha;
 * every channel then in 0 … 255 and not NaN, so rounded by floor and the 2^23 bias (storeBytePixel),
 * and the four packed into one store.
 */
// @ts-ignore: decorator
@inline function storeStraight4(ptr: usize, a: v128, b: v128, c: v128, d: v128): void {
  // The transposes' halves first (each shuffle one of the interleaves V8 has an instruction for): the alphas from them.
  const ab01 = v128.shuffle<f32>(a, b, 0, 4, 1, 5), cd01 = v128.shuffle<f32>(c, d, 0, 4, 1, 5);
  const ab23 = v128.shuffle<f32>(a, b, 2, 6, 3, 7), cd23 = v128.shuffle<f32>(c, d, 2, 6, 3, 7);
  const alphas = v128.shuffle<f32>(ab23, cd23, 2, 3, 6, 7);
  const clamped = f32x4.pmin(f32x4.splat(255), f32x4.pmax(f32x4.splat(0), alphas));
  if (!i32x4.all_true(f32x4.ge(clamped, f32x4.splat(0.5)))) {
    storePixel(ptr, unpremultiplyPixel(a));
    storePixel(ptr + 4, unpremultiplyPixel(b));
    storePixel(ptr + 8, unpremultiplyPixel(c));
    storePixel(ptr + 12, unpremultiplyPixel(d));
    return;
  }
  const scales = f32x4.div(f32x4.splat(255), clamped);
  // The four pixels' channels a vector each (the four pixels in the lanes), each lane worked as
  // the pixel's own: its colour clamped to 0 … alpha and times 255 ÷ alpha, its alpha the clamped
  // one (pmin(alpha, pmax(0, alpha before)) × 1, as the pixel form gives it); the bytes packed
  // channel by channel, then put in pixel order by one shuffle.
  const red = straightBytes(v128.shuffle<f32>(ab01, cd01, 0, 1, 4, 5), clamped, scales);
  const green = straightBytes(v128.shuffle<f32>(ab01, cd01, 2, 3, 6, 7), clamped, scales);
  const blue = straightBytes(v128.shuffle<f32>(ab23, cd23, 0, 1, 4, 5), clamped, scales);
  const planes = i8x16.narrow_i16x8_u(i16x8.narrow_i32x4_u(red, green), i16x8.narrow_i32x4_u(blue, roundedBytes(clamped)));
  v128.store(ptr, v128.shuffle<u8>(planes, planes, 0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15));
}

/** A channel of four premultiplied pixels, their clamped alphas and 255 ÷ those → straight i32 lanes in 0 … 255. */
// @ts-ignore: decorator
@inline function straightBytes(p: v128, alpha: v128, scale: v128): v128 {
  return roundedBytes(f32x4.mul(f32x4.pmin(alpha, f32x4.pmax(f32x4.splat(0), p)), scale));
}

const MAX_V_TAPS = 1024;
const vRows = memory.data(MAX_V_TAPS * 4, 4);

// ---------------------------------------------------------------------------------------------
// Unsharp mask over one band, in one sweep down its rows. `src` holds rows [bandTop − radius,
// bandBottom + radius) of the image (edge rows repeated), u8 straight; the kernel writes the
// band's `rows` rows to `out`. Each source row is premultiplied into `line` (width f32 px) and
// blurred across into slot y % (2·radius + 1) of `ring`; as soon as the ring holds an output
// row's 2·radius + 1 rows, that row is blurred down and sharpened. Every pixel's sums are taken
// in the order of the two-pass form (the centre tap, then each pair of mirrored taps added
// first), so the floats are the same, while the blurred rows stay in cache.

export function unsharpBand(
  src: usize, width: i32, rows: i32, radius: i32, kernel: usize,
  amount: f32, threshold: f32, line: usize, ring: usize, out: usize,
): void {
  const taps = 2 * radius + 1;
  const rowBytes = <usize>width << 4;
  const amountV = f32x4.splat(amount);
  const thresholdV = f32x4.splat(threshold * 255);
  for (let y = 0; y < rows + 2 * radius; y++) {
    const srcRow = src + (<usize>(y * width) << 2);
    premultipliedRow(srcRow, line, width);
    blurAcross(line, width, radius, kernel, ring + <usize>(y % taps) * rowBytes);
    const o = y - 2 * radius;
    if (o < 0) continue;
    // Output row o: ring rows o … o + 2·radius, its own (the centre) at o + radius.
    for (let k = 0; k <= radius; k++) {
      store<usize>(upRows + (<usize>k << 2), ring + <usize>((o + radius - k) % taps) * rowBytes);
      store<usize>(downRows + (<usize>k << 2), ring + <usize>((o + radius + k) % taps) * rowBytes);
    }
    sharpenRow(src + (<usize>((o + radius) * width) << 2), width, radius, kernel, amountV, thresholdV, line, out + (<usize>(o * width) << 2));
  }
}

/** Taps a side unsharpBand holds ring rows for (src/engine/raster/unsharp.ts refuses a larger reach). */
const MAX_UNSHARP_TAPS = 1024;
/** Per output row of unsharpBand: the ring rows k above (upRows[k]) and below (downRows[k]) it. */
const upRows = memory.data(MAX_UNSHARP_TAPS * 4, 4);
const downRows = memory.data(MAX_UNSHARP_TAPS * 4, 4);

/** One row of premultiplied pixels blurred across (Gaussian of `radius` taps a side, edges clamped) into `dst`. */
// @ts-ignore: decorator
@inline function blurAcross(row: usize, width: i32, radius: i32, kernel: usize, dst: usize): void {
  const k0 = f32x4.splat(load<f32>(kernel));
  // Edge pixels clamp their taps; the interior reads straight across.
  const inner0 = min<i32>(radius, width);
  const inner1 = max<i32>(inner0, width - radius);
  for (let x = 0; x < inner0; x++) blurAcrossClamped(row, width, radius, kernel, dst, x);
  if (radius == 2) {
    // The API's default (sigma 0.5): the two weights held in registers.
    const k1 = f32x4.splat(load<f32>(kernel, 4));
    const k2 = f32x4.splat(load<f32>(kernel, 8));
    for (let x = inner0; x < inner1; x++) {
      const c = row + (<usize>x << 4);
      let acc = f32x4.mul(v128.load(c), k0);
      acc = f32x4.add(acc, f32x4.mul(f32x4.add(v128.load(c - 16), v128.load(c, 16)), k1));
      acc = f32x4.add(acc, f32x4.mul(f32x4.add(v128.load(c - 32), v128.load(c, 32)), k2));
      v128.store(dst + (<usize>x << 4), acc);
    }
  } else {
    for (let x = inner0; x < inner1; x++) {
      const c = row + (<usize>x << 4);
      let acc = f32x4.mul(v128.load(c), k0);
      for (let k = 1; k <= radius; k++) {
        const s = f32x4.add(v128.load(c - (<usize>k << 4)), v128.load(c + (<usize>k << 4)));
        acc = f32x4.add(acc, f32x4.mul(s, f32x4.splat(load<f32>(kernel + (<usize>k << 2)))));
      }
      v128.store(dst + (<usize>x << 4), acc);
    }
  }
  for (let x = inner1; x < width; x++) blurAcrossClamped(row, width, radius, kernel, dst, x);
}

// @ts-ignore: decorator
@inline function blurAcrossClamped(row: usize, width: i32, radius: i32, kernel: usize, dst: usize, x: i32): void {
  let acc = f32x4.mul(v128.load(row + (<usize>x << 4)), f32x4.splat(load<f32>(kernel)));
  for (let k = 1; k <= radius; k++) {
    const l = max<i32>(x - k, 0);
    const r = min<i32>(x + k, width - 1);
    const s = f32x4.add(v128.load(row + (<usize>l << 4)), v128.load(row + (<usize>r << 4)));
    acc = f32x4.add(acc, f32x4.mul(s, f32x4.splat(load<f32>(kernel + (<usize>k << 2)))));
  }
  v128.store(dst + (<usize>x << 4), acc);
}

/**
 * One output row of unsharpBand: the ring rows (upRows, downRows) blurred down into `line`, then
 * `srcRow` sharpened by it into `outRow`, four pixels at a time where it can (sharpen4).
 */
// @ts-ignore: decorator
@inline function sharpenRow(srcRow: usize, width: i32, radius: i32, kernel: usize, amountV: v128, thresholdV: v128, line: usize, outRow: usize): void {
  const k0 = f32x4.splat(load<f32>(kernel));
  const center = load<usize>(upRows);
  if (radius == 2) {
    const k1 = f32x4.splat(load<f32>(kernel, 4));
    const k2 = f32x4.splat(load<f32>(kernel, 8));
    const up1 = load<usize>(upRows, 4), down1 = load<usize>(downRows, 4);
    const up2 = load<usize>(upRows, 8), down2 = load<usize>(downRows, 8);
    for (let x = 0; x < width; x++) {
      const col = <usize>x << 4;
      let acc = f32x4.mul(v128.load(center + col), k0);
      acc = f32x4.add(acc, f32x4.mul(f32x4.add(v128.load(up1 + col), v128.load(down1 + col)), k1));
      acc = f32x4.add(acc, f32x4.mul(f32x4.add(v128.load(up2 + col), v128.load(down2 + col)), k2));
      v128.store(line + col, acc);
    }
  } else {
    for (let x = 0; x < width; x++) {
      const col = <usize>x << 4;
      let acc = f32x4.mul(v128.load(center + col), k0);
      for (let k = 1; k <= radius; k++) {
        const s = f32x4.add(v128.load(load<usize>(upRows + (<usize>k << 2)) + col), v128.load(load<usize>(downRows + (<usize>k << 2)) + col));
        acc = f32x4.add(acc, f32x4.mul(s, f32x4.splat(load<f32>(kernel + (<usize>k << 2)))));
      }
      v128.store(line + col, acc);
    }
  }
  let x = 0;
  for (; x + 4 <= width; x += 4) sharpen4(srcRow + (<usize>x << 2), line + (<usize>x << 4), outRow + (<usize>x << 2), amountV, thresholdV);
  for (; x < width; x++) sharpenPixel(srcRow + (<usize>x << 2), outRow + (<usize>x << 2), v128.load(line + (<usize>x << 4)), amountV, thresholdV);
}

/**
 * Four pixels of the unsharp mask (`blurs` their four premultiplied blurs): sharpenPixel's bytes.
 * Where none is kept as it is (a blurred alpha below 0.001, a transparent pixel) the four are done
 * at once: 255 ÷ the blurred alphas in one vector division, the four packed into one store.
 */
// @ts-ignore: decorator
@inline function sharpen4(srcPtr: usize, blurs: usize, outPtr: usize, amountV: v128, thresholdV: v128): void {
  const a = v128.load(blurs), b = v128.load(blurs, 16), c = v128.load(blurs, 32), d = v128.load(blurs, 48);
  const blurAs = v128.shuffle<f32>(v128.shuffle<f32>(a, b, 3, 7, 3, 7), v128.shuffle<f32>(c, d, 3, 7, 3, 7), 0, 1, 4, 5);
  const src = v128.load(srcPtr);
  if (v128.any_true(f32x4.lt(blurAs, f32x4.splat(0.001))) || v128.any_true(i32x4.eq(v128.and(src, i32x4.splat(<i32>0xff000000)), i32x4.splat(0)))) {
    sharpenPixel(srcPtr, outPtr, a, amountV, thresholdV);
    sharpenPixel(srcPtr + 4, outPtr + 4, b, amountV, thresholdV);
    sharpenPixel(srcPtr + 8, outPtr + 8, c, amountV, thresholdV);
    sharpenPixel(srcPtr + 12, outPtr + 12, d, amountV, thresholdV);
    return;
  }
  const scales = f32x4.div(f32x4.splat(255), blurAs);
  // Channel by channel, the four pixels in the lanes (each lane the pixel's own sharpenPixel
  // steps); alpha is kept, so its bytes are the source's.
  const ab01 = v128.shuffle<f32>(a, b, 0, 4, 1, 5), cd01 = v128.shuffle<f32>(c, d, 0, 4, 1, 5);
  const ab23 = v128.shuffle<f32>(a, b, 2, 6, 3, 7), cd23 = v128.shuffle<f32>(c, d, 2, 6, 3, 7);
  const planes = v128.shuffle<u8>(src, src, 0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  const rg = i16x8.extend_low_i8x16_u(planes), ba = i16x8.extend_high_i8x16_u(planes);
  const red = sharpenedBytes(f32x4.convert_i32x4_s(i32x4.extend_low_i16x8_u(rg)), v128.shuffle<f32>(ab01, cd01, 0, 1, 4, 5), scales, amountV, thresholdV);
  const green = sharpenedBytes(f32x4.convert_i32x4_s(i32x4.extend_high_i16x8_u(rg)), v128.shuffle<f32>(ab01, cd01, 2, 3, 6, 7), scales, amountV, thresholdV);
  const blue = sharpenedBytes(f32x4.convert_i32x4_s(i32x4.extend_low_i16x8_u(ba)), v128.shuffle<f32>(ab23, cd23, 0, 1, 4, 5), scales, amountV, thresholdV);
  const out = i8x16.narrow_i16x8_u(i16x8.narrow_i32x4_u(red, green), i16x8.narrow_i32x4_u(blue, i32x4.extend_high_i16x8_u(ba)));
  v128.store(outPtr, v128.shuffle<u8>(out, out, 0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15));
}

/**
 * One colour channel of four pixels sharpened (sharpened's steps on each lane: `orig` the pixels'
 * straight values, `blur` their premultiplied blurs, `scale` 255 ÷ their blurred alphas), as i32
 * bytes.
 */
// @ts-ignore: decorator
@inline function sharpenedBytes(orig: v128, blur: v128, scale: v128, amountV: v128, thresholdV: v128): v128 {
  const diff = f32x4.sub(orig, f32x4.mul(blur, scale));
  const moved = f32x4.pmin(f32x4.splat(255), f32x4.pmax(f32x4.splat(0), f32x4.add(orig, f32x4.mul(diff, amountV))));
  return roundedBytes(v128.bitselect(moved, orig, f32x4.ge(f32x4.abs(diff), thresholdV)));
}

/**
 * One pixel of the unsharp mask: `src` u8 straight, `acc` its premultiplied blur → `out`; kept as
 * it is where nothing is blurred in or the pixel is transparent.
 */
// @ts-ignore: decorator
@inline function sharpenPixel(srcPtr: usize, outPtr: usize, acc: v128, amountV: v128, thresholdV: v128): void {
  const blurA = f32x4.extract_lane(acc, 3);
  if (blurA < 0.001 || load<u8>(srcPtr, 3) == 0) {
    store<u32>(outPtr, load<u32>(srcPtr));
    return;
  }
  storeBytePixel(outPtr, sharpened(loadPixel(srcPtr), acc, f32x4.splat(255.0 / blurA), amountV, thresholdV));
}

/**
 * The sharpened pixel (f32, channels in 0 … 255, not NaN) of `orig` (straight) and `acc` (its
 * premultiplied blur, `scale` 255 ÷ its alpha): colour moved away from the blurred straight colour
 * where they differ by the threshold or more, alpha kept. The clamps are pmax/pmin (one
 * instruction each, where max/min take seven to order NaN and −0): with 0 and 255 as their first
 * operand they give max/min's bytes for every input (a NaN, as from an amount too large for f32
 * times a difference of 0, comes out 0 from both; a −0 rounds to the byte of +0).
 */
// @ts-ignore: decorator
@inline function sharpened(orig: v128, acc: v128, scale: v128, amountV: v128, thresholdV: v128): v128 {
  // Blurred straight colour (premultiplied blur ÷ blurred alpha: no dark fringes).
  const diff = f32x4.sub(orig, f32x4.mul(acc, scale));
  const moved = f32x4.pmin(f32x4.splat(255), f32x4.pmax(f32x4.splat(0), f32x4.add(orig, f32x4.mul(diff, amountV))));
  const apply = v128.and(f32x4.ge(f32x4.abs(diff), thresholdV), RGB_LANES);
  return v128.bitselect(moved, orig, apply);
}

/** storePixel of a pixel whose channels are in 0 … 255 and not NaN (roundedBytes). */
// @ts-ignore: decorator
@inline function storeBytePixel(ptr: usize, v: v128): void {
  const i = roundedBytes(v);
  const w = i16x8.narrow_i32x4_u(i, i);
  v128.store32_lane(ptr, i8x16.narrow_i16x8_u(w, w), 0);
}


// ---------------------------------------------------------------------------------------------
// Per-pixel conversions, in place on u8 straight RGBA.

/** The alpha bytes of four pixels (the high byte of each little-endian word). */
// @ts-ignore: decorator
@inline function alphas4(p: usize): v128 {
  return v128.and(v128.load(p), i32x4.splat(<i32>0xff000000));
}

/** Whether four pixels' alpha bytes (alphas4) are all 255. */
// @ts-ignore: decorator
@inline function opaque4(a: v128): bool {
  return i32x4.all_true(i32x4.eq(a, i32x4.splat(<i32>0xff000000)));
}

/** Composite over opaque white (for JPEG): c' = round((c·a + 255·(255 − a)) / 255), a' = 255. */
/** Returns 0 when every pixel was opaque (none changed: the caller need not copy them back), else 1. */
export function flattenOverWhite(ptr: usize, count: i32): i32 {
  let i = 0, changed = 0;
  // Four opaque pixels at a time are left as they are (a canvas is mostly opaque).
  for (; i + 4 <= count; i += 4) {
    const p = ptr + (<usize>i << 2);
    if (opaque4(alphas4(p))) continue;
    changed = 1;
    for (let j: usize = 0; j < 16; j += 4) flattenPixel(p + j);
  }
  for (; i < count; i++) {
    if (load<u8>(ptr + (<usize>i << 2), 3) != 255) changed = 1;
    flattenPixel(ptr + (<usize>i << 2));
  }
  return changed;
}

// @ts-ignore: decorator
@inline function flattenPixel(p: usize): void {
  const a = load<u8>(p, 3);
  if (a == 255) return;
  const v = loadPixel(p);
  const af = <f32>a;
  const mixed = f32x4.mul(f32x4.add(f32x4.mul(v, f32x4.splat(af)), f32x4.sub(f32x4.splat(255 * 255), f32x4.splat(255 * af))), f32x4.splat(INV255));
  storePixel(p, f32x4.replace_lane(mixed, 3, 255));
}

/** c' = round(c·a / 255). */
export function premultiply(ptr: usize, count: i32): void {
  for (let i = 0; i < count; i++) {
    const p = ptr + (<usize>i << 2);
    const a = load<u8>(p, 3);
    if (a == 255) continue;
    const v = loadPixel(p);
    storePixel(p, f32x4.mul(v, f32x4.replace_lane(f32x4.splat(<f32>a * INV255), 3, 1.0)));
  }
}

/** c = min(255, round(c'·255 / a)); a = 0 → all zero. */
export function unpremultiply(ptr: usize, count: i32): void {
  let i = 0;
  // Four pixels at a time where all four are transparent (zeroed) or opaque (kept): a text's raster
  // is mostly empty margin and its glyphs' insides, and only their edges are divided.
  for (; i + 4 <= count; i += 4) {
    const p = ptr + (<usize>i << 2);
    const a = alphas4(p);
    if (!v128.any_true(a)) {
      v128.store(p, i32x4.splat(0));
      continue;
    }
    if (opaque4(a)) continue;
    for (let j: usize = 0; j < 16; j += 4) unpremultiplyAt(p + j);
  }
  for (; i < count; i++) unpremultiplyAt(ptr + (<usize>i << 2));
}

// @ts-ignore: decorator
@inline function unpremultiplyAt(p: usize): void {
  const a = load<u8>(p, 3);
  if (a == 255) return;
  if (a == 0) {
    store<u32>(p, 0);
    return;
  }
  const v = f32x4.min(loadPixel(p), f32x4.splat(<f32>a));
  storePixel(p, f32x4.mul(v, f32x4.replace_lane(f32x4.splat(255.0 / <f32>a), 3, 1.0)));
}

/**
 * Where `width` × `height` RGBA pixels at `ptr` are not transparent: left, top, right, bottom
 * (exclusive) as four i32 at `out`, or left −1 when nowhere (composite/dirty.ts inkOf's box).
 */
export function inkBox(ptr: usize, width: i32, height: i32, out: usize): void {
  const rowBytes = <usize>width << 2;
  let top = -1;
  let bottom = -1;
  let left = width;
  let right = -1;
  for (let y = 0; y < height; y++) {
    const row = ptr + <usize>y * rowBytes;
    // Any alpha in the row: its words OR-ed four at a time.
    let acc = i32x4.splat(0);
    let x = 0;
    for (; x + 4 <= width; x += 4) acc = v128.or(acc, v128.load(row + (<usize>x << 2)));
    let any = v128.any_true(v128.and(acc, i32x4.splat(<i32>0xff000000)));
    for (; x < width; x++) if (load<u8>(row + (<usize>x << 2), 3) != 0) any = true;
    if (!any) continue;
    if (top < 0) top = y;
    bottom = y;
    // Read only as far as the ink found so far, from either side.
    let l = 0;
    while (l < left && load<u8>(row + (<usize>l << 2), 3) == 0) l++;
    if (l < left) left = l;
    let r = width - 1;
    while (r > right && load<u8>(row + (<usize>r << 2), 3) == 0) r--;
    if (r > right) right = r;
  }
  store<i32>(out, top < 0 ? -1 : left);
  store<i32>(out, top, 4);
  store<i32>(out, right + 1, 8);
  store<i32>(out, bottom + 1, 12);
}
export * from './jpeg';
export * from './colour-lut';
export * from './jpeg-decode';
export * from './blend';
export * from './effects';
export * from './hue-saturation';
export * from './channel-luts';
export * from './bevel';
