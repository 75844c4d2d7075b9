import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

// The engine's tests (test/engine) in one runtime, without a fresh module graph and storage per
// file: starting workerd and loading the Worker for each of ~170 files cost more than the tests
// themselves (~6 s a file on this 2-core machine; the suite ~20 → ~6.5 min quiet). They share no D1
// state and key what they write in R2 by content, so nothing one file leaves changes another's
// result. `npm test` runs them here and the other workerd tests in vitest.shared.config.ts; a single
// file still runs isolated with plain `npx vitest run <file>`.
export default defineConfig({
  ...base,
  test: { ...base.test, include: ['test/engine/**/*.test.ts'], isolate: false },
});
