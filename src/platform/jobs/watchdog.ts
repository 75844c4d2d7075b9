/**
 * The 5-minute cron (src/index.ts `scheduled`): projects triggered more than 2 minutes ago that
 * have no job yet get their jobs (the trigger's call to the runner was lost); jobs InProgress
 * with no unit for 10 minutes are re-armed. It composes the projects domain (planning a
 * project's jobs) with the runner, so it is the one jobs module that imports projects.
 */
import type { Env } from '../../env';
import { enqueueProjectProcessing } from '../projects/processing';
import { jobsOf, plannedJobs } from '../projects/service';
import { jobStub } from './runner';
import { idleJobObjects } from './store';
import { projectItemOrder, projectsWithoutJobs } from '../projects/store';

const TRIGGER_GRACE_MS = 2 * 60_000;
const IDLE_MS = 10 * 60_000;

export async function runWatchdog(env: Env, now = Date.now()): Promise<{ started: number; rearmed: number }> {
  const orphans = await projectsWithoutJobs(env.DB, now - TRIGGER_GRACE_MS);
  let started = 0;
  for (const o of orphans) {
    const planned = plannedJobs(o.processing);
    const items = await projectItemOrder(env.DB, o.tenantId, o.id);
    try {
      await enqueueProjectProcessing(env, o.tenantId, o.id, jobsOf(planned, items));
      started++;
    } catch (e) {
      console.error('watchdog: project', o.tenantId, o.id, e);
    }
  }
  let rearmed = 0;
  for (const doName of await idleJobObjects(env.DB, now - IDLE_MS)) {
    try {
      if (await jobStub(env, doName).ensureStarted()) {
        await jobStub(env, doName).rearm();
        rearmed++;
      }
    } catch (e) {
      console.error('watchdog: object', doName, e);
    }
  }
  return { started, rearmed };
}
