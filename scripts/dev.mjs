// `npm run dev`: local secrets, D1 migrations, an idempotent demo seed, then wrangler dev on :8787
// (PORT overrides the port).
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
const dev = spawn('npx', ['wrangler', 'dev', '--port', process.env.PORT ?? '8787', '--ip', '127.0.0.1', ...process.argv.slice(2)], {
  stdio: 'inherit',
  env: process.env,
});
dev.on('exit', (code) => process.exit(code ?? 0));
