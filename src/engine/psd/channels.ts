import type { LayerRawData, LayerRawDataChannel } from 'ag-psd';
import { unprocessable } from '../errors';
import { inflateRow, unpackBits, unpredict } from './composite';
import { ColorMode, cmykToSrgb, colorChannels, rawProfile, sampleNarrowing, toRgbaRow } from './color-modes';
import { Inflater } from './inflate';

/**
 * Row-by-row decoding of one layer channel, straight from the compressed bytes ag-psd leaves in
 * `rawData` (views into the PSD). No channel ever exists whole in memory: raw and RLE rows are
 * found by offset, ZIP rows are inflated as they are read (a 64 KB window per channel).
 */
export interface ChannelRows {
  /** The next row (same buffer each call: copy what you keep). */
  next(): Uint8Array;
  /**
   * Checks that the channel holds no more than its rectangle: a ZIP channel is inflated up to
   * its expected size (rows not yet read are decoded and dropped) and must end there.
   */
  finish(): void;
}

/**
 * A reader over `channel`'s rows `first`, `first + 1`, … of a `width` × `height` rectangle, as
 * 8-bit samples whatever the document's `depth` (8, 16 or 32: wider rows are decoded at their
 * width in bytes, then narrowed as the channel's kind and the document's `mode` want, see
 * sampleNarrowing). Rows before `first` are skipped without decoding where the compression
 * allows (raw, RLE).
 */
export function channelRows(
  channel: LayerRawDataChannel | undefined,
  width: number,
  height: number,
  large: boolean,
  fill = 0,
  first = 0,
  depth = 8,
  mode: number = ColorMode.RGB,
): ChannelRows {
  const row = new Uint8Array(width);
  const data = channel?.data;
  if (!data || data.length === 0) {
    row.fill(fill);
    return { next: () => row, finish() {} };
  }
  if (depth !== 8 && depth !== 16 && depth !== 32) throw unprocessable(`Bit depth ${depth} is not supported.`);
  const wide = depth > 8;
  const bytes = (width * depth) / 8;
  // 16- and 32-bit rows are decoded here, then narrowed into `row`.
  const buf = wide ? new Uint8Array(bytes) : row;
  const narrowing = sampleNarrowing(depth, mode, channel.id);
  const narrow = () => {
    if (wide) narrowing(buf, row, width);
    return row;
  };
  let y = first;
  switch (channel.compression) {
    case 0: {
      return {
        next() {
          const s = y++ * bytes;
          buf.fill(0);
          if (s < data.length) buf.set(data.subarray(s, Math.min(s + bytes, data.length)));
          return narrow();
        },
        finish() {},
      };
    }
    case 1: {
      const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
      const countSize = large ? 4 : 2;
      const length = (r: number) => (large ? view.getUint32(r * 4) : view.getUint16(r * 2));
      let at = height * countSize;
      for (let r = 0; r < first; r++) at += length(r);
      return {
        next() {
          const n = length(y++);
          unpackBits(data, at, n, buf);
          at += n;
          return narrow();
        },
        finish() {},
      };
    }
    case 2:
    case 3: {
      const inflater = new Inflater(data);
      const predicted = channel.compression === 3;
      y = 0; // deflate cannot seek: rows before `first` are inflated and dropped
      const read = () => {
        inflateRow(inflater, buf, LAYER_ZIP); // a short stream leaves the rest of the rectangle empty
        y++;
      };
      for (let r = 0; r < first; r++) read();
      return {
        next() {
          read();
          // Prediction: each sample (at 16 bits a big-endian word; at 32 each byte plane) is the delta from the one before.
          if (predicted) unpredict(buf, width, depth);
          return narrow();
        },
        finish() {
          while (y < height) read();
          if (inflateRow(inflater, new Uint8Array(1), LAYER_ZIP)) {
            throw unprocessable(
              `A layer's ZIP channel inflates to more than its ${width}x${height} px rectangle; the file is damaged or crafted.`,
              [{ path: 'channel', reason: 'inflates beyond its rectangle' }],
            );
          }
        },
      };
    }
    default:
      throw unprocessable(`Unknown channel compression ${channel.compression}.`);
  }
}

const LAYER_ZIP = "A layer's ZIP channel";

/**
 * A layer's colour rows as R, G, B and transparency rows (8-bit; each the same buffer every
 * call), from its compressed channels in whatever mode and depth the document has. Rows
 * `first`, `first + 1`, … of its `width` × `height` rectangle.
 */
export function layerColorRows(raw: LayerRawData, mode: number, width: number, height: number, first: number) {
  const depth = raw.bitsPerChannel ?? 8;
  const ids = [...Array(colorChannels(mode)).keys(), -1];
  // What a missing channel holds: opaque, no ink (CMYK), neutral a and b (Lab), else 0.
  const fill = (id: number) => (id === -1 || mode === ColorMode.CMYK ? 255 : mode === ColorMode.Lab && id > 0 ? 128 : 0);
  const readers = ids.map((id) => channelRows(raw.channels.find((c) => c.id === id), width, height, raw.large, fill(id), first, depth, mode));
  if (mode === ColorMode.RGB) return { next: () => readers.map((r) => r.next()), finish: () => readers.forEach((r) => r.finish()) };
  const rgba = new Uint8Array(width * 4);
  const out = [new Uint8Array(width), new Uint8Array(width), new Uint8Array(width)];
  // Through the document's embedded profile, which parsePsd leaves on the raw data.
  const cmyk = mode === ColorMode.CMYK ? cmykToSrgb(rawProfile(raw)) : undefined;
  return {
    next(): Uint8Array[] {
      const rows = readers.map((r) => r.next());
      const alpha = rows.pop()!;
      if (mode !== ColorMode.CMYK && mode !== ColorMode.Lab) return [rows[0], rows[0], rows[0], alpha];
      toRgbaRow(mode, rows, null, rgba, 0, width, cmyk);
      for (let x = 0, o = 0; x < width; x++, o += 4) {
        out[0][x] = rgba[o];
        out[1][x] = rgba[o + 1];
        out[2][x] = rgba[o + 2];
      }
      return [...out, alpha];
    },
    finish: () => readers.forEach((r) => r.finish()),
  };
}

/**
 * A layer's own pixels as straight RGBA (its rectangle, `width` × `height`), read row by row from
 * its compressed channels in the document's mode and depth, with alpha (opaque when the layer
 * has none).
 */
export function layerRgba(raw: LayerRawData, width: number, height: number): Uint8ClampedArray {
  const data = new Uint8ClampedArray(width * height * 4);
  const rows = layerColorRows(raw, raw.colorMode ?? ColorMode.RGB, width, height, 0);
  for (let y = 0; y < height; y++) {
    const [r, g, b, a] = rows.next();
    for (let x = 0, o = y * width * 4; x < width; x++, o += 4) {
      data[o] = r[x];
      data[o + 1] = g[x];
      data[o + 2] = b[x];
      data[o + 3] = a[x];
    }
  }
  rows.finish();
  return data;
}
