import type { TestProject } from 'vitest/node';
import { startLocalWorker } from './worker.js';

/**
 * One local Worker (fresh state, demo seed) for every browser test file. BROWSER_TEST_BASE_URL
 * points the tests at a server that is already running instead (they create and delete apps).
 */
export default async function setup(project: TestProject) {
  const existing = process.env.BROWSER_TEST_BASE_URL;
  if (existing) {
    project.provide('workerUrl', existing.replace(/\/$/, ''));
    return;
  }
  const worker = await startLocalWorker();
  project.provide('workerUrl', worker.url);
  return () => worker.stop();
}

declare module 'vitest' {
  export interface ProvidedContext {
    workerUrl: string;
  }
}
