import type { Context } from 'hono';
import type { PipelineDeps } from '../engine/pipeline';
import type { AppBindings } from '../env';

/** Plain-http image URLs are for local development only (rendering contract). */
export function pipelineDeps(c: Context<AppBindings>): PipelineDeps {
  return { allowHttp: c.env.REGION === 'local' };
}
