import type { Bounds } from '../types';
import type { Surface } from '../composite/surface';
import { linearToSrgb, srgbToLinear } from '../composite/gradient';
import { inArena, kernelsNow } from './kernels';

/** Blend modes the WASM kernel does (ids as in wasm/assembly/blend.ts). */
export const WASM_BLEND_MODES: Readonly<Record<string, number>> = Object.freeze({
  normal: 0, darken: 1, multiply: 2, 'color burn': 3, 'linear burn': 4, lighten: 5, screen: 6,
  'color dodge': 7, 'linear dodge': 8, overlay: 9, 'soft light': 10, 'hard light': 11, 'vivid light': 12,
  'linear light': 13, 'pin light': 14, 'hard mix': 15, difference: 16, exclusion: 17, subtract: 18, divide: 19,
});

export interface WasmBlendOptions {
  atop?: boolean;
  textGamma?: number;
  excludedChannels?: number[];
  blendIf?: unknown[];
}

/** Options the kernel honours; any other option set means "not for us" (the TS loop decides). */
const KNOWN_OPTIONS = new Set(['atop', 'textGamma', 'excludedChannels', 'blendIf']);

let enabled = true;

/** Turns the WASM path off (true: on) — for tests that pin the TypeScript loop it replaces. */
export function useWasmBlending(on: boolean): void {
  enabled = on;
}

/**
 * The kernel's id for `mode` (blendPixels), or −1 where blendSurfaceWasm leaves it to the
 * TypeScript (dissolve, non-separable modes, the WASM path switched off). Other names blend as
 * normal, as the compositor's loop does.
 */
export function wasmBlendMode(mode: string): number {
  if (!enabled) return -1;
  return Object.hasOwn(WASM_BLEND_MODES, mode) ? WASM_BLEND_MODES[mode]! : mode === 'dissolve' || isNonSeparable(mode) ? -1 : 0;
}

/** Bits of the channels (0–2) a blend keeps from the backdrop (blendPixels' `keep`). */
export function keptChannels(excluded: readonly number[] | undefined): number {
  return (excluded ?? []).reduce((bits, c) => (c >= 0 && c <= 2 ? bits | (1 << c) : bits), 0);
}

/** Rows per strip: bounds WASM memory at ~(5 bytes × width × rows) whatever the layer size. */
const STRIP_PIXELS = 1 << 18;

/**
 * Photoshop's "Blend Text Colors Using Gamma γ" space, which the compositor's text blends in: a
 * value to linear light through the sRGB curve, then encoded with 1/γ; blended there and back.
 * Black text at coverage a over white comes out as sRGB((1 − a)^γ): at γ = 1.45 every one of
 * webtoon-mobile-ui-example.psd's 7,495 black text edge pixels over white to the level, where a
 * plain power of the values, (1 − a)^(1/γ), is 2.7 levels RMS off (1.53 would fit it best, 0.7
 * off). The document's own profile curve would be exact for other profiles; sRGB is the usual one.
 *
 * `of` an encoded value (0..1) in the space, `back` a space value to an encoded one (0..1),
 * `ofByte` the space value of every 8-bit v (the compositor's operands: a table lookup instead of
 * three Math.pow a channel). For the WASM kernel, `table`: those 256 values, then the 255
 * thresholds at which back(x) · 255, stored into a Uint8ClampedArray, reaches each byte (entry k
 * the smallest double x whose byte is ≥ k; entry 0 unused), found with `back` itself, so that the
 * kernel's search gives JS's very byte; then, as bytes, the byte at each of BUCKETS steps of x
 * (where the search starts). `table` is null where that could differ: `back` not monotone within
 * a few ulps of a threshold, or an opaque pixel not coming back as itself (the kernel copies those).
 */
export interface TextSpace {
  of: (v: number) => number;
  back: (x: number) => number;
  ofByte: Float64Array;
  table: Float64Array | null;
}

const textSpaces = new Map<number, TextSpace>();

export function textSpace(gamma: number): TextSpace {
  let space = textSpaces.get(gamma);
  if (!space) {
    // gradient.ts's sRGB curve works in 0..255.
    const of = (v: number) => Math.pow(srgbToLinear(v * 255), 1 / gamma);
    const back = (x: number) => linearToSrgb(Math.pow(x, gamma)) / 255;
    const ofByte = new Float64Array(256);
    for (let v = 0; v < 256; v++) ofByte[v] = Math.pow(srgbToLinear(v), 1 / gamma);
    space = { of, back, ofByte, table: byteThresholds({ of, back, ofByte }) };
    if (textSpaces.size >= 8) textSpaces.clear();
    textSpaces.set(gamma, space);
  }
  return space;
}

