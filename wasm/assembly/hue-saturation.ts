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

// ---------------------------------------------------------------------------------------------
// Four pixels at a time in f32x4, the f64 path for each pixel where f32 could give other bytes.
// A channel ends as L + C × v: L the HSL middle ((max + min) / 2, moved by the range lightness),
// C the chroma (max − min, shrunk by the range lightness, multiplied by the saturation steps up
// to full saturation), v the channel's place in [−1/2, 1/2] between min and max (set by the hue
// turn, kept by the other steps). So f32's error on a channel stays within a bound worked out per
// lane from the settings and the lane's weights (QUAD_* below: each step's few f32 roundings with
// a margin of about two) instead of growing with each step's factor; where the settings keep it
// narrow, the largest that bound can be for any lane, once for the call (quadBounds). The TypeScript's f64 bytes
// can then differ only where its value lies within that bound of a place where the byte jumps;
// the steps between are continuous (the turn's sectors, the weights' slopes, the clamps, the cap
// at full saturation). Those places:
// - the master lightness's rounding: f32 only when it gives the f64 step for all 256 bytes
//   (quadsTake), and then exact;
// - a hue at a range's end a or d (0 below a, 1 at a when b = a, or the next turn of the hue):
//   the hue is the exact fraction H / dd of integers, so its place against whole-degree ends is a
//   comparison of integers (exact in f32 below 2^24), and a hue exactly at a or d goes to f64;
// - a channel's x.5 (the store's rounding): a channel within its bound of one goes to f64 (a
//   batch at a time), except where f32 and f64 are both exact (the master's α alone, quadExactAlpha).
// Checked against the f64 path on every 24-bit colour under 36 settings (the four of
// psdtools-adjust-hue-saturation, 32 random): the same bytes, the largest error a third of its
// bound; with the call's bound, under 104 settings and 50 of the master's alone, a ninth.
// Tests: huesat-f32 (fails without either check), huesat-bound.

/** Range records in f32 for the quads (QUAD_RANGE_BYTES each, up to QUAD_RANGES). */
const QUAD_RANGES = 16;
const QUAD_RANGE_BYTES = 48;
const quadRanges: usize = memory.data(QUAD_RANGES * QUAD_RANGE_BYTES, 16);

// Error bounds in f32 steps (ε = 2^-24 ≈ 6e-8, relative): a channel's roundings (L, C × v and
// their sum: a few ε × 255); v's without a turn ((c − L) / dd: 2ε × 1/2) and with one (the hue in
// sixths, its wraps and the hexcone place: ~45ε); C's relative (~8ε, counted on half of it); a
// weighted sum's (turn, lightness, α: ~12ε, up to 22ε with 16 ranges, of Σ |setting| × weight);
// the room to full saturation's (2 min(L, 255 − L): its roundings and L's, ~4ε × 255).
const QUAD_GUARD: f32 = 1.2e-4;
const QUAD_V_ERROR: f32 = 1.2e-7;
const QUAD_TURNED_V_ERROR: f32 = 6e-6;
const QUAD_C_ERROR: f32 = 6e-7;
const QUAD_SUM_ERROR: f32 = 2e-6;
const QUAD_ROOM_ERROR: f32 = 1.2e-4;

/**
 * Whether the f32 quads can take these settings: the master lightness gives the f64 bytes for all
 * 256 bytes, ranges have whole-degree ends within the turns the quads look at (a in (−360, 360],
 * d − a ≤ 1440: the candidate hues h − 360 … h + 360 and every integer below 2^24) and settings
 * within what Photoshop stores (hue turns ±360, lightness ±1, α −1..127), at most QUAD_RANGES
 * ranges. Fills quadRanges.
 */
function quadsTake(params: usize, nr: i32): bool {
  const masterHue = load<f64>(params), masterLight = load<f64>(params, 8), masterAlpha = load<f64>(params, 16);
  if (nr > QUAD_RANGES || !(Math.abs(masterHue) <= 360) || !(masterAlpha >= -1 && masterAlpha <= 127)) return false;
  if (!(masterLight >= -1 && masterLight <= 1)) return false;
  quadLightFloor = false;
  if (masterLight != 0) {
    const l32 = <f32>masterLight, k32 = <f32>(1 + masterLight);
    // The step as floor(x × scale + add) in f32 (three operations a channel, where roundHalfUp32
    // takes six), wherever that too gives every byte's step.
    quadLightScale = masterLight > 0 ? <f32>(1 - masterLight) : k32;
    quadLightAdd = masterLight > 0 ? <f32>(255 * masterLight + 0.5) : 0.5;
    let floors = true;
    for (let v = 0; v < 256; v++) {
      const x = <f64>v, x32 = <f32>v;
      const exact = masterLight > 0 ? roundHalfUp(x + (255 - x) * masterLight) : roundHalfUp(x * (1 + masterLight));
      const quick = masterLight > 0 ? roundHalfUp32(x32 + (<f32>255 - x32) * l32) : roundHalfUp32(x32 * k32);
      if (<f64>quick != exact) return false;
      if (<f64>Mathf.floor(x32 * quadLightScale + quadLightAdd) != exact) floors = false;
    }
    quadLightFloor = floors;
  }
  let turnAbs = Math.abs(masterHue / 60), lightAbs: f64 = 0, alphaAbs: f64 = 0, alphaUp: f64 = 0, turns = masterHue != 0;
  for (let k = 0; k < nr; k++) {
    const rg = params + 24 + <usize>k * 56;
    const a = load<f64>(rg), b = load<f64>(rg, 8), c = load<f64>(rg, 16), d = load<f64>(rg, 24);
    const hue = load<f64>(rg, 32), light = load<f64>(rg, 40), alpha = load<f64>(rg, 48);
    turnAbs += Math.abs(hue / 60); lightAbs += Math.abs(light); alphaAbs += Math.abs(alpha); alphaUp += max(alpha, 0);
    if (hue != 0) turns = true;
    if (!(a == Math.floor(a) && b == Math.floor(b) && c == Math.floor(c) && d == Math.floor(d))) return false;
    if (!(a > -360 && a <= 360 && a <= b && b <= c && c <= d && d - a <= 1440)) return false;
    if (!(Math.abs(hue) <= 360 && Math.abs(light) <= 1 && alpha >= -1 && alpha <= 127)) return false;
    // The first turn of the hue to test: x = h + 360 j ≥ a with a − 360 j in (0, 360].
    const first = a - 360 * (Math.ceil(a / 360) - 1);
    const q = quadRanges + <usize>k * QUAD_RANGE_BYTES;
    store<f32>(q, <f32>first);
    store<f32>(q, <f32>(b - a), 4);
    store<f32>(q, <f32>(c - a), 8);
    store<f32>(q, <f32>(d - a), 12);
    store<f32>(q, b > a ? <f32>(1 / (b - a)) : 0, 16);
    store<f32>(q, d > c ? <f32>(1 / (d - c)) : 0, 20);
    store<f32>(q, <f32>(hue / 60), 24);
    store<f32>(q, <f32>light, 28);
    store<f32>(q, <f32>alpha, 32);
    store<f32>(q, <f32>Math.abs(hue / 60), 36);
    store<f32>(q, <f32>Math.abs(light), 40);
    store<f32>(q, <f32>Math.abs(alpha), 44);
  }
  quadBounds(masterAlpha, nr, turnAbs, lightAbs, alphaAbs, alphaUp, turns);
  return true;
}

