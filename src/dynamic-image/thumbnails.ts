/**
 * Image thumbnails: the exact size a request asks for, made from the cached source of its size
 * bucket (src/dynamic-image/store/thumbnails.ts), which is made from the stored image once per bucket. A
 * request larger than the largest bucket is made from the image itself and not cached.
 */
import { notFound } from '../engine/errors';
import { orientedSize, sniffImage } from '../engine/raster';
import { thumbnail, thumbnailBucket, thumbnailSize, thumbnailSource, type EncodedImage, type ThumbnailOptions } from '../engine/preview';
import type { FileStore } from './store/files';
import type { ThumbnailStore } from './store/thumbnails';

export async function imageThumbnail(
  files: FileStore,
  thumbs: ThumbnailStore,
  name: string,
  options: ThumbnailOptions,
  disableCache: boolean,
): Promise<EncodedImage> {
  const image = await files.head('images', name);
  if (!image) throw notFound(`There is no image "${name}".`);
  const source = await displayedSize(files, name, image.meta);
  const size = source && thumbnailSize(source, options);
  const bucket = size && thumbnailBucket(size);
  if (bucket && !disableCache) {
    const cached = await thumbs.get(image.sha256, bucket);
    if (cached) return thumbnail(cached, { ...options, of: size });
  }
  const read = await files.read('images', name);
  if (!read) throw notFound(`There is no image "${name}".`);
  if (!bucket) return thumbnail(read.bytes, options);
  const made = await thumbnailSource(read.bytes, bucket);
  await thumbs.put(image.sha256, bucket, made);
  return thumbnail(made, { ...options, of: size });
}

/** Width and height as displayed: recorded at upload, else read from the file's header. */
async function displayedSize(files: FileStore, name: string, meta: Record<string, string>): Promise<{ width: number; height: number } | null> {
  const width = Number(meta.width);
  const height = Number(meta.height);
  if (width > 0 && height > 0) return { width, height };
  const start = await files.readStart('images', name);
  const sniffed = start && sniffImage(start);
  return sniffed ? orientedSize(sniffed) : null;
}
