import type { LayerRawDataChannel } from 'ag-psd';
import { inflate } from '../compiled/blob';
import { unpackBits } from './composite';

/**
 * Row-by-row decoding of one layer channel, straight from the compressed bytes ag-psd leaves in
 * `rawData` (views into the PSD). RLE and raw channels never exist whole in memory; ZIP channels
 * are inflated whole (one channel, one byte per pixel) since deflate cannot seek.
 */
export interface ChannelRows {
  /** The next row (same buffer each call: copy what you keep). */
  next(): Uint8Array;
}

export async function channelRows(
  channel: LayerRawDataChannel | undefined,
  width: number,
  height: number,
  large: boolean,
  fill = 0,
): Promise<ChannelRows> {
  const row = new Uint8Array(width);
  const data = channel?.data;
  if (!data || data.length === 0) {
    row.fill(fill);
    return { next: () => row };
  }
  let y = 0;
  switch (channel.compression) {
    case 0: {
      return {
        next() {
          const s = y++ * width;
          row.fill(0);
          row.set(data.subarray(s, Math.min(s + width, data.length)));
          return row;
        },
      };
    }
    case 1: {
      const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
      const countSize = large ? 4 : 2;
      let at = height * countSize;
      return {
        next() {
          const length = large ? view.getUint32(y * 4) : view.getUint16(y * 2);
          unpackBits(data, at, length, row);
          at += length;
          y++;
          return row;
        },
      };
    }
    case 2:
    case 3: {
      const all = await inflate(data, undefined, 'deflate');
      return {
        next() {
          const s = y++ * width;
          row.fill(0);
          row.set(all.subarray(s, Math.min(s + width, all.length)));
          if (channel.compression === 3) for (let x = 1; x < width; x++) row[x] = (row[x] + row[x - 1]) & 255;
          return row;
        },
      };
    }
    default:
      throw new Error(`unknown channel compression ${channel.compression}`);
  }
}
