/**
 * Raster print files for render-hires: the engine's render (PNG, lossless) decoded to RGBA, then
 * background, grayscale, rotation and flips, then JPEG, PNG, TIFF (8-bit RGB/RGBA or gray, None
 * or Deflate) or BMP (24-bit). Written here because they are a few dozen lines each; the raster
 * stays ≤ 25 MP (the engine's preview limit), so one unit holds at most ~100 MB of pixels.
 */
import { decodeImage, encodeJpeg, encodePng } from '../../../engine/raster';
import type { RGBAImage } from '../../../engine/types';
import { TaskFailure } from './errors';

export type Rotate = 'None' | 'Rotate90' | 'Rotate180' | 'Rotate270';
export type Flip = 'None' | 'Horizontal' | 'Vertical' | 'Both';

export async function decodePng(bytes: Uint8Array): Promise<RGBAImage> {
  return decodeImage(bytes);
}

/** `#rgb`, `#rrggbb`, `#rrggbbaa`, `rgb(r,g,b)` → [r, g, b, a]; anything else → a TaskFailure. */
export function parseColor(text: string): [number, number, number, number] {
  const t = text.trim();
  let m = /^#?([0-9a-f]{3})$/i.exec(t);
  if (m) return [...m[1]!].map((c) => parseInt(c + c, 16)).concat(255) as [number, number, number, number];
  m = /^#?([0-9a-f]{6})([0-9a-f]{2})?$/i.exec(t);
  if (m) {
    const n = parseInt(m[1]!, 16);
    return [(n >> 16) & 255, (n >> 8) & 255, n & 255, m[2] ? parseInt(m[2], 16) : 255];
  }
  m = /^rgba?\(\s*(\d{1,3})\s*,\s*(\d{1,3})\s*,\s*(\d{1,3})\s*(?:,\s*([\d.]+)\s*)?\)$/i.exec(t);
  if (m) return [Number(m[1]), Number(m[2]), Number(m[3]), m[4] === undefined ? 255 : Math.round(Number(m[4]) * 255)];
  throw new TaskFailure(`hiResOutputBackgroundColor: "${text}" is not a colour (#rrggbb or rgb(r, g, b))`);
}

/** Composites the image over a colour (in place). */
export function flattenOver(img: RGBAImage, [r, g, b, a]: [number, number, number, number]): void {
  const d = img.data;
  for (let i = 0; i < d.length; i += 4) {
    const sa = d[i + 3]! / 255;
    const ba = (a / 255) * (1 - sa);
    const oa = sa + ba;
    if (oa === 0) continue;
    d[i] = (d[i]! * sa + r * ba) / oa;
    d[i + 1] = (d[i + 1]! * sa + g * ba) / oa;
    d[i + 2] = (d[i + 2]! * sa + b * ba) / oa;
    d[i + 3] = oa * 255;
  }
}

export function toGrayscale(img: RGBAImage): void {
  const d = img.data;
  for (let i = 0; i < d.length; i += 4) {
    const y = 0.2126 * d[i]! + 0.7152 * d[i + 1]! + 0.0722 * d[i + 2]!;
    d[i] = d[i + 1] = d[i + 2] = y;
  }
}

/** Flip first, then rotate clockwise. */
export function transform(img: RGBAImage, rotate: Rotate, flip: Flip): RGBAImage {
  if (rotate === 'None' && flip === 'None') return img;
  const { width: w, height: h } = img;
  const src = new Uint32Array(img.data.buffer, img.data.byteOffset, w * h);
  const quarter = rotate === 'Rotate90' || rotate === 'Rotate270';
  const W = quarter ? h : w;
  const H = quarter ? w : h;
  const out = new Uint8ClampedArray(W * H * 4);
  const dst = new Uint32Array(out.buffer);
  const fx = flip === 'Horizontal' || flip === 'Both';
  const fy = flip === 'Vertical' || flip === 'Both';
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const sx = fx ? w - 1 - x : x;
      const sy = fy ? h - 1 - y : y;
      let X = x;
      let Y = y;
      if (rotate === 'Rotate90') [X, Y] = [h - 1 - y, x];
      else if (rotate === 'Rotate180') [X, Y] = [w - 1 - x, h - 1 - y];
      else if (rotate === 'Rotate270') [X, Y] = [y, w - 1 - x];
      dst[Y * W + X] = src[sy * w + sx]!;
    }
  }
  return { width: W, height: H, data: out };
}

