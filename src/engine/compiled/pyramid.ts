import type { Bounds } from '../types';
import { freeNow } from './free';

/**
 * The pixel pyramid. Level k holds a layer at scale 1/2^k on the document's own grid: level pixel
 * (x, y) covers template pixels [x·2^k, (x+1)·2^k) × [y·2^k, (y+1)·2^k), so every level of every
 * layer lines up with every other without resampling offsets.
 */

export function levelBounds(b: Bounds, level: number): Bounds {
  const f = 2 ** level;
  return {
    left: Math.floor(b.left / f),
    top: Math.floor(b.top / f),
    right: Math.ceil(b.right / f),
    bottom: Math.ceil(b.bottom / f),
  };
}

/** Number of levels: halve until the long side is at most ~256 px. */
export function levelCount(width: number, height: number): number {
  let n = 1;
  let long = Math.max(width, height);
  while (long > 256) {
    long /= 2;
    n++;
  }
  return n;
}

/** The level to read for an output scale: the smallest stored one still at or above the scale. */
export function levelFor(scale: number, levels: number): number {
  let k = 0;
  while (k + 1 < levels && 2 ** -(k + 1) >= scale - 1e-9) k++;
  return k;
}

/**
 * Halves RGBA pixels on the document grid. `src` covers `sb` (level k-1 coordinates); the result
 * covers levelBounds(sb) at level k. Colour is averaged weighted by alpha (premultiplied), so
 * transparent pixels lend no colour.
 */
export function halveRGBA(src: Uint8Array, sb: Bounds): { data: Uint8Array; bounds: Bounds } {
  const db = levelBounds(sb, 1);
  const sw = sb.right - sb.left;
  const dw = db.right - db.left;
  const dh = db.bottom - db.top;
  const out = new Uint8Array(dw * dh * 4);
  for (let y = 0; y < dh; y++) {
    const sy0 = (db.top + y) * 2 - sb.top;
    for (let x = 0; x < dw; x++) {
      const sx0 = (db.left + x) * 2 - sb.left;
      let r = 0, g = 0, b = 0, a = 0;
      for (let dy = 0; dy < 2; dy++) {
        const sy = sy0 + dy;
        if (sy < 0 || sy >= sb.bottom - sb.top) continue;
        for (let dx = 0; dx < 2; dx++) {
          const sx = sx0 + dx;
          if (sx < 0 || sx >= sw) continue;
          const i = (sy * sw + sx) * 4;
          const al = src[i + 3];
          r += src[i] * al;
          g += src[i + 1] * al;
          b += src[i + 2] * al;
          a += al;
        }
      }
      const o = (y * dw + x) * 4;
      if (a > 0) {
        out[o] = Math.round(r / a);
        out[o + 1] = Math.round(g / a);
        out[o + 2] = Math.round(b / a);
        out[o + 3] = Math.round(a / 4);
      }
    }
  }
  return { data: out, bounds: db };
}

/** Halves a one-channel mask on the document grid; outside the source it is `fill`. */
export function halveGray(src: Uint8Array, sb: Bounds, fill: number): { data: Uint8Array; bounds: Bounds } {
  const db = levelBounds(sb, 1);
  const sw = sb.right - sb.left;
  const sh = sb.bottom - sb.top;
  const dw = db.right - db.left;
  const dh = db.bottom - db.top;
  const out = new Uint8Array(dw * dh);
  for (let y = 0; y < dh; y++) {
    const sy0 = (db.top + y) * 2 - sb.top;
    for (let x = 0; x < dw; x++) {
      const sx0 = (db.left + x) * 2 - sb.left;
      let v = 0;
      for (let dy = 0; dy < 2; dy++) {
        const sy = sy0 + dy;
        for (let dx = 0; dx < 2; dx++) {
          const sx = sx0 + dx;
          v += sy < 0 || sy >= sh || sx < 0 || sx >= sw ? fill : src[sy * sw + sx];
        }
      }
      out[y * dw + x] = (v + 2) >> 2;
    }
  }
  return { data: out, bounds: db };
}

