// Layer blending, bit-identical to the compositor's TypeScript (src/engine/composite/blend.ts
// blendSurface): the same f64 operations in the same order, stored with round-half-even and
// clamping as a Uint8ClampedArray store does. Separable modes only; the JS side keeps dissolve,
// non-separable modes, the text gamma other than in normal mode, and blend-if.

// Mode ids: keep in step with WASM_BLEND_MODES in src/engine/raster/blend.ts.
const NORMAL = 0, DARKEN = 1, MULTIPLY = 2, COLOR_BURN = 3, LINEAR_BURN = 4, LIGHTEN = 5, SCREEN = 6,
  COLOR_DODGE = 7, LINEAR_DODGE = 8, OVERLAY = 9, SOFT_LIGHT = 10, HARD_LIGHT = 11, VIVID_LIGHT = 12,
  LINEAR_LIGHT = 13, PIN_LIGHT = 14, HARD_MIX = 15, DIFFERENCE = 16, EXCLUSION = 17, SUBTRACT = 18, DIVIDE = 19;

// @ts-ignore: decorator
@inline function screen(b: f64, s: f64): f64 { return b + s - b * s; }
// @ts-ignore: decorator
@inline function colorDodge(b: f64, s: f64): f64 { return b <= 0 ? 0 : s >= 1 ? 1 : min<f64>(1, b / (1 - s)); }
// @ts-ignore: decorator
@inline function colorBurn(b: f64, s: f64): f64 { return b >= 1 ? 1 : s <= 0 ? 0 : 1 - min<f64>(1, (1 - b) / s); }
// @ts-ignore: decorator
@inline function hardLight(b: f64, s: f64): f64 { return s <= 0.5 ? b * 2 * s : screen(b, 2 * s - 1); }
// Linear light in Photoshop's 8-bit arithmetic, b + 2s − 256 levels, as the compositor's TypeScript (PS_ONE there).
const PS_ONE: f64 = 256.0 / 255.0;

// @ts-ignore: decorator
@inline function separable(mode: i32, b: f64, s: f64): f64 {
  switch (mode) {
    case DARKEN: return min<f64>(b, s);
    case MULTIPLY: return b * s;
    case COLOR_BURN: return colorBurn(b, s);
    case LINEAR_BURN: return max<f64>(0, b + s - 1);
    case LIGHTEN: return max<f64>(b, s);
    case SCREEN: return screen(b, s);
    case COLOR_DODGE: return colorDodge(b, s);
    case LINEAR_DODGE: return min<f64>(1, b + s);
    case OVERLAY: return hardLight(s, b);
    // In whole 8-bit steps, as the compositor's TypeScript (Photoshop's composite shows it).
    case SOFT_LIGHT: return nearest<f64>((s <= 0.5 ? 2 * b * s + b * b * (1 - 2 * s) : b + (2 * s - 1) * ((b <= 0.25 ? ((16 * b - 12) * b + 4) * b : Math.sqrt(b)) - b)) * 255) / 255;
    case HARD_LIGHT: return hardLight(b, s);
    case VIVID_LIGHT: return s <= 0 ? 0 : s >= 1 ? 1 : s <= 0.5 ? colorBurn(b, 2 * s) : colorDodge(b, 2 * s - 1);
    case LINEAR_LIGHT: { const v = b + 2 * s - PS_ONE; return v < 0 ? 0 : v > 1 ? 1 : v; }
    case PIN_LIGHT: return s <= 0.5 ? min<f64>(b, 2 * s) : max<f64>(b, 2 * s - 1);
    case HARD_MIX: { const sum = nearest<f64>((b + s) * 255); return sum > 255 || (sum == 255 && b > 0.5) ? 1 : 0; }
    case DIFFERENCE: return abs<f64>(b - s);
    case EXCLUSION: return b + s - 2 * b * s;
    case SUBTRACT: return max<f64>(0, b - s);
    case DIVIDE: return s <= 0 ? (b <= 0 ? 0 : 1) : min<f64>(1, b / s);
    default: return s;
  }
}

