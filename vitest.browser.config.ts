import { defineConfig } from 'vitest/config';

// Browser tests: real Chromium (playwright-core) against the Worker served by `wrangler dev` with
// its own throw-away state. Runs in Node, after the workerd suite (`npm test`).
export default defineConfig({
  test: {
    environment: 'node',
    include: ['test/browser/**/*.test.ts'],
    globalSetup: ['./test/browser/global-setup.ts'],
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 240_000,
  },
});
