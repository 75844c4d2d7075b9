import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';
import { OWN_RUNTIME } from './vitest.shared.config.js';

// The workerd test files that keep a fresh runtime each under `npm test` (why: OWN_RUNTIME in
// vitest.shared.config.ts); every other one runs in a shared runtime.
export default defineConfig({ ...base, test: { ...base.test, include: OWN_RUNTIME } });