/** v / 255 for every byte v: the very quotients, a load instead of a division. */
const UNIT: usize = memory.data(256 << 3, 8);
let unitReady = false;

function fillUnit(): void {
  for (let v = 0; v < 256; v++) store<f64>(UNIT + (<usize>v << 3), <f64>v / 255);
  unitReady = true;
}

// @ts-ignore: decorator
@inline function unit(v: u8): f64 {
  return load<f64>(UNIT + (<usize>v << 3));
}

/** ToUint8Clamp (ECMA-262): NaN → 0, clamp to 0..255, round half to even. */
// @ts-ignore: decorator
@inline function clampByte(v: f64): u8 {
  if (!(v > 0)) return 0;
  if (v >= 255) return 255;
  return <u8>nearest<f64>(v);
}

/** Steps of x in [0, 1] whose first byte the gamma table holds (BUCKETS in src/engine/raster/blend.ts). */
const BUCKETS: f64 = 4096;

/**
 * The byte JS stores for back(x) · 255, x a value in the text space (0 ≤ x, not NaN; textSpace in
 * src/engine/raster/blend.ts): how many of the 255 thresholds at `thresholds` (f64, ascending;
 * threshold k the smallest x whose byte is ≥ k, found in JS with `back` itself; entry 0 unused)
 * x reaches. Any increasing `back` serves. Counted from the byte at the
 * start of x's bucket (bytes after the thresholds), a step or two at most.
 */
// @ts-ignore: decorator
@inline function gammaByte(thresholds: usize, x: f64): u8 {
  const bucket = <usize>min<f64>(x * BUCKETS, BUCKETS - 1); // x · 4096 is exact: floor(x · 4096) / 4096 ≤ x
  let pos = <usize>load<u8>(thresholds + 2048 + bucket);
  while (pos < 255 && load<f64>(thresholds + ((pos + 1) << 3)) <= x) pos++;
  return <u8>pos;
}

/**
 * Blends `n` source pixels onto `n` destination pixels (RGBA8 straight, packed alike; `mask`
 * one byte per pixel or 0 for none). `keep` bit c set: channel c keeps the backdrop.
 * `gamma` (normal mode only; 0: none): the text space's 256 f64 values of the bytes, then 256 f64
 * thresholds (gammaByte): the channels blend as back(ks·of(s) + kb·of(d)), as the compositor's
 * text gamma (through the sRGB curve, then 1/γ).
 * Clipped (atop) blending takes no gamma, as in the compositor.
 */
export function blendPixels(dst: usize, src: usize, mask: usize, n: i32, opacity: f64, mode: i32, atop: i32, keep: i32, gamma: usize): void {
  if (!unitReady) fillUnit();
  // The commonest modes get a loop of their own, the mode a constant in it (no dispatch per channel);
  // plain ones (no clipping, gamma or kept channels: a drop shadow's multiply) two pixels at a time.
  const plain = !atop && !keep && !gamma;
  const pairs = plain && (mode == NORMAL || mode == MULTIPLY || mode == SCREEN) ? n & ~1 : 0;
  if (mode == NORMAL) blendPairs(dst, src, mask, pairs, opacity, NORMAL);
  else if (mode == MULTIPLY) blendPairs(dst, src, mask, pairs, opacity, MULTIPLY);
  else if (mode == SCREEN) blendPairs(dst, src, mask, pairs, opacity, SCREEN);
  const at = <usize>pairs;
  dst += at << 2;
  src += at << 2;
  if (mask) mask += at;
  n -= pairs;
  if (mode == NORMAL) blendLoop(dst, src, mask, n, opacity, NORMAL, atop, keep, gamma);
  else if (mode == MULTIPLY) blendLoop(dst, src, mask, n, opacity, MULTIPLY, atop, keep, gamma);
  else if (mode == SCREEN) blendLoop(dst, src, mask, n, opacity, SCREEN, atop, keep, gamma);
  else blendAny(dst, src, mask, n, opacity, mode, atop, keep, gamma);
}

