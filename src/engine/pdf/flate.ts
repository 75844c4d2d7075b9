/**
 * FlateDecode data (zlib format, RFC 1950) for PDF streams, with the PNG "Up" predictor
 * (PDF /Predictor 12, ISO 32000-1 §7.4.4.4): row-to-row differences compress images far better.
 */

import { concat } from '../raster/icc';

/** zlib-compresses `data` with the platform's CompressionStream. */
export async function zlib(data: Uint8Array): Promise<Uint8Array> {
  const cs = new CompressionStream('deflate');
  const writer = cs.writable.getWriter();
  const chunks: Uint8Array[] = [];
  const reading = (async () => {
    const reader = cs.readable.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      chunks.push(value);
    }
  })();
  await writer.write(data);
  await writer.close();
  await reading;
  return chunks.length === 1 ? chunks[0] : concat(chunks);
}

/**
 * Picks `channels` of every pixel of straight RGBA (offset `first`, e.g. 0 for RGB, 3 for alpha;
 * or of CMYK / grey rows with their own `stride`)
 * into PNG-Up-filtered rows: each row starts with filter byte 2 and holds differences to the row
 * above. Returns the bytes to deflate and the matching /DecodeParms.
 */
export function upFiltered(
  rgba: Uint8Array | Uint8ClampedArray,
  width: number,
  height: number,
  first: number,
  channels: number,
  scratch?: Uint8Array,
  /** Bytes per source pixel: 4 for RGBA (and CMYK), 1 for grey. */
  stride = 4,
): { data: Uint8Array; decodeParms: { Predictor: number; Colors: number; BitsPerComponent: number; Columns: number } } {
  const rowLen = width * channels + 1;
  // Strips of a page reuse one buffer: a page of 64 MP would otherwise leave ~200 MB of garbage.
  const out = scratch && scratch.length >= rowLen * height ? scratch.subarray(0, rowLen * height) : new Uint8Array(rowLen * height);
  for (let y = 0; y < height; y++) {
    const o = y * rowLen;
    out[o] = 2;
    const src = y * width * stride + first;
    const above = src - width * stride;
    let d = o + 1;
    const end = src + width * stride;
    if (y === 0) {
      for (let p = src; p < end; p += stride) for (let c = 0; c < channels; c++) out[d++] = rgba[p + c];
    } else if (channels === 3 && stride === 4) {
      for (let p = src, q = above; p < end; p += 4, q += 4) {
        out[d++] = rgba[p] - rgba[q];
        out[d++] = rgba[p + 1] - rgba[q + 1];
        out[d++] = rgba[p + 2] - rgba[q + 2];
      }
    } else {
      for (let p = src, q = above; p < end; p += stride, q += stride) for (let c = 0; c < channels; c++) out[d++] = rgba[p + c] - rgba[q + c];
    }
  }
  return { data: out, decodeParms: { Predictor: 12, Colors: channels, BitsPerComponent: 8, Columns: width } };
}
