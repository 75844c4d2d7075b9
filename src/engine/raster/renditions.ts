/**
 * Renditions of an uploaded picture (issue 25 §3): the DCT-scaled decodes a placement would make
 * (1/8, 1/4, 3/8, 1/2 of a baseline JPEG, each at most MAX_RENDITION_PIXELS), made once at upload and
 * kept in the store's bucket as raw RGBA at `renditions/<picture sha256>/<eighths>.rgba`. A
 * personalised render then reads the one decodeBounded would have decoded (a few hundred KB of
 * pixels) instead of reading and decoding the whole file, and goes on exactly as decodeBounded does
 * from there (the resize to the placement's size, the EXIF orientation), so its pixels are the
 * same bytes. Anything else (PNG, progressive or CMYK JPEG, a full-size decode, a rendition lost)
 * is read and decoded from the original, as before. docs/personalisation.md, "Picture renditions".
 */
import { MAX_URL_IMAGE_BYTES } from '../inputs';
import { checkDecodeMemory } from '../memory/budget';
import { noTiming, type Timing } from '../timing';
import { decodeBounded, finishDecode, MAX_PLACED_PIXELS, MAX_SOURCE_PIXELS, type BoundedPicture, type DecodeBoundedOptions } from './bounded';
import { decodeJpegScaled, jpegScaleFor, type JpegScale } from './jpeg-decode';
import { orientedSize, type SniffedImage } from './sniff';

/** The largest rendition kept (pixels): 1/2 of a 1600×1200 photo, 1/4 of a 12 MP one. */
export const MAX_RENDITION_PIXELS = 2_000_000;

const PREFIX = 'renditions/';
const renditionKey = (sha256: string, scale: JpegScale) => `${PREFIX}${sha256}/${scale}.rgba`;
/** Size of an `eighths`/8 decode of `w` × `h`, rounded up as libjpeg (and decodeJpegScaled) do. */
const scaledSize = (w: number, h: number, eighths: number) => ({ width: Math.ceil((w * eighths) / 8), height: Math.ceil((h * eighths) / 8) });

/**
 * Files larger than this get none: the decoder holds a copy of the file while it decodes, and an
 * upload holds the file already (the limit of one image named by URL, src/engine/inputs.ts).
 */
export const MAX_RENDITION_SOURCE_BYTES = MAX_URL_IMAGE_BYTES;

/**
 * The scales worth keeping for a picture: the reductions of a JPEG to half its size or less, up
 * to MAX_RENDITION_PIXELS each. 3/8 since decodeBounded decodes a placement between 1/4 and 3/8 of
 * the picture at 3/8, not 1/2 (every placement at half the size or less still finds its rendition;
 * the 3/8 one is 56 % of the 1/2 one's bytes and one decode of ~4 ms at upload for a 1600×1200
 * photo). None above 1/2: a placement there decodes the ~100 KB file (5/8–7/8, ~6–9 ms) rather
 * than read 2.5–6 MB of pixels, and most of those renditions would pass the 2 MP limit anyway.
 */
export function renditionScales(sniffed: SniffedImage): Exclude<JpegScale, 8>[] {
  if (sniffed.format !== 'jpeg') return [];
  return ([1, 2, 3, 4] as const).filter((scale) => {
    const { width, height } = scaledSize(sniffed.width, sniffed.height, scale);
    return width * height <= MAX_RENDITION_PIXELS;
  });
}

/**
 * Makes and stores the renditions of `bytes` (content hash `sha256`), one decode at a time, each
 * written while the next is decoded; returns the scales stored (the file's `renditions` metadata)
 * and whether this call made them (false when they were there already: the same content uploaded
 * under another name). None for a coding the scaled decoder leaves to mozjpeg, or corrupt data
 * (the render then refuses it, as before).
 */
export async function makeRenditions(
  bucket: R2Bucket,
  sha256: string,
  bytes: Uint8Array,
  sniffed: SniffedImage,
): Promise<{ scales: JpegScale[]; made: boolean }> {
  const stored = await storedScales(bucket, sha256);
  if (stored.length) return { scales: stored, made: false };
  const customMetadata = { width: String(sniffed.width), height: String(sniffed.height), orientation: String(sniffed.orientation) };
  const writes: Promise<unknown>[] = [];
  const scales: JpegScale[] = [];
  for (const scale of bytes.length <= MAX_RENDITION_SOURCE_BYTES ? renditionScales(sniffed) : []) {
    const image = await decodeJpegScaled(bytes, scale).catch(() => null);
    if (!image) break;
    writes.push(bucket.put(renditionKey(sha256, scale), image.data, { customMetadata }));
    scales.push(scale);
  }
  await Promise.all(writes);
  return { scales, made: scales.length > 0 };
}

