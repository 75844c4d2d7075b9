/**
 * Cached image thumbnails (GET /api/resources/images/preview) at `thumbs/<image sha256>/<bucket>.png`:
 * one per size bucket (engine THUMBNAIL_BUCKETS), never per query, so an image has at most a few.
 * Keyed by content, so a replaced image never serves an old thumbnail, and deleting an image drops
 * its folder. They expire like results (RESULT_TTL_HOURS): an expired one is a miss, and the
 * hourly sweep deletes them.
 */
import { listKeys } from './files';
import { ExpiringStore } from './results';

const PREFIX = 'thumbs/';

const key = (imageSha: string, bucket: number) => `${PREFIX}${imageSha}/${bucket}.png`;

export class ThumbnailStore extends ExpiringStore {
  /** The cached thumbnail source of an image for a bucket, unless absent or expired. */
  async get(imageSha: string, size: number, now = Date.now()): Promise<Uint8Array | null> {
    const obj = await this.bucket.get(key(imageSha, size));
    if (!obj) return null;
    if (this.expired(obj, now)) {
      await obj.body.cancel();
      return null;
    }
    return new Uint8Array(await obj.arrayBuffer());
  }

  async put(imageSha: string, size: number, png: Uint8Array): Promise<void> {
    await this.bucket.put(key(imageSha, size), png, { httpMetadata: { contentType: 'image/png' } });
  }

  /** Deletes every thumbnail past the time-to-live (the scheduled handler); returns how many. */
  async sweep(now = Date.now()): Promise<number> {
    let deleted = 0;
    let cursor: string | undefined;
    do {
      const page = await this.bucket.list({ prefix: PREFIX, cursor, limit: 1000 });
      const expired = page.objects.filter((o) => this.expired(o, now)).map((o) => o.key);
      if (expired.length) await this.bucket.delete(expired);
      deleted += expired.length;
      cursor = page.truncated ? page.cursor : undefined;
    } while (cursor);
    return deleted;
  }
}

export async function deleteThumbnails(bucket: R2Bucket, imageSha: string): Promise<void> {
  const { keys } = await listKeys(bucket, `${PREFIX}${imageSha}/`);
  for (let i = 0; i < keys.length; i += 1000) await bucket.delete(keys.slice(i, i + 1000));
}
