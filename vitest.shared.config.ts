import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

// The workerd tests outside test/engine (test/browser and test/wrangler run in Node) in shared
// runtimes, as vitest.engine.config.ts runs the engine's: a fresh workerd and Worker per file cost
// ~4–6 s, so these 137 files took ~22 min isolated (1,325 s on the last CI run) and ~5 min here
// (2-core AMD EPYC, 2026-11-30). Files share D1, R2, KV and Durable Objects, so each keeps to what it
// made: its own ids, names and folders (test/platform/jobs/helpers.ts createDesign gives each design
// a folder of its own), assertions scoped to its rows and keys, and the tenant-wide rows it changes
// put back (keepTenantRows in test/helpers/tenant-state.ts; the tenancy test's tenant-1 rows); the
// helpers' per-file caches key by the file (test/helpers/per-file.ts). One worker (maxWorkers 1):
// files change tenant-wide rows in turn, never at the same time.
//
// `npm test` runs three runtimes of this config, by path: test/platform/{pipelines,jobs,processor}
// (36 files), the rest of test/platform (38), everything else (54); then the 9 files of OWN_RUNTIME
// below one runtime each (vitest.isolated.config.ts). All in one runtime (~6 min) failed in 2 of 3
// file orders: after ~75–130 files, requests sent at once hang (OWN_RUNTIME) and spoil the files
// after them, though either half of the same order passes; so no runtime takes more than ~60 files.
// Nothing else needs a runtime of its own: the crash injection (PIPELINE_FAULTS) aborts only its own
// ProjectJobs objects, the loopback servers of test/global-setup.ts serve every file, and no file
// here fakes timers or globals. A single file still runs isolated with plain `npx vitest run <file>`.
/**
 * Files that send requests to the Worker at once (Promise.all over calls). In a runtime that
 * earlier files used, such requests now and then hang in workerd ("code had hung", "Cannot perform
 * I/O on behalf of a different request", I/O type RefcountedFulfiller): core/fuzz.test.ts,
 * atoms/routes.test.ts, projects/statuses.test.ts in 4 of 7 shared runs, 2026-11-30, not
 * reproduced with either half of the files that ran before. Not understood yet, so they keep a
 * runtime each (vitest.isolated.config.ts), as before.
 */
export const OWN_RUNTIME = [
  'test/dynamic-image/signed-preview.test.ts',
  'test/identity/login-throttle.test.ts',
  'test/identity/pkce.test.ts',
  'test/identity/refresh-and-grants.test.ts',
  'test/platform/atoms/routes.test.ts',
  'test/platform/catalogue/versions-scale.test.ts',
  'test/platform/core/fuzz.test.ts',
  'test/platform/projects/projects.test.ts',
  'test/platform/projects/statuses.test.ts',
];

export default defineConfig({
  ...base,
  test: {
    ...base.test,
    exclude: [...(base.test?.exclude ?? []), 'test/engine/**', ...OWN_RUNTIME],
    isolate: false,
    maxWorkers: 1,
  },
});
