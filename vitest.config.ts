import path from 'node:path';
import { cloudflareTest, readD1Migrations } from '@cloudflare/vitest-plugin';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  plugins: [
    cloudflareTest(async () => ({
      wrangler: { configPath: './wrangler.toml' },
      miniflare: {
        bindings: {
          TEST_MIGRATIONS: await readD1Migrations(path.join(import.meta.dirname, 'migrations')),
          KEY_ENCRYPTION_SECRET: 'test-key-encryption-secret',
          RENDERING_API_KEY: 'test-api-key',
          // The fixture server (test/global-setup.ts) listens on loopback.
          OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
          // Test-only crash injection (src/platform/jobs): tasks with these names abort the
          // ProjectJobs object once, after their outputs and before the commit.
          PIPELINE_FAULTS: 'fault-render:after-outputs,fault-finalize:after-outputs',
        },
      },
    })),
  ],
  test: {
    globalSetup: ['./test/global-setup.ts'],
    setupFiles: ['./test/setup.ts'],
    include: ['test/**/*.test.ts'],
    exclude: ['test/browser/**', 'test/wrangler/**', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
