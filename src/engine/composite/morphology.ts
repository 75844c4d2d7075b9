import { drop, keep, release } from '../memory/drop';
import { inArena, kernelsNow, type KernelExports } from '../raster/kernels';
import type { Bounds } from '../types';

/**
 * Shape operations for layer effects on coverage maps (Float32Array, 0..1, w×h):
 * Gaussian-like blur (three box passes), dilation/erosion by a radius (exact Euclidean distance
 * transform, anti-aliased edge), sub-pixel shift.
 */

/**
 * Blur reaching `radius` px, as Photoshop blurs layer effects ("size"): a tent kernel (two box
 * passes, each about the size wide), whose edge response ½·(1 − d/size)² matches Photoshop's
 * glows and shadows.
 */
export function blur(src: Float32Array, w: number, h: number, radius: number): Float32Array {
  if (radius <= 0) return src.slice();
  const boxes = boxRadii(radius);
  const k = wasmPasses && src.length <= WASM_PIXELS ? kernelsNow() : undefined;
  if (k) return blurWasm(k, src, w, h, boxes[0], boxes[1]);
  let a = src.slice();
  const b = new Float32Array(src.length);
  for (const box of boxes) {
    boxH(a, b, w, h, box);
    boxV(b, a, w, h, box);
  }
  drop(b);
  return a;
}

/** blur's two box radii: about half the size each. */
export function boxRadii(radius: number): [number, number] {
  const r = Math.max(0, (radius - 1) / 2);
  return [Math.floor(r), Math.ceil(r)];
}

let wasmPasses = true;

/** Turns the WASM passes off (true: on): for tests that pin the TypeScript they replace. */
export function useWasmEffectPasses(on: boolean): void {
  wasmPasses = on;
  passSwitches++;
}

/** How many times useWasmEffectPasses was called (effects.ts effectDrawing: kept units drawn one way are not kept for the other). */
let passSwitches = 0;
export const wasmEffectPasses = () => passSwitches;

/**
 * The most values a WASM pass takes: its arrays (three at most, 1 MB each) stay within what the
 * shared instance's memory already holds for other kernels (about 3 MB; it never shrinks).
 * Larger arrays stay in TypeScript.
 */
const WASM_PIXELS = 1 << 18;

/**
 * The arena movedBlur's `read` runs in: the kernels, views of their memory (made after the last
 * alloc, so not to be allocated from: a grown memory would detach them) and `scratch`, bytes
 * reserved for the reader.
 */
export interface HeldArena {
  k: KernelExports;
  f32: Float32Array;
  u8: Uint8Array;
  scratch: number;
}

/** boxBlur with the array's first row and column standing for those before it (wasm/assembly/effects.ts). */
export interface ClampedBlurKernel {
  boxBlurClamped(a: number, b: number, sums: number, w: number, h: number, r0: number, r1: number, top: number, left: number): void;
}

/**
 * The kernels for an effect pass whose largest array holds `n` values, or undefined where the
 * TypeScript draws it (the passes switched off, the kernels not instantiated, more than WASM_PIXELS).
 */
export function effectKernels(n: number): KernelExports | undefined {
  return wasmPasses && n <= WASM_PIXELS ? kernelsNow() : undefined;
}

/**
 * blur's box passes in WASM (wasm/assembly/effects.ts boxBlur), bit-identical: into `into` when
 * given (src itself, for a blur in place), else into a new array.
 */
export function blurWasm(k: KernelExports, src: Float32Array, w: number, h: number, r0: number, r1: number, into?: Float32Array): Float32Array {
  return inArena(k, (k, arena) => {
    const a = arena.alloc(src.length * 4);
    const b = arena.alloc(src.length * 4);
    const sums = arena.alloc(w * 8);
    const f32 = arena.f32();
    f32.set(src, a >> 2);
    k.boxBlur(a, b, sums, w, h, r0, r1);
    const blurred = f32.subarray(a >> 2, (a >> 2) + src.length);
    if (!into) return blurred.slice();
    into.set(blurred);
    return into;
  });
}

/**
 * `src` ((w + 1) × (h + 1) values: one more row and column above and left) moved by the fractions
 * (fx, fy) of a pixel, bilinear, over w × h: the weights (1 − fx), fx, (1 − fy), fy on the four
 * taps, each product in the order of morphology's `shift`.
 */
export function bilinearMove(src: Float32Array, w: number, h: number, fx: number, fy: number, over = false): Float32Array {
  const k = wasmPasses && src.length <= WASM_PIXELS ? kernelsNow() : undefined;
  if (k) {
    return inArena(k, (k, arena) => {
      const s = arena.alloc(src.length * 4);
      const o = arena.alloc(w * h * 4);
      const f32 = arena.f32();
      f32.set(src, s >> 2);
      k.shiftBilinear(s, o, w, h, fx, fy);
      return f32.slice(o >> 2, (o >> 2) + w * h);
    });
  }
  const sw = w + 1;
  // `over`: written over `src` itself, which the caller hands over (issue 25 §1: no second array
  // of a print strip's rows). Safe in scan order: pixel (x, y) goes to y·w + x and its taps are
  // read from y·(w + 1) + x on, at or after it, and every later pixel's taps lie further on.
  const out = over ? src.subarray(0, w * h) : new Float32Array(w * h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = (y + 1) * sw + x + 1;
      out[y * w + x] = src[i] * (1 - fx) * (1 - fy) + src[i - 1] * fx * (1 - fy) + src[i - sw] * (1 - fx) * fy + src[i - sw - 1] * fx * fy;
    }
  }
  return out;
}

