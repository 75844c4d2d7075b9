import kernelsModule from '../../../wasm/build/kernels.wasm';

/** The exports of wasm/assembly/kernels.ts. Pointers are byte offsets into `memory`. */
export interface KernelExports {
  memory: WebAssembly.Memory;
  /** hue-saturation.ts: the AND of the words the adjustment kernels read (andInput) and how many, since their caller reset them. */
  inputAnd: WebAssembly.Global;
  inputPixels: WebAssembly.Global;
  alloc(bytes: number): number;
  reset(): void;
  toPremultipliedF32(src: number, dst: number, count: number): void;
  fromPremultipliedF32(src: number, dst: number, count: number): void;
  resampleRowH(src: number, srcW: number, scratch: number, out: number, dstW: number, bounds: number, weights: number, stride: number): void;
  resampleRowsH2(src0: number, src1: number, srcW: number, scratch: number, out0: number, out1: number, dstW: number, bounds: number, weights: number, stride: number): void;
  resampleRowsH4(src: number, srcStride: number, srcW: number, scratch: number, out0: number, out1: number, out2: number, out3: number, dstW: number, bounds: number, weights: number, stride: number): void;
  resampleRowV(ring: number, ringRows: number, width: number, first: number, count: number, weights: number, out: number): void;
  resampleRowsV2(ring: number, ringRows: number, width: number, first0: number, count0: number, weights0: number, first1: number, count1: number, weights1: number, out0: number, out1: number): void;
  unsharpBand(src: number, width: number, rows: number, radius: number, kernel: number, amount: number, threshold: number, line: number, ring: number, out: number): void;
  /** 0 when every pixel was opaque (none changed). */
  flattenOverWhite(ptr: number, count: number): number;
  premultiply(ptr: number, count: number): void;
  unpremultiply(ptr: number, count: number): void;
  /** Where width × height RGBA pixels are not transparent: left, top, right, bottom (exclusive) as four i32 at `out`, left −1 when nowhere. */
  inkBox(ptr: number, width: number, height: number, out: number): void;
  jpegBegin(tables: number, huff: number, scratch: number, out: number): void;
  jpegEncodeRow(rgba: number, width: number, sub: number): void;
  jpegEncodeInkRow(cmyk: number, width: number, sub: number): void;
  jpegEncodeGrayRow(gray: number, width: number): void;
  jpegFlush(): void;
  jpegRestart(): void;
  jpegCountSymbols(counts: number, coefCache: number): void;
  jpegReplay(coefCache: number): void;
  jpegTakeOutput(): number;
  jpegDecodeScan(data: number, dataLen: number, start: number, ncomp: number, comps: number, huff: number, mcusX: number, mcusY: number, restartInterval: number): number;
  jpegToRgba(ncomp: number, comps: number, hMax: number, vMax: number, scale: number, width: number, height: number, ycc: number, out: number): void;
  /** jpegDecodeScan at full size with libjpeg's integer IDCT (wasm/assembly/jpeg-idct.ts); 1 when the data runs short or a restart marker is out of order. */
  jpegDecodeScanExact(data: number, dataLen: number, start: number, ncomp: number, comps: number, huff: number, mcusX: number, mcusY: number, restartInterval: number): number;
  /** Rows y0 … y1 − 1 of a full-size decode as RGBA: libjpeg's fancy upsampling and YCbCr tables. */
  jpegRowsExact(ncomp: number, comps: number, hMax: number, vMax: number, width: number, height: number, ycc: number, y0: number, y1: number, out: number, scratch: number): void;
  blendPixels(dst: number, src: number, mask: number, n: number, opacity: number, mode: number, atop: number, keep: number, gamma: number): void;
  fadePixels(dst: number, after: number, mask: number, n: number, opacity: number): void;
  boxBlur(a: number, b: number, sums: number, w: number, h: number, r0: number, r1: number): void;
  shiftBilinear(src: number, out: number, w: number, h: number, fx: number, fy: number): void;
  chamferDistance(a: number, out: number, d: number, w: number, h: number): void;
  hueSaturationPixels(d: number, n: number, params: number, nr: number, cache: number): void;
  channelLuts(d: number, n: number, luts: number): void;
}

let instance: Promise<KernelExports> | undefined;
let ready: KernelExports | undefined;

/** The kernels, instantiated once per isolate from the module compiled at deploy time. */
export function kernels(): Promise<KernelExports> {
  instance ??= WebAssembly.instantiate(kernelsModule, {}).then((i) => (ready = i.exports as unknown as KernelExports));
  return instance;
}

