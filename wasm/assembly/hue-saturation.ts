// Hue/Saturation (src/engine/composite/adjust.ts hueSaturation, not colorized), bit-identical to
// its TypeScript: the same f64 operations in the same order on each pixel, JavaScript's
// Math.round (halves up) where it rounds, and a Uint8ClampedArray's store at the end (clamped to
// 0..255, halves to even: f64.nearest).

// @ts-ignore: decorator
@inline function roundHalfUp(x: f64): f64 {
  const up = Math.ceil(x);
  return up - 0.5 > x ? up - 1 : up;
}

// @ts-ignore: decorator
@inline function clampedByte(x: f64): u8 {
  return x > 0 ? (x < 255 ? <u8><i32>nearest<f64>(x) : 255) : 0;
}

/**
 * x % 360 (fmod: exact, the sign of x) without the general remainder's bit loop where it needs
 * none: x itself within (−360, 360), x − 360 over [360, 720) (exact: within a factor of two of
 * 360, Sterbenz).
 */
// @ts-ignore: decorator
@inline function remainder360(x: f64): f64 {
  if (x < 360 && x > -360) return x;
  if (x >= 360 && x < 720) return x - 360;
  return x % 360;
}

/** adjust.ts rangeWeight: how much of a colour range (a ≤ b ≤ c ≤ d, unwrapped) a hue takes. */
// @ts-ignore: decorator
@inline function rangeWeight(h: f64, a: f64, b: f64, c: f64, d: f64): f64 {
  for (let x = h - 360; x <= h + 720; x += 360) {
    if (x < a || x > d) continue;
    if (x < b) return b > a ? (x - a) / (b - a) : 1;
    if (x <= c) return 1;
    return d > c ? (d - x) / (d - c) : 1;
  }
  return 0;
}

/** The pixels from `d` to `end` one at a time: the TypeScript's loop as it is written. */
function scalarPixels(d: usize, end: usize, params: usize, nr: i32): void {
  const masterHue = load<f64>(params);
  const masterLight = load<f64>(params, 8);
  const masterAlpha = load<f64>(params, 16);
  const ranges = params + 24;
  for (let p = d; p < end; p += 4) {
    let r = <f64>load<u8>(p), g = <f64>load<u8>(p, 1), b = <f64>load<u8>(p, 2);
    if (masterLight > 0) {
      r = roundHalfUp(r + (255 - r) * masterLight); g = roundHalfUp(g + (255 - g) * masterLight); b = roundHalfUp(b + (255 - b) * masterLight);
    } else if (masterLight < 0) {
      const k = 1 + masterLight;
      r = roundHalfUp(r * k); g = roundHalfUp(g * k); b = roundHalfUp(b * k);
    }
    let mx = r > g ? (r > b ? r : b) : g > b ? g : b;
    let mn = r < g ? (r < b ? r : b) : g < b ? g : b;
    if (mx == mn) {
      store<u8>(p, clampedByte(r)); store<u8>(p, clampedByte(g), 1); store<u8>(p, clampedByte(b), 2);
      continue;
    }
    let turn = masterHue, light: f64 = 0, alpha: f64 = 0;
    // adjust.ts hexHue
    const dd = mx - mn;
    const h6 = mx == r ? (g - b) / dd : mx == g ? (b - r) / dd + 2 : (r - g) / dd + 4;
    const h = h6 < 0 ? h6 * 60 + 360 : h6 * 60;
    for (let k = 0; k < nr; k++) {
      const rg = ranges + <usize>k * 56;
      const w = rangeWeight(h, load<f64>(rg), load<f64>(rg, 8), load<f64>(rg, 16), load<f64>(rg, 24));
      if (w == 0) continue;
      turn += load<f64>(rg, 32) * w;
      light += load<f64>(rg, 40) * w;
      alpha += load<f64>(rg, 48) * w;
    }
    if (turn != 0) {
      let t = remainder360(h + turn);
      if (t < 0) t += 360;
      let sector = Math.floor(t / 60);
      if (sector >= 6) sector %= 6;
      const f = (mx - mn) * (t / 60 - Math.floor(t / 60));
      if (sector == 0) { r = mx; g = mn + f; b = mn; }
      else if (sector == 1) { r = mx - f; g = mx; b = mn; }
      else if (sector == 2) { r = mn; g = mx; b = mn + f; }
      else if (sector == 3) { r = mn; g = mx - f; b = mx; }
      else if (sector == 4) { r = mn + f; g = mn; b = mx; }
      else { r = mx; g = mn; b = mx - f; }
    }
    if (light != 0) {
      if (light > 0) {
        if (light > 1) light = 1;
        r += (mx - r) * light; g += (mx - g) * light; b += (mx - b) * light; mn += (mx - mn) * light;
      } else {
        if (light < -1) light = -1;
        r += (r - mn) * light; g += (g - mn) * light; b += (b - mn) * light; mx += (mx - mn) * light;
      }
    }
    for (let pass = 0; pass < 2; pass++) {
      const a0 = pass == 0 ? masterAlpha : alpha;
      if (a0 == 0 || mx <= mn) continue;
      const sum = mx + mn;
      const S = sum <= 255 ? (mx - mn) / sum : (mx - mn) / (510 - sum);
      const full = 1 / S - 1;
      const k = 1 + (a0 < -1 ? -1 : a0 > full ? full : a0);
      const L = sum / 2;
      r = L + (r - L) * k; g = L + (g - L) * k; b = L + (b - L) * k;
      mx = L + (mx - L) * k; mn = L + (mn - L) * k;
    }
    store<u8>(p, clampedByte(r)); store<u8>(p, clampedByte(g), 1); store<u8>(p, clampedByte(b), 2);
  }
}

