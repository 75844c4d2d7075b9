// Layer effects' float passes, bit-identical to their TypeScript (src/engine/composite/morphology.ts
// boxH / boxV, effects.ts shiftedAlpha): values read from f32 arrays are promoted to f64, the
// arithmetic is the same f64 operations in the same order, and each result is demoted to f32 on
// store (round to nearest even), as a Float32Array store does. Running sums skip the zeros the
// TypeScript adds past an edge: adding +0 leaves a sum as it was (it is never −0).

/**
 * morphology.ts boxH: each row of `src` (w × h f32) box-summed over 2r + 1, into `dst`. Two rows
 * at a time, each with its own running sum in the row's order, so that their additions overlap.
 */
/**
 * The first x < w at which row `a` or row `b` (w f32 each) holds a value whose bits are not all
 * zero (w where none does). Four values at a time.
 */
function firstNonZero(a: usize, b: usize, w: i32): i32 {
  let x = 0;
  for (; x + 4 <= w; x += 4) {
    const at = <usize>x << 2;
    if (v128.any_true(v128.or(v128.load(a + at), v128.load(b + at)))) break;
  }
  for (; x < w; x++) {
    const at = <usize>x << 2;
    if ((load<u32>(a + at) | load<u32>(b + at)) != 0) return x;
  }
  return w;
}

function boxRows(src: usize, dst: usize, w: i32, h: i32, r: i32): void {
  const k: f64 = 1 / <f64>(2 * r + 1);
  const first = min<i32>(r, w);
  // x where x + r stops being inside, and where x − r − 1 starts being: the sum adds and
  // subtracts exactly where the TypeScript's conditions hold, in runs without them.
  const addEnd = max<i32>(0, w - r);
  const subStart = min<i32>(w, r + 1);
  const both = min<i32>(addEnd, subStart);
  const rowBytes = <usize>w << 2;
  let y = 0;
  for (; y + 1 < h; y += 2) {
    const a = src + <usize>y * rowBytes;
    const b = a + rowBytes;
    const oa = dst + <usize>y * rowBytes;
    const ob = oa + rowBytes;
    let sa: f64 = 0;
    let sb: f64 = 0;
    // Up to r before the rows' first value that is not +0, every sum so far is +0 (adding and
    // taking away +0 leaves +0) and so is every value written (+0 · k): those are written as
    // zeros and the sums start there (a shadow's rows are mostly its reach's empty margin; rows
    // with nothing in them are all zeros).
    const start = firstNonZero(a, b, w) - r;
    let x = 0;
    if (start > 0) {
      x = min<i32>(start, w);
      memory.fill(oa, 0, <usize>x << 2);
      memory.fill(ob, 0, <usize>x << 2);
    } else {
      for (let i = 0; i < first; i++) {
        const at = <usize>i << 2;
        sa += <f64>load<f32>(a + at);
        sb += <f64>load<f32>(b + at);
      }
    }
    for (; x < both; x++) {
      const at = <usize>x << 2;
      const add = <usize>(x + r) << 2;
      sa += <f64>load<f32>(a + add);
      sb += <f64>load<f32>(b + add);
      store<f32>(oa + at, <f32>(sa * k));
      store<f32>(ob + at, <f32>(sb * k));
    }
    for (; x < addEnd; x++) {
      const at = <usize>x << 2;
      const add = <usize>(x + r) << 2;
      const sub = <usize>(x - r - 1) << 2;
      sa += <f64>load<f32>(a + add);
      sb += <f64>load<f32>(b + add);
      sa -= <f64>load<f32>(a + sub);
      sb -= <f64>load<f32>(b + sub);
      store<f32>(oa + at, <f32>(sa * k));
      store<f32>(ob + at, <f32>(sb * k));
    }
    for (; x < subStart; x++) {
      const at = <usize>x << 2;
      store<f32>(oa + at, <f32>(sa * k));
      store<f32>(ob + at, <f32>(sb * k));
    }
    for (; x < w; x++) {
      const at = <usize>x << 2;
      const sub = <usize>(x - r - 1) << 2;
      sa -= <f64>load<f32>(a + sub);
      sb -= <f64>load<f32>(b + sub);
      store<f32>(oa + at, <f32>(sa * k));
      store<f32>(ob + at, <f32>(sb * k));
    }
  }
  for (; y < h; y++) {
    const row = src + <usize>y * rowBytes;
    const out = dst + <usize>y * rowBytes;
    let acc: f64 = 0;
    // As for two rows: zeros up to r before the row's first value that is not +0.
    const start = firstNonZero(row, row, w) - r;
    let x = 0;
    if (start > 0) {
      x = min<i32>(start, w);
      memory.fill(out, 0, <usize>x << 2);
    } else {
      for (let i = 0; i < first; i++) acc += <f64>load<f32>(row + (<usize>i << 2));
    }
    for (; x < both; x++) {
      acc += <f64>load<f32>(row + (<usize>(x + r) << 2));
      store<f32>(out + (<usize>x << 2), <f32>(acc * k));
    }
    for (; x < addEnd; x++) {
      acc += <f64>load<f32>(row + (<usize>(x + r) << 2));
      acc -= <f64>load<f32>(row + (<usize>(x - r - 1) << 2));
      store<f32>(out + (<usize>x << 2), <f32>(acc * k));
    }
    for (; x < subStart; x++) store<f32>(out + (<usize>x << 2), <f32>(acc * k));
    for (; x < w; x++) {
      acc -= <f64>load<f32>(row + (<usize>(x - r - 1) << 2));
      store<f32>(out + (<usize>x << 2), <f32>(acc * k));
    }
  }
}

