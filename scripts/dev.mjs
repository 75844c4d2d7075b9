// `npm run dev`: local secrets, D1 migrations, an idempotent demo seed, then wrangler dev on :8787
// (PORT overrides the port).
//
// Two settings keep fixed milliseconds off every request (docs/performance.md, "The fixed cost
// outside the Worker"); arguments after `npm run dev --` override both:
// - wrangler logs at `warn` (DEV_LOG_LEVEL overrides): at `info` the local runtime sends every
//   request's log line to wrangler's node process (~1 ms of CPU per request on this machine).
//   This script prints the "Ready on" line itself.
// - a rendered preview GET is not also copied to R2 (PREVIEW_R2_COPY=false): that copy is for
//   the other locations of a deployment, which a local dev does not have (the Cache API copy
//   still serves the next viewer); deployments keep it (the setting's default is on).
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readdirSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
process.chdir(root);
process.env.WRANGLER_SEND_METRICS = 'false';

function run(cmd, args) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', env: process.env });
  if (r.status !== 0) {
    console.error(`\n${cmd} ${args.join(' ')} failed (exit ${r.status})`);
    process.exit(r.status ?? 1);
  }
}

if (!existsSync('.dev.vars')) {
  copyFileSync('.dev.vars.example', '.dev.vars');
  console.log('Created .dev.vars from .dev.vars.example (local demo secrets).');
}
for (const script of readdirSync('scripts/build').filter((f) => f.endsWith('.mjs')).sort()) {
  run(process.execPath, [path.join('scripts/build', script)]);
}
run('npx', ['wrangler', 'd1', 'migrations', 'apply', 'DB', '--local']);
// Seed steps live in scripts/seed/*.mjs, one per service area, each idempotent.
for (const script of readdirSync('scripts/seed').filter((f) => f.endsWith('.mjs')).sort()) {
  run(process.execPath, [path.join('scripts/seed', script)]);
}
if (process.argv.includes('--seed-only')) process.exit(0);
const extra = process.argv.slice(2);
const port = process.env.PORT ?? '8787';
const logLevel = extra.includes('--log-level') ? [] : ['--log-level', process.env.DEV_LOG_LEVEL ?? 'warn'];
const r2Copy = extra.some((a) => a.startsWith('PREVIEW_R2_COPY')) ? [] : ['--var', 'PREVIEW_R2_COPY:false'];
const dev = spawn('npx', ['wrangler', 'dev', '--port', port, '--ip', '127.0.0.1', ...logLevel, ...r2Copy, ...extra], {
  stdio: 'inherit',
  env: process.env,
});
dev.on('exit', (code) => process.exit(code ?? 0));
if (logLevel[1] === 'warn') {
  // wrangler's own "Ready on" is an info line: say it here once the Worker answers.
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 600; i++) {
    await new Promise((r) => setTimeout(r, 500));
    const up = await fetch(url, { signal: AbortSignal.timeout(2000) }).then((r) => (void r.body?.cancel(), true), () => false);
    if (up) {
      console.log(`Ready on ${url} (request log off for speed: DEV_LOG_LEVEL=info npm run dev shows it)`);
      break;
    }
  }
}
