import { applyD1Migrations } from 'cloudflare:test';
import { env } from 'cloudflare:workers';

// Runs before each test file: the real D1 schema, as `wrangler d1 migrations apply` builds it.
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