// ---------------------------------------------------------------------------------------------
// Two pixels at a time (f64x2 lanes), without branches on a pixel's values: each lane does the
// operations the TypeScript does on its pixel, both sides of a condition are computed and the
// lane takes the side its condition picks (a side not taken may divide by zero: its value is
// dropped). Conditions on the parameters alone stay branches.

/** mask ? a : b, per lane. */
// @ts-ignore: decorator
@inline function sel(mask: v128, a: v128, b: v128): v128 {
  return v128.bitselect(a, b, mask);
}

// @ts-ignore: decorator
@inline function roundHalfUp2(x: v128): v128 {
  const up = f64x2.ceil(x);
  return sel(f64x2.gt(f64x2.sub(up, f64x2.splat(0.5)), x), f64x2.sub(up, f64x2.splat(1)), up);
}

/** The byte a Uint8ClampedArray stores for each lane, as i32 lanes 0 and 1. */
// @ts-ignore: decorator
@inline function clampedBytes(x: v128): v128 {
  const v = sel(f64x2.gt(x, f64x2.splat(0)), sel(f64x2.lt(x, f64x2.splat(255)), f64x2.nearest(x), f64x2.splat(255)), f64x2.splat(0));
  return i32x4.trunc_sat_f64x2_s_zero(v);
}

/** remainder360 per lane (the general remainder lane by lane, when a lane needs it). */
// @ts-ignore: decorator
@inline function remainder360x2(x: v128): v128 {
  const c360 = f64x2.splat(360);
  const within = v128.and(f64x2.lt(x, c360), f64x2.gt(x, f64x2.splat(-360)));
  const once = v128.and(f64x2.ge(x, c360), f64x2.lt(x, f64x2.splat(720)));
  let t = sel(within, x, f64x2.sub(x, c360));
  if (!v128.all_true<i64>(v128.or(within, once))) {
    t = f64x2.replace_lane(t, 0, remainder360(f64x2.extract_lane(x, 0)));
    t = f64x2.replace_lane(t, 1, remainder360(f64x2.extract_lane(x, 1)));
  }
  return t;
}

/** rangeWeight per lane: the first of h − 360, h, h + 360, h + 720 (while ≤ h + 720) within [a, d]. */
// @ts-ignore: decorator
@inline function rangeWeight2(h: v128, rg: usize): v128 {
  const a = f64x2.splat(load<f64>(rg)), b = f64x2.splat(load<f64>(rg, 8)), c = f64x2.splat(load<f64>(rg, 16)), d = f64x2.splat(load<f64>(rg, 24));
  const c360 = f64x2.splat(360);
  const lim = f64x2.add(h, f64x2.splat(720));
  let x = f64x2.sub(h, c360);
  let found = i64x2.splat(0);
  let at = x;
  for (let i = 0; i < 4; i++) {
    if (i) x = f64x2.add(x, c360);
    // Within the loop (x ≤ h + 720) and the range (not x < a or x > d), and none before.
    const hit = v128.andnot(v128.and(f64x2.le(x, lim), v128.not(v128.or(f64x2.lt(x, a), f64x2.gt(x, d)))), found);
    at = sel(hit, x, at);
    found = v128.or(found, hit);
  }
  if (!v128.any_true(found)) return f64x2.splat(0);
  const one = f64x2.splat(1);
  const rising = f64x2.lt(at, b), inside = f64x2.le(at, c);
  let w = one;
  // The sides' divisions only when a lane found takes them (their values are dropped otherwise).
  if (v128.any_true(v128.and(found, rising))) {
    w = sel(rising, sel(f64x2.gt(b, a), f64x2.div(f64x2.sub(at, a), f64x2.sub(b, a)), one), w);
  }
  const falling = v128.andnot(found, v128.or(rising, inside));
  if (v128.any_true(falling)) {
    w = sel(falling, sel(f64x2.gt(d, c), f64x2.div(f64x2.sub(d, at), f64x2.sub(d, c)), one), w);
  }
  return sel(found, w, f64x2.splat(0));
}