// The call's error bound on a channel, C × quadBoundPerC + dd × quadBoundPerDd + quadBoundConst
// (C the lane's chroma at the end, dd its chroma at the start), or 0 where C is 0 when
// quadExactWithoutChroma: the largest the lane by lane bound of huesat-f32 can be for any lane
// under these settings (each weight at most 1, each α at most its sum of positive αs).
let quadBoundPerC: f32 = 0, quadBoundPerDd: f32 = 0, quadBoundConst: f32 = 0;
/** Whether the master lightness's step is floor(x × quadLightScale + quadLightAdd) in f32 for every byte x (quadsTake). */
let quadLightFloor = false;
let quadLightScale: f32 = 1, quadLightAdd: f32 = 0;
let quadExactWithoutChroma = false;
/**
 * Whether the master's α is all the settings do to the chroma (no turn, no ranges) and 1 + α is a
 * multiple of 1/256 up to 128: then where C × (1 + α) stays under full saturation, the f64 path's
 * L + (channel − L) × (1 + α) is exact (a half-integer times 15 bits, within ±127.5, plus L), and so
 * is f32's, and the lane needs no bound. (C × k below the room by at least 1/256 puts the f64 path's
 * α under its rounded full saturation too.)
 */
let quadExactAlpha = false;
/** Whether the call's bound is too wide (its α sum's error times the α, or the lightness's): each lane's own then. */
let quadLaneBounds = false;

/** The widest call bound taken (at dd = 255, beyond C's part): wider ones redo too many lanes in f64. */
const QUAD_CALL_BOUND_MOST: f64 = 0.005;

function quadBounds(masterAlpha: f64, nr: i32, turnAbs: f64, lightAbs: f64, alphaAbs: f64, alphaUp: f64, turns: bool): void {
  const margin = 1.0001; // the weights' and the lane's own f32 roundings
  const sumError = <f64>QUAD_SUM_ERROR * margin;
  // v's error (its roundings, more with a turn, and the turn's sum's) and C's own relative error.
  const vError = <f64>QUAD_V_ERROR + turnAbs * margin * sumError + (turns ? <f64>QUAD_TURNED_V_ERROR : 0);
  // Through the steps: C ≤ dd × grows, C's error ≤ dd × errPerDd + errConst, L's ≤ dd × errLPerDd.
  const errLPerDd = lightAbs * sumError * 0.5;
  let grows: f64 = 1, errPerDd = lightAbs * sumError, errConst: f64 = 0;
  for (let pass = 0; pass < 2; pass++) {
    if (pass == 0 ? masterAlpha == 0 : !nr) continue;
    const k = pass == 0 ? max(1 + masterAlpha, 0) * margin : (1 + alphaUp) * margin;
    // grown: C's error × k (+ the α sum's error × C); room: L's twice and its own.
    let grownPerDd = errPerDd * k;
    if (pass == 1) grownPerDd += grows * alphaAbs * sumError;
    errPerDd = max(grownPerDd, 2 * errLPerDd);
    // A pass that shrinks C (k ≤ 0.99) with L where the steps before left it (no lightness:
    // L in [1/2, 254.5], room ≥ 1, C ≤ room) leaves every lane under the room by far more than
    // its errors: its error is C's times k, never the room's.
    const shrinks = pass == 0 && lightAbs == 0 && k <= 0.99 && 255 * grownPerDd + errConst * k + <f64>QUAD_ROOM_ERROR < 0.001;
    errConst = shrinks ? errConst * k : max(errConst * k, <f64>QUAD_ROOM_ERROR);
    grows *= k;
  }
  quadBoundPerC = <f32>((vError + <f64>QUAD_C_ERROR) * margin);
  quadBoundPerDd = <f32>((errLPerDd + errPerDd * 0.5) * margin);
  quadBoundConst = <f32>((errConst * 0.5 + <f64>QUAD_GUARD) * margin);
  // No lightness and no α sum's error: C's error stays 0 where the master's α takes all the chroma.
  quadExactWithoutChroma = lightAbs == 0 && (alphaAbs == 0 || masterAlpha == -1);
  const masterK = (1 + masterAlpha) * 256;
  quadExactAlpha = nr == 0 && !turns && masterAlpha != 0 && masterK == Math.floor(masterK) && masterK <= 128 * 256;
  quadLaneBounds = 255 * <f64>quadBoundPerDd + <f64>quadBoundConst > QUAD_CALL_BOUND_MOST;
}