/**
 * blur(bilinearMove(src, w, h, fx, fy), w, h, radius) to the bit, `src` given by `read` (into
 * an array of (w + 1) × (h + 1) values when it is given one): in WASM, the move and the blur
 * run on the one array `read` fills in its memory, and only the result is copied out, into
 * `out` (w × h values) when given (the result is then `out`). In WASM `read` is handed the arena
 * it runs in (HeldArena, with `scratch` bytes of its own), to read the source in the kernels too.
 * `clamp` (the kernels only: the caller checks they are there, effectKernels): the box passes take
 * the first row and/or column as standing for those before the array (boxBlurClamped).
 */
export function movedBlur(read: (into?: Float32Array, held?: HeldArena) => Float32Array, w: number, h: number, fx: number, fy: number, radius: number, out?: Float32Array, scratch = 0, clamp?: { top: boolean; left: boolean }): Float32Array {
  const n = (w + 1) * (h + 1);
  const k = wasmPasses && radius > 0 && n <= WASM_PIXELS ? kernelsNow() : undefined;
  if (!k) {
    if (clamp) throw new Error('movedBlur: clamped box passes are the kernels\' alone');
    // Above the WASM passes' size blur's TypeScript would copy the moved array and make a second
    // one: blurred over itself instead (blurInPlace, the same floats; issue 25 §1).
    const moved = bilinearMove(read(), w, h, fx, fy, true);
    if (moved.length > WASM_PIXELS) return blurInPlace(moved, w, h, radius);
    const blurred = blur(moved, w, h, radius);
    drop(moved); // read() made it for this move alone
    return blurred;
  }
  const [r0, r1] = boxRadii(radius);
  return inArena(k, (k, arena) => {
    const src = arena.alloc(n * 4);
    const a = arena.alloc(w * h * 4);
    const b = arena.alloc(w * h * 4);
    const sums = arena.alloc(w * 8);
    const spare = arena.alloc(Math.max(1, scratch));
    const f32 = arena.f32();
    read(f32.subarray(src >> 2, (src >> 2) + n), { k, f32, u8: arena.u8(), scratch: spare });
    k.shiftBilinear(src, a, w, h, fx, fy);
    if (clamp) (k as KernelExports & ClampedBlurKernel).boxBlurClamped(a, b, sums, w, h, r0, r1, clamp.top ? 1 : 0, clamp.left ? 1 : 0);
    else k.boxBlur(a, b, sums, w, h, r0, r1);
    const result = f32.subarray(a >> 2, (a >> 2) + w * h);
    return out ? (out.set(result), out) : result.slice();
  });
}

/**
 * `blur` of `a` written over `a` itself, each box pass reading its row or column from a copy:
 * the same arithmetic with one line of scratch instead of a second array (the bevel's tiles,
 * issue 25 §1).
 */
export function blurInPlace(a: Float32Array, w: number, h: number, radius: number): Float32Array {
  if (radius <= 0) return a;
  // Past what the kernels hold at once (below it, its callers blur in the kernels themselves).
  const k = wasmPasses && a.length > WASM_PIXELS ? (kernelsNow() as (KernelExports & Partial<StripKernels>) | undefined) : undefined;
  if (k?.boxRowsStrip && k.boxColumnsStrip && Math.max(w, h) <= STRIP_PIXELS) return boxPassesInStrips(k as KernelExports & StripKernels, a, w, h, boxRadii(radius));
  return boxPassesInPlace(a, w, h, boxRadii(radius));
}

/** The box passes of one blur over a strip of rows or columns (wasm/assembly/effects.ts). */
interface StripKernels {
  boxRowsStrip(src: number, dst: number, w: number, h: number, r: number): void;
  boxColumnsStrip(src: number, dst: number, sums: number, w: number, h: number, r: number): void;
}

/** Values a strip of boxPassesInStrips holds: 1 MB in and 1 MB out of the kernels' memory, as WASM_PIXELS allows. */
const STRIP_PIXELS = 1 << 17;

/**
 * boxPassesInPlace in the kernels, for arrays past what they hold at once (issue 25 §3: fuzz seed
 * 312's inner glow over effect tiles of millions of values was blurred in TypeScript): each pass
 * over strips of whole rows, then of whole columns, copied in and back. The same floats: the
 * kernels' box passes are blur's to the bit (boxBlur, as blurHeight and movedBlur use them), and
 * each row's (each column's) sums are its own, whatever strip it is in.
 */