/** Entries of the colour cache (a power of two): 4,096 of a key and a value, 32 KB. */
const HUE_SATURATION_CACHE = 4096;

/** Hue bins (half a degree each) of the ranges a hue may fall in, one byte a bin after the colour cache. */
const HUE_BINS = 720;

/**
 * For each half degree of hue, the ranges (bit k: range k) that a hue within it may take: rangeWeight
 * looks for h − 360, h, h + 360 or h + 720 within [a, d], each made from h by adds that move it by
 * far less than the 1e-6 kept around both, so a range whose bit is clear gives every such hue 0.
 */
function hueBins(bins: usize, ranges: usize, nr: i32): void {
  const eps = 1e-6;
  for (let i = 0; i < HUE_BINS; i++) {
    const lo = <f64>i * 0.5 - eps, hi = <f64>(i + 1) * 0.5 + eps;
    let bits: u32 = 0;
    for (let k = 0; k < nr; k++) {
      const rg = ranges + <usize>k * 56;
      const a = load<f64>(rg) - eps, d = load<f64>(rg, 24) + eps;
      for (let s = -360; s <= 720; s += 360) {
        if (a <= hi + <f64>s && d >= lo + <f64>s) bits |= 1 << k;
      }
    }
    store<u8>(bins + i, <u8>bits);
  }
}

// @ts-ignore: decorator
@inline function slot(key: u32): usize {
  return <usize>((key * 2654435761) >>> 20) << 3; // Fibonacci hashing into 4,096 slots of 8 bytes
}

/**
 * `n` RGBA8 pixels at `d`, in place (alpha kept). `params` (f64): the master's hue turn, its
 * lightness (in 255ths, −1..1) and saturation α, then `nr` ranges of seven: a, b, c, d (unwrapped
 * hues), hue, lightness (−1..1), saturation α. `cache` holds HUE_SATURATION_CACHE × 8 + HUE_BINS bytes: the
 * result is a function of the pixel's colour alone, so each pair of pixels whose two colours were
 * both seen lately (flat fills, a text's colours, runs) takes the results kept for them.
 */
