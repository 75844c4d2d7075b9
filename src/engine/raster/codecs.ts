import jpegDecWasm from '@jsquash/jpeg/codec/dec/mozjpeg_dec.wasm';
import jpegEncWasm from '@jsquash/jpeg/codec/enc/mozjpeg_enc.wasm';
import mozjpegDec from '@jsquash/jpeg/codec/dec/mozjpeg_dec.js';
import encodeJpegRaw, { init as initJpegEncode } from '@jsquash/jpeg/encode.js';
import type { EncodeOptions as MozJpegOptions } from '@jsquash/jpeg/meta.js';
import { initEmscriptenModule } from '@jsquash/jpeg/utils.js';
import decodePngRaw, { init as initPngDecode } from '@jsquash/png/decode.js';
import encodePngRaw, { init as initPngEncode } from '@jsquash/png/encode.js';
// @ts-expect-error: the package's .d.ts types the instance's exports; imported as CompiledWasm it is a WebAssembly.Module.
import pngWasmModule from '@jsquash/png/codec/pkg/squoosh_png_bg.wasm';
import type { RGBAImage } from '../types';
import { encodeBaselineJpeg } from './jpeg';
import { decodeJpegFull } from './jpeg-decode';

const pngWasm = pngWasmModule as WebAssembly.Module;
let jpegEncoder: Promise<void> | undefined;
let pngCodec: Promise<unknown> | undefined;
const pngReady = () => (pngCodec ??= Promise.all([initPngEncode(pngWasm), initPngDecode(pngWasm)]));

/** Chroma subsampling by quality: 4:2:0 below 90, 4:4:4 from 90 up (where colour detail is asked for). */
export const subsamplingFor = (quality: number): 1 | 2 => (quality >= 90 ? 1 : 2);

/** A JPEG quality as the encoders take it: an integer 0–100. */
export const clampQuality = (quality: number) => Math.max(0, Math.min(100, Math.round(quality)));

/**
 * JPEG bytes of `img` at `quality` (0–100, the IJG/libjpeg scale). JPEG has no alpha: flatten
 * first (`flattenOverWhite`); alpha is otherwise ignored. Uses our WASM baseline encoder
 * (src/engine/raster/jpeg.ts): ~10× faster than mozjpeg here, files ~20 % larger.
 */
export async function encodeJpeg(img: RGBAImage, quality: number, options: { subsampling?: 1 | 2 } = {}): Promise<Uint8Array> {
  const q = clampQuality(quality);
  return encodeBaselineJpeg(img, { quality: q, subsampling: options.subsampling ?? subsamplingFor(q) });
}

/**
 * mozjpeg settings for when file size matters more than time: baseline sequential with
 * optimised Huffman tables (progressive costs ~2× for ~4 % smaller files), same chroma rule.
 * Trellis quantisation, mozjpeg's main cost, cannot be turned off through @jsquash's options.
 */
export function jpegOptions(quality: number): Partial<MozJpegOptions> {
  const q = clampQuality(quality);
  return {
    quality: q,
    baseline: true,
    progressive: false,
    optimize_coding: true,
    auto_subsample: false,
    chroma_subsample: subsamplingFor(q),
    separate_chroma_quality: false,
    chroma_quality: q,
  };
}

/** JPEG via mozjpeg (smaller files, several times slower than encodeJpeg). */
export async function encodeJpegMozjpeg(img: RGBAImage, quality: number, options: Partial<MozJpegOptions> = {}): Promise<Uint8Array> {
  jpegEncoder ??= initJpegEncode(jpegEncWasm);
  await jpegEncoder;
  return new Uint8Array(await encodeJpegRaw(asImageData(img), { ...jpegOptions(quality), ...options }));
}

/** PNG bytes of `img` (RGBA8, alpha kept). */
export async function encodePng(img: RGBAImage): Promise<Uint8Array> {
  await pngReady();
  return new Uint8Array(await encodePngRaw(asImageData(img)));
}

export type ImageFormat = 'jpeg' | 'png';

/** The format of encoded image bytes by signature, or null. */
export function imageFormatOf(bytes: Uint8Array): ImageFormat | null {
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  if (bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47) return 'png';
  return null;
}

/**
 * Decodes JPEG or PNG bytes to straight RGBA8 (EXIF orientation NOT applied: see decodeBounded).
 * Each mozjpeg decode runs in a fresh decoder instance that is dropped afterwards, so the
 * decoder's grown heap (≈ the decoded size) is returned to the isolate instead of staying
 * reserved for its lifetime. Throws Error on corrupt data; callers map it to 422.
 */
export async function decodeImage(bytes: Uint8Array): Promise<RGBAImage> {
  const format = imageFormatOf(bytes);
  if (format === 'jpeg') {
    // A baseline JPEG by our decoder (mozjpeg's bytes, 2-4x faster, in the kernels' warm arena);
    // what it leaves (progressive, CMYK, 12-bit, damaged data) by mozjpeg.
    return (await decodeJpegFull(bytes)) ?? decodeJpegMozjpeg(bytes);
  }
  if (format === 'png') {
    await pngReady();
    const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
    const out = await decodePngRaw((whole ? bytes.buffer : bytes.slice().buffer) as ArrayBuffer);
    return { width: out.width, height: out.height, data: out.data };
  }
  throw new Error('not a JPEG or PNG image');
}

/** A JPEG decoded by mozjpeg, what decodeImage answers for the JPEGs our decoder leaves (and the bytes it must match). */
export async function decodeJpegMozjpeg(bytes: Uint8Array): Promise<RGBAImage> {
  let decoder: Awaited<ReturnType<typeof mozjpegDec>> | undefined = await initEmscriptenModule(mozjpegDec, jpegDecWasm);
  try {
    const out = decoder.decode(bytes, false);
    if (!out) throw new Error('JPEG decoding failed');
    return { width: out.width, height: out.height, data: out.data };
  } finally {
    decoder = undefined;
  }
}

const asImageData = (img: RGBAImage) => img as unknown as Parameters<typeof encodeJpegRaw>[0];