/** Byte `c` of the two pixels at `p` as v / 255, from the `unit` table. */
// @ts-ignore: decorator
@inline function unitPair(p: usize, c: usize): v128 {
  return f64x2.replace_lane(v128.load64_splat(UNIT + (<usize>load<u8>(p + c) << 3)), 1, unit(load<u8>(p + c + 4)));
}

/** The two mask bytes at `p` as v / 255. */
// @ts-ignore: decorator
@inline function unitPair2(p: usize): v128 {
  return f64x2.replace_lane(v128.load64_splat(UNIT + (<usize>load<u8>(p) << 3)), 1, unit(load<u8>(p, 1)));
}

/** clampByte of two values, in the low two i32 lanes (round half to even, then 0..255; the values are never NaN here). */
// @ts-ignore: decorator
@inline function bytePair(v: v128): v128 {
  return i32x4.trunc_sat_f64x2_s_zero(f64x2.pmin(f64x2.pmax(f64x2.splat(0), f64x2.nearest(v)), f64x2.splat(255)));
}

/** The low two i32 lanes of a pair of i64 lane masks. */
// @ts-ignore: decorator
@inline function narrowMask(m: v128): v128 {
  return i32x4.shuffle(m, m, 0, 2, 0, 2);
}

/**
 * blendLoop without clipping, gamma or kept channels, over `pairs` pixels (even), two at a time
 * on f64x2 lanes: each lane does the scalar loop's f64 operations in the same order, and a
 * lane's pixel stays as it is where the loop would `continue` (no coverage), or takes the
 * source where it would copy it (opaque, normal mode).
 */