export function hueSaturationPixels(d: usize, n: i32, params: usize, nr: i32, cache: usize): void {
  const masterHue = load<f64>(params);
  const masterLight = load<f64>(params, 8);
  const masterAlpha = load<f64>(params, 16);
  const ranges = params + 24;
  const zero = f64x2.splat(0), one = f64x2.splat(1), c60 = f64x2.splat(60), c360 = f64x2.splat(360);
  const pairsEnd = d + (<usize>(n & ~1) << 2);
  memory.fill(cache, 0xff, HUE_SATURATION_CACHE << 3); // no colour's key (keys are 24 bits)
  const bins = cache + (HUE_SATURATION_CACHE << 3);
  hueBins(bins, ranges, nr);
  for (let p = d; p < pairsEnd; p += 8) {
    const w0 = load<u32>(p), w1 = load<u32>(p, 4);
    const k0 = w0 & 0xffffff, k1 = w1 & 0xffffff;
    const e0 = cache + slot(k0), e1 = cache + slot(k1);
    if (load<u32>(e0) == k0 && load<u32>(e1) == k1) {
      store<u32>(p, (w0 & 0xff000000) | load<u32>(e0, 4));
      store<u32>(p, (w1 & 0xff000000) | load<u32>(e1, 4), 4);
      continue;
    }
    let r = f64x2.replace_lane(f64x2.splat(<f64>load<u8>(p)), 1, <f64>load<u8>(p, 4));
    let g = f64x2.replace_lane(f64x2.splat(<f64>load<u8>(p, 1)), 1, <f64>load<u8>(p, 5));
    let b = f64x2.replace_lane(f64x2.splat(<f64>load<u8>(p, 2)), 1, <f64>load<u8>(p, 6));
    if (masterLight > 0) {
      const l = f64x2.splat(masterLight), c255 = f64x2.splat(255);
      r = roundHalfUp2(f64x2.add(r, f64x2.mul(f64x2.sub(c255, r), l)));
      g = roundHalfUp2(f64x2.add(g, f64x2.mul(f64x2.sub(c255, g), l)));
      b = roundHalfUp2(f64x2.add(b, f64x2.mul(f64x2.sub(c255, b), l)));
    } else if (masterLight < 0) {
      const k = f64x2.splat(1 + masterLight);
      r = roundHalfUp2(f64x2.mul(r, k)); g = roundHalfUp2(f64x2.mul(g, k)); b = roundHalfUp2(f64x2.mul(b, k));
    }
    let mx = sel(f64x2.gt(r, g), sel(f64x2.gt(r, b), r, b), sel(f64x2.gt(g, b), g, b));
    let mn = sel(f64x2.lt(r, g), sel(f64x2.lt(r, b), r, b), sel(f64x2.lt(g, b), g, b));
    const grey = f64x2.eq(mx, mn);
    const r0 = r, g0 = g, b0 = b;
    if (!v128.all_true<i64>(grey)) {
      // hexHue
      const dd = f64x2.sub(mx, mn);
      const isR = f64x2.eq(mx, r), isG = f64x2.eq(mx, g);
      const q = f64x2.div(sel(isR, f64x2.sub(g, b), sel(isG, f64x2.sub(b, r), f64x2.sub(r, g))), dd);
      const h6 = sel(isR, q, f64x2.add(q, sel(isG, f64x2.splat(2), f64x2.splat(4))));
      const h60 = f64x2.mul(h6, c60);
      const h = sel(f64x2.lt(h6, zero), f64x2.add(h60, c360), h60);
      let turn = f64x2.splat(masterHue), light = zero, alpha = zero;
      // Only the ranges either lane's hue may fall in (hueBins; a grey lane's NaN reads bin 0).
      const bin = i32x4.trunc_sat_f64x2_s_zero(f64x2.mul(h, f64x2.splat(2)));
      const bin0 = min<i32>(max<i32>(i32x4.extract_lane(bin, 0), 0), HUE_BINS - 1);
      const bin1 = min<i32>(max<i32>(i32x4.extract_lane(bin, 1), 0), HUE_BINS - 1);
      const hit = <u32>load<u8>(bins + <usize>bin0) | <u32>load<u8>(bins + <usize>bin1);
      for (let k = 0; k < nr; k++) {
        if (!(hit & (1 << k))) continue;
        const rg = ranges + <usize>k * 56;
        const w = rangeWeight2(h, rg);
        const some = v128.not(f64x2.eq(w, zero));
        turn = sel(some, f64x2.add(turn, f64x2.mul(f64x2.splat(load<f64>(rg, 32)), w)), turn);
        light = sel(some, f64x2.add(light, f64x2.mul(f64x2.splat(load<f64>(rg, 40)), w)), light);
        alpha = sel(some, f64x2.add(alpha, f64x2.mul(f64x2.splat(load<f64>(rg, 48)), w)), alpha);
      }
      const turned = v128.not(f64x2.eq(turn, zero));
      if (v128.any_true(turned)) {
        let t = remainder360x2(f64x2.add(h, turn));
        t = sel(f64x2.lt(t, zero), f64x2.add(t, c360), t);
        const t60 = f64x2.div(t, c60);
        const fl = f64x2.floor(t60);
        const sector = sel(f64x2.ge(fl, f64x2.splat(6)), f64x2.sub(fl, f64x2.splat(6)), fl);
        const f = f64x2.mul(dd, f64x2.sub(t60, fl));
        const up = f64x2.add(mn, f), down = f64x2.sub(mx, f);
        const s0 = f64x2.eq(sector, zero), s1 = f64x2.eq(sector, one), s2 = f64x2.eq(sector, f64x2.splat(2));
        const s3 = f64x2.eq(sector, f64x2.splat(3)), s4 = f64x2.eq(sector, f64x2.splat(4));
        const rt = sel(s0, mx, sel(s1, down, sel(s2, mn, sel(s3, mn, sel(s4, up, mx)))));
        const gt = sel(s0, up, sel(s1, mx, sel(s2, mx, sel(s3, down, mn))));
        const bt = sel(s0, mn, sel(s1, mn, sel(s2, up, sel(s3, mx, sel(s4, mx, down)))));
        r = sel(turned, rt, r); g = sel(turned, gt, g); b = sel(turned, bt, b);
      }
      if (nr && !v128.all_true<i64>(f64x2.eq(light, zero))) {
        // The ranges' lightness: towards the maximum (light > 0, at most 1) or the minimum.
        const lit = f64x2.gt(light, zero), dim = f64x2.lt(light, zero);
        const lu = f64x2.min(light, one); // light > 1 → 1 (the lanes taken are finite, > 0)
        const ld = sel(f64x2.lt(light, f64x2.splat(-1)), f64x2.splat(-1), light);
        const rl = sel(lit, f64x2.add(r, f64x2.mul(f64x2.sub(mx, r), lu)), sel(dim, f64x2.add(r, f64x2.mul(f64x2.sub(r, mn), ld)), r));
        const gl = sel(lit, f64x2.add(g, f64x2.mul(f64x2.sub(mx, g), lu)), sel(dim, f64x2.add(g, f64x2.mul(f64x2.sub(g, mn), ld)), g));
        const bl = sel(lit, f64x2.add(b, f64x2.mul(f64x2.sub(mx, b), lu)), sel(dim, f64x2.add(b, f64x2.mul(f64x2.sub(b, mn), ld)), b));
        const mnl = sel(lit, f64x2.add(mn, f64x2.mul(f64x2.sub(mx, mn), lu)), mn);
        const mxl = sel(dim, f64x2.add(mx, f64x2.mul(f64x2.sub(mx, mn), ld)), mx);
        r = rl; g = gl; b = bl; mn = mnl; mx = mxl;
      }
      for (let pass = 0; pass < 2; pass++) {
        if (pass == 0 ? masterAlpha == 0 : !nr) continue;
        const a0 = pass == 0 ? f64x2.splat(masterAlpha) : alpha;
        const on = v128.andnot(v128.not(f64x2.eq(a0, zero)), f64x2.le(mx, mn));
        if (!v128.any_true(on)) continue;
        const sum = f64x2.add(mx, mn);
        const S = f64x2.div(f64x2.sub(mx, mn), sel(f64x2.le(sum, f64x2.splat(255)), sum, f64x2.sub(f64x2.splat(510), sum)));
        const full = f64x2.sub(f64x2.div(one, S), one);
        const k = f64x2.add(one, sel(f64x2.lt(a0, f64x2.splat(-1)), f64x2.splat(-1), sel(f64x2.gt(a0, full), full, a0)));
        const L = f64x2.mul(sum, f64x2.splat(0.5)); // sum / 2, exactly
        r = sel(on, f64x2.add(L, f64x2.mul(f64x2.sub(r, L), k)), r);
        g = sel(on, f64x2.add(L, f64x2.mul(f64x2.sub(g, L), k)), g);
        b = sel(on, f64x2.add(L, f64x2.mul(f64x2.sub(b, L), k)), b);
        const mxs = f64x2.add(L, f64x2.mul(f64x2.sub(mx, L), k));
        const mns = f64x2.add(L, f64x2.mul(f64x2.sub(mn, L), k));
        mx = sel(on, mxs, mx);
        mn = sel(on, mns, mn);
      }
      r = sel(grey, r0, r); g = sel(grey, g0, g); b = sel(grey, b0, b);
    }
    const rb = clampedBytes(r), gb = clampedBytes(g), bb = clampedBytes(b);
    store<u8>(p, <u8>i32x4.extract_lane(rb, 0)); store<u8>(p, <u8>i32x4.extract_lane(gb, 0), 1); store<u8>(p, <u8>i32x4.extract_lane(bb, 0), 2);
    store<u8>(p, <u8>i32x4.extract_lane(rb, 1), 4); store<u8>(p, <u8>i32x4.extract_lane(gb, 1), 5); store<u8>(p, <u8>i32x4.extract_lane(bb, 1), 6);
    store<u32>(e0, k0);
    store<u32>(e0, load<u32>(p) & 0xffffff, 4);
    store<u32>(e1, k1);
    store<u32>(e1, load<u32>(p, 4) & 0xffffff, 4);
  }
  if (n & 1) scalarPixels(pairsEnd, pairsEnd + 4, params, nr);
}
