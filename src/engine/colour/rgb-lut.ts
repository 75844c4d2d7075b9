/**
 * A faster evaluator for LittleCMS transforms with 8-bit RGB input (the print path's RGB page →
 * CMYK or grey): the transform itself is LittleCMS's, sampled once on a 33³ grid at 16 bits (the
 * grid LittleCMS uses for its own device links of RGB input), then interpolated tetrahedrally
 * here. Our WebAssembly build of LittleCMS evaluates ~50 ns a pixel (no SIMD, a call per strip
 * through its generic pipeline); this loop takes ~15, and agrees with LittleCMS's 16-bit
 * evaluation of the same transform within one level (tested). Every call with 8-bit RGB input
 * takes it, so a colour converts alike whatever the strip; sampling costs a few milliseconds once
 * per cached transform.
 */

const GRID = 33;
const STRIDE_R = GRID * GRID;
const STRIDE_G = GRID;

/** Per 8-bit input value: the grid cell below it and the position inside the cell (0–256). */
const CELL = new Int32Array(256);
const FRACTION = new Int32Array(256);
for (let v = 0; v < 256; v++) {
  const position = (v * (GRID - 1)) / 255;
  const cell = Math.min(GRID - 2, Math.floor(position));
  CELL[v] = cell;
  FRACTION[v] = Math.round((position - cell) * 256);
}

export interface RgbLutLayout {
  /** Bytes a source pixel: 3 (RGB) or 4 (RGBA, the alpha byte last). */
  sourceSize: 3 | 4;
  /** Colour channels out: 1 (grey), 3 (RGB) or 4 (CMYK). */
  channels: 1 | 3 | 4;
  /** Bytes a target pixel (channels, plus 1 when the target has alpha). */
  targetSize: number;
  /** The target's alpha: copied from the source's, or 255 when the source has none. */
  targetAlpha: boolean;
}

/**
 * `sample(grid, out, count)`: the LittleCMS transform from 16-bit RGB to 16-bit output channels
 * (already in the target's convention, e.g. inverted CMYK) for `count` grid points.
 */
export function rgbLut(layout: RgbLutLayout, sample: (rgb16: Uint16Array, out16: Uint16Array, count: number) => void) {
  const points = GRID * GRID * GRID;
  const grid = new Uint16Array(points * 3);
  for (let r = 0, i = 0; r < GRID; r++)
    for (let g = 0; g < GRID; g++)
      for (let b = 0; b < GRID; b++, i += 3) {
        grid[i] = Math.round((r * 65535) / (GRID - 1));
        grid[i + 1] = Math.round((g * 65535) / (GRID - 1));
        grid[i + 2] = Math.round((b * 65535) / (GRID - 1));
      }
  const out16 = new Uint16Array(points * layout.channels);
  sample(grid, out16, points);
  // Node values in units of 1/256 of an 8-bit level, so the weighted sum (weights total 256)
  // stays an exact integer below 2³¹: (Σ w·v + 2¹⁵) >> 16 is the rounded 8-bit value.
  const n = layout.channels;
  const table = new Uint16Array(points * n);
  for (let i = 0; i < table.length; i++) table[i] = Math.round((out16[i]! * 256) / 257);
  const dr = STRIDE_R * n;
  const dg = STRIDE_G * n;
  const db = n;

  return function apply(source: Uint8Array, target: Uint8Array, pixelCount: number): void {
    const { sourceSize, targetSize, targetAlpha } = layout;
    for (let p = 0, q = 0, end = pixelCount * sourceSize; p < end; p += sourceSize, q += targetSize) {
      const r = source[p]!;
      const g = source[p + 1]!;
      const b = source[p + 2]!;
      const fr = FRACTION[r]!;
      const fg = FRACTION[g]!;
      const fb = FRACTION[b]!;
      const base = CELL[r]! * dr + CELL[g]! * dg + CELL[b]! * db;
      // The tetrahedron of the cell that holds the point (Sakamoto's six cases), by the order of
      // the fractions: corners c1, c2, c3 from the base, and the weights between them.
      let c1: number, c2: number, c3: number, f1: number, f2: number, f3: number;
      if (fr >= fg) {
        if (fg >= fb) (c1 = dr), (c2 = dr + dg), (f1 = fr), (f2 = fg), (f3 = fb);
        else if (fr >= fb) (c1 = dr), (c2 = dr + db), (f1 = fr), (f2 = fb), (f3 = fg);
        else (c1 = db), (c2 = dr + db), (f1 = fb), (f2 = fr), (f3 = fg);
      } else if (fr >= fb) (c1 = dg), (c2 = dr + dg), (f1 = fg), (f2 = fr), (f3 = fb);
      else if (fg >= fb) (c1 = dg), (c2 = dg + db), (f1 = fg), (f2 = fb), (f3 = fr);
      else (c1 = db), (c2 = dg + db), (f1 = fb), (f2 = fg), (f3 = fr);
      c3 = dr + dg + db;
      const w0 = 256 - f1;
      const w1 = f1 - f2;
      const w2 = f2 - f3;
      const a = base + c1;
      const b2 = base + c2;
      const c = base + c3;
      target[q] = (w0 * table[base]! + w1 * table[a]! + w2 * table[b2]! + f3 * table[c]! + 32768) >> 16;
      if (n > 1) {
        target[q + 1] = (w0 * table[base + 1]! + w1 * table[a + 1]! + w2 * table[b2 + 1]! + f3 * table[c + 1]! + 32768) >> 16;
        target[q + 2] = (w0 * table[base + 2]! + w1 * table[a + 2]! + w2 * table[b2 + 2]! + f3 * table[c + 2]! + 32768) >> 16;
        if (n > 3) target[q + 3] = (w0 * table[base + 3]! + w1 * table[a + 3]! + w2 * table[b2 + 3]! + f3 * table[c + 3]! + 32768) >> 16;
      }
      if (targetAlpha) target[q + n] = sourceSize === 4 ? source[p + 3]! : 255;
    }
  };
}