function boxPassesInStrips(k: KernelExports & StripKernels, a: Float32Array, w: number, h: number, boxes: number[]): Float32Array {
  const rows = Math.max(1, Math.floor(STRIP_PIXELS / w));
  const columns = Math.max(1, Math.floor(STRIP_PIXELS / h));
  inArena(k, (_k, arena) => {
    const src = arena.alloc(STRIP_PIXELS * 4 + 64);
    const dst = arena.alloc(STRIP_PIXELS * 4 + 64);
    const sums = arena.alloc(columns * 8);
    const f32 = arena.f32();
    for (const box of boxes) {
      if (box <= 0) continue;
      for (let top = 0; top < h; top += rows) {
        const n = Math.min(rows, h - top) * w;
        f32.set(a.subarray(top * w, top * w + n), src >> 2);
        k.boxRowsStrip(src, dst, w, n / w, box);
        a.set(f32.subarray(dst >> 2, (dst >> 2) + n), top * w);
      }
      for (let left = 0; left < w; left += columns) {
        const cw = Math.min(columns, w - left);
        for (let y = 0; y < h; y++) f32.set(a.subarray(y * w + left, y * w + left + cw), (src >> 2) + y * cw);
        k.boxColumnsStrip(src, dst, sums, cw, h, box);
        for (let y = 0; y < h; y++) a.set(f32.subarray((dst >> 2) + y * cw, (dst >> 2) + y * cw + cw), y * w + left);
      }
    }
  });
  return a;
}

/** Box passes of the given radii over `a` itself, rows then columns each, one line of scratch. */
function boxPassesInPlace(a: Float32Array, w: number, h: number, boxes: number[]): Float32Array {
  const line = new Float32Array(Math.max(w, h));
  for (const box of boxes) {
    if (box <= 0) continue;
    for (let y = 0; y < h; y++) {
      line.set(a.subarray(y * w, y * w + w));
      boxLine(line, a, y * w, 1, w, box);
    }
    for (let x = 0; x < w; x++) {
      for (let y = 0; y < h; y++) line[y] = a[y * w + x];
      boxLine(line, a, x, w, h, box);
    }
  }
  return a;
}

/** One box pass over `len` values of `src` (from 0), written to dst at `at`, `at + step`, …: boxH's arithmetic. */
function boxLine(src: Float32Array, dst: Float32Array, at: number, step: number, len: number, r: number): void {
  const k = 1 / (2 * r + 1);
  let acc = 0;
  // The window's start: only the values inside the line (those outside add 0). A loop over the
  // whole radius cost O(r) a line: a 1,000 px mask feather previewed 50× (r ≈ 25,000 on 5,000
  // lines, three passes each way) took 44 s (session 19 fuzz).
  for (let x = 0, end = Math.min(r, len); x < end; x++) acc += src[x];
  for (let x = 0; x < len; x++) {
    const add = x + r;
    const sub = x - r - 1;
    acc += add < len ? src[add] : 0;
    acc -= sub >= 0 ? src[sub] : 0;
    dst[at + x * step] = acc * k;
  }
}

/**
 * Float arrays reused from one tile to the next (issue 25 §1): `take(slot, n)` gives the slot's
 * array cut to n values (what the last tile left in it), allocated again only when a tile needs
 * more than it holds.
 */
export class Scratch {
  private readonly slots = new Map<string, Float32Array<ArrayBuffer>>();
  take(slot: string, n: number): Float32Array<ArrayBuffer> {
    const held = this.slots.get(slot);
    if (held && held.length >= n) return held.length === n ? held : held.subarray(0, n);
    const made = keep(new Float32Array(n));
    this.slots.set(slot, made);
    return made;
  }

  /** Frees every slot's array now (its owner draws no more with them): the next take makes anew. */
  clear(): void {
    for (const array of this.slots.values()) release(array);
    this.slots.clear();
  }
}

/** Gaussian-like blur (three box passes) of standard deviation `sigma` px. */
export function gaussianBlur(src: Float32Array, w: number, h: number, sigma: number): Float32Array {
  if (sigma <= 0) return src.slice();
  let a = src.slice();
  const b = new Float32Array(src.length);
  for (const r of boxesForGauss(sigma, 3)) {
    boxH(a, b, w, h, r);
    boxV(b, a, w, h, r);
  }
  return a;
}

/**
 * `gaussianBlur` of `a` written over `a` itself, each box pass reading its row or column from a
 * copy (boxLine: boxH's and boxV's arithmetic, as blurInPlace): the same floats with one line of
 * scratch instead of two more arrays (the feathered mask's, issue 25 §1).
 */
export function gaussianBlurInPlace(a: Float32Array, w: number, h: number, sigma: number): Float32Array {
  return sigma <= 0 ? a : boxPassesInPlace(a, w, h, boxesForGauss(sigma, 3));
}

/**
 * How far gaussianBlurInPlace reaches along each axis (the sum of its box radii): a value lies
 * within this of every input it reads, and a running sum that has seen only zeros is +0 (the
 * blur of an array whose leading rows or columns are zero is the blur of the rest, to the bit).
 */
export function gaussianReach(sigma: number): number {
  return sigma <= 0 ? 0 : boxesForGauss(sigma, 3).reduce((a, b) => a + Math.max(0, b), 0);
}

function boxesForGauss(sigma: number, n: number): number[] {
  const wIdeal = Math.sqrt((12 * sigma * sigma) / n + 1);
  let wl = Math.floor(wIdeal);
  if (wl % 2 === 0) wl--;
  const wu = wl + 2;
  const mIdeal = (12 * sigma * sigma - n * wl * wl - 4 * n * wl - 3 * n) / (-4 * wl - 4);
  const m = Math.round(mIdeal);
  const sizes: number[] = [];
  for (let i = 0; i < n; i++) sizes.push(((i < m ? wl : wu) - 1) / 2);
  return sizes;
}

