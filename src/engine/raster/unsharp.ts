import { invalidInput } from '../errors';
import type { RGBAImage } from '../types';
import { withArena } from './kernels';

/** Unsharp mask settings (rendering contract, Output). */
export interface UnsharpMask {
  /** Gain: 1.2 adds 120 % of the high-pass. */
  amount: number;
  /** Gaussian sigma in output pixels. */
  radius: number;
  /** 0–1: a channel whose difference from its blur is below this (× 255) is left alone. */
  threshold: number;
}

export const DEFAULT_UNSHARP_MASK: Readonly<UnsharpMask> = Object.freeze({ amount: 1.2, radius: 0.5, threshold: 0.05 });

/** Largest accepted sigma: the kernel spans ±3σ, and it runs on every output pixel. */
export const MAX_UNSHARP_RADIUS = 100;

const NUMBER = /^[+]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/**
 * The request's `unsharpMask` → settings, or null when turned off.
 * `false` (or "false", any case) → off; absent, null, `true` → (1.2, 0.5, 0.05);
 * "amount, radius, threshold" with or without parentheses → those; anything else → 400.
 *
 * @example parseUnsharpMask('(0.8, 1, 0.02)') // { amount: 0.8, radius: 1, threshold: 0.02 }
 */
export function parseUnsharpMask(value: unknown, path = 'unsharpMask'): UnsharpMask | null {
  const fail = (reason: string): never => {
    throw invalidInput(`unsharpMask is not valid: ${reason}`, [{ path, reason }]);
  };
  if (value === undefined || value === null || value === true) return { ...DEFAULT_UNSHARP_MASK };
  if (value === false) return null;
  if (typeof value !== 'string') return fail('expected false, true or "amount, radius, threshold".');
  let text = value.trim();
  if (/^true$/i.test(text)) return { ...DEFAULT_UNSHARP_MASK };
  if (/^false$/i.test(text)) return null;
  if (text.startsWith('(') && text.endsWith(')')) text = text.slice(1, -1);
  const parts = text.split(',').map((p) => p.trim());
  if (parts.length !== 3 || !parts.every((p) => NUMBER.test(p))) {
    return fail('expected three non-negative numbers "amount, radius, threshold".');
  }
  const [amount, radius, threshold] = parts.map(Number) as [number, number, number];
  if (![amount, radius, threshold].every(Number.isFinite)) return fail('numbers must be finite.');
  if (radius > MAX_UNSHARP_RADIUS) return fail(`radius (Gaussian sigma) must be at most ${MAX_UNSHARP_RADIUS}.`);
  if (threshold > 1) return fail('threshold must be between 0 and 1.');
  return { amount, radius, threshold };
}

/** Normalised half Gaussian: k[0] centre, k[i] = k[-i], covering ±ceil(3σ). */
export function gaussianKernel(sigma: number): Float32Array {
  const radius = Math.max(1, Math.ceil(sigma * 3));
  const k = new Float32Array(radius + 1);
  let sum = 0;
  for (let i = 0; i <= radius; i++) {
    k[i] = Math.exp(-(i * i) / (2 * sigma * sigma));
    sum += i === 0 ? k[i]! : 2 * k[i]!;
  }
  for (let i = 0; i <= radius; i++) k[i]! /= sum;
  return k;
}

/** How many pixels each side an output pixel reads (the kernel's radius); 0 when it is off. */
export function unsharpReach({ amount, radius }: UnsharpMask): number {
  return amount === 0 || radius <= 0 ? 0 : gaussianKernel(radius).length - 1;
}

/**
 * Sharpens colour (not alpha): out = c + amount · (c − blur(c)) where |c − blur(c)| ≥ threshold,
 * blur being a Gaussian of sigma `radius` on premultiplied pixels (so transparent neighbours do
 * not pull edges dark). Returns a new image, or one over `into` (a kept strip buffer at least
 * that long, not img's); works in bands of rows so memory stays small.
 */
export async function unsharpMask(img: RGBAImage, { amount, radius, threshold }: UnsharpMask, into?: Uint8ClampedArray): Promise<RGBAImage> {
  const { width, height } = img;
  const out = into ? into.subarray(0, img.data.length) : new Uint8ClampedArray(img.data.length);
  if (amount === 0 || radius <= 0) {
    out.set(img.data);
    return { width, height, data: out };
  }
  const kernel = gaussianKernel(radius);
  const r = kernel.length - 1;
  // The kernel holds the ring rows of up to 1,023 taps a side (MAX_UNSHARP_RADIUS reaches 300).
  if (r > 1023) throw new RangeError(`unsharpMask: radius ${radius} reaches ${r} pixels, more than 1,023`);
  // Bands of rows as tall as BAND_BYTES of source bytes allow; each reads r rows more on either
  // side, blurred across again (2 × 2 rows per 163-row band at 800 px, the default's reach).
  const stride = width * 4;
  const rows = Math.max(8, Math.min(height, Math.floor(BAND_BYTES / stride)));

  await withArena((k, arena) => {
    const inRows = rows + 2 * r;
    const src = arena.alloc(inRows * stride);
    const line = arena.alloc(width * 16);
    const ring = arena.alloc((2 * r + 1) * width * 16);
    const dst = arena.alloc(rows * stride);
    const kPtr = arena.alloc(kernel.byteLength);
    const u8 = arena.u8();
    arena.f32().set(kernel, kPtr >> 2);
    for (let top = 0; top < height; top += rows) {
      const n = Math.min(rows, height - top);
      // Rows top−r … top+n+r: those inside the image in one copy, the image's edge row repeated above or below it.
      const first = Math.max(0, top - r);
      const end = Math.min(height, top + n + r);
      const at = (y: number) => src + (y - top + r) * stride;
      u8.set(img.data.subarray(first * stride, end * stride), at(first));
      for (let y = top - r; y < first; y++) u8.copyWithin(at(y), at(first), at(first) + stride);
      for (let y = end; y < top + n + r; y++) u8.copyWithin(at(y), at(end - 1), at(end - 1) + stride);
      k.unsharpBand(src, width, n, r, kPtr, amount, threshold, line, ring, dst);
      out.set(u8.subarray(dst, dst + n * stride), top * stride);
    }
  });
  return { width, height, data: out };
}

/**
 * Source bytes per band: the band and its result (u8) are all the kernel holds besides one
 * premultiplied row and a ring of 2r + 1 blurred rows, so a band can be tall and few rows are
 * read twice.
 */
const BAND_BYTES = 1 << 19;

/** The settings as a cache key's part ('none' without sharpening): kept frames differ by them. */
export const unsharpKey = (sharpen: UnsharpMask | null): string => (sharpen ? `${sharpen.amount},${sharpen.radius},${sharpen.threshold}` : 'none');