/** 24-bit BMP (bottom-up BGR rows padded to 4 bytes), with the resolution in pixels per metre. */
export function encodeBmp(img: RGBAImage, dpi: number): Uint8Array {
  const { width: w, height: h } = img;
  const row = (w * 3 + 3) & ~3;
  const size = 54 + row * h;
  const out = new Uint8Array(size);
  const v = new DataView(out.buffer);
  out[0] = 0x42;
  out[1] = 0x4d;
  v.setUint32(2, size, true);
  v.setUint32(10, 54, true);
  v.setUint32(14, 40, true);
  v.setInt32(18, w, true);
  v.setInt32(22, h, true);
  v.setUint16(26, 1, true);
  v.setUint16(28, 24, true);
  v.setUint32(34, row * h, true);
  const ppm = Math.round(dpi / 0.0254);
  v.setInt32(38, ppm, true);
  v.setInt32(42, ppm, true);
  const d = img.data;
  for (let y = 0; y < h; y++) {
    let o = 54 + (h - 1 - y) * row;
    for (let x = 0, i = y * w * 4; x < w; x++, i += 4) {
      out[o++] = d[i + 2]!;
      out[o++] = d[i + 1]!;
      out[o++] = d[i]!;
    }
  }
  return out;
}

async function deflate(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes]).stream().pipeThrough(new CompressionStream('deflate'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/**
 * Baseline TIFF, one strip: 8-bit RGB, RGBA (unassociated alpha) or gray; Compression 1 (None) or
 * 8 (Deflate, zlib); XResolution/YResolution = dpi.
 */
/**
 * `cmyk`: the image's ink (C, M, Y, K a pixel, 0 = none), written as a separated (Photometric 5,
 * InkSet CMYK) TIFF, with `icc` as its ICC profile tag (34675) so RIPs read the inks in the output
 * condition; alpha, when kept, follows as an unassociated extra sample.
 */
export async function encodeTiff(
  img: RGBAImage,
  dpi: number,
  options: { gray: boolean; alpha: boolean; deflate: boolean; cmyk?: Uint8Array; icc?: Uint8Array },
): Promise<Uint8Array> {
  const { width: w, height: h } = img;
  const ink = options.cmyk;
  const colors = ink ? 4 : options.gray ? 1 : 3;
  const spp = colors + (options.alpha && !options.gray ? 1 : 0);
  const raw = new Uint8Array(w * h * spp);
  const d = img.data;
  for (let p = 0, o = 0; p < w * h; p++) {
    const i = p * 4;
    if (ink) {
      raw.set(ink.subarray(i, i + 4), o);
      o += 4;
      if (spp === 5) raw[o++] = d[i + 3]!;
    } else if (spp === 1) raw[o++] = d[i]!;
    else {
      raw[o++] = d[i]!;
      raw[o++] = d[i + 1]!;
      raw[o++] = d[i + 2]!;
      if (spp === 4) raw[o++] = d[i + 3]!;
    }
  }
  const data = options.deflate ? await deflate(raw) : raw;
  const entries: Array<[number, number, number, number | number[] | Uint8Array]> = [
    [256, 4, 1, w],
    [257, 4, 1, h],
    [258, 3, spp, Array(spp).fill(8)],
    [259, 3, 1, options.deflate ? 8 : 1],
    [262, 3, 1, ink ? 5 : spp === 1 ? 1 : 2],
    [273, 4, 1, 0], // StripOffsets, patched below
    [277, 3, 1, spp],
    [278, 4, 1, h],
    [279, 4, 1, data.length],
    [282, 5, 1, 0], // XResolution → rational, patched
    [283, 5, 1, 0],
    [284, 3, 1, 1],
    [296, 3, 1, 2],
  ];
  if (spp === colors + 1) entries.push([338, 3, 1, 2]);
  if (ink) entries.push([332, 3, 1, 1]); // InkSet: CMYK
  if (options.icc) entries.push([34675, 7, options.icc.length, options.icc]);
  entries.sort((a, b) => a[0] - b[0]);
  const ifdSize = 2 + entries.length * 12 + 4;
  let extra = 8 + ifdSize;
  const extras: Array<{ at: number; bytes: Uint8Array }> = [];
  const header = new Uint8Array(8 + ifdSize);
  const v = new DataView(header.buffer);
  header.set([0x49, 0x49, 42, 0]);
  v.setUint32(4, 8, true);
  v.setUint16(8, entries.length, true);
  const rational = () => {
    const b = new Uint8Array(8);
    const rv = new DataView(b.buffer);
    rv.setUint32(0, Math.round(dpi * 1000), true);
    rv.setUint32(4, 1000, true);
    return b;
  };
  let stripOffsetField = 0;
  entries.forEach(([tag, type, count, value], k) => {
    const at = 10 + k * 12;
    v.setUint16(at, tag, true);
    v.setUint16(at + 2, type, true);
    v.setUint32(at + 4, count, true);
    if (type === 5) {
      v.setUint32(at + 8, extra, true);
      extras.push({ at: extra, bytes: rational() });
      extra += 8;
    } else if (value instanceof Uint8Array) {
      v.setUint32(at + 8, extra, true);
      extras.push({ at: extra, bytes: value });
      extra += value.length + (value.length & 1); // next value on a word boundary
    } else if (Array.isArray(value) && value.length > 2) {
      const b = new Uint8Array(value.length * 2);
      value.forEach((x, j) => new DataView(b.buffer).setUint16(j * 2, x, true));
      v.setUint32(at + 8, extra, true);
      extras.push({ at: extra, bytes: b });
      extra += b.length;
    } else if (Array.isArray(value)) value.forEach((x, j) => v.setUint16(at + 8 + j * 2, x, true));
    else if (type === 3) v.setUint16(at + 8, value, true);
    else v.setUint32(at + 8, value, true);
    if (tag === 273) stripOffsetField = at + 8;
  });
  v.setUint32(stripOffsetField, extra, true);
  const out = new Uint8Array(extra + data.length);
  out.set(header);
  for (const e of extras) out.set(e.bytes, e.at);
  out.set(data, extra);
  return out;
}

export async function encodeRaster(
  img: RGBAImage,
  format: 'Jpeg' | 'Png' | 'Tiff' | 'Bmp',
  o: { dpi: number; quality: number; gray: boolean; deflate: boolean; keepAlpha: boolean; cmyk?: Uint8Array; icc?: Uint8Array },
): Promise<{ bytes: Uint8Array; ext: string; contentType: string; format: string }> {
  if (format === 'Png') return { bytes: await encodePng(img), ext: 'png', contentType: 'image/png', format: 'png' };
  if (format === 'Jpeg') return { bytes: await encodeJpeg(img, o.quality), ext: 'jpg', contentType: 'image/jpeg', format: 'jpeg' };
  if (format === 'Bmp') return { bytes: encodeBmp(img, o.dpi), ext: 'bmp', contentType: 'image/bmp', format: 'bmp' };
  return {
    bytes: await encodeTiff(img, o.dpi, { gray: o.gray, alpha: o.keepAlpha && !o.gray, deflate: o.deflate, cmyk: o.cmyk, icc: o.icc }),
    ext: 'tif',
    contentType: 'image/tiff',
    format: 'tiff',
  };
}