/**
 * halveRGBA of two rows (`even` above `odd`, either missing) spanning [left, right) of their
 * level, written to `out` (levelBounds of that span): the same sums, without copying the rows
 * into a pair first. All-opaque pixels (most of a photo) round as (sum + 2) >> 2, which equals
 * Math.round(sum · 255 / 1020).
 *
 * Where both rows are there, the output pixels whose two columns both lie in the span are made by
 * a loop without bounds checks that looks at the four alphas first: all opaque, the colour sums
 * alone (no products); all transparent, zeros; else the alpha-weighted sums as halveRGBA's. The
 * same bytes as the checked loop (the sums are exact integers, in any order), for a fifth to a
 * half of its time (Node 22, an 8,000 px row; docs/performance.md "Session 28: compile CPU").
 */
function halveRowsRGBA(even: Uint8Array | null, odd: Uint8Array | null, left: number, right: number, out: Uint8Array): void {
  const dl = Math.floor(left / 2);
  const dr = Math.ceil(right / 2);
  if (!even || !odd) {
    halveRangeRGBA(even, odd, left, right, dl, dr, out);
    return;
  }
  // Output pixels [first, last) take both columns from the span: an odd left edge, or an odd
  // right one, leaves a pixel with one column at either end (made by the checked loop).
  const first = left % 2 === 0 ? dl : dl + 1;
  const last = right % 2 === 0 ? dr : dr - 1;
  if (first > dl) halveRangeRGBA(even, odd, left, right, dl, first, out);
  for (let x = first, i = (2 * first - left) * 4, o = (first - dl) * 4; x < last; x++, i += 8, o += 4) {
    const a0 = even[i + 3];
    const a1 = even[i + 7];
    const a2 = odd[i + 3];
    const a3 = odd[i + 7];
    const a = a0 + a1 + a2 + a3;
    if (a === 1020) {
      out[o] = (even[i] + even[i + 4] + odd[i] + odd[i + 4] + 2) >> 2;
      out[o + 1] = (even[i + 1] + even[i + 5] + odd[i + 1] + odd[i + 5] + 2) >> 2;
      out[o + 2] = (even[i + 2] + even[i + 6] + odd[i + 2] + odd[i + 6] + 2) >> 2;
      out[o + 3] = 255;
    } else if (a === 0) {
      out[o] = out[o + 1] = out[o + 2] = out[o + 3] = 0;
    } else {
      out[o] = Math.round((even[i] * a0 + even[i + 4] * a1 + odd[i] * a2 + odd[i + 4] * a3) / a);
      out[o + 1] = Math.round((even[i + 1] * a0 + even[i + 5] * a1 + odd[i + 1] * a2 + odd[i + 5] * a3) / a);
      out[o + 2] = Math.round((even[i + 2] * a0 + even[i + 6] * a1 + odd[i + 2] * a2 + odd[i + 6] * a3) / a);
      out[o + 3] = Math.round(a / 4);
    }
  }
  if (last >= first && last < dr) halveRangeRGBA(even, odd, left, right, last, dr, out);
}

/** halveRowsRGBA's output pixels [from, to) (level coordinates), each column checked against the span. */
function halveRangeRGBA(even: Uint8Array | null, odd: Uint8Array | null, left: number, right: number, from: number, to: number, out: Uint8Array): void {
  const sw = right - left;
  for (let x = from, o = (from - Math.floor(left / 2)) * 4; x < to; x++, o += 4) {
    let r = 0, g = 0, b = 0, a = 0;
    for (let sx = 2 * x - left, end = sx + 2; sx < end; sx++) {
      if (sx < 0 || sx >= sw) continue;
      const i = sx * 4;
      if (even) {
        const al = even[i + 3];
        r += even[i] * al;
        g += even[i + 1] * al;
        b += even[i + 2] * al;
        a += al;
      }
      if (odd) {
        const al = odd[i + 3];
        r += odd[i] * al;
        g += odd[i + 1] * al;
        b += odd[i + 2] * al;
        a += al;
      }
    }
    if (a === 1020) {
      out[o] = (r / 255 + 2) >> 2;
      out[o + 1] = (g / 255 + 2) >> 2;
      out[o + 2] = (b / 255 + 2) >> 2;
      out[o + 3] = 255;
    } else if (a > 0) {
      out[o] = Math.round(r / a);
      out[o + 1] = Math.round(g / a);
      out[o + 2] = Math.round(b / a);
      out[o + 3] = Math.round(a / 4);
    } else {
      out[o] = out[o + 1] = out[o + 2] = out[o + 3] = 0;
    }
  }
}