function boxH(src: Float32Array, dst: Float32Array, w: number, h: number, r: number): void {
  if (r <= 0) return dst.set(src);
  const k = 1 / (2 * r + 1);
  for (let y = 0; y < h; y++) {
    const row = y * w;
    let acc = 0;
    for (let x = 0, end = Math.min(r, w); x < end; x++) acc += src[row + x]; // as boxLine's start
    for (let x = 0; x < w; x++) {
      const add = x + r;
      const sub = x - r - 1;
      acc += add < w ? src[row + add] : 0;
      acc -= sub >= 0 ? src[row + sub] : 0;
      dst[row + x] = acc * k;
    }
  }
}

function boxV(src: Float32Array, dst: Float32Array, w: number, h: number, r: number): void {
  if (r <= 0) return dst.set(src);
  const k = 1 / (2 * r + 1);
  for (let x = 0; x < w; x++) {
    let acc = 0;
    for (let y = 0, end = Math.min(r, h); y < end; y++) acc += src[y * w + x]; // as boxLine's start
    for (let y = 0; y < h; y++) {
      const add = y + r;
      const sub = y - r - 1;
      acc += add < h ? src[add * w + x] : 0;
      acc -= sub >= 0 ? src[sub * w + x] : 0;
      dst[y * w + x] = acc * k;
    }
  }
}

const INF = 1e20;

/** Scratch for `envelope`, sized for lines of up to `n` px. */
function envelopeScratch(n: number) {
  return { f: new Float64Array(n), out: new Float64Array(n), v: new Int32Array(n), z: new Float64Array(n + 1) };
}

/**
 * Felzenszwalb's lower envelope of parabolas over one line: out[q] = min over p of
 * (q − p)² + f[p] for q < len, and, when `arg` is given, the p that attains it.
 */
function envelope({ f, out, v, z }: ReturnType<typeof envelopeScratch>, len: number, arg?: Int32Array): void {
  let k = 0;
  v[0] = 0;
  z[0] = -INF;
  z[1] = INF;
  for (let q = 1; q < len; q++) {
    let s = (f[q] + q * q - (f[v[k]] + v[k] * v[k])) / (2 * q - 2 * v[k]);
    while (s <= z[k]) {
      k--;
      s = (f[q] + q * q - (f[v[k]] + v[k] * v[k])) / (2 * q - 2 * v[k]);
    }
    k++;
    v[k] = q;
    z[k] = s;
    z[k + 1] = INF;
  }
  k = 0;
  for (let q = 0; q < len; q++) {
    while (z[k + 1] < q) k++;
    out[q] = (q - v[k]) * (q - v[k]) + f[v[k]];
    if (arg) arg[q] = v[k];
  }
}

/** Squared Euclidean distance from each pixel to the nearest pixel where `inside` (Felzenszwalb). */
function distanceSquared(inside: (i: number) => boolean, w: number, h: number, d: Float32Array = new Float32Array(w * h)): Float32Array {
  for (let i = 0; i < d.length; i++) d[i] = inside(i) ? 0 : INF;
  const line = envelopeScratch(Math.max(w, h));
  const { f, out } = line;
  for (let x = 0; x < w; x++) {
    for (let y = 0; y < h; y++) f[y] = d[y * w + x];
    envelope(line, h);
    for (let y = 0; y < h; y++) d[y * w + x] = out[y];
  }
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) f[x] = d[y * w + x];
    envelope(line, w);
    for (let x = 0; x < w; x++) d[y * w + x] = out[x];
  }
  return d;
}

/**
 * The shape grown by `radius` px, edge anti-aliased (the 0.65 px edge offset is fitted to
 * Photoshop's outside strokes).
 */
export function dilate(a: Float32Array, w: number, h: number, radius: number, out?: Float32Array): Float32Array {
  // The squared distances are written where the result goes, each read once before it is replaced.
  const d2 = distanceSquared((i) => a[i] >= 0.5, w, h, out);
  for (let i = 0; i < a.length; i++) {
    const cov = radius + 0.65 - Math.sqrt(d2[i]);
    d2[i] = Math.max(a[i], cov <= 0 ? 0 : cov >= 1 ? 1 : cov);
  }
  return d2;
}

/**
 * A matte grown by `radius` px as a grey dilation: a shadow's or glow's spread ("expands the
 * boundaries of the matte prior to blurring"), measured as an outside stroke of `radius` px is: in
 * the 5 × 5 chamfer metric from each pixel's anti-aliased edge (chamferDistance), so a straight
 * edge grows by exactly the radius. photocraft's dilate (crates/compose/src/effects.rs), measured
 * on Photoshop's composite of ag-psd's group-drop-shadows: the spread around an ellipse is round at
 * 0° and 45° and falls short in between, peaking near 15° where the chamfer metric overestimates
 * most (within 2/255 with the chamfer, 5/255 lighter with a Euclidean dilation). Where the matte is
 * uniformly partial (a layer of 60 % pixels, a faint feather) it grows at its own level: the matte
 * is measured relative to the highest alpha within reach, and the grown coverage scaled by it.
 */
