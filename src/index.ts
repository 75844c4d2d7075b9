import { createApp } from './app';
import type { Env } from './env';
import { sweepExpiredResults } from './rendering/expiry';

export { ProjectJobs } from './platform/jobs/project-jobs';

const app = createApp();

export default {
  fetch: app.fetch,
  // Hourly (wrangler.toml [triggers]): expired rendering results are deleted an hour at a time.
  scheduled: (_event, env, ctx) => ctx.waitUntil(sweepExpiredResults(env)),
} satisfies ExportedHandler<Env>;