/** halveGray of two rows (either missing: `fill`), as halveRowsRGBA. */
function halveRowsGray(even: Uint8Array | null, odd: Uint8Array | null, left: number, right: number, fill: number, out: Uint8Array): void {
  const dl = Math.floor(left / 2);
  const dr = Math.ceil(right / 2);
  const sw = right - left;
  for (let x = dl, o = 0; x < dr; x++, o++) {
    let v = 0;
    for (let sx = 2 * x - left, end = sx + 2; sx < end; sx++) {
      if (sx < 0 || sx >= sw) v += 2 * fill;
      else v += (even ? even[sx] : fill) + (odd ? odd[sx] : fill);
    }
    out[o] = (v + 2) >> 2;
  }
}

/** Rows per stored band, in each level's own rows; bands start at multiples of BAND. */
export const BAND = 256;

/** Bands (absolute indices) covering level rows [top, bottom). */
export function bandsFor(top: number, bottom: number): number[] {
  const out: number[] = [];
  for (let b = Math.floor(top / BAND); b * BAND < bottom; b++) out.push(b);
  return out;
}

/**
 * Band buffers kept from one layer's pyramid to the next: compile writes the layers of a template
 * one after another (each writer done before the next starts), so each level's buffer serves
 * them all instead of one per layer (a 9-layer 8,000² template made 62 MB of them).
 */
export class BandBuffers {
  private readonly levels: Uint8Array[] = [];

  /** Level k's buffer, at least `bytes` long (grown when too small). */
  get(k: number, bytes: number): Uint8Array {
    let buffer = this.levels[k];
    if (!buffer || buffer.length < bytes) this.levels[k] = buffer = new Uint8Array(bytes);
    return buffer;
  }

  /** Frees every buffer now (./free.ts): once the last writer is done. */
  release(): void {
    freeNow(this.levels);
    this.levels.length = 0;
  }
}

/** A band sent as its rows arrive: `add` takes each in order (await what it returns), `end` once all have. */
export interface BandSink {
  add(row: Uint8Array): Promise<void> | undefined;
  end(): Promise<void>;
}

/**
 * Builds a layer's pyramid from its level-0 rows, streaming: each level keeps one band of rows
 * and one pending row for halving, and hands a band to `write` as soon as it is complete. Memory
 * is about one band per level, whatever the layer's size.
 *
 * Each level fills one buffer, band after band: `write` gets a view of it and must be done with
 * the bytes when its promise resolves (compile.ts packs them first). A new array per band made a
 * 10,000² layer's upload allocate 509 MB of 10 MB and 5 MB bands, which workerd's process kept
 * as pages long after they were garbage (docs/memory.md).
 */
export class PyramidWriter {
  private readonly levels: Array<{
    bounds: Bounds;
    /** Rows of the band being filled (a view of `buffer`), or null between bands. */
    band: Uint8Array | null;
    /** Level 0's band being sent as its rows arrive (`level0`), instead of `band`. */
    sink?: BandSink | null;
    buffer?: Uint8Array;
    bandIndex: number;
    bandTop: number;
    /** The level row held in `pendingRow` for halving with the next one, or null. */
    pending: number | null;
    scratch?: Uint8Array;
    /** The even row kept for halving, reused: it is consumed by the next row before it is refilled. */
    pendingRow?: Uint8Array;
  }> = [];

  constructor(
    bounds: Bounds,
    count: number,
    private readonly channels: 1 | 4,
    private readonly fill: number,
    private readonly write: (level: number, band: number, data: Uint8Array) => Promise<void>,
    /** Where the band buffers come from when they may serve other writers after this one. */
    private readonly buffers?: BandBuffers,
    /** Level 0's bands go here row by row (packed as they come) instead of through a buffer and `write`. */
    private readonly level0?: (band: number, bytes: number) => BandSink,
  ) {
    for (let k = 0; k < count; k++) {
      this.levels.push({ bounds: levelBounds(bounds, k), band: null, bandIndex: -1, bandTop: 0, pending: null });
    }
  }

