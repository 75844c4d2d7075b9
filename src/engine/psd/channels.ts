import type { LayerRawData, LayerRawDataChannel } from 'ag-psd';
import { unprocessable } from '../errors';
import { unpackBits } from './composite';
import { InflateError, Inflater } from './inflate';

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
 * A reader over `channel`'s rows `first`, `first + 1`, … of a `width` × `height` rectangle.
 * Rows before `first` are skipped without decoding where the compression allows (raw, RLE).
 */
export function channelRows(
  channel: LayerRawDataChannel | undefined,
  width: number,
  height: number,
  large: boolean,
  fill = 0,
  first = 0,
): ChannelRows {
  const row = new Uint8Array(width);
  const data = channel?.data;
  if (!data || data.length === 0) {
    row.fill(fill);
    return { next: () => row, finish() {} };
  }
  let y = first;
  switch (channel.compression) {
    case 0: {
      return {
        next() {
          const s = y++ * width;
          row.fill(0);
          if (s < data.length) row.set(data.subarray(s, Math.min(s + width, data.length)));
          return row;
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
          unpackBits(data, at, n, row);
          at += n;
          return row;
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
        const n = zip(() => inflater.read(row));
        row.fill(0, n); // a short stream leaves the rest of the rectangle empty
        y++;
      };
      for (let r = 0; r < first; r++) read();
      return {
        next() {
          read();
          if (predicted) for (let x = 1; x < width; x++) row[x] = (row[x] + row[x - 1]) & 255;
          return row;
        },
        finish() {
          while (y < height) read();
          if (zip(() => inflater.read(new Uint8Array(1)))) {
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

function zip<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof InflateError) throw unprocessable(`A layer's ZIP channel could not be inflated: ${e.message}.`);
    throw e;
  }
}

/**
 * A layer's own pixels as straight RGBA (its rectangle, `width` × `height`), read row by row from
 * its compressed channels: red, green, blue, and alpha (opaque when the layer has none).
 */
export function layerRgba(raw: LayerRawData, width: number, height: number): Uint8ClampedArray {
  const data = new Uint8ClampedArray(width * height * 4);
  const readers = [0, 1, 2, -1].map((id) => channelRows(raw.channels.find((c) => c.id === id), width, height, raw.large, id === -1 ? 255 : 0));
  for (let y = 0; y < height; y++) {
    const [r, g, b, a] = readers.map((reader) => reader.next());
    for (let x = 0, o = y * width * 4; x < width; x++, o += 4) {
      data[o] = r![x]!;
      data[o + 1] = g![x]!;
      data[o + 2] = b![x]!;
      data[o + 3] = a![x]!;
    }
  }
  for (const reader of readers) reader.finish();
  return data;
}
