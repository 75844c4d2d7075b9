/**
 * The asset store's share of the hourly cron (src/index.ts): private assets past their retention,
 * Temporary artifacts past 24 h, then blobs no row names any more (after their grace period), and
 * staging objects of uploads that died mid-request.
 */
import { sweepTemporaryArtifacts } from './artifacts';
import { sweepStaging, sweepUnreferencedBlobs } from './blobs';
import { sweepRetention } from './service';

export async function sweepAssets(env: { DB: D1Database; FILES: R2Bucket }, now = Date.now()): Promise<{ retention: number; artifacts: number; blobs: number; staging: number }> {
  const retention = await sweepRetention(env, now);
  const artifacts = await sweepTemporaryArtifacts(env, now);
  const blobs = await sweepUnreferencedBlobs(env.DB, env.FILES, now);
  const staging = await sweepStaging(env.DB, env.FILES, now);
  return { retention, artifacts, blobs, staging };
}
