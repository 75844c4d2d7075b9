import kernelsModule from '../../../wasm/build/kernels.wasm';

/**
 * A faster evaluator for LittleCMS transforms with 8-bit RGB input (the print path's RGB page →
 * CMYK or grey): the transform itself is LittleCMS's, sampled once on a 33³ grid at 16 bits (the
 * grid LittleCMS uses for its own device links of RGB input), then interpolated tetrahedrally
 * here. Our WebAssembly build of LittleCMS evaluates ~50 ns a pixel (no SIMD, its generic
 * pipeline); the SIMD kernel (wasm/assembly/colour-lut.ts: a node's four channels in one i32x4)
 * takes a few, and agrees with LittleCMS's 16-bit evaluation of the same transform within one
 * level (tested). The kernel runs in an instance of its own (conversions are called from inside
 * other kernels' arenas, e.g. the JPEG encoder's row source), holding one table and a chunk. Every call with 8-bit RGB input
 * takes it, so a colour converts alike whatever the strip; sampling costs a few milliseconds once
 * per cached transform.
 */

const GRID = 33;
const NODE_BYTES = 16; // four i32 channels (fewer used for RGB and grey)
const DR = GRID * GRID * NODE_BYTES;
const DG = GRID * NODE_BYTES;
const DB = NODE_BYTES;
const TABLE_BYTES = GRID * GRID * GRID * NODE_BYTES;
/** Pixels converted per kernel call: bounds the instance's memory to ~1 MB of strip. */
const CHUNK = 65_536;

/** Per 8-bit input value: byte offsets of the grid cell below it along R, G, B; then its position in the cell (0–256). */
const OFFSETS = new Int32Array(4 * 256);
for (let v = 0; v < 256; v++) {
  const position = (v * (GRID - 1)) / 255;
  const cell = Math.min(GRID - 2, Math.floor(position));
  OFFSETS[v] = cell * DR;
  OFFSETS[256 + v] = cell * DG;
  OFFSETS[512 + v] = cell * DB;
  OFFSETS[768 + v] = Math.round((position - cell) * 256);
}

interface LutKernel {
  memory: WebAssembly.Memory;
  alloc(bytes: number): number;
  reset(): void;
  lutTetrahedral(src: number, srcStride: number, dst: number, dstStride: number, channels: number, alpha: number, count: number, offsets: number, table: number, dr: number, dg: number, db: number): void;
}

/** The kernel instance and where its buffers are; the table of one transform is loaded at a time. */
let instance: { k: LutKernel; offsets: number; table: number; src: number; dst: number; loaded?: Int32Array } | undefined;

function kernel(): NonNullable<typeof instance> {
  if (!instance) {
    const k = new WebAssembly.Instance(kernelsModule, {}).exports as unknown as LutKernel;
    k.reset();
    const offsets = k.alloc(OFFSETS.byteLength);
    const table = k.alloc(TABLE_BYTES);
    const src = k.alloc(CHUNK * 4);
    const dst = k.alloc(CHUNK * 4);
    new Int32Array(k.memory.buffer, offsets, OFFSETS.length).set(OFFSETS);
    instance = { k, offsets, table, src, dst };
  }
  return instance;
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
  const n = layout.channels;
  const out16 = new Uint16Array(points * n);
  sample(grid, out16, points);
  // Node values in 1/256 of an 8-bit level, so the weighted sum (weights total 256) stays an
  // exact integer: (Σ w·v + 2¹⁵) >> 16 is the rounded 8-bit value.
  const table = new Int32Array(points * 4);
  for (let p = 0; p < points; p++) for (let c = 0; c < n; c++) table[p * 4 + c] = Math.round((out16[p * n + c]! * 256) / 257);
  const alpha = layout.targetAlpha ? (layout.sourceSize === 4 ? 1 : 2) : 0;

  return function apply(source: Uint8Array, target: Uint8Array, pixelCount: number): void {
    const wasm = kernel();
    const { k } = wasm;
    if (wasm.loaded !== table) {
      new Int32Array(k.memory.buffer, wasm.table, table.length).set(table);
      wasm.loaded = table;
    }
    const { sourceSize, targetSize } = layout;
    for (let at = 0; at < pixelCount; at += CHUNK) {
      const count = Math.min(CHUNK, pixelCount - at);
      const heap = new Uint8Array(k.memory.buffer);
      heap.set(source.subarray(at * sourceSize, (at + count) * sourceSize), wasm.src);
      k.lutTetrahedral(wasm.src, sourceSize, wasm.dst, targetSize, n, alpha, count, wasm.offsets, wasm.table, DR, DG, DB);
      target.set(heap.subarray(wasm.dst, wasm.dst + count * targetSize), at * targetSize);
    }
  };
}
