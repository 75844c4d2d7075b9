// The raster layer of the engine: WASM kernels, codecs, colour profiles and bounded image input.
export { blendSurfaceWasm, fadeIntoWasm, useWasmBlending, WASM_BLEND_MODES } from './blend';
export { decodeBounded, MAX_PLACED_PIXELS, MAX_SOURCE_PIXELS, type DecodeBoundedOptions } from './bounded';
export { decodeImage, encodeJpeg, encodeJpegMozjpeg, encodePng, imageFormatOf, jpegOptions, subsamplingFor, type ImageFormat } from './codecs';
export { encodeBaselineJpeg, type JpegEncodeOptions } from './jpeg';
export { embedIcc, readIcc, srgbProfile } from './icc';
export { encodeCmykJpeg, encodeConvertedJpeg, encodeGrayJpeg, type InkJpegOptions } from './jpeg-ink';
export { kernels } from './kernels';
export { applyOrientation } from './orientation';
export { flattenOverWhite, premultiply, unpremultiply } from './pixels';
export { resample, resampleRows, resampleTaps, type ResampleQuality } from './resample';
export { orientedSize, sniffImage, type SniffedFormat, type SniffedImage } from './sniff';
export { DEFAULT_UNSHARP_MASK, parseUnsharpMask, unsharpMask, unsharpKey, unsharpReach, type UnsharpMask } from './unsharp';