// Start instantiating at module load, so that synchronous callers (the compositor's blend loop
// via blendSurfaceWasm) find the kernels ready from the first request on. Errors surface to
// whoever awaits kernels().
kernels().catch(() => undefined);

/**
 * A new instance of the kernels with its own linear memory, for a one-off operation whose
 * working set is large: a WebAssembly memory never shrinks, so running it in the shared instance
 * would keep that much memory reserved for the isolate's life. Dropped after use, it is freed.
 */
export async function freshKernels(): Promise<KernelExports> {
  return (await WebAssembly.instantiate(kernelsModule, {})).exports as unknown as KernelExports;
}

/**
 * A kernels instance of its own for a never-seen picture's scaled decode (decodeBounded's `lend`),
 * held from the decode until the placement has read it (issue 25 §3): the decoder converts its
 * rows in place in that instance's memory, and the picture is a view of them there, where they
 * were converted in a strip and copied out into a lent array (4.3 MB for a 1600×1200 photo at
 * 6/8: 0.3–0.45 ms of its 3.1–5 ms decode, bench/personalised-cpu.mjs' photo in Node). Nothing
 * else runs in it, so its memory does not grow (which would detach the view) while the picture
 * is held. One picture at a time: another, while one is held, is decoded into a lent array as
 * before. (The placement's resample reading the rows straight from there, not copying each four
 * into its own arena first, was 0.3 ms slower: the copy brings them into the cache at once.)
 */
let pictureKernels: KernelExports | undefined;
let pictureHeld = false;
let holds = 0; // which hold is the current one
// A held picture whose holder failed before releasing it (a request refused after its picture
// was decoded) is read by nobody once collected: the hold it made ends then, so the kernels are
// not kept from later pictures.
const unreleased = typeof FinalizationRegistry === 'function' ? new FinalizationRegistry<number>((hold) => void (hold === holds && (pictureHeld = false))) : undefined;

/** The picture kernels, held until releasePictureKernels; undefined while another picture holds them. */
export async function holdPictureKernels(): Promise<KernelExports | undefined> {
  if (pictureHeld) return undefined;
  pictureHeld = true;
  holds++;
  try {
    pictureKernels ??= await freshKernels();
  } catch (err) {
    pictureHeld = false;
    throw err;
  }
  return pictureKernels;
}

/** Ends holdPictureKernels' hold: the picture in them is read no more. */
export function releasePictureKernels(): void {
  pictureHeld = false;
}

/** Drops the picture kernels' memory when no picture holds it (a large plan needs the room). */
export function dropPictureKernels(): void {
  if (!pictureHeld) pictureKernels = undefined;
}

/** `data` is the held picture (a view of the picture kernels' memory): its hold ends when it is collected unreleased. */
export function markHeldPicture(data: ArrayBufferView): void {
  unreleased?.register(data, holds);
}

/** Bytes of the picture kernels' memory kept while no picture holds it (counted with the lent arrays). */
export const idlePictureKernelsBytes = () => (pictureKernels && !pictureHeld ? pictureKernels.memory.buffer.byteLength : 0);

/** Whether the picture kernels are held now (tests). */
export const pictureKernelsHeld = () => pictureHeld;

/** The kernels if already instantiated (for synchronous callers; `await kernels()` first). */
export function kernelsNow(): KernelExports | undefined {
  return ready;
}

/**
 * Runs one kernel operation in a fresh arena. `body` allocates everything first, then takes
 * typed views (arena.u8() …), which stay valid because nothing allocates after them (memory
 * cannot grow under them). The body is synchronous, so concurrent requests in one isolate
 * never share an arena.
 */
export async function withArena<T>(body: (k: KernelExports, arena: Arena) => T): Promise<T> {
  return inArena(await kernels(), body);
}

/** withArena for synchronous callers holding the instance (kernelsNow()). */
export function inArena<T>(k: KernelExports, body: (k: KernelExports, arena: Arena) => T): T {
  k.reset();
  try {
    return body(k, new Arena(k));
  } finally {
    k.reset();
  }
}

export class Arena {
  constructor(private readonly k: KernelExports) {}
  alloc(bytes: number): number {
    return this.k.alloc(bytes);
  }
  /** Fresh views over the linear memory; call after the last alloc of an operation. */
  u8(): Uint8Array {
    return new Uint8Array(this.k.memory.buffer);
  }
  f32(): Float32Array {
    return new Float32Array(this.k.memory.buffer);
  }
  i32(): Int32Array {
    return new Int32Array(this.k.memory.buffer);
  }
  f64(): Float64Array {
    return new Float64Array(this.k.memory.buffer);
  }
}

