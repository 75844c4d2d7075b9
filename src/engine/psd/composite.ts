import { unprocessable } from '../../errors';

/**
 * Decodes Photoshop's merged composite (the image-data section) into RGBA. The first extra
 * channel becomes alpha when the document is transparent; RGB is left as Photoshop stores it
 * (matted over white). ag-psd's raw-data path reads PSB row counts as 16-bit, so we decode here.
 */
export function decodeComposite(
  section: Uint8Array,
  width: number,
  height: number,
  channels: number,
  large: boolean,
  hasAlpha: boolean,
): Uint8Array {
  const view = new DataView(section.buffer, section.byteOffset, section.byteLength);
  const compression = view.getUint16(0);
  const planes = Math.min(channels, hasAlpha ? 4 : 3);
  const out = new Uint8Array(width * height * 4);
  if (!hasAlpha) for (let i = 3; i < out.length; i += 4) out[i] = 255;
  if (compression === 0) {
    let at = 2;
    for (let c = 0; c < planes; c++) {
      for (let p = 0, o = c; p < width * height; p++, o += 4) out[o] = section[at + p];
      at += width * height;
    }
    return out;
  }
  if (compression !== 1) throw unprocessable(`Composite compression ${compression} is not supported.`);
  const countSize = large ? 4 : 2;
  const rows = channels * height;
  let at = 2 + rows * countSize;
  const row = new Uint8Array(width);
  for (let c = 0; c < channels; c++) {
    for (let y = 0; y < height; y++) {
      const idx = c * height + y;
      const length = large ? view.getUint32(2 + idx * 4) : view.getUint16(2 + idx * 2);
      if (c < planes) {
        unpackBits(section, at, length, row);
        for (let x = 0, o = (y * width) * 4 + c; x < width; x++, o += 4) out[o] = row[x];
      }
      at += length;
    }
  }
  return out;
}

/** PackBits (Apple RLE) into `out`; short input leaves the rest zero. */
export function unpackBits(src: Uint8Array, start: number, length: number, out: Uint8Array): void {
  let i = start;
  const end = Math.min(src.length, start + length);
  let o = 0;
  out.fill(0);
  while (i < end && o < out.length) {
    const n = src[i++];
    if (n < 128) {
      const count = Math.min(n + 1, out.length - o, end - i);
      out.set(src.subarray(i, i + count), o);
      i += n + 1;
      o += count;
    } else if (n > 128) {
      const count = Math.min(257 - n, out.length - o);
      out.fill(src[i++], o, o + count);
      o += count;
    }
  }
}
