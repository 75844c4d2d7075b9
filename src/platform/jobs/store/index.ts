/**
 * The jobs domain's store, the only jobs code that names tables: the ProjectJobs object's own
 * SQLite (./object.ts), D1 `jobs` (./jobs.ts), and, marked as borrowed until they move to their
 * domains' stores, the runner's queries on projects, artifacts and pipelines (./borrowed.ts).
 */
export * from './object';
export * from './jobs';
export * from './borrowed';
