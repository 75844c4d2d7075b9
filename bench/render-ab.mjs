// Interleaved A/B of the storefront's one-line preview (800² bench template, a new Title text on
// every request) across dev servers, request by request, so that every server sees the same
// machine load at the same moment (the machine is shared: sequential runs are not comparable).
//
//   BENCH_AB_URLS=A=http://127.0.0.1:8811,B=http://127.0.0.1:8812 node bench/render-ab.mjs
//
// Each server must already run (`PORT=… npm run dev`, from its own checkout). BENCH_RUNS (30)
// requests per case and server; BENCH_AB_CASES picks from floor,post,cold,warm (default all).
// Prints HTTP p50 / p25 / min, the in-Worker (Server-Timing total) p50 and, on Linux, the CPU the
// server's processes (wrangler's node, both workerd) spent per request, per case and server.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { API_KEY, percentile, upload } from './lib.mjs';

const root = path.resolve(import.meta.dirname, '..');
const RUNS = Number(process.env.BENCH_RUNS ?? 30);
const WARMUP = 3;
const servers = (process.env.BENCH_AB_URLS ?? '').split(',').filter(Boolean).map((s) => {
  const [label, url] = s.includes('=') ? s.split(/=(.*)/s) : [s, s];
  return { label, url };
});
if (servers.length === 0) throw new Error('BENCH_AB_URLS=label=url,label=url…');
const cases = (process.env.BENCH_AB_CASES ?? 'floor,post,cold,warm').split(',');

if (!existsSync(path.join(root, 'bench/out/bench-800.psd'))) {
  execFileSync(process.execPath, [path.join(root, 'scripts/make-bench-templates.mjs'), '800'], { stdio: 'inherit' });
}
const tag = Date.now().toString(36);
for (const s of servers) {
  s.pids = serverPids(s.url);
  await upload(s.url, 'fonts', path.join(root, 'assets/fonts/LiberationSans-Regular.ttf'), '');
  s.template = await upload(s.url, 'templates', path.join(root, 'bench/out/bench-800.psd'));
}
const body = (s, i) => ({ template: s.template, format: 'jpg', size: { width: 800, height: 800 }, data: { Title: { type: 'text', text: `Hello ${tag} ${i}` } } });

const total = (res) => Number(/total;dur=([\d.]+)/.exec(res.headers.get('server-timing') ?? '')?.[1] ?? NaN);
async function timed(fn) {
  const t = performance.now();
  const res = await fn();
  if (!res.ok && res.status !== 304) throw new Error(`HTTP ${res.status} ${(await res.text()).slice(0, 200)}`);
  await res.arrayBuffer();
  return { http: performance.now() - t, worker: total(res) };
}
/** The same with node:http on a keep-alive agent (undici's fetch adds ~1 ms of its own). */
const agent = new http.Agent({ keepAlive: true });
const rawGet = (url) =>
  new Promise((resolve, reject) => {
    const t = performance.now();
    http.get(url, { agent }, (res) => {
      res.resume();
      res.on('end', () => resolve({ http: performance.now() - t, worker: NaN }));
    }).on('error', reject);
  });

/**
 * The dev server's processes (Linux): the workerd listening on its port, its parent (wrangler's
 * node) and that parent's other workerd (the user Worker's runtime). Their CPU time per request
 * is a measure of the work that does not depend on the machine's load, unlike latency.
 */
function serverPids(url) {
  try {
    const port = new URL(url).port;
    const line = execFileSync('ss', ['-ltnpH', `sport = :${port}`]).toString();
    const pid = /pid=(\d+)/.exec(line)?.[1];
    if (!pid) return [];
    const ppid = /PPid:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    const children = readdirSync('/proc').filter((p) => /^\d+$/.test(p) && /PPid:\s+(\d+)/.exec(safeRead(`/proc/${p}/status`))?.[1] === ppid);
    return [ppid, ...children];
  } catch {
    return [];
  }
}
function safeRead(file) {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}
/** CPU ms (user + system) used so far by `pids` (clock ticks of 10 ms). */
const cpuMs = (pids) => pids.reduce((sum, p) => sum + safeRead(`/proc/${p}/stat`).split(') ')[1]?.split(' ').slice(11, 13).reduce((a, b) => a + Number(b), 0) * 10 || sum, 0);

/** Runs `make(server, i)` for i < RUNS on every server, rotating the order each round. */
async function interleaved(name, make) {
  const out = new Map(servers.map((s) => [s.label, []]));
  const cpu = new Map();
  for (let i = -WARMUP; i < RUNS; i++) {
    if (i === 0) for (const s of servers) cpu.set(s.label, cpuMs(s.pids));
    const order = servers.map((_, k) => servers[(k + i + WARMUP) % servers.length]);
    for (const s of order) {
      const r = await make(s, i);
      if (i >= 0) out.get(s.label).push(r);
    }
  }
  await new Promise((r) => setTimeout(r, 300)); // work after the answers (waitUntil) is counted too
  for (const s of servers) {
    const runs = out.get(s.label);
    const h = runs.map((r) => r.http);
    const w = runs.map((r) => r.worker).filter((x) => !Number.isNaN(x));
    const f = (x) => x.toFixed(1);
    const perRequest = s.pids.length ? f((cpuMs(s.pids) - cpu.get(s.label)) / runs.length) : '-';
    console.log(`${name.padEnd(34)} ${s.label.padEnd(6)} HTTP p50 ${f(percentile(h, 0.5))}  p25 ${f(percentile(h, 0.25))}  min ${f(Math.min(...h))}   in-Worker p50 ${w.length ? percentile(w, 0.5) : '-'}   server CPU ${perRequest} ms/request`);
  }
}

const load = () => execFileSync('cat', ['/proc/loadavg']).toString().split(' ').slice(0, 3).join(' ');
console.log(`${new Date().toISOString()} load ${load()} · ${RUNS} runs per case and server, interleaved`);
if (cases.includes('floor')) {
  await interleaved('floor GET /api/Info (fetch)', (s) => timed(() => fetch(`${s.url}/api/Info`)));
  await interleaved('floor GET /api/Info (node:http)', (s) => rawGet(`${s.url}/api/Info`));
}
if (cases.includes('post')) {
  await interleaved('POST one-line change', (s, i) =>
    timed(() => fetch(`${s.url}/api/rendering/preview`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body(s, i)) })),
  );
}
if (cases.includes('cold') || cases.includes('warm')) {
  for (const s of servers) {
    s.urls = [];
    for (let i = -WARMUP; i < RUNS; i++) {
      const res = await fetch(`${s.url}/api/rendering/preview/url`, { method: 'POST', headers: { 'content-type': 'application/json', 'X-DynamicImageApiKey': API_KEY }, body: JSON.stringify(body(s, 1000 + i)) });
      if (!res.ok) throw new Error(`preview/url: HTTP ${res.status}`);
      s.urls.push((await res.json()).url.replace(/^https?:\/\/[^/]+/, s.url));
    }
  }
  await interleaved('signed GET cold (render)', (s, i) => timed(() => fetch(s.urls[i + WARMUP])));
  await new Promise((r) => setTimeout(r, 500));
  if (cases.includes('warm')) await interleaved('signed GET warm (Cache API hit)', (s, i) => timed(() => fetch(s.urls[i + WARMUP])));
}
console.log(`load ${load()}`);
