// Per-channel tables (src/engine/composite/adjust.ts applyLuts: Curves, Levels, Brightness/
// Contrast, Invert, Posterize): each of a pixel's R, G and B bytes replaced by its table's entry,
// alpha kept. A channel without a table takes the identity.

import { andInput } from './hue-saturation';

/** `n` RGBA8 pixels at `d`, in place; `luts` holds three 256-byte tables, R's, G's and B's. The input words ANDed into hue-saturation.ts inputAnd (drawBoxedAdjustment's opaque box). */
export function channelLuts(d: usize, n: i32, luts: usize): void {
  andInput(d, n);
  const end = d + (<usize>n << 2);
  for (let p = d; p < end; p += 4) {
    const w = load<u32>(p);
    const r = <u32>load<u8>(luts + (w & 0xff));
    const g = <u32>load<u8>(luts + 256 + ((w >>> 8) & 0xff));
    const b = <u32>load<u8>(luts + 512 + ((w >>> 16) & 0xff));
    store<u32>(p, (w & 0xff000000) | (b << 16) | (g << 8) | r);
  }
}