export function spreadMatte(a: Float32Array, w: number, h: number, radius: number, over = false): Float32Array {
  const pw = w + 4;
  const ph = h + 4;
  if (wasmPasses && pw * ph <= WASM_PIXELS && kernelsNow()) {
    const tmp = new Float32Array(a.length);
    const peak = boxMax(a, w, h, Math.ceil(radius + 1), tmp);
    for (let i = 0; i < a.length; i++) tmp[i] = peak[i] > 0 ? a[i] / peak[i] : 0;
    const d = chamferDistance(tmp, w, h);
    drop(tmp);
    for (let i = 0; i < a.length; i++) d[i] = Math.max(a[i], bandCoverage(d[i], -Infinity, radius) * peak[i]);
    drop(peak);
    return d;
  }
  // Past the WASM passes (issue 25 §1: a spread tile held the alpha, the ratio, its peak, the
  // chamfer field and a byte a pixel for the side, 4.25 arrays): the alpha, its peak and one
  // chamfer field, in whose place the box maximum's first pass is written. The ratio
  // c = alpha ÷ peak is worked out again where it is read (the f32 a ratio array held). Of
  // chamferDistance's two sides only the covered side's pass runs, over the same field to the bit:
  // its seeds are ½ − c wherever c > 0. The empty side decides no pixel here: where c ≥ ½ its
  // distance is ½ − c exactly for c < 1 (the pixel's own seed, c − ½, exact in f32, which no path
  // beats: every seed is ≥ −½ and every step ≥ 1) and ≤ −½ where c = 1, where the band (−∞, radius]
  // covers the pixel whole (radius − d + ½ ≥ 1), as it does at −½.
  const field = new Float32Array(pw * ph);
  const peak = boxMax(a, w, h, Math.ceil(radius + 1), field.subarray(0, a.length));
  field.fill(INF);
  for (let y = 0, i = 0; y < h; y++) {
    for (let x = 0, f = (y + 2) * pw + 2; x < w; x++, i++, f++) {
      const c = peak[i] > 0 ? Math.fround(a[i] / peak[i]) : 0;
      if (c > 0) field[f] = 0.5 - c;
    }
  }
  chamferPasses(field, pw, ph);
  // Over `a` when the caller hands it over (`over`: made for this and read no more), each value
  // read before it is written.
  const out = over ? a : new Float32Array(a.length);
  for (let y = 0, i = 0; y < h; y++) {
    for (let x = 0, f = (y + 2) * pw + 2; x < w; x++, i++, f++) {
      const c = peak[i] > 0 ? Math.fround(a[i] / peak[i]) : 0;
      const d = c < 0.5 ? field[f] : c < 1 ? 0.5 - c : -0.5;
      out[i] = Math.max(a[i], bandCoverage(d, -Infinity, radius) * peak[i]);
    }
  }
  drop(field, peak);
  return out;
}

/** The highest value within r px along each axis (a (2r + 1)² box), van Herk / Gil-Werman; `tmp` holds the first pass. */
function boxMax(a: Float32Array, w: number, h: number, r: number, tmp: Float32Array): Float32Array {
  const out = new Float32Array(a.length);
  const n = Math.max(w, h);
  const line = new Float32Array(n);
  const pre = new Float32Array(n);
  const suf = new Float32Array(n);
  // Each line copied in, its maxima written straight to their places: no function made or called
  // per value (issue 25 §3: a read and a write closure a value were 27 % of fuzz seed 312's 34 s,
  // an inner glow's choke over a 9,450 × 800 preview's effect tiles).
  for (let y = 0; y < h; y++) {
    line.set(a.subarray(y * w, y * w + w));
    maxLine(line, pre, suf, w, r, tmp, y * w, 1);
  }
  // The columns a block of COLUMN_BLOCK at a time: its rows copied out whole (a column read down
  // the array touched a cache line a value), each column's maxima gathered back into rows.
  const block = new Float32Array(h * COLUMN_BLOCK);
  const done = new Float32Array(h * COLUMN_BLOCK);
  for (let left = 0; left < w; left += COLUMN_BLOCK) {
    const bw = Math.min(COLUMN_BLOCK, w - left);
    for (let y = 0; y < h; y++) block.set(tmp.subarray(y * w + left, y * w + left + bw), y * bw);
    for (let x = 0; x < bw; x++) {
      for (let y = 0; y < h; y++) line[y] = block[y * bw + x];
      maxLine(line, pre, suf, h, r, done, x, bw);
    }
    for (let y = 0; y < h; y++) out.set(done.subarray(y * bw, y * bw + bw), y * w + left);
  }
  drop(block, done);
  return out;
}

/** Columns boxMax takes at once. */
const COLUMN_BLOCK = 32;

/** boxMax along one line of `len` values in `line`, written to `dst` at `at`, `at + step`, …. */
function maxLine(line: Float32Array, pre: Float32Array, suf: Float32Array, len: number, r: number, dst: Float32Array, at: number, step: number): void {
  const k = 2 * r + 1;
  for (let i = 0; i < len; i++) pre[i] = i % k === 0 ? line[i] : Math.max(pre[i - 1], line[i]);
  for (let i = len - 1; i >= 0; i--) suf[i] = i === len - 1 || (i + 1) % k === 0 ? line[i] : Math.max(suf[i + 1], line[i]);
  for (let i = 0; i < len; i++) {
    const lo = Math.max(0, i - r);
    const hi = Math.min(len - 1, i + r);
    let v: number;
    // [lo, hi] spans at most two blocks: the suffix of lo's and the prefix of hi's.
    if (Math.floor(lo / k) !== Math.floor(hi / k)) v = Math.max(suf[lo], pre[hi]);
    else if (lo % k === 0) v = pre[hi];
    else if (hi === len - 1 || (hi + 1) % k === 0) v = suf[lo];
    else {
      v = line[lo];
      for (let j = lo + 1; j <= hi; j++) if (line[j] > v) v = line[j];
    }
    dst[at + i * step] = v;
  }
}

