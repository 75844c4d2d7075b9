import type { TestProject } from 'vitest/node';
import { startLocalWorker } from '../browser/worker.js';

/** One `wrangler dev` (fresh state) for the files here; WRANGLER_TEST_BASE_URL reuses a running one. */
export default async function setup(project: TestProject) {
  const existing = process.env.WRANGLER_TEST_BASE_URL;
  if (existing) {
    project.provide('wranglerUrl', existing.replace(/\/$/, ''));
    return;
  }
  const worker = await startLocalWorker();
  project.provide('wranglerUrl', worker.url);
  return () => worker.stop();
}

declare module 'vitest' {
  export interface ProvidedContext {
    wranglerUrl: string;
  }
}
