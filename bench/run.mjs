// `npm run bench`: starts the local dev server (unless one answers on :8787), runs every
// bench/*.bench.mjs and prints one table. Each bench module exports
// `default async function ({ baseUrl }) => Array<{ bench, metric, value, unit, target? }>`.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const root = path.resolve(import.meta.dirname, '..');
const baseUrl = process.env.BENCH_BASE_URL ?? 'http://127.0.0.1:8787';
const only = process.argv.slice(2);

async function reachable() {
  try {
    await fetch(`${baseUrl}/.well-known/openid-configuration`, { signal: AbortSignal.timeout(1000) });
    return true;
  } catch {
    return false;
  }
}

let server;
if (!(await reachable())) {
  server = spawn(process.execPath, [path.join(root, 'scripts/dev.mjs')], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false' },
    detached: true,
  });
  const deadline = Date.now() + 180_000;
  while (!(await reachable())) {
    if (Date.now() > deadline) throw new Error('dev server did not start within 180 s');
    await new Promise((r) => setTimeout(r, 500));
  }
}

const rows = [];
try {
  const files = readdirSync(path.join(root, 'bench'))
    .filter((f) => f.endsWith('.bench.mjs'))
    .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
    .sort();
  for (const file of files) {
    const mod = await import(pathToFileURL(path.join(root, 'bench', file)).href);
    process.stderr.write(`running ${file}...\n`);
    rows.push(...(await mod.default({ baseUrl, root })));
  }
} finally {
  if (server) process.kill(-server.pid, 'SIGTERM');
}

const header = ['bench', 'metric', 'value', 'unit', 'target'];
const table = [header, ...rows.map((r) => [r.bench, r.metric, typeof r.value === 'number' ? r.value.toFixed(2) : String(r.value), r.unit ?? '', r.target ?? ''])];
const widths = header.map((_, i) => Math.max(...table.map((row) => row[i].length)));
const line = (row) => '| ' + row.map((cell, i) => cell.padEnd(widths[i])).join(' | ') + ' |';
console.log(line(table[0]));
console.log('|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|');
for (const row of table.slice(1)) console.log(line(row));
console.log(`\n${new Date().toISOString()} · ${process.platform} ${process.arch} · node ${process.version}`);
