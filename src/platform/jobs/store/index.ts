/**
 * The jobs domain's store, the only jobs code that names tables: the ProjectJobs object's own
 * SQLite (./object.ts) and D1 `jobs` (./jobs.ts). What the runner reads and writes of projects,
 * artifacts and pipelines is in those domains' stores.
 */
export * from './object';
export * from './jobs';
