import { applyD1Migrations } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { nextTestFile } from './helpers/per-file';

// Runs before each test file: the real D1 schema, as `wrangler d1 migrations apply` builds it.
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);

// Caches the helpers keep for one file start again (test/helpers/per-file.ts).
nextTestFile();