// @ts-ignore: decorator
@inline function roundHalfUp32(x: f32): f32 {
  const up = Mathf.ceil(x);
  return up - <f32>0.5 > x ? up - 1 : up;
}

// The quads' vectors in memory, each loaded where it is used (vec): V8 builds a v128.const anew
// at each use in a loop (a 64-bit move, a move into a vector register and a shuffle) and works a
// splat of the settings out again in the branch that uses it, where a load is one instruction.
// They hold what those splats gave: quadVectors writes them on each call of quadPixels.
const V_ONE = 0, V_255 = 1, V_HALF = 2, V_SIX = 3, V_TWO = 4, V_FOUR = 5;
const V_60 = 6, V_360 = 7, V_120 = 8, V_SIXTH = 9, V_THREE = 10, V_ONE_HALF = 11;
const V_MINUS_HALF = 12, V_MINUS_ONE = 13, V_ROUNDER = 14, V_V_ERROR = 15, V_SUM_ERROR = 16, V_TURNED_V_ERROR = 17;
const V_ROOM_ERROR = 18, V_C_ERROR = 19, V_GUARD = 20;
const V_BYTE = 21, V_RGB = 22, V_ALPHA = 23, V_GREY = 24, V_ROUNDER_BITS = 25;
const V_LIGHT = 26, V_LIGHT_K = 27, V_BOUND_PER_C = 28, V_BOUND_PER_DD = 29, V_BOUND_CONST = 30, V_MASTER_K = 31;
const V_MASTER_ALPHA = 32, V_MASTER_TURN = 33, V_MASTER_TURN_ABS = 34, V_LIGHT_SCALE = 35, V_LIGHT_ADD = 36;
const QUAD_VECTORS: usize = memory.data(37 << 4, 16);

// @ts-ignore: decorator
@inline function vec(i: i32): v128 {
  return v128.load(QUAD_VECTORS + (<usize>i << 4));
}

/** Writes the quads' vectors: the constants, then the call's settings (masterK: 1 + the master's α, in f32). */
function quadVectors(masterHue: f32, masterLight: f64, masterAlpha: f32, masterK: f32): void {
  v128.store(QUAD_VECTORS + (<usize>V_ONE << 4), f32x4.splat(1));
  v128.store(QUAD_VECTORS + (<usize>V_255 << 4), f32x4.splat(255));
  v128.store(QUAD_VECTORS + (<usize>V_HALF << 4), f32x4.splat(0.5));
  v128.store(QUAD_VECTORS + (<usize>V_SIX << 4), f32x4.splat(6));
  v128.store(QUAD_VECTORS + (<usize>V_TWO << 4), f32x4.splat(2));
  v128.store(QUAD_VECTORS + (<usize>V_FOUR << 4), f32x4.splat(4));
  v128.store(QUAD_VECTORS + (<usize>V_60 << 4), f32x4.splat(60));
  v128.store(QUAD_VECTORS + (<usize>V_360 << 4), f32x4.splat(360));
  v128.store(QUAD_VECTORS + (<usize>V_120 << 4), f32x4.splat(120));
  v128.store(QUAD_VECTORS + (<usize>V_SIXTH << 4), f32x4.splat(<f32>(1.0 / 6)));
  v128.store(QUAD_VECTORS + (<usize>V_THREE << 4), f32x4.splat(3));
  v128.store(QUAD_VECTORS + (<usize>V_ONE_HALF << 4), f32x4.splat(1.5));
  v128.store(QUAD_VECTORS + (<usize>V_MINUS_HALF << 4), f32x4.splat(-0.5));
  v128.store(QUAD_VECTORS + (<usize>V_MINUS_ONE << 4), f32x4.splat(-1));
  v128.store(QUAD_VECTORS + (<usize>V_ROUNDER << 4), f32x4.splat(ROUNDER));
  v128.store(QUAD_VECTORS + (<usize>V_V_ERROR << 4), f32x4.splat(QUAD_V_ERROR));
  v128.store(QUAD_VECTORS + (<usize>V_SUM_ERROR << 4), f32x4.splat(QUAD_SUM_ERROR));
  v128.store(QUAD_VECTORS + (<usize>V_TURNED_V_ERROR << 4), f32x4.splat(QUAD_TURNED_V_ERROR));
  v128.store(QUAD_VECTORS + (<usize>V_ROOM_ERROR << 4), f32x4.splat(QUAD_ROOM_ERROR));
  v128.store(QUAD_VECTORS + (<usize>V_C_ERROR << 4), f32x4.splat(QUAD_C_ERROR));
  v128.store(QUAD_VECTORS + (<usize>V_GUARD << 4), f32x4.splat(QUAD_GUARD));
  v128.store(QUAD_VECTORS + (<usize>V_BYTE << 4), i32x4.splat(0xff));
  v128.store(QUAD_VECTORS + (<usize>V_RGB << 4), i32x4.splat(0xffffff));
  v128.store(QUAD_VECTORS + (<usize>V_ALPHA << 4), i32x4.splat(0xff000000));
  v128.store(QUAD_VECTORS + (<usize>V_GREY << 4), i32x4.splat(0x010101));
  v128.store(QUAD_VECTORS + (<usize>V_ROUNDER_BITS << 4), i32x4.splat(0x4b400000));
  v128.store(QUAD_VECTORS + (<usize>V_LIGHT << 4), f32x4.splat(<f32>masterLight));
  v128.store(QUAD_VECTORS + (<usize>V_LIGHT_K << 4), f32x4.splat(<f32>(1 + masterLight)));
  v128.store(QUAD_VECTORS + (<usize>V_BOUND_PER_C << 4), f32x4.splat(quadBoundPerC));
  v128.store(QUAD_VECTORS + (<usize>V_BOUND_PER_DD << 4), f32x4.splat(quadBoundPerDd));
  v128.store(QUAD_VECTORS + (<usize>V_BOUND_CONST << 4), f32x4.splat(quadBoundConst));
  v128.store(QUAD_VECTORS + (<usize>V_MASTER_K << 4), f32x4.splat(masterK));
  v128.store(QUAD_VECTORS + (<usize>V_MASTER_ALPHA << 4), f32x4.splat(masterAlpha));
  v128.store(QUAD_VECTORS + (<usize>V_MASTER_TURN << 4), f32x4.splat(masterHue / 60));
  v128.store(QUAD_VECTORS + (<usize>V_MASTER_TURN_ABS << 4), f32x4.splat(Mathf.abs(masterHue / 60)));
  v128.store(QUAD_VECTORS + (<usize>V_LIGHT_SCALE << 4), f32x4.splat(quadLightScale));
  v128.store(QUAD_VECTORS + (<usize>V_LIGHT_ADD << 4), f32x4.splat(quadLightAdd));
}

