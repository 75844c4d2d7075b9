import { defineConfig } from 'vitest/config';

// Tests against the Worker served by `wrangler dev` (its local proxy in front, as under
// `npm run dev`), with throw-away state: behaviour the in-workerd test pool cannot show, such as
// how oversized request bodies reach the client. Runs in Node, as part of `npm test`.
export default defineConfig({
  test: {
    environment: 'node',
    include: ['test/wrangler/**/*.test.ts'],
    globalSetup: ['./test/wrangler/global-setup.ts'],
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 240_000,
  },
});
