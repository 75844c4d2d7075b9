import type { RGBAImage } from '../types';
import { subsamplingFor } from './codecs';
import { embedIcc } from './icc';
import { encodeInkJpeg, type JpegRowSource } from './jpeg';

/**
 * Baseline JPEGs of ink values (ITU T.81): CMYK as Adobe writes it (APP14 "Adobe" marker,
 * transform 2 = YCCK, samples inverted: 0 is full ink), and grey (JFIF). For print files and
 * for JPEG strips of CMYK and grey PDFs. Coded by our WASM encoder (raster/jpeg.ts,
 * wasm/assembly/jpeg.ts) like RGB JPEGs, with the ICC profile embedded here.
 *
 * Why YCCK rather than plain CMYK: C, M and Y of a photograph are strongly correlated; turning
 * their inverse into YCbCr (as libjpeg's JCS_YCCK does) puts the detail in one component and
 * compresses like an RGB JPEG, K coded beside it as a second luma-like component. Photoshop,
 * Acrobat, libjpeg and Ghostscript all read it.
 */
export interface InkJpegOptions {
  /** 0–100 (IJG scale). */
  quality: number;
  /**
   * CMYK only: 2 codes Cb and Cr at half resolution (YCCK 4:2:0, as libjpeg does), 1 at full.
   * Default as for RGB JPEGs (subsamplingFor): 4:2:0 below quality 90, 4:4:4 from 90 up.
   */
  subsampling?: 1 | 2;
  /** Embedded in APP2 "ICC_PROFILE" segments (ICC.1 Annex B.4). */
  iccProfile?: Uint8Array;
}

/**
 * A CMYK JPEG of `pixels` (4 bytes a pixel, ink 0–255 as LittleCMS writes TYPE_CMYK_8) with the
 * Adobe marker (YCCK, inverted samples, as Photoshop writes) and `iccProfile` embedded.
 *
 * @example const jpeg = await encodeCmykJpeg(ink, 4000, 4000, { quality: 95, iccProfile: defaultProfile('Cmyk') });
 */
export async function encodeCmykJpeg(pixels: Uint8Array, width: number, height: number, options: InkJpegOptions): Promise<Uint8Array> {
  return inkJpeg(stored(pixels, width, height, 4), options);
}

/** A grey JPEG (JFIF, one component, 255 = white) with `iccProfile` embedded. */
export async function encodeGrayJpeg(pixels: Uint8Array, width: number, height: number, options: Omit<InkJpegOptions, 'subsampling'>): Promise<Uint8Array> {
  return inkJpeg(stored(pixels, width, height, 1), options);
}

/**
 * A CMYK or grey JPEG of an RGBA page converted an MCU row at a time by `convert` (RGBA → ink,
 * e.g. a LittleCMS transform's apply) straight into the encoder's input: memory holds one MCU
 * row of ink, never the page's (a 25 MP print file would need 100 MB of CMYK beside its RGBA).
 *
 * @example
 * const t = await colourTransform({ from: defaultProfile('Rgb'), to: profile, fromLayout: 'RGBA', toLayout: 'CMYK' });
 * const jpeg = await encodeConvertedJpeg(img, 4, (src, dst, n) => t.apply(src, dst, n), { quality: 90, iccProfile: profile });
 */
export async function encodeConvertedJpeg(
  img: RGBAImage,
  channels: 1 | 4,
  convert: (rgba: Uint8Array, ink: Uint8Array, pixels: number) => void,
  options: InkJpegOptions,
): Promise<Uint8Array> {
  const { width, height } = img;
  const rgba = new Uint8Array(img.data.buffer, img.data.byteOffset, img.data.byteLength);
  return inkJpeg(
    { width, height, kind: channels === 4 ? 'ink' : 'gray', read: (top, rows, into) => convert(rgba.subarray(top * width * 4, (top + rows) * width * 4), into, width * rows) },
    options,
  );
}

function stored(pixels: Uint8Array, width: number, height: number, channels: 1 | 4): JpegRowSource {
  if (pixels.length < width * height * channels) throw new RangeError('JPEG: fewer pixels than width × height');
  const stride = width * channels;
  return { width, height, kind: channels === 4 ? 'ink' : 'gray', read: (top, rows, into) => into.set(pixels.subarray(top * stride, (top + rows) * stride)) };
}

async function inkJpeg(source: JpegRowSource, options: InkJpegOptions): Promise<Uint8Array> {
  const quality = Math.max(1, Math.min(100, Math.round(options.quality)));
  const jpeg = await encodeInkJpeg(source, { quality, subsampling: options.subsampling ?? subsamplingFor(quality) });
  return options.iccProfile ? embedIcc(jpeg, 'jpeg', options.iccProfile) : jpeg;
}