// @ts-ignore: decorator
@inline function blendPairs(dst: usize, src: usize, mask: usize, pairs: i32, opacity: f64, mode: i32): void {
  const isNormal = mode == NORMAL;
  const one = f64x2.splat(1);
  const zero = f64x2.splat(0);
  const byte = f64x2.splat(255);
  const op = f64x2.splat(opacity);
  for (let i = 0; i < pairs; i += 2) {
    const di = dst + (<usize>i << 2);
    const si = src + (<usize>i << 2);
    const d = v128.load64_zero(di);
    const s = v128.load64_zero(si);
    let as = f64x2.mul(unitPair(si, 3), op);
    if (mask) {
      as = f64x2.mul(as, unitPair2(mask + <usize>i));
    }
    const covered = f64x2.gt(as, zero);
    if (!v128.any_true(covered)) continue;
    if (isNormal && i64x2.all_true(f64x2.eq(as, one))) {
      // Both opaque: the source, as the scalar loop copies it.
      v128.store64_lane(di, s, 0);
      continue;
    }
    const ab = unitPair(di, 3);
    const s0 = unitPair(si, 0), s1 = unitPair(si, 1), s2 = unitPair(si, 2);
    const d0 = unitPair(di, 0), d1 = unitPair(di, 1), d2 = unitPair(di, 2);
    if (!isNormal && i64x2.all_true(f64x2.eq(ab, one))) {
      // Both backdrops opaque (a shadow over a picture): the same floats with the backdrop's
      // alpha terms left out, as (1 − 1)·s + 1·B = +0 + B = B, 1·left = left, and where
      // ao = as + left is 1, x / 1 = x.
      const left = f64x2.sub(one, as);
      const ao = f64x2.add(as, left);
      let ks = as, kb = left;
      if (!i64x2.all_true(f64x2.eq(ao, one))) {
        kb = f64x2.div(left, ao);
        ks = f64x2.div(as, ao);
      }
      const c0 = bytePair(f64x2.mul(f64x2.add(f64x2.mul(ks, separablePair(mode, d0, s0)), f64x2.mul(kb, d0)), byte));
      const c1 = bytePair(f64x2.mul(f64x2.add(f64x2.mul(ks, separablePair(mode, d1, s1)), f64x2.mul(kb, d1)), byte));
      const c2 = bytePair(f64x2.mul(f64x2.add(f64x2.mul(ks, separablePair(mode, d2, s2)), f64x2.mul(kb, d2)), byte));
      const c3 = bytePair(f64x2.mul(ao, byte));
      const out = v128.or(v128.or(c0, i32x4.shl(c1, 8)), v128.or(i32x4.shl(c2, 16), i32x4.shl(c3, 24)));
      v128.store64_lane(di, v128.bitselect(out, d, narrowMask(covered)), 0);
      continue;
    }
    let b0 = s0, b1 = s1, b2 = s2;
    if (!isNormal) {
      // (1 − ab)·s + ab·B(d, s) where the backdrop has alpha, s where it has none.
      const bare = f64x2.le(ab, zero);
      const rest = f64x2.sub(one, ab);
      b0 = v128.bitselect(s0, f64x2.add(f64x2.mul(rest, s0), f64x2.mul(ab, separablePair(mode, d0, s0))), bare);
      b1 = v128.bitselect(s1, f64x2.add(f64x2.mul(rest, s1), f64x2.mul(ab, separablePair(mode, d1, s1))), bare);
      b2 = v128.bitselect(s2, f64x2.add(f64x2.mul(rest, s2), f64x2.mul(ab, separablePair(mode, d2, s2))), bare);
    }
    const left = f64x2.sub(one, as);
    const ao = f64x2.add(as, f64x2.mul(ab, left));
    const kb = f64x2.div(f64x2.mul(ab, left), ao);
    const ks = f64x2.div(as, ao);
    const c0 = bytePair(f64x2.mul(f64x2.add(f64x2.mul(ks, b0), f64x2.mul(kb, d0)), byte));
    const c1 = bytePair(f64x2.mul(f64x2.add(f64x2.mul(ks, b1), f64x2.mul(kb, d1)), byte));
    const c2 = bytePair(f64x2.mul(f64x2.add(f64x2.mul(ks, b2), f64x2.mul(kb, d2)), byte));
    const c3 = bytePair(f64x2.mul(ao, byte));
    let out = v128.or(v128.or(c0, i32x4.shl(c1, 8)), v128.or(i32x4.shl(c2, 16), i32x4.shl(c3, 24)));
    if (isNormal) out = v128.bitselect(s, out, narrowMask(f64x2.eq(as, one)));
    out = v128.bitselect(out, d, narrowMask(covered));
    v128.store64_lane(di, out, 0);
  }
}

/** `separable` for the modes blendPairs takes, on two lanes. */
// @ts-ignore: decorator
@inline function separablePair(mode: i32, b: v128, s: v128): v128 {
  if (mode == MULTIPLY) return f64x2.mul(b, s);
  // SCREEN: b + s − b·s
  return f64x2.sub(f64x2.add(b, s), f64x2.mul(b, s));
}

function blendAny(dst: usize, src: usize, mask: usize, n: i32, opacity: f64, mode: i32, atop: i32, keep: i32, gamma: usize): void {
  blendLoop(dst, src, mask, n, opacity, mode, atop, keep, gamma);
}

