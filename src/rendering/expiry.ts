import type { Env } from '../env';
import { ResultStore } from '../storage/results';

/** The scheduled handler's work: delete the hours of results past RESULT_TTL_HOURS. */
export async function sweepExpiredResults(env: Env, now = Date.now()): Promise<number> {
  return new ResultStore(env.FILES, env.RESULT_TTL_HOURS).sweep(now);
}