/** The shape shrunk by `radius` px, edge anti-aliased. */
export function erode(a: Float32Array, w: number, h: number, radius: number): Float32Array {
  const d2 = distanceSquared((i) => a[i] < 0.5, w, h);
  const out = new Float32Array(a.length);
  for (let i = 0; i < a.length; i++) {
    const cov = Math.sqrt(d2[i]) - radius;
    out[i] = Math.min(a[i], cov <= 0 ? 0 : cov >= 1 ? 1 : cov);
  }
  drop(d2);
  return out;
}

/** Moves the map by (dx, dy) px (bilinear); uncovered pixels take `fill`. */
export function shift(a: Float32Array, w: number, h: number, dx: number, dy: number, fill = 0): Float32Array {
  const out = new Float32Array(a.length);
  const ix = Math.floor(dx);
  const iy = Math.floor(dy);
  const fx = dx - ix;
  const fy = dy - iy;
  const at = (x: number, y: number) => (x < 0 || y < 0 || x >= w || y >= h ? fill : a[y * w + x]);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const sx = x - ix;
      const sy = y - iy;
      out[y * w + x] =
        at(sx, sy) * (1 - fx) * (1 - fy) +
        at(sx - 1, sy) * fx * (1 - fy) +
        at(sx, sy - 1) * (1 - fx) * fy +
        at(sx - 1, sy - 1) * fx * fy;
    }
  }
  return out;
}

/**
 * Nearest-seed transform: for each pixel the index of the nearest pixel where `seed` holds
 * (Felzenszwalb's lower envelope, tracking the argmin: a column pass, then a row pass over the
 * column results), -1 where there is no seed; seedDistance2 gives the squared distance to it.
 * One Int32 a pixel (issue 25 §1: a precise glow's arrays at a print strip are 4 Mi px): the
 * column pass's Float32 distances are not kept, each is worked out again from the source row
 * kept in `at` (with the same arithmetic: (y − v)² + f[v], f[v] 0 at a seed, INF in a column
 * without one, whose row is kept as −1 − v), and so are the row pass's (seedDistance2).
 */
export function nearestSeed(seed: (i: number) => boolean, w: number, h: number): { at: Int32Array } {
  const n = Math.max(w, h);
  const line = envelopeScratch(n);
  const { f, out } = line;
  const arg = new Int32Array(n);
  const v2 = new Int32Array(n);
  const at = new Int32Array(w * h);
  const row = at;
  for (let x = 0; x < w; x++) {
    for (let y = 0; y < h; y++) f[y] = seed(y * w + x) ? 0 : INF;
    envelope(line, h, arg);
    for (let y = 0; y < h; y++) row[y * w + x] = out[y] >= INF ? -1 - arg[y] : arg[y];
  }
  for (let y = 0; y < h; y++) {
    // The row's source rows are read before any is overwritten: copy them out first.
    for (let x = 0; x < w; x++) v2[x] = row[y * w + x];
    // The column pass's distances as Float32 held them.
    for (let x = 0; x < w; x++) {
      const v = v2[x];
      f[x] = v >= 0 ? Math.fround((y - v) * (y - v)) : Math.fround((y - (-1 - v)) * (y - (-1 - v)) + INF);
    }
    envelope(line, w, arg);
    for (let x = 0; x < w; x++) at[y * w + x] = out[x] >= INF ? -1 : v2[arg[x]] * w + arg[x];
  }
  return { at };
}

/**
 * The squared distance (as Float32) from pixel i to its nearest seed s = at[i] ≥ 0 (nearestSeed):
 * the row pass's (x − sx)² + f[sx] over the column pass's Float32 (y − sy)², rounded as its
 * Float32 output was.
 */
export function seedDistance2(i: number, s: number, w: number): number {
  const x = i % w;
  const sx = s % w;
  const dy = (i - x) / w - (s - sx) / w;
  return Math.fround((x - sx) * (x - sx) + Math.fround(dy * dy));
}

/**
 * Signed distance (px) from each pixel centre to the shape's edge, positive outside, negative
 * inside, with sub-pixel precision taken from the anti-aliased edge: a pixel of coverage a has
 * the edge (0.5 − a) px from its centre (a straight edge through the pixel); a pixel wholly in or
 * out measures to two pixels on the other side and keeps the nearer edge they give: the nearest by
 * centre with any coverage, and the nearest at least half covered. The nearest by centre gives its
 * square when it is wholly covered (or wholly empty), so pixel-aligned corners come out round as
 * a Euclidean band's are; otherwise a pixel gives its centre plus its own edge offset. The nearest
 * by centre may be a sliver (text anti-aliasing leaves pixels at 1/16) whose straight edge is a
 * poor guess, where a fuller pixel a little farther holds the nearer edge; Photoshop's strokes
 * follow the fuller one, and where a curve meets a straight edge the half-covered pixel bounds the
 * sliver between them. Exact for straight edges and square corners, within half a pixel elsewhere.
 */
