import type { Surface } from '../composite/surface';
import { inArena, kernelsNow } from './kernels';

/** Blend modes the WASM kernel does (ids as in wasm/assembly/blend.ts). */
export const WASM_BLEND_MODES: Readonly<Record<string, number>> = Object.freeze({
  normal: 0, darken: 1, multiply: 2, 'color burn': 3, 'linear burn': 4, lighten: 5, screen: 6,
  'color dodge': 7, 'linear dodge': 8, overlay: 9, 'soft light': 10, 'hard light': 11, 'vivid light': 12,
  'linear light': 13, 'pin light': 14, 'hard mix': 15, difference: 16, exclusion: 17, subtract: 18, divide: 19,
});

export interface WasmBlendOptions {
  atop?: boolean;
  gamma?: number;
  excludedChannels?: number[];
  blendIf?: unknown[];
}

/** Options the kernel honours; any other option set means "not for us" (the TS loop decides). */
const KNOWN_OPTIONS = new Set(['atop', 'gamma', 'excludedChannels', 'blendIf']);

let enabled = true;

/** Turns the WASM path off (true: on) — for tests that pin the TypeScript loop it replaces. */
export function useWasmBlending(on: boolean): void {
  enabled = on;
}

/** Rows per strip: bounds WASM memory at ~(5 bytes × width × rows) whatever the layer size. */
const STRIP_PIXELS = 1 << 18;

/**
 * The compositor's `blendSurface` (src/engine/composite/blend.ts) in WASM, bit-identical to it.
 * Returns false, doing nothing, when it cannot take the call (kernels not instantiated yet:
 * `await kernels()` once per request; dissolve, non-separable modes, gamma ≠ 1, blend-if) so
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
): boolean {
  const k = enabled ? kernelsNow() : undefined;
  if (!k || (options.gamma ?? 1) !== 1 || options.blendIf?.length) return false;
  for (const [key, value] of Object.entries(options)) if (!KNOWN_OPTIONS.has(key) && value !== undefined) return false;
  const id = Object.hasOwn(WASM_BLEND_MODES, mode) ? WASM_BLEND_MODES[mode]! : mode === 'dissolve' || isNonSeparable(mode) ? -1 : 0;
  if (id < 0) return false;
  const left = Math.max(dst.x, src.x);
  const top = Math.max(dst.y, src.y);
  const right = Math.min(dst.x + dst.w, src.x + src.w);
  const bottom = Math.min(dst.y + dst.h, src.y + src.h);
  if (right <= left || bottom <= top || opacity <= 0) return true;
  const w = right - left;
  const keep = (options.excludedChannels ?? []).reduce((bits, c) => (c >= 0 && c <= 2 ? bits | (1 << c) : bits), 0);
  const rowsPerStrip = Math.max(1, Math.floor(STRIP_PIXELS / w));
  inArena(k, (k, arena) => {
    const cap = Math.min(rowsPerStrip, bottom - top) * w;
    const dPtr = arena.alloc(cap * 4);
    const sPtr = arena.alloc(cap * 4);
    const mPtr = mask ? arena.alloc(cap) : 0;
    const mem = arena.u8();
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
      k.blendPixels(dPtr, sPtr, mPtr, rows * w, opacity, id, options.atop ? 1 : 0, keep);
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
