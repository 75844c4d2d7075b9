/**
 * The PDF's JPEG encoder: MozJPEG at 4:4:4 (no chroma subsampling, as print needs), baseline
 * Huffman-optimised so every PDF reader decodes it.
 */
import encode, { init } from '@jsquash/jpeg/encode';
import mozjpegWasm from '@jsquash/jpeg/codec/enc/mozjpeg_enc.wasm';
import type { JpegEncoder } from './image';

let ready: Promise<void> | undefined;

export const encodePdfJpeg: JpegEncoder = async (image, quality) => {
  ready ??= init(mozjpegWasm).then(() => undefined);
  await ready;
  const buf = await encode(image as unknown as Parameters<typeof encode>[0], {
    quality,
    baseline: true,
    progressive: false,
    optimize_coding: true,
    auto_subsample: false,
    chroma_subsample: 1,
    separate_chroma_quality: false,
  });
  return new Uint8Array(buf);
};