export function signedDistance(a: Float32Array, w: number, h: number, to: Bounds = { left: 0, top: 0, right: w, bottom: h }): Float32Array {
  // Only the pixels of `to` (within w × h) are written, into an array of its own: each pixel's
  // distance reads the seed maps, `a` and its own earlier value, never another pixel's (issue
  // 25 §1: an effect's tile is a part of its arrays, and only the tile is painted).
  const out = new Float32Array((to.right - to.left) * (to.bottom - to.top));
  for (let y = to.top, o = 0; y < to.bottom; y++) {
    for (let i = y * w + to.left, end = y * w + to.right; i < end; i++, o++) if (a[i] > EMPTY && a[i] < 1 - EMPTY) out[o] = 0.5 - a[i];
  }
  // Outside pixels measure to the covered side, then inside ones to the empty side (its coverage
  // 1 − a, as a Float32Array of it would hold it: no array of it, issue 25 §1), negated.
  distancesAcross((i) => a[i]!, w, h, out, 1, to);
  distancesAcross((i) => Math.fround(1 - a[i]!), w, h, out, -1, to);
  return out;
}

/** Coverage at or below which a pixel counts as empty (and at or above 1 − this, as full). */
const EMPTY = 0.02;

/**
 * signedDistance, times `sign`, for the pixels where coverage `c` (of the side measured to) is
 * at most EMPTY: the nearer edge of that side's nearest pixel with any coverage (its square when
 * it is wholly covered: the edge there is pixel-aligned) and its nearest pixel at least half
 * covered (a straight edge through it, even when wholly covered: it lies behind a partial rim).
 * Over the pixels of `to`, into `out` (one value each, row by row).
 */
function distancesAcross(c: (i: number) => number, w: number, h: number, out: Float32Array, sign: 1 | -1, to: Bounds): void {
  // One seed map (Int32 a pixel) at a time, each made and dropped in a call of its own (issue
  // 25 §1: a precise glow's arrays at a print strip are 4 Mi px): the nearest edge by any
  // coverage goes into `out` first, then the nearest half-covered pixel's is taken against it.
  // Rounding the first to Float32 in between gives the Float32 of their minimum all the same (a
  // value between a double and its rounding rounds as it does), and times ±1 is exact.
  nearestEdge(c, w, h, out, to);
  nearerHalf(c, w, h, out, sign, to);
}

/** Where c ≤ EMPTY: the edge of the nearest pixel with any coverage (its square when wholly covered), unsigned. */
function nearestEdge(c: (i: number) => number, w: number, h: number, out: Float32Array, to: Bounds): void {
  const { at } = nearestSeed((i) => c(i) > EMPTY, w, h);
  for (let y = to.top, o = 0; y < to.bottom; y++) {
    for (let i = y * w + to.left, end = y * w + to.right; i < end; i++, o++) {
      if (c(i) > EMPTY) continue;
      const s = at[i]!;
      if (s < 0) out[o] = 1e6;
      else {
        const cs = c(s);
        out[o] = cs >= 1 - EMPTY ? toSquare(i, s, w) : Math.sqrt(seedDistance2(i, s, w)) + 0.5 - cs;
      }
    }
  }
  drop(at);
}

/** Where c ≤ EMPTY: the nearer of nearestEdge's and the nearest at least half-covered pixel's straight edge, times `sign`. */
function nearerHalf(c: (i: number) => number, w: number, h: number, out: Float32Array, sign: 1 | -1, to: Bounds): void {
  const { at } = nearestSeed((i) => c(i) >= 0.5, w, h);
  for (let y = to.top, o = 0; y < to.bottom; y++) {
    for (let i = y * w + to.left, end = y * w + to.right; i < end; i++, o++) {
      if (c(i) > EMPTY) continue;
      const q = at[i]!;
      const nearest = out[o]!;
      out[o] = sign * (q < 0 ? nearest : Math.min(nearest, Math.sqrt(seedDistance2(i, q, w)) + 0.5 - c(q)));
    }
  }
  drop(at);
}

/** Distance from pixel i's centre to pixel s's square (row width w). */
function toSquare(i: number, s: number, w: number): number {
  const dx = Math.max(0, Math.abs((i % w) - (s % w)) - 0.5);
  const dy = Math.max(0, Math.abs(Math.floor(i / w) - Math.floor(s / w)) - 0.5);
  return Math.sqrt(dx * dx + dy * dy);
}

/**
 * Coverage (0..1) of the pixel whose centre is at signed distance d by the band [lo, hi] (box
 * filter). Called per pixel: no function is made per call (the deployed bundle keeps names, so
 * each closure made costs an Object.defineProperty of its name: 13 ms a request of the large
 * mockup's stroke in workerd, issue 25 §3).
 */
export function bandCoverage(d: number, lo: number, hi: number): number {
  return clamp01(hi - d + 0.5) - clamp01(lo - d + 0.5);
}

const clamp01 = (t: number) => (t <= 0 ? 0 : t >= 1 ? 1 : t);