/** How many ulps each side of every threshold are checked against `back` itself. */
const CHECKED_ULPS = 8;

function byteThresholds({ of, back, ofByte }: Omit<TextSpace, 'table'>): Float64Array | null {
  const clamped = new Uint8ClampedArray(1);
  const byteOf = (x: number) => ((clamped[0] = back(x) * 255), clamped[0]);
  if (byteOf(0) !== 0 || byteOf(1) !== 255) return null;
  const table = new Float64Array(512 + BUCKETS / 8);
  const thresholds = table.subarray(256);
  for (let k = 1; k < 256; k++) {
    // Bisection over doubles: byteOf(lo) < k ≤ byteOf(hi), until lo and hi are adjacent; from a
    // bracket around where the exact curve crosses k − ½ (else from the last threshold to 1).
    const near = of((k - 0.5) / 255);
    let lo = near * (1 - 1e-12);
    let hi = Math.min(1, near * (1 + 1e-12));
    if (!(byteOf(lo) < k)) lo = thresholds[k - 1];
    if (!(byteOf(hi) >= k)) hi = 1;
    for (;;) {
      const mid = lo + (hi - lo) / 2;
      if (mid <= lo || mid >= hi) break;
      if (byteOf(mid) >= k) hi = mid;
      else lo = mid;
    }
    thresholds[k] = hi;
  }
  // The kernel's search (wasm/assembly/blend.ts gammaByte).
  const search = (x: number) => {
    let n = 0;
    for (let step = 128; step >= 1; step >>= 1) if (thresholds[n + step] <= x) n += step;
    return n;
  };
  for (let k = 1; k < 256; k++) {
    let below = thresholds[k];
    let above = thresholds[k];
    for (let i = 0; i < CHECKED_ULPS; i++) {
      below = nextDouble(below, -1);
      above = nextDouble(above, 1);
      if (byteOf(below) !== search(below) || byteOf(above) !== search(above)) return null;
    }
  }
  for (let v = 0; v < 256; v++) if (byteOf(ofByte[v]) !== v) return null;
  table.set(ofByte);
  // Where the kernel's search starts for x in [b, b + 1) / BUCKETS: the byte at b / BUCKETS.
  const starts = new Uint8Array(table.buffer, 512 * 8, BUCKETS);
  for (let b = 0; b < BUCKETS; b++) starts[b] = search(b / BUCKETS);
  return table;
}

/** Buckets of x in [0, 1] whose first byte the kernel looks up before it steps (wasm/assembly/blend.ts gammaByte). */
const BUCKETS = 4096;

const asDouble = new Float64Array(1);
const words = new Uint32Array(asDouble.buffer); // little-endian: [low, high]
/** The adjacent double of a positive `x` (toward +∞ for step 1, toward 0 for step −1). */
function nextDouble(x: number, step: 1 | -1): number {
  asDouble[0] = x;
  const low = words[0] + step;
  words[0] = low;
  if (low > 0xffffffff) words[1]++;
  else if (low < 0) words[1]--;
  return asDouble[0];
}

/**
 * The compositor's `blendSurface` (src/engine/composite/blend.ts) in WASM, bit-identical to it.
 * Returns false, doing nothing, when it cannot take the call (kernels not instantiated yet:
 * `await kernels()` once per request; dissolve, non-separable modes, a text gamma outside normal
 * mode, blend-if) so
 * the caller falls back to its TypeScript loop:
 *
 *   if (blendSurfaceWasm(dst, src, mask, opacity, mode, options)) return;
 */