// @ts-ignore: decorator
@inline function roundHalfUp4(x: v128): v128 {
  const up = f32x4.ceil(x);
  return sel(f32x4.gt(f32x4.sub(up, vec(V_HALF)), x), f32x4.sub(up, vec(V_ONE)), up);
}

/** Lanes whose channel `v` (clamped to 0..255 as the store does) lies within `bound` of an x.5. */
// @ts-ignore: decorator
@inline function nearHalf(v: v128, bound: v128): v128 {
  const c = f32x4.pmin(f32x4.pmax(v, f32x4.splat(0)), vec(V_255));
  return f32x4.lt(f32x4.abs(f32x4.sub(f32x4.sub(c, f32x4.floor(c)), vec(V_HALF))), bound);
}

/**
 * 1.5 × 2^23: x + ROUNDER (|x| < 2^22) holds x rounded to the nearest integer (halves to even) in
 * its low mantissa bits, the integer less ROUNDER's bits.
 */
const ROUNDER: f32 = 12582912;

/** Whole f32 lanes (|x| < 2^22) as i32 lanes. */
// @ts-ignore: decorator
@inline function wholeToI32(x: v128): v128 {
  return i32x4.sub(f32x4.add(x, vec(V_ROUNDER)), vec(V_ROUNDER_BITS));
}

/** The bytes the store gives channels whose f32 value is not near an x.5 (clamped, nearest), as i32 lanes. */
// @ts-ignore: decorator
@inline function bytes4(v: v128): v128 {
  return v128.and(f32x4.add(f32x4.pmin(f32x4.pmax(v, f32x4.splat(0)), vec(V_255)), vec(V_ROUNDER)), vec(V_BYTE));
}

/** x mod 6 for x in [0, 12): the hue in sixths of a turn, wrapped. */
// @ts-ignore: decorator
@inline function wrapSixths(x: v128): v128 {
  return sel(f32x4.ge(x, vec(V_SIX)), f32x4.sub(x, vec(V_SIX)), x);
}

/** A channel's place in [−1/2, 1/2] between min and max in the hexcone colour at hue t6 (sixths): clamp(|t6 − 3| − 3/2). */
// @ts-ignore: decorator
@inline function hexPlace(t6: v128): v128 {
  const up = f32x4.sub(f32x4.abs(f32x4.sub(t6, vec(V_THREE))), vec(V_ONE_HALF));
  return f32x4.pmin(f32x4.pmax(up, vec(V_MINUS_HALF)), vec(V_HALF));
}

/** Pixels the quads leave to the f64 path, redone a batch at a time in f64 pairs: their input words and places. */
const REDO_BATCH = 64;
/** A cache slot's key that no colour has (keys are 24 bits). */
const NO_KEY: u32 = 0xffffffff;
const REDO_WORDS: usize = memory.data(REDO_BATCH << 2, 16);
const REDO_PLACES: usize = memory.data(REDO_BATCH << 2, 4);

/** The `n` queued pixels worked out by the f64 path (the pairs', the one left over by the scalar one) and put in their places. */
function redoBatch(n: i32, params: usize, nr: i32, cache: usize): void {
  const pairsEnd = REDO_WORDS + (<usize>(n & ~1) << 2);
  pairPixels(REDO_WORDS, pairsEnd, params, nr, cache);
  if (n & 1) scalarPixels(pairsEnd, pairsEnd + 4, params, nr);
  for (let i = 0; i < n; i++) store<u32>(load<u32>(REDO_PLACES + (<usize>i << 2)), load<u32>(REDO_WORDS + (<usize>i << 2)));
}

/**
 * Which error bound quadPixels<Bounds> works out: each lane's own (for settings whose call bound
 * is too wide, quadBounds) or the call's. Two types only so that the compiler makes two functions,
 * each with the code of its bound alone (a bool argument left V8 with ~8 % slower code).
 */
type LaneBounds = u8;
type CallBound = u16;
// @ts-ignore: decorator
@inline function isLaneBounds<T>(): bool {
  return sizeof<T>() == sizeof<LaneBounds>();
}

/**
 * Whether quadPixels<Bounds, Colours> looks colours up in the colour cache and keeps them there
 * (KeepsColours) or not (SkipsColours: on a photo few quads find all four colours kept, and the
 * look-ups and stores cost more than those save). Types, as Bounds, for two functions.
 */
type KeepsColours = u32;
type SkipsColours = u64;
// @ts-ignore: decorator
@inline function keepsColours<T>(): bool {
  return sizeof<T>() == sizeof<KeepsColours>();
}