  /**
   * Next level-0 row (rows arrive in order from bounds.top, each once). Returns a promise only
   * when a completed band is being written: await it before the next row; `data` may be reused
   * once it has resolved, or at once when there is none. Most rows make no promise (a promise
   * chain per row and level was most of the JS garbage a 10,000 px tall layer made).
   */
  push(row: number, data: Uint8Array): Promise<void> | undefined {
    return this.add(0, row, data);
  }

  async finish(): Promise<void> {
    for (let k = 0; k < this.levels.length; k++) {
      const lv = this.levels[k];
      if (lv.pending !== null) {
        const row = lv.pending;
        lv.pending = null;
        await this.halve(k, row, lv.pendingRow!, null);
      }
      await this.flush(k);
    }
  }

  private add(k: number, row: number, data: Uint8Array): Promise<void> | undefined {
    const lv = this.levels[k];
    const band = Math.floor(row / BAND);
    // The band before is written first; then the row goes into the next one.
    if (band !== lv.bandIndex && (lv.band || lv.sink)) return this.flush(k)!.then(() => this.add(k, row, data));
    const w = (lv.bounds.right - lv.bounds.left) * this.channels;
    const rowData = data.length === w ? data : data.subarray(0, w);
    if (band !== lv.bandIndex) {
      lv.bandIndex = band;
      lv.bandTop = Math.max(band * BAND, lv.bounds.top);
      const bottom = Math.min((band + 1) * BAND, lv.bounds.bottom);
      if (k === 0 && this.level0) lv.sink = this.level0(band, (bottom - lv.bandTop) * w);
      else {
        // No band is more than BAND rows. Every row of a band arrives before it is written (rows
        // come in order, each once, on every level), so nothing of the band before carries over.
        const bytes = Math.min(BAND, lv.bounds.bottom - lv.bounds.top) * w;
        lv.buffer ??= this.buffers ? this.buffers.get(k, bytes) : new Uint8Array(bytes);
        lv.band = lv.buffer.subarray(0, (bottom - lv.bandTop) * w);
      }
    }
    if (lv.sink) {
      // Rows arrive in order: the sink appends. The row is halved once the sink has taken it in.
      const sent = lv.sink.add(rowData);
      if (sent) return sent.then(() => this.halveOrKeep(k, row, data, rowData));
    } else lv.band!.set(rowData, (row - lv.bandTop) * w);
    return this.halveOrKeep(k, row, data, rowData);
  }

  /** Row `row` of level k, stored: halved with the row above into level k + 1, or kept for the next. */
  private halveOrKeep(k: number, row: number, data: Uint8Array, rowData: Uint8Array): Promise<void> | undefined {
    const lv = this.levels[k];
    if (k + 1 >= this.levels.length) return undefined;
    if (row % 2 === 1) {
      const above = lv.pending === row - 1 ? lv.pendingRow! : null;
      lv.pending = null;
      return this.halve(k, row, above, data);
    }
    // One buffer per level, not a copy per row pair: a 10,000 px wide layer made 200 MB of
    // 40 KB garbage, all of it held until the collector came.
    (lv.pendingRow ??= new Uint8Array(rowData.length)).set(rowData);
    lv.pending = row;
    return undefined;
  }

  /** Halves rows (2r, 2r+1) of level k (either may be missing) into row r of level k+1. */
  private halve(k: number, row: number, even: Uint8Array | null, odd: Uint8Array | null): Promise<void> | undefined {
    const lv = this.levels[k];
    const next = this.levels[k + 1];
    const w = next.bounds.right - next.bounds.left;
    // One output row per level, reused: add() copies what it keeps.
    const out = (lv.scratch ??= new Uint8Array(w * this.channels));
    if (this.channels === 4) halveRowsRGBA(even, odd, lv.bounds.left, lv.bounds.right, out);
    else halveRowsGray(even, odd, lv.bounds.left, lv.bounds.right, this.fill, out);
    return this.add(k + 1, (row - (row % 2)) / 2, out);
  }

  private flush(k: number): Promise<void> | undefined {
    const lv = this.levels[k];
    if (lv.sink) {
      const sink = lv.sink;
      lv.sink = null;
      return sink.end();
    }
    if (!lv.band) return undefined;
    const data = lv.band;
    lv.band = null;
    return this.write(k, lv.bandIndex, data);
  }
}
