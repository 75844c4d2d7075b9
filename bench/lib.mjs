// Pieces the bench modules share (not a bench itself: run.mjs loads only *.bench.mjs).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

export const API_KEY = process.env.BENCH_API_KEY ?? 'demo-api-key';

/** Uploads `file` into `/api/resources/<root>` under `destination`; the stored name. */
export async function upload(baseUrl, root, file, destination = 'bench') {
  const form = new FormData();
  form.append('file', new Blob([readFileSync(file)]), path.basename(file));
  const res = await fetch(`${baseUrl}/api/resources/${root}?destination=${destination}&overwrite=true`, {
    method: 'POST',
    headers: { 'X-DynamicImageApiKey': API_KEY },
    body: form,
  });
  if (res.status !== 201) throw new Error(`upload ${path.basename(file)}: HTTP ${res.status} ${(await res.text()).slice(0, 200)}`);
  const body = await res.json();
  const first = Array.isArray(body) ? body[0] : body;
  return typeof first === 'string' ? first : first.name;
}

/**
 * Samples the summed RSS of the dev server's workerd processes every 10 ms: the one listening on
 * `port` and its siblings (same wrangler parent: the runtime that runs the Worker), not other
 * dev servers or test runs on the machine.
 */
export class MemorySampler {
  constructor(port) {
    const all = existsSync('/proc') ? readdirSync('/proc').filter((p) => /^\d+$/.test(p)) : [];
    const workerd = all.filter((p) => /workerd/.test(safeRead(`/proc/${p}/cmdline`).split('\0')[0]));
    const parentOf = (p) => /PPid:\s+(\d+)/.exec(safeRead(`/proc/${p}/status`))?.[1];
    const entry = workerd.find((p) => safeRead(`/proc/${p}/cmdline`).includes(`entry=127.0.0.1:${port}`));
    this.pids = entry ? workerd.filter((p) => parentOf(p) === parentOf(entry)) : [];
    this.idle = this.read();
    this.peak = this.idle;
    this.timer = this.pids.length ? setInterval(() => (this.peak = Math.max(this.peak, this.read())), 10) : null;
  }
  read() {
    let kb = 0;
    for (const pid of this.pids) kb += Number(/VmRSS:\s+(\d+)/.exec(safeRead(`/proc/${pid}/status`))?.[1] ?? 0);
    return kb;
  }
  /** The pids alone, sampling stopped. */
  stopNow() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    return this.pids;
  }
  stop() {
    if (!this.timer) return null;
    clearInterval(this.timer);
    this.peak = Math.max(this.peak, this.read());
    return { peakMb: this.peak / 1024, peakDeltaMb: (this.peak - this.idle) / 1024 };
  }
}

/**
 * CPU time (ms) of the dev server's workerd threads, from /proc/<pid>/task/<tid>/schedstat (ns on
 * the CPU): the processes MemorySampler finds for `port`. The local runtime runs the Worker, its
 * R2 and D1 simulators and the HTTP handling on one thread, so a request's CPU there is what it
 * costs whatever the machine's load, where its in-Worker time (a wall clock) stretches with the
 * load (docs/performance.md, "Personalised text in workerd: CPU, not wall time").
 */
export class ThreadCpu {
  constructor(port) {
    this.threads = new MemorySampler(port).stopNow().flatMap((pid) => (existsSync(`/proc/${pid}/task`) ? readdirSync(`/proc/${pid}/task`).map((t) => `/proc/${pid}/task/${t}/schedstat`) : []));
  }
  /** ms of CPU of every thread so far (0 where the dev server is not found). */
  now() {
    let ns = 0;
    for (const t of this.threads) ns += Number(safeRead(t).split(' ')[0] || 0);
    return ns / 1e6;
  }
}

function safeRead(file) {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/** A client-credentials access token of a seeded back end (demo-backend: tenant 1). */
export async function clientToken(baseUrl, client = 'demo-backend') {
  const res = await fetch(`${baseUrl}/connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: `grant_type=client_credentials&client_id=${client}&client_secret=${client}-secret`,
  });
  if (!res.ok) throw new Error(`token: ${res.status} ${await res.text()}`);
  return (await res.json()).access_token;
}

/** fetch, retried while `wrangler dev` restarts the Worker (503) because files changed. */
export async function fetchRetry(url, init) {
  for (let i = 0; ; i++) {
    const res = await fetch(url, init);
    if (res.status !== 503 || i >= 10) return res;
    await res.body?.cancel();
    await new Promise((r) => setTimeout(r, 2000));
  }
}

/** Nearest-rank percentile of `xs` (0 < p <= 1). */
export const percentile = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))];
};

/** The Worker's own `Server-Timing` total (ms), or NaN. */
export function serverTotal(res) {
  const m = /total;dur=([\d.]+)/.exec(res.headers.get('server-timing') ?? '');
  return m ? Number(m[1]) : NaN;
}

/**
 * Bundles engine modules for Node's V8 with esbuild, loading module imports as wrangler.toml's
 * rules give them to the Worker: `.wasm` as a compiled WebAssembly.Module, `.icc` as bytes.
 * `source` is an entry file or `{ contents }` (TypeScript resolved from the project root).
 */
export async function bundleForNode(root, source, outfile) {
  const esbuild = await import(pathToFileURL(path.join(root, 'node_modules/esbuild/lib/main.js')).href);
  const resolveModule = (spec, from) =>
    spec.startsWith('.') ? path.resolve(from, spec) : import.meta.resolve(spec, pathToFileURL(path.join(root, 'package.json')).href).replace('file://', '');
  await esbuild.build({
    ...(typeof source === 'string' ? { entryPoints: [source] } : { stdin: { contents: source.contents, resolveDir: root, loader: 'ts' } }),
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile,
    // As wrangler bundles the Worker (keep_names defaults to true): each function made at run time
    // is named by an Object.defineProperty call, which a per-pixel closure pays per pixel (13 ms a
    // request of the large mockup's stroke in workerd, invisible here without it).
    keepNames: true,
    logLevel: 'error',
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
    plugins: [
      {
        name: 'worker-modules',
        setup(b) {
          b.onResolve({ filter: /\.(wasm|icc)$/ }, (a) => ({ path: resolveModule(a.path, a.resolveDir), namespace: a.path.endsWith('.icc') ? 'icc' : 'wasm' }));
          b.onLoad({ filter: /.*/, namespace: 'wasm' }, (a) => ({ contents: `import { readFileSync } from 'node:fs'; export default new WebAssembly.Module(readFileSync(${JSON.stringify(a.path)}));`, loader: 'js' }));
          b.onLoad({ filter: /.*/, namespace: 'icc' }, (a) => ({ contents: `import { readFileSync } from 'node:fs'; const b = readFileSync(${JSON.stringify(a.path)}); export default b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);`, loader: 'js' }));
        },
      },
    ],
  });
}

/** `Server-Timing` → { phase: ms }. */
export function serverTiming(header) {
  const phases = {};
  for (const m of header.matchAll(/([\w-]+)(?:;[^,]*?dur=([\d.]+))?/g)) if (m[2] !== undefined) phases[m[1]] = Number(m[2]);
  return phases;
}

/** `Server-Timing` → { name: desc } for entries with a description. */
export function serverNotes(header) {
  const notes = {};
  for (const m of header.matchAll(/([\w-]+);desc="([^"]*)"/g)) notes[m[1]] = m[2];
  return notes;
}
