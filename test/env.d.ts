declare namespace Cloudflare {
  interface Env {
    /** D1 migrations read by vitest.config.ts and applied in test/setup.ts. */
    TEST_MIGRATIONS: import('cloudflare:test').D1Migration[];
  }
}