/** Adds each of the first `rows` rows of `src` (w f32 a row) to its column's f64 sum: a column pass's window before row 0's. */
// @ts-ignore: decorator
@inline
function addFirstRows(src: usize, sums: usize, w: i32, rows: i32): void {
  const rowBytes = <usize>w << 2;
  for (let y = 0; y < rows; y++) {
    const row = src + <usize>y * rowBytes;
    for (let x = 0; x < w; x++) {
      const s = sums + (<usize>x << 3);
      store<f64>(s, load<f64>(s) + <f64>load<f32>(row + (<usize>x << 2)));
    }
  }
}

/**
 * morphology.ts boxV: each column box-summed over 2r + 1, a row at a time (one f64 running sum
 * per column in `sums`, w values), which does each column's operations in the column's order;
 * two columns at once (f64x2 lanes: the same IEEE operations as one at a time).
 */
function boxColumns(src: usize, dst: usize, sums: usize, w: i32, h: i32, r: i32): void {
  const k: f64 = 1 / <f64>(2 * r + 1);
  const kk = f64x2.splat(k);
  const rowBytes = <usize>w << 2;
  const pairs = w & ~1;
  memory.fill(sums, 0, <usize>w << 3);
  addFirstRows(src, sums, w, min<i32>(r, h));
  for (let y = 0; y < h; y++) {
    const add = y + r;
    const sub = y - r - 1;
    const adds = add < h;
    const subs = sub >= 0;
    const addRow = src + <usize>add * rowBytes;
    const subRow = src + <usize>sub * rowBytes;
    const out = dst + <usize>y * rowBytes;
    let x = 0;
    for (; x < pairs; x += 2) {
      const s = sums + (<usize>x << 3);
      const at = <usize>x << 2;
      let acc = v128.load(s);
      if (adds) acc = f64x2.add(acc, f64x2.promote_low_f32x4(v128.load64_zero(addRow + at)));
      if (subs) acc = f64x2.sub(acc, f64x2.promote_low_f32x4(v128.load64_zero(subRow + at)));
      v128.store(s, acc);
      v128.store64_lane(out + at, f32x4.demote_f64x2_zero(f64x2.mul(acc, kk)), 0);
    }
    for (; x < w; x++) {
      const s = sums + (<usize>x << 3);
      let acc = load<f64>(s);
      if (adds) acc += <f64>load<f32>(addRow + (<usize>x << 2));
      if (subs) acc -= <f64>load<f32>(subRow + (<usize>x << 2));
      store<f64>(s, acc);
      store<f32>(out + (<usize>x << 2), <f32>(acc * k));
    }
  }
}

/**
 * morphology.ts blur's box passes over `a` (w × h f32), the result back in `a`: for each box
 * radius in [r0, r1], rows into `b`, then columns back into `a` (radius 0: a copy, as there).
 * `b` holds w × h f32, `sums` w f64.
 */