/** Quads of a stretch with the colour cache (quadStretches): 256, 1,024 pixels. */
const CACHED_QUADS = 256;
/** Quads of that stretch found whole in the cache for the next to use it too (1 in 16). */
const CACHED_QUADS_FOUND = 16;
/** Quads of a stretch without it, after a stretch in which too few were found: 2,048. */
const UNCACHED_QUADS = 2048;

/**
 * The pixels from `d` to `end` (a whole number of quads) by quadPixels, in stretches with the
 * colour cache and, after one whose quads were seldom found in it, without it. The bytes are the
 * same either way (a colour's result is a function of the colour).
 */
function quadStretches<Bounds>(d: usize, end: usize, params: usize, nr: i32, cache: usize): void {
  for (let p = d; p < end; ) {
    const stretch = min<usize>(end, p + (CACHED_QUADS << 4));
    const found = quadPixels<Bounds, KeepsColours>(p, stretch, params, nr, cache);
    p = stretch;
    if (found >= CACHED_QUADS_FOUND || p >= end) continue;
    const bare = min<usize>(end, p + (UNCACHED_QUADS << 4));
    quadPixels<Bounds, SkipsColours>(p, bare, params, nr, cache);
    p = bare;
  }
}

/**
 * The pixels from `d` to `end` (a whole number of quads) four at a time in f32x4 (quadsTake said
 * yes), each lane's error bound worked out from its own weights (LaneBounds) or the call's
 * (CallBound). Returns how many quads took their results from the colour cache.
 */