// @ts-ignore: decorator
@inline function blendLoop(dst: usize, src: usize, mask: usize, n: i32, opacity: f64, mode: i32, atop: i32, keep: i32, gamma: usize): void {
  const isNormal = mode == NORMAL;
  for (let i = 0; i < n; i++) {
    const di = dst + (<usize>i << 2);
    const si = src + (<usize>i << 2);
    let as: f64 = unit(load<u8>(si, 3)) * opacity;
    if (mask) as *= unit(load<u8>(mask + <usize>i));
    if (as <= 0) continue;
    const saved = load<u32>(di);
    if (as == 1 && isNormal && !atop) {
      // Opaque source, normal mode: the formula reduces to round((s / 255) · 255) = s, a = 255.
      store<u32>(di, load<u32>(si));
      if (keep) restore(di, saved, keep);
      continue;
    }
    const ab: f64 = unit(load<u8>(di, 3));
    if (atop && ab <= 0) continue;
    let b0: f64, b1: f64, b2: f64;
    const s0: f64 = unit(load<u8>(si)), s1: f64 = unit(load<u8>(si, 1)), s2: f64 = unit(load<u8>(si, 2));
    if (isNormal || ab <= 0) {
      b0 = s0;
      b1 = s1;
      b2 = s2;
    } else if (atop) {
      // Clipped: the blend with the base's colour whole, as over an opaque base (the compositor's TypeScript).
      b0 = separable(mode, unit(load<u8>(di)), s0);
      b1 = separable(mode, unit(load<u8>(di, 1)), s1);
      b2 = separable(mode, unit(load<u8>(di, 2)), s2);
    } else {
      b0 = (1 - ab) * s0 + ab * separable(mode, unit(load<u8>(di)), s0);
      b1 = (1 - ab) * s1 + ab * separable(mode, unit(load<u8>(di, 1)), s1);
      b2 = (1 - ab) * s2 + ab * separable(mode, unit(load<u8>(di, 2)), s2);
    }
    if (atop) {
      store<u8>(di, clampByte((as * b0 + (1 - as) * unit(load<u8>(di))) * 255));
      store<u8>(di, clampByte((as * b1 + (1 - as) * unit(load<u8>(di, 1))) * 255), 1);
      store<u8>(di, clampByte((as * b2 + (1 - as) * unit(load<u8>(di, 2))) * 255), 2);
    } else {
      const ao = as + ab * (1 - as);
      const kb = (ab * (1 - as)) / ao;
      const ks = as / ao;
      if (gamma) {
        // Normal mode: the source's text-space value straight from the table (the compositor's `plain`).
        const t = gamma + 2048;
        store<u8>(di, gammaByte(t, ks * load<f64>(gamma + (<usize>load<u8>(si) << 3)) + kb * load<f64>(gamma + (<usize>load<u8>(di) << 3))));
        store<u8>(di, gammaByte(t, ks * load<f64>(gamma + (<usize>load<u8>(si, 1) << 3)) + kb * load<f64>(gamma + (<usize>load<u8>(di, 1) << 3))), 1);
        store<u8>(di, gammaByte(t, ks * load<f64>(gamma + (<usize>load<u8>(si, 2) << 3)) + kb * load<f64>(gamma + (<usize>load<u8>(di, 2) << 3))), 2);
        store<u8>(di, clampByte(ao * 255), 3);
        if (keep) restore(di, saved, keep);
        continue;
      }
      store<u8>(di, clampByte((ks * b0 + kb * unit(load<u8>(di))) * 255));
      store<u8>(di, clampByte((ks * b1 + kb * unit(load<u8>(di, 1))) * 255), 1);
      store<u8>(di, clampByte((ks * b2 + kb * unit(load<u8>(di, 2))) * 255), 2);
      store<u8>(di, clampByte(ao * 255), 3);
    }
    if (keep) restore(di, saved, keep);
  }
}

// @ts-ignore: decorator
@inline function restore(di: usize, saved: u32, keep: i32): void {
  if (keep & 1) store<u8>(di, <u8>saved);
  if (keep & 2) store<u8>(di, <u8>(saved >> 8), 1);
  if (keep & 4) store<u8>(di, <u8>(saved >> 16), 2);
}

/**
 * The compositor's fadeInto: dst = lerp(dst, after, opacity · mask) interpolated premultiplied,
 * over `n` pixels (`mask` one byte per pixel or 0).
 */