/**
 * Photoshop's stroke distance: signedDistance's sign and anti-aliased edge, measured in the 5 × 5
 * chamfer metric (steps of 1, √2 and √5 px: the straight, diagonal and knight's moves) instead of
 * the Euclidean one, and from pixel centres only. Each pixel of coverage a > 0 is a seed at
 * 0.5 − a (a straight edge through it; a wholly covered pixel at −0.5, so a square corner rounds
 * about the corner pixel's centre, not about its corner); a pixel takes the least seed plus the
 * length of a path of those steps to it (two raster passes), from the covered side where a < ½ and,
 * negated, from the empty side (seeds at a − 0.5) elsewhere. A partial pixel keeps its own edge:
 * no seed plus a step is less. Read off Photoshop's composites: the 6 px outside stroke of
 * psdtools-layer-effects-all.psd matches it to 0.22 levels RMS over its 3,036 outer-edge pixels,
 * where the Euclidean rules left 4–6 (docs/effects.md, "Strokes in the chamfer metric").
 */
export function chamferDistance(a: Float32Array, w: number, h: number, to: Bounds = { left: 0, top: 0, right: w, bottom: h }): Float32Array {
  const pw = w + 4;
  // The distances over `to` (within w × h) only, when given: the part of the arrays a tile paints
  // (issue 25 §1: no array of the whole besides the field the passes need).
  const tw = to.right - to.left;
  const out = new Float32Array(tw * (to.bottom - to.top));
  const k = wasmPasses && pw * (h + 4) <= WASM_PIXELS ? kernelsNow() : undefined;
  if (k) {
    // In WASM (wasm/assembly/effects.ts chamferDistance), bit-identical, both sides' fields in
    // one (two values a pixel).
    return inArena(k, (k, arena) => {
      const src = arena.alloc(a.length * 4);
      const all = arena.alloc(a.length * 4);
      const d = arena.alloc(pw * (h + 4) * 8);
      const f32 = arena.f32();
      f32.set(a, src >> 2);
      k.chamferDistance(src, all, d, w, h);
      for (let y = to.top; y < to.bottom; y++) {
        const at = (all >> 2) + y * w + to.left;
        out.set(f32.subarray(at, at + tw), (y - to.top) * tw);
      }
      return out;
    });
  }
  const d = new Float32Array(pw * (h + 4));
  // The covered side's seeds, then the empty side's: a < ½ takes the first, the rest the second.
  for (const inner of [false, true]) {
    d.fill(INF);
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        const c = a[y * w + x];
        if (inner ? c < 1 : c > 0) d[(y + 2) * pw + x + 2] = inner ? c - 0.5 : 0.5 - c;
      }
    }
    chamferPasses(d, pw, h + 4);
    for (let y = to.top; y < to.bottom; y++) {
      for (let x = to.left; x < to.right; x++) {
        const i = y * w + x;
        if (inner === a[i] >= 0.5) out[(y - to.top) * tw + x - to.left] = inner ? -d[(y + 2) * pw + x + 2] : d[(y + 2) * pw + x + 2];
      }
    }
  }
  drop(d);
  return out;
}

const SQRT5 = Math.sqrt(5);

/**
 * d[p] = the least d[q] plus the length of a chamfer path from q to p, in place, over a field
 * (pw wide, ph high) whose two outer rows and columns stay empty (INF), so no step leaves it: a
 * forward raster pass over the 5 × 5 mask's half before each pixel (the straight, diagonal and
 * knight's steps above and to the left), then a backward one over the other half. Exact for a
 * chamfer metric: a least path's steps can be ordered so those of the first half come first.
 */
function chamferPasses(d: Float32Array, pw: number, ph: number): void {
  const r1 = pw;
  const r2 = 2 * pw;
  const S2 = Math.SQRT2;
  // The least of the steps by comparisons, not Math.min of five (the same numbers: no NaN or −0
  // here; half the time in V8, 4.6 → 2.3 ms for a 430 × 130 field, issue 25 §3).
  let t: number;
  for (let y = 2; y < ph - 2; y++) {
    for (let i = y * pw + 2, end = y * pw + pw - 2; i < end; i++) {
      let v = d[i]!;
      const p = i - r1;
      const q = i - r2;
      if ((t = d[i - 1]! + 1) < v) v = t;
      if ((t = d[p]! + 1) < v) v = t;
      if ((t = d[p - 1]! + S2) < v) v = t;
      if ((t = d[p + 1]! + S2) < v) v = t;
      if ((t = d[p - 2]! + SQRT5) < v) v = t;
      if ((t = d[p + 2]! + SQRT5) < v) v = t;
      if ((t = d[q - 1]! + SQRT5) < v) v = t;
      if ((t = d[q + 1]! + SQRT5) < v) v = t;
      d[i] = v;
    }
  }
  for (let y = ph - 3; y >= 2; y--) {
    for (let i = y * pw + pw - 3, end = y * pw + 2; i >= end; i--) {
      let v = d[i]!;
      const p = i + r1;
      const q = i + r2;
      if ((t = d[i + 1]! + 1) < v) v = t;
      if ((t = d[p]! + 1) < v) v = t;
      if ((t = d[p + 1]! + S2) < v) v = t;
      if ((t = d[p - 1]! + S2) < v) v = t;
      if ((t = d[p + 2]! + SQRT5) < v) v = t;
      if ((t = d[p - 2]! + SQRT5) < v) v = t;
      if ((t = d[q + 1]! + SQRT5) < v) v = t;
      if ((t = d[q - 1]! + SQRT5) < v) v = t;
      d[i] = v;
    }
  }
}
