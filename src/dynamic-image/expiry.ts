import type { Env } from '../env';
import { ResultStore } from './store/results';
import { ThumbnailStore } from './store/thumbnails';
import { sweepStaging } from './staging';

/**
 * The scheduled handler's work: delete results (whole hours) and thumbnails past RESULT_TTL_HOURS,
 * and uploads' staging objects a killed request left (a day old).
 */
export async function sweepExpiredResults(env: Env, now = Date.now()): Promise<number> {
  const results = await new ResultStore(env.FILES, env.RESULT_TTL_HOURS).sweep(now);
  const thumbnails = await new ThumbnailStore(env.FILES, env.RESULT_TTL_HOURS).sweep(now);
  const staging = await sweepStaging(env.FILES, now);
  return results + thumbnails + staging;
}