function quadPixels<Bounds, Colours>(d: usize, end: usize, params: usize, nr: i32, cache: usize): i32 {
  const masterHue = <f32>load<f64>(params);
  const masterLight = load<f64>(params, 8);
  const masterAlpha = <f32>load<f64>(params, 16);
  const bins = cache + (HUE_SATURATION_CACHE << 3);
  const zero = f32x4.splat(0);
  quadVectors(masterHue, masterLight, masterAlpha, <f32>(1 + load<f64>(params, 16)));
  const exactWithoutChroma = quadExactWithoutChroma, exactAlpha = quadExactAlpha, lightFloor = quadLightFloor;
  // The last quad's colours (no colour's key is −1) and results: a flat fill's next quad takes them.
  let seenRgb = i32x4.splat(-1), seenOut = i32x4.splat(0);
  let queued = 0, found = 0;
  for (let p = d; p < end; p += 16) {
    const w = v128.load(p);
    const rgb = v128.and(w, vec(V_RGB)), alphas = v128.and(w, vec(V_ALPHA));
    if (v128.all_true<i32>(i32x4.eq(rgb, seenRgb))) {
      v128.store(p, v128.or(alphas, seenOut));
      continue;
    }
    // Colours seen lately (a text's, runs) take the results kept for them (the look-ups stop at
    // the first colour not found: on photos, mostly the first).
    const k0 = <u32>i32x4.extract_lane(rgb, 0), k1 = <u32>i32x4.extract_lane(rgb, 1);
    const k2 = <u32>i32x4.extract_lane(rgb, 2), k3 = <u32>i32x4.extract_lane(rgb, 3);
    const e0 = cache + slot(k0), e1 = cache + slot(k1), e2 = cache + slot(k2), e3 = cache + slot(k3);
    if (keepsColours<Colours>() && load<u32>(e0) == k0 && load<u32>(e1) == k1 && load<u32>(e2) == k2 && load<u32>(e3) == k3) {
      seenRgb = rgb;
      seenOut = i32x4.replace_lane(i32x4.replace_lane(i32x4.replace_lane(i32x4.splat(load<u32>(e0, 4)), 1, load<u32>(e1, 4)), 2, load<u32>(e2, 4)), 3, load<u32>(e3, 4));
      v128.store(p, v128.or(alphas, seenOut));
      found++;
      continue;
    }
    let r = f32x4.convert_i32x4_s(v128.and(w, vec(V_BYTE)));
    let g = f32x4.convert_i32x4_s(v128.and(i32x4.shr_u(w, 8), vec(V_BYTE)));
    let b = f32x4.convert_i32x4_s(v128.and(i32x4.shr_u(w, 16), vec(V_BYTE)));
    if (masterLight != 0 && lightFloor) {
      r = f32x4.floor(f32x4.add(f32x4.mul(r, vec(V_LIGHT_SCALE)), vec(V_LIGHT_ADD)));
      g = f32x4.floor(f32x4.add(f32x4.mul(g, vec(V_LIGHT_SCALE)), vec(V_LIGHT_ADD)));
      b = f32x4.floor(f32x4.add(f32x4.mul(b, vec(V_LIGHT_SCALE)), vec(V_LIGHT_ADD)));
    } else if (masterLight > 0) {
      r = roundHalfUp4(f32x4.add(r, f32x4.mul(f32x4.sub(vec(V_255), r), vec(V_LIGHT))));
      g = roundHalfUp4(f32x4.add(g, f32x4.mul(f32x4.sub(vec(V_255), g), vec(V_LIGHT))));
      b = roundHalfUp4(f32x4.add(b, f32x4.mul(f32x4.sub(vec(V_255), b), vec(V_LIGHT))));
    } else if (masterLight < 0) {
      r = roundHalfUp4(f32x4.mul(r, vec(V_LIGHT_K))); g = roundHalfUp4(f32x4.mul(g, vec(V_LIGHT_K))); b = roundHalfUp4(f32x4.mul(b, vec(V_LIGHT_K)));
    }
    let mx = f32x4.pmax(r, f32x4.pmax(g, b)), mn = f32x4.pmin(r, f32x4.pmin(g, b));
    const grey = f32x4.eq(mx, mn);
    let redo = i32x4.splat(0);
    let out = i32x4.mul(bytes4(mx), vec(V_GREY)); // a grey's three bytes
    if (!v128.all_true<i32>(grey)) {
      // hexHue as H6 / dd in sixths of a turn: the hexcone numerator, plus 6 below 0 (integers).
      const dd = f32x4.sub(mx, mn);
      const isR = f32x4.eq(mx, r), isG = f32x4.eq(mx, g);
      const num = sel(isR, f32x4.sub(g, b), sel(isG, f32x4.sub(b, r), f32x4.sub(r, g)));
      const sixths = sel(isR, v128.and(f32x4.lt(g, b), vec(V_SIX)), sel(isG, vec(V_TWO), vec(V_FOUR)));
      const H6 = f32x4.add(num, f32x4.mul(sixths, dd));
      const H = f32x4.mul(H6, vec(V_60)); // the hue in degrees times dd
      const invdd = f32x4.div(vec(V_ONE), dd);
      const h6 = f32x4.mul(H6, invdd);
      const turnDd = f32x4.mul(dd, vec(V_360));
      let turn6 = vec(V_MASTER_TURN), light = zero, alpha = zero;
      // Σ |setting| × weight of the hue turns, lightnesses and saturations: their sums' errors are at most a few f32 steps of these.
      let turnAbs = vec(V_MASTER_TURN_ABS), lightAbs = zero, alphaAbs = zero;
      // Only the ranges some lane's hue may fall in (hueBins; a grey lane's NaN reads a bin within 0..719).
      let hit: u32 = 0;
      if (nr) {
        const bin = wholeToI32(f32x4.floor(f32x4.mul(h6, vec(V_120))));
        hit = <u32>load<u8>(bins + <usize>min<i32>(max<i32>(i32x4.extract_lane(bin, 0), 0), HUE_BINS - 1))
          | <u32>load<u8>(bins + <usize>min<i32>(max<i32>(i32x4.extract_lane(bin, 1), 0), HUE_BINS - 1))
          | <u32>load<u8>(bins + <usize>min<i32>(max<i32>(i32x4.extract_lane(bin, 2), 0), HUE_BINS - 1))
          | <u32>load<u8>(bins + <usize>min<i32>(max<i32>(i32x4.extract_lane(bin, 3), 0), HUE_BINS - 1));
      }
      for (let k = 0; k < nr; k++) {
        if (!(hit & (1 << k))) continue;
        const q = quadRanges + <usize>k * QUAD_RANGE_BYTES;
        // x − a and d − x for the first turn x of the hue at or past a, times dd: integers.
        let P = f32x4.sub(H, f32x4.mul(v128.load32_splat(q), dd));
        P = f32x4.add(P, v128.and(f32x4.lt(P, zero), turnDd));
        const Q = f32x4.sub(f32x4.mul(v128.load32_splat(q, 12), dd), P);
        // At a or d exactly the f64 path decides (its hue may fall either side).
        redo = v128.or(redo, v128.or(f32x4.eq(P, zero), f32x4.eq(Q, zero)));
        const xa = f32x4.mul(P, invdd);
        const rising = f32x4.lt(xa, v128.load32_splat(q, 4)), falling = f32x4.gt(xa, v128.load32_splat(q, 8));
        const fall = f32x4.mul(f32x4.mul(Q, invdd), v128.load32_splat(q, 20));
        let wt = sel(rising, f32x4.mul(xa, v128.load32_splat(q, 16)), sel(falling, fall, vec(V_ONE)));
        wt = v128.and(wt, f32x4.ge(Q, zero));
        turn6 = f32x4.add(turn6, f32x4.mul(v128.load32_splat(q, 24), wt));
        light = f32x4.add(light, f32x4.mul(v128.load32_splat(q, 28), wt));
        alpha = f32x4.add(alpha, f32x4.mul(v128.load32_splat(q, 32), wt));
        if (isLaneBounds<Bounds>()) {
          turnAbs = f32x4.add(turnAbs, f32x4.mul(v128.load32_splat(q, 36), wt));
          lightAbs = f32x4.add(lightAbs, f32x4.mul(v128.load32_splat(q, 40), wt));
          alphaAbs = f32x4.add(alphaAbs, f32x4.mul(v128.load32_splat(q, 44), wt));
        }
      }
      // The colour as its HSL middle L, its chroma C (max − min) and each channel's place
      // v in [−1/2, 1/2] between min and max: channel = L + C × v. The steps below keep v
      // (the range lightness and saturation move L and scale C), so v's error is not multiplied.
      let L = f32x4.mul(f32x4.add(mx, mn), vec(V_HALF));
      // v's error: its own roundings (more with a turn), and the turn's error (from the weights').
      let vError = f32x4.add(vec(V_V_ERROR), f32x4.mul(turnAbs, vec(V_SUM_ERROR)));
      const turned = v128.not(f32x4.eq(turn6, zero));
      let vr: v128, vg: v128, vb: v128;
      if (v128.all_true<i32>(turned)) {
        // Every lane turned (a master turn, most quads): no lane keeps its own place.
        let t6 = f32x4.add(h6, turn6);
        t6 = f32x4.sub(t6, f32x4.mul(f32x4.floor(f32x4.mul(t6, vec(V_SIXTH))), vec(V_SIX)));
        vr = hexPlace(t6);
        vg = hexPlace(wrapSixths(f32x4.add(t6, vec(V_FOUR))));
        vb = hexPlace(wrapSixths(f32x4.add(t6, vec(V_TWO))));
        vError = f32x4.add(vError, vec(V_TURNED_V_ERROR));
      } else {
        vr = f32x4.mul(f32x4.sub(r, L), invdd); vg = f32x4.mul(f32x4.sub(g, L), invdd); vb = f32x4.mul(f32x4.sub(b, L), invdd);
        if (v128.any_true(turned)) {
          let t6 = f32x4.add(h6, turn6);
          t6 = f32x4.sub(t6, f32x4.mul(f32x4.floor(f32x4.mul(t6, vec(V_SIXTH))), vec(V_SIX)));
          vr = sel(turned, hexPlace(t6), vr);
          vg = sel(turned, hexPlace(wrapSixths(f32x4.add(t6, vec(V_FOUR)))), vg);
          vb = sel(turned, hexPlace(wrapSixths(f32x4.add(t6, vec(V_TWO)))), vb);
          vError = f32x4.add(vError, v128.and(turned, vec(V_TURNED_V_ERROR)));
        }
      }
      // Error bounds (beyond roundings, QUAD_GUARD): L's from the range lightness's weights, and C's.
      let C = dd, errL = zero, errC = zero, exactLanes = zero;
      const lit = nr && !v128.all_true<i32>(f32x4.eq(light, zero));
      if (lit) {
        // Towards the maximum (light > 0) or the minimum, at most all the way: L moves by
        // C × light / 2, C shrinks by 1 − |light|.
        const l = f32x4.pmin(f32x4.pmax(light, vec(V_MINUS_ONE)), vec(V_ONE));
        L = f32x4.add(L, f32x4.mul(f32x4.mul(dd, l), vec(V_HALF)));
        C = f32x4.mul(dd, f32x4.sub(vec(V_ONE), f32x4.abs(l)));
        if (isLaneBounds<Bounds>()) {
          errC = f32x4.mul(f32x4.mul(dd, lightAbs), vec(V_SUM_ERROR));
          errL = f32x4.mul(errC, vec(V_HALF));
        }
      }
      for (let pass = 0; pass < 2; pass++) {
        if (pass == 0 ? masterAlpha == 0 : !nr) continue;
        const a0 = pass == 0 ? vec(V_MASTER_ALPHA) : alpha;
        // C × (1 + α), at least 0 and at most full saturation (C = 2L, or 2 (255 − L)); a
        // colour with no chroma left stays so.
        const k = f32x4.pmax(f32x4.add(vec(V_ONE), a0), zero);
        const room = f32x4.mul(f32x4.pmin(L, f32x4.sub(vec(V_255), L)), vec(V_TWO));
        const grown = f32x4.mul(C, k);
        if (isLaneBounds<Bounds>()) {
          // C's error: times k, plus k's own (the ranges' α sum) times C; the room's where C
          // surely is the room, the larger of both where it may be either.
          let errGrown = f32x4.mul(errC, k);
          if (pass == 1) errGrown = f32x4.add(errGrown, f32x4.mul(f32x4.mul(C, alphaAbs), vec(V_SUM_ERROR)));
          const errRoom = f32x4.add(f32x4.add(errL, errL), vec(V_ROOM_ERROR));
          const capped = f32x4.ge(f32x4.sub(grown, errGrown), f32x4.add(room, errRoom));
          const under = f32x4.le(f32x4.add(grown, errGrown), f32x4.sub(room, errRoom));
          errC = sel(capped, errRoom, sel(under, errGrown, f32x4.pmax(errGrown, errRoom)));
        }
        // Under full saturation, the master's α alone with a k of few bits gives the f64 path's channels exactly.
        if (!isLaneBounds<Bounds>() && exactAlpha && pass == 0) exactLanes = f32x4.lt(grown, room);
        C = f32x4.pmin(grown, room);
      }
      // A channel L + C × v: C × v's error, L's, and C's on half of it (|v| ≤ 1/2); none at all
      // where C is exactly 0 and L exact (a full desaturation by the master: the f64 path's L too).
      let bound: v128;
      if (isLaneBounds<Bounds>()) {
        bound = f32x4.add(f32x4.add(f32x4.mul(C, f32x4.add(vError, vec(V_C_ERROR))), errL), f32x4.mul(errC, vec(V_HALF)));
        const exact = v128.and(f32x4.eq(C, zero), f32x4.eq(f32x4.add(errL, errC), zero));
        bound = sel(exact, zero, f32x4.add(bound, vec(V_GUARD)));
      } else {
        bound = f32x4.add(f32x4.add(f32x4.mul(C, vec(V_BOUND_PER_C)), f32x4.mul(dd, vec(V_BOUND_PER_DD))), vec(V_BOUND_CONST));
        if (exactWithoutChroma) bound = v128.andnot(bound, f32x4.eq(C, zero));
      }
      if (!isLaneBounds<Bounds>() && exactAlpha) {
        // L + (channel − L) × k: each product and sum exact in f32 (quadBounds), as in f64.
        r = sel(exactLanes, f32x4.add(L, f32x4.mul(f32x4.sub(r, L), vec(V_MASTER_K))), f32x4.add(L, f32x4.mul(C, vr)));
        g = sel(exactLanes, f32x4.add(L, f32x4.mul(f32x4.sub(g, L), vec(V_MASTER_K))), f32x4.add(L, f32x4.mul(C, vg)));
        b = sel(exactLanes, f32x4.add(L, f32x4.mul(f32x4.sub(b, L), vec(V_MASTER_K))), f32x4.add(L, f32x4.mul(C, vb)));
        bound = v128.andnot(bound, exactLanes);
      } else {
        r = f32x4.add(L, f32x4.mul(C, vr));
        g = f32x4.add(L, f32x4.mul(C, vg));
        b = f32x4.add(L, f32x4.mul(C, vb));
      }
      redo = v128.andnot(v128.or(redo, v128.or(nearHalf(r, bound), v128.or(nearHalf(g, bound), nearHalf(b, bound)))), grey);
      const coloured = v128.or(v128.or(bytes4(r), i32x4.shl(bytes4(g), 8)), i32x4.shl(bytes4(b), 16));
      out = v128.any_true(grey) ? sel(grey, out, coloured) : coloured;
    }
    v128.store(p, v128.or(alphas, out));
    const again = i32x4.bitmask(redo);
    if (again) {
      // Lanes to redo join the batch (their input words and places); until it is redone, no
      // colour of theirs is kept (their slots hold no key, the next quad compares in full).
      if (again & 1) { store<u32>(REDO_WORDS + (<usize>queued << 2), i32x4.extract_lane(w, 0)); store<u32>(REDO_PLACES + (<usize>queued << 2), p); queued++; }
      if (again & 2) { store<u32>(REDO_WORDS + (<usize>queued << 2), i32x4.extract_lane(w, 1)); store<u32>(REDO_PLACES + (<usize>queued << 2), p + 4); queued++; }
      if (again & 4) { store<u32>(REDO_WORDS + (<usize>queued << 2), i32x4.extract_lane(w, 2)); store<u32>(REDO_PLACES + (<usize>queued << 2), p + 8); queued++; }
      if (again & 8) { store<u32>(REDO_WORDS + (<usize>queued << 2), i32x4.extract_lane(w, 3)); store<u32>(REDO_PLACES + (<usize>queued << 2), p + 12); queued++; }
      seenRgb = i32x4.splat(-1);
      if (keepsColours<Colours>()) {
        store<u32>(e0, again & 1 ? NO_KEY : k0); store<u32>(e0, i32x4.extract_lane(out, 0), 4);
        store<u32>(e1, again & 2 ? NO_KEY : k1); store<u32>(e1, i32x4.extract_lane(out, 1), 4);
        store<u32>(e2, again & 4 ? NO_KEY : k2); store<u32>(e2, i32x4.extract_lane(out, 2), 4);
        store<u32>(e3, again & 8 ? NO_KEY : k3); store<u32>(e3, i32x4.extract_lane(out, 3), 4);
      }
      if (queued > REDO_BATCH - 4) {
        redoBatch(queued, params, nr, cache);
        queued = 0;
      }
      continue;
    }
    seenRgb = rgb;
    seenOut = out;
    if (!keepsColours<Colours>()) continue;
    store<u32>(e0, k0); store<u32>(e0, i32x4.extract_lane(out, 0), 4);
    store<u32>(e1, k1); store<u32>(e1, i32x4.extract_lane(out, 1), 4);
    store<u32>(e2, k2); store<u32>(e2, i32x4.extract_lane(out, 2), 4);
    store<u32>(e3, k3); store<u32>(e3, i32x4.extract_lane(out, 3), 4);
  }
  if (queued) redoBatch(queued, params, nr, cache);
  return found;
}

