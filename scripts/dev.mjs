// `npm run dev`: local secrets, the build steps, D1 migrations and an idempotent demo seed, then
// wrangler dev on :8787 (PORT overrides the port; the issuer, and so every URL the platform hands
// out and its discovery document, follow it).
//
// Start-up time (README, "Set up"): the migrations and the seeds run in this one process against
// the local bindings (scripts/lib/local-platform.mjs; a `wrangler` child or a bindings proxy
// costs about 7-10 s each on a loaded 2-core machine), and only when their inputs changed since
// the last run: a hash of the migrations, the seed scripts and the files they upload is kept in
// .wrangler/state/dev-seed.json, which goes with the state it describes. `--reseed` runs them
// anyway (the seeds are idempotent). The build steps check their own outputs.
//
// Two settings keep fixed milliseconds off every request (docs/performance.md, "The fixed cost
// outside the Worker"); arguments after `npm run dev --` override both:
// - wrangler logs at `warn` (DEV_LOG_LEVEL overrides): at `info` the local runtime sends every
//   request's log line to wrangler's node process (~1 ms of CPU per request on this machine).
//   This script prints the "Ready on" line itself.
// - a rendered preview GET is not also copied to R2 (PREVIEW_R2_COPY=false): that copy is for
//   the other locations of a deployment, which a local dev does not have (the Cache API copy
//   still serves the next viewer); deployments keep it (the setting's default is on).
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { applyLocalMigrations, persistToArg, withLocalStorage } from './lib/local-platform.mjs';

const root = path.resolve(import.meta.dirname, '..');
process.chdir(root);
process.env.WRANGLER_SEND_METRICS = 'false';
// The local runtime fetches a sample `request.cf` from workers.cloudflare.com on every start
// (offline: a warning and a stack trace); the platform reads nothing from it.
process.env.CLOUDFLARE_CF_FETCH_ENABLED ??= 'false';

const args = process.argv.slice(2);
const reseed = args.includes('--reseed');
const seedOnly = args.includes('--seed-only');
const extra = args.filter((a) => a !== '--reseed' && a !== '--seed-only');
const port = process.env.PORT ?? '8787';
const state = path.resolve(persistToArg(extra) ?? '.wrangler/state');

if (!existsSync('.dev.vars')) {
  copyFileSync('.dev.vars.example', '.dev.vars');
  console.log('Created .dev.vars from .dev.vars.example (local demo secrets).');
}
// The build steps run in this process (each skips work whose output is current).
for (const script of readdirSync('scripts/build').filter((f) => f.endsWith('.mjs')).sort()) {
  await import(pathToFileURL(path.join(root, 'scripts/build', script)).href);
}

/** Files under `dir` (recursively), sorted, as paths relative to the root. */
function filesUnder(dir) {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(root, path.join(e.parentPath, e.name)))
    .sort();
}

/** sha256 of the names and contents of everything the migrations and seeds read. */
function seedInputsHash() {
  const inputs = [
    'wrangler.toml',
    'scripts/dev.mjs',
    ...filesUnder('migrations'),
    ...filesUnder('scripts/seed'),
    ...filesUnder('scripts/lib'),
    ...filesUnder('assets/fonts'),
  ];
  const hash = createHash('sha256');
  for (const file of inputs) hash.update(`${file}\0`).update(readFileSync(file)).update('\0');
  return hash.digest('hex');
}

const stampFile = path.join(state, 'dev-seed.json');
const d1Dir = path.join(state, 'v3/d1');
const hash = seedInputsHash();
const stamp = existsSync(stampFile) ? JSON.parse(readFileSync(stampFile, 'utf8')) : {};
// The stamp counts only while the database it describes is still there.
const current = !reseed && stamp.hash === hash && existsSync(d1Dir) && statSync(d1Dir).isDirectory();
if (current) {
  console.log('Migrations and demo seed unchanged since the last run (npm run dev -- --reseed runs them again).');
} else {
  const seeds = readdirSync('scripts/seed').filter((f) => f.endsWith('.mjs')).sort();
  await withLocalStorage(root, async (env, config) => {
    const applied = await applyLocalMigrations(env, config);
    console.log(applied.length ? `Applied D1 migrations: ${applied.join(', ')}.` : 'D1 migrations: none to apply.');
    // Seed steps live in scripts/seed/*.mjs, one per service area, each idempotent.
    for (const script of seeds) {
      const { seed } = await import(pathToFileURL(path.join(root, 'scripts/seed', script)).href);
      await seed(env);
    }
  }, state);
  writeFileSync(stampFile, JSON.stringify({ hash, seededAt: new Date().toISOString() }, null, 2) + '\n');
}
if (seedOnly) process.exit(0);

const logLevel = extra.includes('--log-level') ? [] : ['--log-level', process.env.DEV_LOG_LEVEL ?? 'warn'];
const r2Copy = extra.some((a) => a.startsWith('PREVIEW_R2_COPY')) ? [] : ['--var', 'PREVIEW_R2_COPY:false'];
// The issuer (wrangler.toml says :8787) follows the port, unless ISSUER is given.
const issuer = extra.some((a) => a.startsWith('ISSUER:')) ? [] : ['--var', `ISSUER:${process.env.ISSUER ?? `http://localhost:${port}`}`];
// --test-scheduled: /__scheduled?cron=… runs a cron trigger by hand (local crons never fire on
// their own), and wrangler then says nothing about that on start.
const scheduled = extra.includes('--test-scheduled') ? [] : ['--test-scheduled'];
const dev = spawn(
  'npx',
  ['wrangler', 'dev', '--port', port, '--ip', '127.0.0.1', ...logLevel, ...r2Copy, ...issuer, ...scheduled, ...extra],
  { stdio: 'inherit', env: process.env },
);
dev.on('exit', (code) => process.exit(code ?? 0));
if (logLevel[1] === 'warn') {
  // wrangler's own "Ready on" is an info line: say it here once the Worker answers.
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 1200; i++) {
    await new Promise((r) => setTimeout(r, 250));
    const up = await fetch(url, { signal: AbortSignal.timeout(2000) }).then((r) => (void r.body?.cancel(), true), () => false);
    if (up) {
      console.log(`Ready on ${url} (issuer ${issuer[1]?.slice('ISSUER:'.length) ?? 'from your --var'}; request log off for speed: DEV_LOG_LEVEL=info npm run dev shows it)`);
      break;
    }
  }
}