async function storedScales(bucket: R2Bucket, sha256: string): Promise<JpegScale[]> {
  const listed = await bucket.list({ prefix: `${PREFIX}${sha256}/` });
  return listed.objects.map((o) => Number(o.key.slice(o.key.lastIndexOf('/') + 1, -'.rgba'.length)) as JpegScale).sort((a, b) => a - b);
}

/** Drops a picture's renditions (its file deleted or replaced by other content). */
export async function deleteRenditions(bucket: R2Bucket, sha256: string): Promise<void> {
  const scales = await storedScales(bucket, sha256);
  if (scales.length) await bucket.delete(scales.map((scale) => renditionKey(sha256, scale)));
}

/** The `renditions` metadata of a stored picture: the scales made at upload. */
export const renditionsMeta = (scales: JpegScale[]) => scales.join(',');

/** A stored picture: its content hash and metadata (`width`, `height` as displayed, `renditions`). */
export interface StoredPicture {
  sha256: string;
  meta: Record<string, string>;
}

/**
 * decodeBounded's result for a picture: from its rendition when the picture has the one
 * decodeBounded would decode at the size wanted, else from `readBytes()` through decodeBounded.
 * `timing` receives image-read (the rendition's read; `readBytes` times its own) and image-decode.
 */
export async function decodeStoredPicture(
  bucket: R2Bucket,
  picture: StoredPicture | undefined,
  readBytes: () => Promise<Uint8Array>,
  options: DecodeBoundedOptions,
  timing: Timing = noTiming,
): Promise<BoundedPicture> {
  const rendition = picture && (await readRendition(bucket, picture, options, timing));
  if (rendition) return rendition;
  const bytes = await readBytes();
  return timing.time('image-decode', () => decodeBounded(bytes, options));
}

/** The steps of decodeBounded after its decode, from the rendition of that decode; null when there is none. */
async function readRendition(
  bucket: R2Bucket,
  picture: StoredPicture,
  options: DecodeBoundedOptions,
  timing: Timing,
): Promise<BoundedPicture | null> {
  const displayed = { width: Number(picture.meta.width), height: Number(picture.meta.height) };
  const scales = (picture.meta.renditions ?? '').split(',').map(Number);
  if (!(displayed.width > 0 && displayed.height > 0) || !scales.some((s) => s > 0)) return null;
  // decodeBounded's sizes. Its scale is taken on the stored axes; jpegScaleFor tests each axis
  // alone, so on the displayed axes (both swapped for orientations 5–8) it picks the same.
  const wanted = typeof options.size === 'function' ? options.size(displayed) : options.size ?? displayed;
  const width = Math.max(1, Math.round(wanted.width));
  const height = Math.max(1, Math.round(wanted.height));
  if (width * height > (options.maxOutputPixels ?? MAX_PLACED_PIXELS)) return null; // decodeBounded refuses it
  const scale = jpegScaleFor(displayed, width, height);
  if (scale === 8 || !scales.includes(scale)) return null;

  const read = await timing.time('image-read', async () => {
    const obj = await bucket.get(renditionKey(picture.sha256, scale));
    return obj && { facts: obj.customMetadata ?? {}, data: new Uint8ClampedArray(await obj.arrayBuffer()) };
  });
  if (!read) return null;
  const source: SniffedImage = { format: 'jpeg', width: Number(read.facts.width), height: Number(read.facts.height), orientation: Number(read.facts.orientation) };
  const oriented = orientedSize(source);
  const decoded = { ...scaledSize(source.width, source.height, scale), data: read.data };
  // A rendition that does not describe this picture (or came back short) is not used.
  if (oriented.width !== displayed.width || oriented.height !== displayed.height || decoded.data.length !== decoded.width * decoded.height * 4) return null;
  if (decoded.width * decoded.height > (options.maxPixels ?? MAX_SOURCE_PIXELS)) return null;
  checkDecodeMemory(decoded.width * decoded.height, options.path ?? 'image');

  return timing.time('image-decode', () => finishDecode(decoded, scale, source, { width, height }, options));
}