/**
 * `n` RGBA8 pixels at `d`, in place (alpha kept). `params` (f64): the master's hue turn, its
 * lightness (in 255ths, −1..1) and saturation α, then `nr` ranges of seven: a, b, c, d (unwrapped
 * hues), hue, lightness (−1..1), saturation α. `cache` holds HUE_SATURATION_CACHE × 8 + HUE_BINS bytes: the
 * result is a function of the pixel's colour alone, so pixels whose colours were seen lately (flat
 * fills, a text's colours, runs) take the results kept for them.
 */
export function hueSaturationPixels(d: usize, n: i32, params: usize, nr: i32, cache: usize): void {
  andInput(d, n);
  memory.fill(cache, 0xff, HUE_SATURATION_CACHE << 3); // no colour's key (keys are 24 bits)
  const bins = cache + (HUE_SATURATION_CACHE << 3);
  hueBins(bins, params + 24, nr);
  if (quadsTake(params, nr)) {
    const quadsEnd = d + (<usize>(n & ~3) << 2);
    // Both bounds in stretches. (Before the vectors were loaded (vec), V8's code for the lane
    // bounds' loop without the cache ran ~8 % slower on 'orion''s first box, and they kept it.)
    if (quadLaneBounds) quadStretches<LaneBounds>(d, quadsEnd, params, nr, cache);
    else quadStretches<CallBound>(d, quadsEnd, params, nr, cache);
    scalarPixels(quadsEnd, d + (<usize>n << 2), params, nr);
    return;
  }
  const pairsEnd = d + (<usize>(n & ~1) << 2);
  pairPixels(d, pairsEnd, params, nr, cache);
  if (n & 1) scalarPixels(pairsEnd, pairsEnd + 4, params, nr);
}

