/**
 * Image thumbnails (GET /api/resources/images/preview) cached at
 * `thumbs/<image sha256>/<parameters hash>`: keyed by content, so a replaced image never serves
 * an old thumbnail, and deleting an image drops its folder.
 */
import { listKeys } from './files';

const key = (imageSha: string, paramsHash: string) => `thumbs/${imageSha}/${paramsHash}`;

export async function getThumbnail(bucket: R2Bucket, imageSha: string, paramsHash: string): Promise<R2ObjectBody | null> {
  return bucket.get(key(imageSha, paramsHash));
}

export async function putThumbnail(
  bucket: R2Bucket,
  imageSha: string,
  paramsHash: string,
  bytes: Uint8Array,
  contentType: string,
): Promise<void> {
  await bucket.put(key(imageSha, paramsHash), bytes, { httpMetadata: { contentType } });
}

export async function deleteThumbnails(bucket: R2Bucket, imageSha: string): Promise<void> {
  const { keys } = await listKeys(bucket, `thumbs/${imageSha}/`);
  for (let i = 0; i < keys.length; i += 1000) await bucket.delete(keys.slice(i, i + 1000));
}
