import { defineConfig } from 'vitest/config';

// Peak memory per request (issue 25 §1), measured in Node with the engine bundled as the Worker
// gets it (bench/memory.bench.mjs): workerd under miniflare has no memory limit, so the in-workerd
// pool cannot show a request that a deployed 128 MB isolate would kill. Runs as part of `npm test`.
export default defineConfig({
  test: {
    environment: 'node',
    include: ['test/memory/**/*.spec.ts'],
    fileParallelism: false,
    testTimeout: 600_000,
  },
});
