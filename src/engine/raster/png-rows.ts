/**
 * PNG coded as its rows come (issue 25 §1): a preview frame above 16 MB is drawn in strips, and a
 * PNG of it made through `encodePng` held the whole frame (and the WASM encoder a copy of it).
 * Here each strip's rows are filtered (per row, the filter with the smallest sum of absolute
 * differences, the usual PNG heuristic, summed over a quarter of its pixels) and handed to the
 * platform's zlib CompressionStream (RFC 1950, what IDAT holds); only the coded bytes and one row
 * of the previous strip are kept.
 *
 * The file: signature, IHDR (8-bit RGBA, as encodePng writes), iCCP when a profile is given (as
 * `embedIcc` writes it), one IDAT, IEND. It decodes to the same pixels as `encodePng` of the
 * whole frame (test/engine/raster/png-rows.test.ts).
 */
import { checkCodedBytes } from '../memory/budget';
import { concat } from './bytes';
import { crc32 } from './icc';

type Rows = Uint8Array | Uint8ClampedArray;

const SIGNATURE = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const BPP = 4; // RGBA8
/** Filtered bytes handed to zlib at once (whole rows; at least one): two buffers of this are held. */
const PIECE_BYTES = 256 * 1024;

/** The PNG filter (0 None, 1 Sub, 2 Up, 3 Average, 4 Paeth) of `row` with the smallest sum of |signed difference| (sampled), written into `out` (filter byte first). */
function filterRow(row: Rows, above: Rows, out: Uint8Array, o: number) {
  const n = row.length;
  let best = 0;
  let bestCost = Infinity;
  for (let f = 0; f < 5; f++) {
    const cost = filterCost(f, row, above, n, bestCost);
    if (cost < bestCost) {
      bestCost = cost;
      best = f;
    }
  }
  out[o] = best;
  const d = o + 1;
  // One loop per filter: a per-byte switch costs ~2× here.
  if (best === 0) out.set(row, d);
  else if (best === 1) for (let i = 0; i < n; i++) out[d + i] = row[i]! - (i >= BPP ? row[i - BPP]! : 0);
  else if (best === 2) for (let i = 0; i < n; i++) out[d + i] = row[i]! - above[i]!;
  else if (best === 3) for (let i = 0; i < n; i++) out[d + i] = row[i]! - (((i >= BPP ? row[i - BPP]! : 0) + above[i]!) >> 1);
  else for (let i = 0; i < n; i++) out[d + i] = row[i]! - paeth(i >= BPP ? row[i - BPP]! : 0, above[i]!, i >= BPP ? above[i - BPP]! : 0);
}

/** |signed byte| of a difference. */
const magnitude = (d: number) => ((d & 255) < 128 ? d & 255 : 256 - (d & 255));

/** Pixels apart that the filter choice samples: a quarter of the row predicts the sum well, for a quarter of the time. */
const SAMPLE_STEP = 4 * BPP;

/** Sum of |signed difference| of filter `f` over every SAMPLE_STEP-th pixel of `row` (from the second), given up once it reaches `stop`. */
function filterCost(f: number, row: Rows, above: Rows, n: number, stop: number): number {
  let cost = 0;
  for (let p = BPP; p < n && cost < stop; p += SAMPLE_STEP) {
    for (let i = p, end = Math.min(n, p + BPP); i < end; i++) {
      const a = row[i - BPP]!;
      const b = above[i]!;
      const x = row[i]!;
      cost += magnitude(f === 0 ? x : f === 1 ? x - a : f === 2 ? x - b : f === 3 ? x - ((a + b) >> 1) : x - paeth(a, b, above[i - BPP]!));
    }
  }
  return cost;
}

/** The Paeth predictor of left `a`, above `b`, upper left `c`. */
function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

function chunk(type: string, parts: Uint8Array[]): Uint8Array[] {
  const length = parts.reduce((n, p) => n + p.length, 0);
  const head = new Uint8Array(8);
  new DataView(head.buffer).setUint32(0, length);
  for (let i = 0; i < 4; i++) head[4 + i] = type.charCodeAt(i);
  let crc = crc32(head.subarray(4));
  for (const p of parts) crc = crc32(p, crc);
  const tail = new Uint8Array(4);
  new DataView(tail.buffer).setUint32(0, (crc ^ 0xffffffff) >>> 0);
  return [head, ...parts, tail];
}