export function boxBlur(a: usize, b: usize, sums: usize, w: i32, h: i32, r0: i32, r1: i32): void {
  for (let pass = 0; pass < 2; pass++) {
    const r = pass ? r1 : r0;
    if (r <= 0) continue; // boxH and boxV copy: `a` stays as it is
    boxRows(a, b, w, h, r);
    boxColumns(b, a, sums, w, h, r);
  }
}

/**
 * boxBlur over an array whose top rows (`top`) and left columns (`left`) go on before it as copies
 * of its first row and column: each pass's sums start with r copies of the first value, and a value
 * leaving the window before the array is that first value. For an inner shadow's body cut short of
 * the frame (effects.ts insideBody): where every value there and beyond is one that lies far from
 * the shape, the sums are those an array reaching the frame holds (exact: counts of such values).
 */
export function boxBlurClamped(a: usize, b: usize, sums: usize, w: i32, h: i32, r0: i32, r1: i32, top: i32, left: i32): void {
  for (let pass = 0; pass < 2; pass++) {
    const r = pass ? r1 : r0;
    if (r <= 0) continue;
    if (left) boxRowsClamped(a, b, w, h, r);
    else boxRows(a, b, w, h, r);
    if (top) boxColumnsClamped(b, a, sums, w, h, r);
    else boxColumns(b, a, sums, w, h, r);
  }
}

/** boxRows with the row's first value standing for every value before it. */
function boxRowsClamped(src: usize, dst: usize, w: i32, h: i32, r: i32): void {
  const k: f64 = 1 / <f64>(2 * r + 1);
  const first = min<i32>(r, w);
  const rowBytes = <usize>w << 2;
  for (let y = 0; y < h; y++) {
    const row = src + <usize>y * rowBytes;
    const out = dst + <usize>y * rowBytes;
    const v0 = <f64>load<f32>(row);
    let acc: f64 = 0;
    for (let i = 0; i <= r; i++) acc += v0; // the window before x = 0: r + 1 of them, one leaving at once
    for (let i = 0; i < first; i++) acc += <f64>load<f32>(row + (<usize>i << 2));
    for (let x = 0; x < w; x++) {
      const add = x + r;
      const sub = x - r - 1;
      if (add < w) acc += <f64>load<f32>(row + (<usize>add << 2));
      acc -= sub >= 0 ? <f64>load<f32>(row + (<usize>sub << 2)) : v0;
      store<f32>(out + (<usize>x << 2), <f32>(acc * k));
    }
  }
}

/** boxColumns with the first row standing for every row before it. */
function boxColumnsClamped(src: usize, dst: usize, sums: usize, w: i32, h: i32, r: i32): void {
  const k: f64 = 1 / <f64>(2 * r + 1);
  const rowBytes = <usize>w << 2;
  for (let x = 0; x < w; x++) {
    const v0 = <f64>load<f32>(src + (<usize>x << 2));
    let acc: f64 = 0;
    for (let i = 0; i <= r; i++) acc += v0; // the window before x = 0: r + 1 of them, one leaving at once
    store<f64>(sums + (<usize>x << 3), acc);
  }
  addFirstRows(src, sums, w, min<i32>(r, h));
  for (let y = 0; y < h; y++) {
    const add = y + r;
    const sub = y - r - 1;
    const addRow = src + <usize>add * rowBytes;
    const subRow = sub >= 0 ? src + <usize>sub * rowBytes : src;
    const out = dst + <usize>y * rowBytes;
    for (let x = 0; x < w; x++) {
      const s = sums + (<usize>x << 3);
      const at = <usize>x << 2;
      let acc = load<f64>(s);
      if (add < h) acc += <f64>load<f32>(addRow + at);
      acc -= <f64>load<f32>(subRow + at);
      store<f64>(s, acc);
      store<f32>(out + at, <f32>(acc * k));
    }
  }
}

/**
 * One box pass of morphology.ts blurInPlace over a strip of its array: `h` rows of `w` f32 at
 * `src`, each box-summed over 2r + 1 along the row, into `dst` (boxRows). Rows are independent:
 * a strip of rows gives each row what the whole array gives it.
 */