export function fadePixels(dst: usize, after: usize, mask: usize, n: i32, opacity: f64): void {
  const pairs = n & ~1;
  fadePairs(dst, after, mask, pairs, opacity);
  for (let i = pairs; i < n; i++) {
    const di = dst + (<usize>i << 2);
    const ai = after + (<usize>i << 2);
    const t: f64 = opacity * (mask ? <f64>load<u8>(mask + <usize>i) / 255 : 1);
    if (t >= 1) {
      store<u32>(di, load<u32>(ai));
      continue;
    }
    if (t <= 0) continue;
    const ab: f64 = <f64>load<u8>(di, 3);
    const aa: f64 = <f64>load<u8>(ai, 3);
    const ao = ab + (aa - ab) * t;
    if (ao <= 0) {
      store<u8>(di, 0, 3);
      continue;
    }
    for (let c = 0; c < 3; c++) {
      const d: f64 = <f64>load<u8>(di + <usize>c);
      const a: f64 = <f64>load<u8>(ai + <usize>c);
      store<u8>(di + <usize>c, clampByte((d * ab + (a * aa - d * ab) * t) / ao));
    }
    store<u8>(di, clampByte(ao), 3);
  }
}

/** Channel `shift` (a byte) of the two pixels in the low lanes of `px`, as f64. */
// @ts-ignore: decorator
@inline function bytesPair(px: v128, shift: i32): v128 {
  return f64x2.convert_low_i32x4_u(v128.and(i32x4.shr_u(px, shift), i32x4.splat(255)));
}

/**
 * fadePixels over `pairs` pixels (even), two at a time on f64x2 lanes: each lane does the scalar
 * loop's f64 operations in the same order; a lane takes `after` where the loop copies it
 * (t ≥ 1), keeps its pixel where the loop skips it (t ≤ 0), and only loses its alpha where the
 * faded alpha is 0.
 */
function fadePairs(dst: usize, after: usize, mask: usize, pairs: i32, opacity: f64): void {
  const one = f64x2.splat(1);
  const zero = f64x2.splat(0);
  let t = f64x2.splat(opacity);
  for (let i = 0; i < pairs; i += 2) {
    const di = dst + (<usize>i << 2);
    const ai = after + (<usize>i << 2);
    if (mask) {
      const m = mask + <usize>i;
      t = f64x2.mul(f64x2.splat(opacity), f64x2.div(f64x2.replace_lane(f64x2.splat(<f64>load<u8>(m)), 1, <f64>load<u8>(m, 1)), f64x2.splat(255)));
    }
    const d = v128.load64_zero(di);
    const a = v128.load64_zero(ai);
    const ab = bytesPair(d, 24);
    const aa = bytesPair(a, 24);
    const ao = f64x2.add(ab, f64x2.mul(f64x2.sub(aa, ab), t));
    const d0 = bytesPair(d, 0), d1 = bytesPair(d, 8), d2 = bytesPair(d, 16);
    const c0 = bytePair(f64x2.div(f64x2.add(f64x2.mul(d0, ab), f64x2.mul(f64x2.sub(f64x2.mul(bytesPair(a, 0), aa), f64x2.mul(d0, ab)), t)), ao));
    const c1 = bytePair(f64x2.div(f64x2.add(f64x2.mul(d1, ab), f64x2.mul(f64x2.sub(f64x2.mul(bytesPair(a, 8), aa), f64x2.mul(d1, ab)), t)), ao));
    const c2 = bytePair(f64x2.div(f64x2.add(f64x2.mul(d2, ab), f64x2.mul(f64x2.sub(f64x2.mul(bytesPair(a, 16), aa), f64x2.mul(d2, ab)), t)), ao));
    let out = v128.or(v128.or(c0, i32x4.shl(c1, 8)), v128.or(i32x4.shl(c2, 16), i32x4.shl(bytePair(ao), 24)));
    // Faded to nothing: the pixel keeps its colour, alpha 0.
    out = v128.bitselect(v128.and(d, i32x4.splat(0xffffff)), out, narrowMask(f64x2.le(ao, zero)));
    out = v128.bitselect(a, out, narrowMask(f64x2.ge(t, one)));
    out = v128.bitselect(out, d, narrowMask(f64x2.gt(t, zero)));
    v128.store64_lane(di, out, 0);
  }
}