/** Pixels per chunk when streaming a buffer through an in-place kernel (1 MB of RGBA). */
const CHUNK_PIXELS = 1 << 18;

/**
 * Applies an in-place per-pixel kernel to `data` (RGBA8), streamed through WASM in chunks. A
 * kernel that answers 0 for a chunk changed none of its pixels: they are not copied back.
 */
export function inPlace(data: Uint8ClampedArray | Uint8Array, pick: (k: KernelExports) => (ptr: number, count: number) => number | void): Promise<void> {
  return withArena((k, arena) => inChunks(arena, data, pick(k)));
}

/** A Hue/Saturation colour range: its unwrapped hues a ≤ b ≤ c ≤ d, hue turn, lightness (−1..1) and saturation α. */
export interface HueRangeChange {
  a: number;
  b: number;
  c: number;
  d: number;
  hue: number;
  light: number;
  alpha: number;
}

let wasmAdjustments = true;

/** Turns the adjustment kernels (Hue/Saturation, channel tables) off (true: on): for tests that pin the TypeScript they replace. */
export function useWasmAdjustments(on: boolean): void {
  wasmAdjustments = on;
}

/**
 * adjust.ts hueSaturation's per-pixel loop (not colorized) over `data` (RGBA8, alpha kept), in
 * WASM (wasm/assembly/hue-saturation.ts), bit-identical. False (and `data` untouched) when the
 * kernels are not instantiated yet or are turned off.
 */
export function hueSaturationPixels(data: Uint8ClampedArray, hue: number, light: number, alpha: number, ranges: readonly HueRangeChange[]): boolean {
  const k = wasmAdjustments ? kernelsNow() : undefined;
  if (!k) return false;
  inArena(k, (k, arena) => {
    const params = arena.alloc((3 + 7 * ranges.length) * 8);
    const cache = arena.alloc(4096 * 8 + 720); // wasm/assembly/hue-saturation.ts HUE_SATURATION_CACHE entries and HUE_BINS
    arena.f64().set([hue, light, alpha, ...ranges.flatMap((r) => [r.a, r.b, r.c, r.d, r.hue, r.light, r.alpha])], params >> 3);
    inChunks(arena, data, (ptr, count) => k.hueSaturationPixels(ptr, count, params, ranges.length, cache));
  });
  return true;
}

/**
 * adjust.ts applyLuts over `data` (RGBA8): each channel's byte through its table (none: kept),
 * alpha kept, in WASM (wasm/assembly/channel-luts.ts). False (and `data` untouched) when the
 * kernels are not instantiated yet or are turned off.
 */
export function channelLutPixels(data: Uint8ClampedArray, r: Uint8Array | null, g: Uint8Array | null, b: Uint8Array | null): boolean {
  const k = wasmAdjustments ? kernelsNow() : undefined;
  if (!k || [r, g, b].some((lut) => lut && lut.length < 256)) return false;
  inArena(k, (k, arena) => {
    const luts = arena.alloc(768);
    const mem = arena.u8();
    [r, g, b].forEach((lut, c) => (lut ? mem.set(lut.subarray(0, 256), luts + 256 * c) : mem.set(IDENTITY, luts + 256 * c)));
    inChunks(arena, data, (ptr, count) => k.channelLuts(ptr, count, luts));
  });
  return true;
}

const IDENTITY = Uint8Array.from({ length: 256 }, (_, v) => v);

/**
 * Runs an in-place per-pixel kernel over `data` (RGBA8) in chunks of CHUNK_PIXELS, copied into
 * the arena and back. The last allocation of the operation (it takes the views after it).
 */
function inChunks(arena: Arena, data: Uint8ClampedArray | Uint8Array, run: (ptr: number, count: number) => number | void): void {
  const total = data.length >> 2;
  const ptr = arena.alloc(Math.min(total, CHUNK_PIXELS) * 4);
  const mem = arena.u8();
  for (let start = 0; start < total; start += CHUNK_PIXELS) {
    const count = Math.min(CHUNK_PIXELS, total - start);
    const slice = data.subarray(start * 4, (start + count) * 4);
    mem.set(slice, ptr);
    if (run(ptr, count) === 0) continue; // nothing changed (flattenOverWhite over opaque pixels)
    slice.set(mem.subarray(ptr, ptr + count * 4));
  }
}