export function boxRowsStrip(src: usize, dst: usize, w: i32, h: i32, r: i32): void {
  boxRows(src, dst, w, h, r);
}

/**
 * The column pass of the same (boxColumns) over a strip of columns (`w` columns of `h` rows at
 * `src`, into `dst`; `sums` w f64): columns are independent, each summed in its own order.
 */
export function boxColumnsStrip(src: usize, dst: usize, sums: usize, w: i32, h: i32, r: i32): void {
  boxColumns(src, dst, sums, w, h, r);
}

/**
 * effects.ts shiftedAlpha's bilinear move: `src` is (w + 1) × (h + 1) f32, one more row and
 * column above and left; `out` w × h f32, each the four taps weighed by (1 − fx), fx, (1 − fy), fy.
 * Two columns at once (f64x2 lanes: the same IEEE operations as one at a time). A move by whole
 * pixels (fx = fy = 0, as shadows are now moved) weighs the tap at (x, y) by 1 · 1 and the others
 * by 0: v · 1 · 1 + 0 + 0 + 0 is v for the finite alphas these passes see, so the rows are copied.
 */
export function shiftBilinear(src: usize, out: usize, w: i32, h: i32, fx: f64, fy: f64): void {
  const sw = <usize>(w + 1);
  const rowBytes = <usize>w << 2;
  if (fx == 0 && fy == 0) {
    for (let y = 0; y < h; y++) memory.copy(out + <usize>y * rowBytes, src + ((<usize>(y + 1) * sw + 1) << 2), rowBytes);
    return;
  }
  const gx = 1 - fx;
  const gy = 1 - fy;
  const gxv = f64x2.splat(gx), gyv = f64x2.splat(gy), fxv = f64x2.splat(fx), fyv = f64x2.splat(fy);
  const pairs = w & ~1;
  for (let y = 0; y < h; y++) {
    const row = src + ((<usize>(y + 1) * sw + 1) << 2);
    const above = row - (sw << 2);
    const o = out + <usize>y * rowBytes;
    let x = 0;
    for (; x < pairs; x += 2) {
      const i = <usize>x << 2;
      const t0 = f64x2.mul(f64x2.mul(f64x2.promote_low_f32x4(v128.load64_zero(row + i)), gxv), gyv);
      const t1 = f64x2.mul(f64x2.mul(f64x2.promote_low_f32x4(v128.load64_zero(row + i - 4)), fxv), gyv);
      const t2 = f64x2.mul(f64x2.mul(f64x2.promote_low_f32x4(v128.load64_zero(above + i)), gxv), fyv);
      const t3 = f64x2.mul(f64x2.mul(f64x2.promote_low_f32x4(v128.load64_zero(above + i - 4)), fxv), fyv);
      v128.store64_lane(o + i, f32x4.demote_f64x2_zero(f64x2.add(f64x2.add(f64x2.add(t0, t1), t2), t3)), 0);
    }
    for (; x < w; x++) {
      const i = <usize>x << 2;
      const v =
        <f64>load<f32>(row + i) * gx * gy +
        <f64>load<f32>(row + i - 4) * fx * gy +
        <f64>load<f32>(above + i) * gx * fy +
        <f64>load<f32>(above + i - 4) * fx * fy;
      store<f32>(o + i, <f32>v);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The stroke's chamfer distance (morphology.ts chamferDistance / chamferPasses), bit-identical.
// Its two fields (seeded from the covered side and from the empty side) are passed together, one
// pixel's two values side by side (f64x2 and f32x4 lanes: each lane does the operations its own
// field would). There each step's sum is f64 (an f32 value promoted, plus 1, √2 or √5 as f64)
// and the least of them is demoted to f32 on store. Here:
// - the least of a set of f64 values is the same whatever the order it is taken in (no NaN or −0
//   is among them: seeds are 0.5 − a or a − 0.5 for a coverage a, or ±Infinity, and the steps
//   add positive numbers), and demoting to f32 keeps the order (f32(min) = min of the f32s), so a
//   pixel's steps from the rows already done and its own value are taken first, their least
//   demoted, and the step from the pixel just before in the row last, in f32;
// - that step is an f32 addition of 1: an f32 value plus 1 in f64 demoted to f32 is the f32 sum
//   (binary64 holds more than 2 × 24 + 2 bits, so rounding twice gives the correctly rounded
//   binary32 sum). Its chain (add, least) is all that waits from pixel to pixel.

/** The field's empty value (morphology.ts INF, 1e20 rounded to f32 as a Float32Array stores it). */
const CHAMFER_INF: f32 = <f32>1e20;
const S2: f64 = Math.SQRT2;
const S5: f64 = Math.sqrt(5.0);

/** A pixel's two values (8 bytes at `ptr`) promoted to f64x2. */
// @ts-ignore: decorator
@inline function pair(ptr: usize): v128 {
  return f64x2.promote_low_f32x4(v128.load64_zero(ptr));
}

/** `least` or the pixel at `ptr` plus `by`, whichever is less (the TypeScript's `if (t < v) v = t`). */
// @ts-ignore: decorator
@inline function step(least: v128, ptr: usize, by: v128): v128 {
  return f64x2.pmin(least, f64x2.add(pair(ptr), by));
}

/** chamferPasses over `d` (pw × ph pixels of two f32, the two outer rows and columns INF), in place. */
function chamferPasses(d: usize, pw: i32, ph: i32): void {
  const one = f64x2.splat(1);
  const s2 = f64x2.splat(S2);
  const s5 = f64x2.splat(S5);
  const onef = f32x4.splat(1);
  const n = pw - 4; // pixels a row
  const r1 = <usize>pw << 3;
  const r2 = r1 << 1;
  for (let y = 2; y < ph - 2; y++) {
    const row = d + (<usize>(y * pw + 2) << 3);
    // The steps from the two rows above (straight up, the diagonals, the four knight's moves) and
    // the pixel's own value, their least demoted, then the step from the left.
    let before = v128.load64_zero(row - 8);
    for (let x = 0; x < n; x++) {
      const i = row + (<usize>x << 3);
      const p = i - r1;
      const q = i - r2;
      let v = pair(i);
      v = step(v, p, one);
      v = step(v, p - 8, s2);
      v = step(v, p + 8, s2);
      v = step(v, p - 16, s5);
      v = step(v, p + 16, s5);
      v = step(v, q - 8, s5);
      v = step(v, q + 8, s5);
      // Then the step from the left (the value just stored).
      before = f32x4.pmin(f32x4.demote_f64x2_zero(v), f32x4.add(before, onef));
      v128.store64_lane(i, before, 0);
    }
  }
  for (let y = ph - 3; y >= 2; y--) {
    const row = d + (<usize>(y * pw + 2) << 3);
    // The steps from the two rows below and the pixel's own, then the step from the right, right
    // to left.
    let after = v128.load64_zero(row + (<usize>n << 3));
    for (let x = n - 1; x >= 0; x--) {
      const i = row + (<usize>x << 3);
      const p = i + r1;
      const q = i + r2;
      let v = pair(i);
      v = step(v, p, one);
      v = step(v, p + 8, s2);
      v = step(v, p - 8, s2);
      v = step(v, p + 16, s5);
      v = step(v, p - 16, s5);
      v = step(v, q + 8, s5);
      v = step(v, q - 8, s5);
      // Then the step from the right (the value just stored).
      after = f32x4.pmin(f32x4.demote_f64x2_zero(v), f32x4.add(after, onef));
      v128.store64_lane(i, after, 0);
    }
  }
}

/**
 * morphology.ts chamferDistance: `a` (w × h f32 coverages) → `out` (w × h f32 signed distances).
 * `d` holds (w + 4) × (h + 4) pixels of two f32 (8 bytes).
 */
export function chamferDistance(a: usize, out: usize, d: usize, w: i32, h: i32): void {
  const pw = w + 4;
  const ph = h + 4;
  const rowBytes = <usize>pw << 3;
  const inf = i64x2.splat(<i64>reinterpret<i32>(CHAMFER_INF) * 0x100000001);
  // The two outer rows and columns stay INF; the seeds fill the rest.
  for (let y = 0; y < ph; y++) {
    const row = d + <usize>y * rowBytes;
    if (y < 2 || y >= ph - 2) {
      for (let x = 0; x < pw; x++) v128.store64_lane(row + (<usize>x << 3), inf, 0);
    } else {
      v128.store(row, inf);
      v128.store(row + (<usize>(pw - 2) << 3), inf);
    }
  }
  // Seeds: the covered side's (a > 0) at 0.5 − a, the empty side's (a < 1) at a − 0.5, four
  // pixels at a time (each f32 promoted, the difference in f64, demoted), then the rest.
  const quads = w & ~3;
  const infs = f32x4.splat(CHAMFER_INF);
  const half = f64x2.splat(0.5);
  for (let y = 0; y < h; y++) {
    const src = a + (<usize>(y * w) << 2);
    const dst = d + (<usize>((y + 2) * pw + 2) << 3);
    let x = 0;
    for (; x < quads; x += 4) {
      const c = v128.load(src + (<usize>x << 2));
      const lo = f64x2.promote_low_f32x4(c);
      const hi = f64x2.promote_low_f32x4(i32x4.shuffle(c, c, 2, 3, 0, 1));
      const outer = i32x4.shuffle(f32x4.demote_f64x2_zero(f64x2.sub(half, lo)), f32x4.demote_f64x2_zero(f64x2.sub(half, hi)), 0, 1, 4, 5);
      const inner = i32x4.shuffle(f32x4.demote_f64x2_zero(f64x2.sub(lo, half)), f32x4.demote_f64x2_zero(f64x2.sub(hi, half)), 0, 1, 4, 5);
      const o = v128.bitselect(outer, infs, f32x4.gt(c, f32x4.splat(0)));
      const i = v128.bitselect(inner, infs, f32x4.lt(c, f32x4.splat(1)));
      const at = dst + (<usize>x << 3);
      v128.store(at, i32x4.shuffle(o, i, 0, 4, 1, 5));
      v128.store(at, i32x4.shuffle(o, i, 2, 6, 3, 7), 16);
    }
    for (; x < w; x++) {
      const c = <f64>load<f32>(src + (<usize>x << 2));
      const at = dst + (<usize>x << 3);
      store<f32>(at, c > 0 ? <f32>(0.5 - c) : CHAMFER_INF);
      store<f32>(at, c < 1 ? <f32>(c - 0.5) : CHAMFER_INF, 4);
    }
  }
  chamferPasses(d, pw, ph);
  // a < ½ (or NaN) takes the covered side's distance; the rest the empty side's, negated.
  for (let y = 0; y < h; y++) {
    const src = a + (<usize>(y * w) << 2);
    const from = d + (<usize>((y + 2) * pw + 2) << 3);
    const to = out + (<usize>(y * w) << 2);
    let x = 0;
    for (; x < quads; x += 4) {
      const p = from + (<usize>x << 3);
      const p0 = v128.load(p), p1 = v128.load(p, 16);
      const outer = i32x4.shuffle(p0, p1, 0, 2, 4, 6);
      const inner = f32x4.neg(i32x4.shuffle(p0, p1, 1, 3, 5, 7));
      const at = <usize>x << 2;
      v128.store(to + at, v128.bitselect(inner, outer, f32x4.ge(v128.load(src + at), f32x4.splat(0.5))));
    }
    for (; x < w; x++) {
      const at = <usize>x << 2;
      const p = from + (<usize>x << 3);
      store<f32>(to + at, load<f32>(src + at) >= 0.5 ? -load<f32>(p, 4) : load<f32>(p));
    }
  }
}

// ---------------------------------------------------------------------------------------------
// A drop shadow drawn in the kernels' memory (src/engine/composite/effects.ts shadowInKernels):
// the shape's alpha read from its pixels, and the shadow's pixels made from the blurred coverage
// for the blend, bit-identical to the TypeScript they stand for.

/** v / 255 for every byte v, as a Float32Array stores it (f64 quotient rounded to f32). */
const ALPHA_F32: usize = memory.data(256 << 2, 16);
let alphaReady = false;

/**
 * effects.ts shapeFrom's alpha read (`pixels[c * 4 + 3] / 255` into a Float32Array): the alpha
 * bytes of `h` rows of `w` RGBA8 pixels packed at `rgba`, into rows of `stride` f32 at `out`.
 */
export function alphaRect(rgba: usize, w: i32, h: i32, out: usize, stride: i32): void {
  if (!alphaReady) {
    for (let v = 0; v < 256; v++) store<f32>(ALPHA_F32 + (<usize>v << 2), <f32>(<f64>v / 255));
    alphaReady = true;
  }
  for (let y = 0; y < h; y++) {
    const src = rgba + ((<usize>y * <usize>w) << 2);
    const dst = out + ((<usize>y * <usize>stride) << 2);
    for (let x = 0; x < w; x++) store<f32>(dst + (<usize>x << 2), load<f32>(ALPHA_F32 + (<usize>load<u8>(src + (<usize>x << 2), 3) << 2)));
  }
}

/**
 * effects.ts shiftSource's inverted read (`src[i] = 1 - src[i]` over a Float32Array: 1 − x in f64,
 * stored rounded to f32) over `n` f32 at `ptr`, in place: what lies outside the shape, which an
 * inner shadow's and a softer inner glow's bodies blur.
 */
export function oneMinus(ptr: usize, n: i32): void {
  const one = f64x2.splat(1);
  const quads = n & ~3;
  let i = 0;
  for (; i < quads; i += 4) {
    const p = ptr + (<usize>i << 2);
    const v = v128.load(p);
    const lo = f32x4.demote_f64x2_zero(f64x2.sub(one, f64x2.promote_low_f32x4(v)));
    const hi = f32x4.demote_f64x2_zero(f64x2.sub(one, f64x2.promote_low_f32x4(i32x4.shuffle(v, v, 2, 3, 0, 1))));
    v128.store(p, i32x4.shuffle(lo, hi, 0, 1, 4, 5));
  }
  for (; i < n; i++) {
    const p = ptr + (<usize>i << 2);
    store<f32>(p, <f32>(1.0 - <f64>load<f32>(p)));
  }
}

/**
 * effects.ts paint's pixels of one colour: `rgb` (bytes r, g, b in its low three bytes) with
 * alpha coverage · 255 stored as a Uint8ClampedArray stores it (NaN 0, clamped to 0..255, halves
 * to even), for `h` rows of `w` coverages at `cov` (rows `stride` f32 apart) into `out` (w × h
 * RGBA8). Four pixels at a time: each coverage promoted to f64 and multiplied as in JavaScript.
 */
export function coveragePixels(cov: usize, stride: i32, w: i32, h: i32, out: usize, rgb: u32): void {
  const byte = f64x2.splat(255);
  const zero = f64x2.splat(0);
  const colour = i32x4.splat(rgb & 0xffffff);
  const quads = w & ~3;
  for (let y = 0; y < h; y++) {
    const src = cov + ((<usize>y * <usize>stride) << 2);
    const dst = out + ((<usize>y * <usize>w) << 2);
    let x = 0;
    for (; x < quads; x += 4) {
      const c = v128.load(src + (<usize>x << 2));
      const lo = i32x4.trunc_sat_f64x2_s_zero(f64x2.pmin(f64x2.pmax(zero, f64x2.nearest(f64x2.mul(f64x2.promote_low_f32x4(c), byte))), byte));
      const hi = i32x4.trunc_sat_f64x2_s_zero(f64x2.pmin(f64x2.pmax(zero, f64x2.nearest(f64x2.mul(f64x2.promote_low_f32x4(i32x4.shuffle(c, c, 2, 3, 0, 1)), byte))), byte));
      const a = i32x4.shuffle(lo, hi, 0, 1, 4, 5);
      v128.store(dst + (<usize>x << 2), v128.or(colour, i32x4.shl(a, 24)));
    }
    for (; x < w; x++) {
      const v = <f64>load<f32>(src + (<usize>x << 2)) * 255;
      const a: u32 = !(v > 0) ? 0 : v >= 255 ? 255 : <u32>nearest<f64>(v);
      store<u32>(dst + (<usize>x << 2), (rgb & 0xffffff) | (a << 24));
    }
  }
}

/**
 * effects.ts paint's pixels of one colour into the layer's own composite (inLayer true: an
 * overlay recolouring the layer within its alpha): the alpha byte is 0 where the composite's is
 * (`held`, w × h RGBA8 packed, its alpha bytes read), else min(1, coverage · 255 ÷ that alpha) · 255
 * stored as a Uint8ClampedArray stores it (NaN 0, clamped, halves to even); the same f64
 * operations in the same order as the JavaScript. Rows of `cov` `stride` f32 apart; `out` w × h
 * RGBA8 with `rgb` (r, g, b in its low three bytes).
 */
export function coveragePixelsWithin(cov: usize, stride: i32, w: i32, h: i32, out: usize, rgb: u32, held: usize): void {
  const colour = rgb & 0xffffff;
  for (let y = 0; y < h; y++) {
    const src = cov + ((<usize>y * <usize>stride) << 2);
    const row = (<usize>y * <usize>w) << 2;
    for (let x = 0; x < w; x++) {
      const at = <usize>x << 2;
      const a = <f64>load<u8>(held + row + at, 3);
      let alpha: u32 = 0;
      if (a != 0) {
        const v = min<f64>(1, (<f64>load<f32>(src + at) * 255) / a) * 255;
        alpha = !(v > 0) ? 0 : v >= 255 ? 255 : <u32>nearest<f64>(v);
      }
      store<u32>(out + row + at, colour | (alpha << 24));
    }
  }
}

/**
 * effects.ts paint's alpha bytes beside per-pixel colours already in `out` (w × h RGBA8: a
 * gradient's or pattern's, or a mode's own colours): coverage · 255, or with `held` (not 0: the
 * layer's own composite, w × h RGBA8) coveragePixelsWithin's relative alpha, stored as a
 * Uint8ClampedArray stores it; the colour bytes are left as they are.
 */
export function coverageAlpha(cov: usize, stride: i32, w: i32, h: i32, out: usize, held: usize): void {
  for (let y = 0; y < h; y++) {
    const src = cov + ((<usize>y * <usize>stride) << 2);
    const row = (<usize>y * <usize>w) << 2;
    for (let x = 0; x < w; x++) {
      const at = <usize>x << 2;
      let v: f64;
      if (held) {
        const a = <f64>load<u8>(held + row + at, 3);
        v = a != 0 ? min<f64>(1, (<f64>load<f32>(src + at) * 255) / a) * 255 : 0;
      } else v = <f64>load<f32>(src + at) * 255;
      store<u8>(out + row + at, !(v > 0) ? 0 : v >= 255 ? 255 : <u8>nearest<f64>(v), 3);
    }
  }
}

/** morphology.ts clamp01. */
// @ts-ignore: decorator
@inline function clamp01(t: f64): f64 {
  return t <= 0 ? 0 : t >= 1 ? 1 : t;
}

/**
 * effects.ts drawStrokes' pixels of one colour for one stroke: over `h` rows of `w` pixels, the
 * band's coverage of each signed distance at `dist` (morphology.ts bandCoverage, stored as f32),
 * where `held` > 0 taken relative to what the content will leave showing (1 − own · held, `own`
 * the layer's alpha at `own`, both rows `stride` f32 apart), then paint's alpha byte of it (as
 * coveragePixels) beside `rgb`, into `out` (w × h RGBA8).
 */
export function strokePixels(dist: usize, own: usize, stride: i32, w: i32, h: i32, lo: f64, hi: f64, held: f64, out: usize, rgb: u32): void {
  const colour = rgb & 0xffffff;
  for (let y = 0; y < h; y++) {
    const d = dist + ((<usize>y * <usize>stride) << 2);
    const o = own + ((<usize>y * <usize>stride) << 2);
    const dst = out + ((<usize>y * <usize>w) << 2);
    for (let x = 0; x < w; x++) {
      const at = <usize>x << 2;
      const dv = <f64>load<f32>(d + at);
      let cov = <f32>(clamp01(hi - dv + 0.5) - clamp01(lo - dv + 0.5));
      if (held > 0) {
        const a = load<f32>(o + at);
        if (cov != 0 && a != 0) {
          // JavaScript's `!cov || !own` skips NaN too: NaN != 0 holds, so test it apart.
          if (!isNaN(cov) && !isNaN(a)) {
            const left = 1 - <f64>a * held;
            cov = left > 0 ? <f32>min<f64>(1, <f64>cov / left) : 1;
          }
        }
      }
      const v = <f64>cov * 255;
      const alpha: u32 = !(v > 0) ? 0 : v >= 255 ? 255 : <u32>nearest<f64>(v);
      store<u32>(dst + at, colour | (alpha << 24));
    }
  }
}
