import { createApp } from './app';
import { markEntry } from './http/server-timing';
import type { Env } from './env';

// The Durable Objects (wrangler.toml). Imported by their own modules, not through their areas'
// index files, so that start-up evaluates no more than the classes need.
export { ProjectJobs } from './platform/jobs/project-jobs';
export { WebhookOutbox } from './platform/webhooks/outbox';

const app = createApp();

/** The 5-minute job watchdog's cron (wrangler.toml). */
const JOB_WATCHDOG_CRON = '*/5 * * * *';

/**
 * The crons, each loading its module when it first runs (a fetch-only isolate never does):
 * every 5 min the job watchdog; hourly, expired rendering results are deleted an hour at a time,
 * and the asset store's retention, Temporary artifacts and unreferenced blobs are swept
 * (src/platform/assets/cron.ts).
 */
async function runCron(cron: string, env: Env): Promise<void> {
  if (cron === JOB_WATCHDOG_CRON) {
    await (await import('./platform/jobs')).runWatchdog(env);
    return;
  }
  const [{ sweepExpiredResults }, { sweepAssets }] = await Promise.all([import('./dynamic-image/expiry'), import('./platform/assets/cron')]);
  await Promise.all([sweepExpiredResults(env), sweepAssets(env)]);
}

export default {
  fetch: (request, env, ctx) => {
    markEntry(request); // Server-Timing's total starts here, before routing
    return app.fetch(request, env, ctx);
  },
  scheduled: (controller, env, ctx) => ctx.waitUntil(runCron(controller.cron, env)),
} satisfies ExportedHandler<Env>;