async function deflate(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Response(bytes as Uint8Array<ArrayBuffer>).body!.pipeThrough(new CompressionStream('deflate'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/**
 * A PNG of `width`×`height` RGBA8 written a few rows at a time, top to bottom: `write` them,
 * then `finish`. Holds the coded bytes and the last row written.
 */
export class PngRowEncoder {
  private readonly writer: WritableStreamDefaultWriter<Uint8Array>;
  private readonly coded: Uint8Array[] = [];
  private readonly reading: Promise<void>;
  private above: Uint8Array;
  /** The filtered rows' buffers, used in turn (`write`). */
  private readonly buffers: Uint8Array[] = [];
  private turn = 0;
  private y = 0;
  private codedBytes = 0;

  constructor(
    readonly width: number,
    readonly height: number,
    /** Coded bytes past which `write` refuses (422, the request's memory budget: codedBytesLimit). */
    private readonly maxCodedBytes = Infinity,
  ) {
    const stream = new CompressionStream('deflate');
    this.writer = stream.writable.getWriter();
    const reader = stream.readable.getReader();
    this.reading = (async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        this.coded.push(value);
        this.codedBytes += value.byteLength;
      }
    })();
    this.reading.catch(() => {}); // surfaced by finish()
    this.above = new Uint8Array(width * BPP);
  }

  /** Filters and codes the first `count` rows of `pixels` (straight RGBA, `width` pixels a row), the next rows of the image. */
  async write(pixels: Rows, count: number): Promise<void> {
    if (this.y + count > this.height) throw new Error(`PNG rows beyond the image's ${this.height}`);
    const rowBytes = this.width * BPP;
    // Filtered a piece of rows at a time into two small buffers taken in turn (a write has been
    // read once the next one resolves: they are awaited one after the other, so the buffer before
    // last is free again). zlib's output does not depend on how its input is cut, so the bytes are
    // those of whole strips; a strip's worth in each buffer was 8 MB held for a 5,000² preview.
    const piece = Math.max(1, Math.floor(PIECE_BYTES / (rowBytes + 1)));
    let above: Rows = this.above;
    for (let first = 0; first < count; first += piece) {
      const rows = Math.min(piece, count - first);
      const length = rows * (rowBytes + 1);
      const turn = this.y === 0 && first === 0 ? 0 : 1 - this.turn;
      this.turn = turn;
      if ((this.buffers[turn]?.length ?? 0) < length) this.buffers[turn] = new Uint8Array(length);
      const out = this.buffers[turn].subarray(0, length);
      for (let r = 0; r < rows; r++) {
        const row = pixels.subarray((first + r) * rowBytes, (first + r + 1) * rowBytes);
        filterRow(row, above, out, r * (rowBytes + 1));
        above = row;
      }
      await this.writer.ready;
      await this.writer.write(out);
      checkCodedBytes(this.codedBytes, this.maxCodedBytes);
    }
    if (count > 0) this.above.set(above); // a copy: the caller draws the next strip into `pixels`
    this.y += count;
  }

  /** The PNG file, with `icc` as its iCCP profile when given. */
  async finish(icc?: Uint8Array | null, name = 'ICC profile'): Promise<Uint8Array> {
    if (this.y !== this.height) throw new Error(`PNG has ${this.y} of ${this.height} rows`);
    await this.writer.close();
    await this.reading;
    const ihdr = new Uint8Array(13);
    const view = new DataView(ihdr.buffer);
    view.setUint32(0, this.width);
    view.setUint32(4, this.height);
    ihdr.set([8, 6, 0, 0, 0], 8); // 8 bits, RGBA, deflate, adaptive filtering, no interlace
    const parts = [SIGNATURE, ...chunk('IHDR', [ihdr])];
    if (icc) {
      const label = new TextEncoder().encode(name.replace(/[^\x20-\x7e]/g, '').slice(0, 79) || 'ICC profile');
      parts.push(...chunk('iCCP', [label, new Uint8Array([0, 0]), await deflate(icc)]));
    }
    parts.push(...chunk('IDAT', this.coded), ...chunk('IEND', []));
    const file = concat(parts);
    this.coded.length = 0;
    return file;
  }

  /** Drops the stream after a failure (nothing more will be written). */
  async abort(reason: unknown): Promise<void> {
    await this.writer.abort(reason).catch(() => {});
  }
}

/**
 * The PNG of an image drawn a strip at a time: `draw(rows, strip)` puts output rows
 * [rows.top, rows.bottom) into `strip` (row `rows.top` first), then they are coded and the next
 * strip is drawn into the same buffer. Holds one strip and the coded bytes, never the image.
 *
 * @example const png = await encodePngStrips({ width, height }, 64, (rows, strip) => drawInto(strip, rows), { icc });
 */
export async function encodePngStrips(
  size: { width: number; height: number },
  rowsPerStrip: number,
  draw: (rows: { top: number; bottom: number }, strip: Uint8ClampedArray) => Promise<void>,
  options: { icc?: Uint8Array | null; maxCodedBytes?: number } = {},
): Promise<Uint8Array> {
  const rows = Math.max(1, Math.min(size.height, Math.floor(rowsPerStrip)));
  const strip = new Uint8ClampedArray(rows * size.width * BPP);
  return encodePngDrawn(size, rows, async (r) => {
    await draw(r, strip);
    return strip;
  }, options);
}

/**
 * encodePngStrips for a drawer that keeps its own rows: `draw(rows)` gives output rows
 * [rows.top, rows.bottom) as the first rows of the array it returns (whole rows, row `rows.top`
 * first), read before the next strip is drawn. No strip array of its own: a 5,000² preview's
 * strips were drawn into their buffers and copied into one (4.2 MB, issue 25 §1). The same bytes
 * as encodePngStrips of the same rows, whatever the strips' height: zlib's output does not depend
 * on how its input is cut, and each row's filter reads only it and the row above.
 *
 * @example const png = await encodePngDrawn({ width, height }, 64, async (rows) => drawnRows(rows), { icc });
 */
export async function encodePngDrawn(
  size: { width: number; height: number },
  rowsPerStrip: number,
  draw: (rows: { top: number; bottom: number }) => Promise<Rows>,
  options: { icc?: Uint8Array | null; maxCodedBytes?: number } = {},
): Promise<Uint8Array> {
  const { width, height } = size;
  const rows = Math.max(1, Math.min(height, Math.floor(rowsPerStrip)));
  const png = new PngRowEncoder(width, height, options.maxCodedBytes);
  try {
    for (let top = 0; top < height; top += rows) {
      const bottom = Math.min(height, top + rows);
      const drawn = await draw({ top, bottom });
      if (drawn.length < (bottom - top) * width * BPP) throw new RangeError(`PNG strip of ${drawn.length} bytes for ${bottom - top} rows of ${width} px`);
      await png.write(drawn, bottom - top);
    }
  } catch (err) {
    await png.abort(err);
    throw err;
  }
  return png.finish(options.icc);
}
