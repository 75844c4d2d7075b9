import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';
import { OWN_RUNTIME } from './vitest.shared.config.js';

// The workerd test files that keep a fresh runtime each under `npm test` (why: OWN_RUNTIME in
// vitest.shared.config.ts); every other one runs in a shared runtime. A fresh runtime's first
// request to an area imports it through vite's module runner (app.ts loads areas lazily): the
// first platform call of projects.test.ts took 12 s at load ~4 and 18–30 s at load 6–8 (CI of
// 2026-12-02, a timeout), the calls after it milliseconds; so a test here gets the hooks' 60 s.
export default defineConfig({ ...base, test: { ...base.test, include: OWN_RUNTIME, testTimeout: 60_000 } });