/**
 * The AND of every input word (RGBA8 pixel) given to hueSaturationPixels (and any other kernel
 * that calls andInput) since its caller set inputAnd to −1 and inputPixels to 0, and how many
 * pixels: its alpha byte is 255 when all were opaque (compositor.ts drawBoxedAdjustment copies a
 * box's rows instead of blending them then, without looking at its pixels again in JavaScript).
 */
export let inputAnd: i32 = -1;
export let inputPixels: i32 = 0;

/** Adds `n` RGBA8 pixels at `d` to inputAnd and inputPixels. */
export function andInput(d: usize, n: i32): void {
  const end = d + (<usize>n << 2), quadsEnd = d + (<usize>(n & ~3) << 2);
  let all = i32x4.splat(-1);
  for (let p = d; p < quadsEnd; p += 16) all = v128.and(all, v128.load(p));
  let word = i32x4.extract_lane(all, 0) & i32x4.extract_lane(all, 1) & i32x4.extract_lane(all, 2) & i32x4.extract_lane(all, 3);
  for (let p = quadsEnd; p < end; p += 4) word &= load<i32>(p);
  inputAnd &= word;
  inputPixels += n;
}

/** The pixels from `d` to `end` (a whole number of pairs) two at a time in f64x2. */
function pairPixels(d: usize, pairsEnd: usize, params: usize, nr: i32, cache: usize): void {
  const masterHue = load<f64>(params);
  const masterLight = load<f64>(params, 8);
  const masterAlpha = load<f64>(params, 16);
  const ranges = params + 24;
  const zero = f64x2.splat(0), one = f64x2.splat(1), c60 = f64x2.splat(60), c360 = f64x2.splat(360);
  const bins = cache + (HUE_SATURATION_CACHE << 3);
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
}
