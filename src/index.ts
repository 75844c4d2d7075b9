import { createApp } from './app';
import { markEntry } from './http/server-timing';
import type { Env } from './env';
import { sweepExpiredResults } from './dynamic-image/expiry';
import { sweepAssets } from './platform/assets/cron';

// Importing the jobs module also registers the runner with project processing.
export { ProjectJobs } from './platform/jobs';
export { WebhookOutbox } from './platform/webhooks/outbox';
import { runWatchdog } from './platform/jobs';

const app = createApp();

/** The 5-minute job watchdog's cron (wrangler.toml). */
const JOB_WATCHDOG_CRON = '*/5 * * * *';

export default {
  fetch: (request, env, ctx) => {
    markEntry(request); // Server-Timing's total starts here, before routing
    return app.fetch(request, env, ctx);
  },
  // wrangler.toml [triggers], dispatched on the cron: every 5 min the job watchdog; hourly,
  // expired rendering results are deleted an hour at a time, and the asset store's retention,
  // Temporary artifacts and unreferenced blobs are swept (src/platform/assets/cron.ts).
  scheduled: (controller, env, ctx) => {
    if (controller.cron === JOB_WATCHDOG_CRON) ctx.waitUntil(runWatchdog(env));
    else ctx.waitUntil(Promise.all([sweepExpiredResults(env), sweepAssets(env)]));
  },
} satisfies ExportedHandler<Env>;
