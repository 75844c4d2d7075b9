// Client-credentials token issuance against the local dev server: tokens per second and CPU
// milliseconds per token. Method: CPU is the workerd process's utime+stime from /proc/<pid>/stat
// (the process serving the dev port, found by its `--socket-addr=entry=<host>:<port>` argument),
// sampled before and after N requests; it includes HTTP parsing and the local D1 (SQLite) work, so
// it is an upper bound of the Worker's own CPU. Resolution is one clock tick (10 ms), hence many
// requests. Target: ≤ 2 ms CPU per token (one RSA signature + one D1 read of the app).
import { readFileSync, readdirSync } from 'node:fs';

const REQUESTS = Number(process.env.TOKENS_BENCH_REQUESTS ?? 1000);
const CONCURRENCY = 8;
const TICKS_PER_SECOND = 100; // USER_HZ on Linux

function workerdPid(baseUrl) {
  const { hostname, port } = new URL(baseUrl);
  const needle = `entry=${hostname}:${port}`;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (cmdline.includes('workerd') && cmdline.includes(needle)) return Number(entry);
    } catch {
      // process went away
    }
  }
  return undefined;
}

function cpuTicks(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]); // utime + stime (fields 14 and 15)
}

async function requestToken(baseUrl) {
  const res = await fetch(`${baseUrl}/connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials&client_id=demo-backend&client_secret=demo-backend-secret&scope=Projects_read',
  });
  const body = await res.json();
  if (res.status !== 200 || !body.access_token) throw new Error(`token request failed: ${res.status} ${JSON.stringify(body)}`);
}

async function run(baseUrl, count) {
  let next = 0;
  const latencies = [];
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) {
        next++;
        const t0 = performance.now();
        await requestToken(baseUrl);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  return latencies.sort((a, b) => a - b);
}

export default async function ({ baseUrl }) {
  await run(baseUrl, 50); // warm-up: key import, isolate JIT
  const pid = workerdPid(baseUrl);
  const before = pid ? cpuTicks(pid) : undefined;
  const t0 = performance.now();
  const latencies = await run(baseUrl, REQUESTS);
  const seconds = (performance.now() - t0) / 1000;
  const cpuMs = pid ? ((cpuTicks(pid) - before) / TICKS_PER_SECOND) * 1000 : undefined;
  return [
    { bench: 'tokens', metric: 'client_credentials tokens/s', value: REQUESTS / seconds, unit: 'tokens/s', target: '' },
    { bench: 'tokens', metric: 'CPU per token (workerd /proc)', value: cpuMs === undefined ? 'n/a' : cpuMs / REQUESTS, unit: 'ms', target: '≤ 2' },
    { bench: 'tokens', metric: 'latency p50', value: latencies[Math.floor(latencies.length / 2)], unit: 'ms', target: '' },
    { bench: 'tokens', metric: 'latency p99', value: latencies[Math.floor(latencies.length * 0.99)], unit: 'ms', target: '' },
  ];
}