export function blendSurfaceWasm(
  dst: Surface,
  src: Surface,
  mask: Uint8ClampedArray | null,
  opacity: number,
  mode: string,
  options: WasmBlendOptions = {},
  within?: Bounds,
): boolean {
  const k = enabled ? kernelsNow() : undefined;
  if (!k || options.blendIf?.length) return false;
  for (const [key, value] of Object.entries(options)) if (!KNOWN_OPTIONS.has(key) && value !== undefined) return false;
  const id = wasmBlendMode(mode);
  if (id < 0) return false;
  // The text gamma: in normal mode from the tables (clipped blending takes none, as in the
  // compositor); other modes take their result through the space, which stays in TypeScript.
  const gamma = options.textGamma ?? 1;
  const table = gamma === 1 || options.atop ? null : id === WASM_BLEND_MODES.normal ? textSpace(gamma).table : null;
  if (gamma !== 1 && !options.atop && !table) return false;
  // `within`: src's alpha is 0 outside it (blendSurface), so the kernel would pass over the rest.
  const left = Math.max(dst.x, src.x, within?.left ?? -Infinity);
  const top = Math.max(dst.y, src.y, within?.top ?? -Infinity);
  const right = Math.min(dst.x + dst.w, src.x + src.w, within?.right ?? Infinity);
  const bottom = Math.min(dst.y + dst.h, src.y + src.h, within?.bottom ?? Infinity);
  if (right <= left || bottom <= top || opacity <= 0) return true;
  const w = right - left;
  const keep = keptChannels(options.excludedChannels);
  const rowsPerStrip = Math.max(1, Math.floor(STRIP_PIXELS / w));
  inArena(k, (k, arena) => {
    const cap = Math.min(rowsPerStrip, bottom - top) * w;
    const dPtr = arena.alloc(cap * 4);
    const sPtr = arena.alloc(cap * 4);
    const mPtr = mask ? arena.alloc(cap) : 0;
    const gPtr = table ? arena.alloc(table.byteLength) : 0;
    const mem = arena.u8();
    if (table) arena.f64().set(table, gPtr >> 3);
    for (let y0 = top; y0 < bottom; y0 += rowsPerStrip) {
      const rows = Math.min(rowsPerStrip, bottom - y0);
      for (let r = 0; r < rows; r++) {
        const y = y0 + r;
        const di = ((y - dst.y) * dst.w + (left - dst.x)) * 4;
        const si = ((y - src.y) * src.w + (left - src.x)) * 4;
        mem.set(dst.data.subarray(di, di + w * 4), dPtr + r * w * 4);
        mem.set(src.data.subarray(si, si + w * 4), sPtr + r * w * 4);
        if (mask) {
          const mi = (y - src.y) * src.w + (left - src.x);
          mem.set(mask.subarray(mi, mi + w), mPtr + r * w);
        }
      }
      k.blendPixels(dPtr, sPtr, mPtr, rows * w, opacity, id, options.atop ? 1 : 0, keep, gPtr);
      for (let r = 0; r < rows; r++) {
        const di = ((y0 + r - dst.y) * dst.w + (left - dst.x)) * 4;
        dst.data.set(mem.subarray(dPtr + r * w * 4, dPtr + (r + 1) * w * 4), di);
      }
    }
  });
  return true;
}

/**
 * The compositor's `fadeInto` (dst = lerp(dst, after, opacity · mask), premultiplied) in WASM,
 * bit-identical. `after` has dst's rectangle; `mask` one byte per dst pixel. Returns false when
 * the kernels are not instantiated yet.
 */
export function fadeIntoWasm(dst: Surface, after: Surface, mask: Uint8ClampedArray | null, opacity: number): boolean {
  const k = enabled ? kernelsNow() : undefined;
  if (!k) return false;
  const total = dst.w * dst.h;
  inArena(k, (k, arena) => {
    const cap = Math.min(total, STRIP_PIXELS);
    const dPtr = arena.alloc(cap * 4);
    const aPtr = arena.alloc(cap * 4);
    const mPtr = mask ? arena.alloc(cap) : 0;
    const mem = arena.u8();
    for (let start = 0; start < total; start += cap) {
      const n = Math.min(cap, total - start);
      const d = dst.data.subarray(start * 4, (start + n) * 4);
      mem.set(d, dPtr);
      mem.set(after.data.subarray(start * 4, (start + n) * 4), aPtr);
      if (mask) mem.set(mask.subarray(start, start + n), mPtr);
      k.fadePixels(dPtr, aPtr, mPtr, n, opacity);
      d.set(mem.subarray(dPtr, dPtr + n * 4));
    }
  });
  return true;
}

const NON_SEPARABLE = new Set(['hue', 'saturation', 'color', 'luminosity', 'darker color', 'lighter color']);
const isNonSeparable = (mode: string) => NON_SEPARABLE.has(mode);
