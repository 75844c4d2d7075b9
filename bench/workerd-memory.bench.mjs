// Memory of workerd itself per request (issue 25 §1, "checked from outside"): bench/memory.bench.mjs
// measures the engine in Node's V8; this starts our own dev server (scripts/dev.mjs on its own
// port and persist dir) and watches the workerd processes it runs while the public API:
//   upload     POST /api/resources/templates  the 10,000² one-layer PSD (big-10000.psd): compiled now
//   jpeg-5000  POST /api/rendering/preview    5,000² JPEG of it (disableCache=true), then the download
//   png-5000   the same as PNG
//   pdf        POST /api/rendering/hires      its print PDF, then the download
//   jpeg-8000  POST /api/rendering/preview    bench-8000.psd → 5,000² JPEG (its layers resampled from level 0); png-8000 as PNG
//   personal   POST /api/rendering/preview    bench-8000.psd → 800² with new Title text and a Photo
//   bigtext    POST /api/rendering/preview    bench-8000.psd → 4000² with its Title at 2,300 px (8.6 MP,
//              drawn in bands); bigtext-whole: at 1,500 px (5.2 MP, one resvg render); bigtext-small:
//              at its own 320 px (the frame alone). WM_BIGTEXT_SIZE: bigtext's size instead of 2,300
//   photo-12mp POST /api/rendering/preview    bench-4000.psd → 800² with a 12 MP (4000 × 3000) JPEG
//              placed in its Photo layer (the issue's "a 12 MP photo placed")
//   fx-png     POST /api/rendering/preview    fx-heavy.psd (1,189 × 863, effects of size 250: a drop shadow
//              with a bevel and a stroke, outer and inner glow, satin; makeFxHeavy) → PNG at its own size;
//              fx-jpeg the same as JPEG; fx-png-800 / fx-jpeg-800 at 800²
//   fx-pdf     POST /api/rendering/hires      its print PDF (the first run is the template's first PDF:
//              its strips are drawn and stored; later runs copy them). WM_FX_TEMPLATE=<psd>: another template
//   poster-pdf POST /api/rendering/hires      large-poster-6000x4000.psd's print PDF (bench/large-templates.mjs:
//              9 layers, a clipping group, a gradient overlay over a 6,000 px band, a shadowed headline;
//              24 MP in 23 strips); the first run is its first PDF (deleted and uploaded again first)
//   pattern-jpeg POST /api/rendering/preview  pattern-heavy.psd (6,000 × 4,000; makePatternHeavy: a full-size
//              soft layer under a turned pattern overlay, an ellipse under a 37 % overlay with a 40 px
//              pattern stroke, a layer with an inside pattern stroke) → JPEG at its own size;
//              pattern-pdf its print PDF (its first: deleted and uploaded again first)
//   upload-jpeg  the upload, then the 5,000² JPEG preview, once each on the same runtime (one cgroup
//              under WM_LIMIT_MB): what the upload leaves behind counts against the preview
//              (the issue's outside check, "a 10,000² template's 5,000² preview under 128 MB")
// Each step runs WM_RUNS times (default 3; the first pays code and WASM start-up; an upload is
// deleted first so that each one compiles).
//
// Per step: the Worker's workerd process (wrangler runs two: a proxy on the port, and the runtime
// that runs the Worker and miniflare's R2/D1/DO simulators) gives VmRSS before, its peak (VmHWM,
// reset through /proc/<pid>/clear_refs before the step, so no sample can miss it), VmRSS after,
// and the peak of the proxy too. RSS overstates what a request needs (V8 keeps pages it freed),
// so the Worker's isolate is also asked through its inspector (Runtime.getHeapUsage every
// ~20 ms, answered between the Worker's awaits): JS heap used and V8's external memory
// (ArrayBuffer backing stores); a forced GC (HeapProfiler.collectGarbage) comes before each step.
// The isolate answers only between the Worker's awaits, so a long synchronous draw gives few
// samples (the row says how many): its figures are a lower bound of the isolate's own peak. A
// step whose inspector could not be reached says why in its row (and the forced GC is then lost).
//
// A real limit: WM_LIMIT_MB=128 moves the runtime process, once the server is up and before the
// first request, into a cgroup v1 memory group (memory.limit_in_bytes) under this process's own;
// pages it already had stay charged where they were, so the limit caps what the process grows by
// from then on (code and WASM instances included, the simulators' own work too). The kernel kills
// the process when it would pass it: the step then fails, and the row says so.
//
//   node bench/workerd-memory.bench.mjs [step...]     (or `npm run bench workerd-memory`)
//   WM_PORT=8779 WM_PERSIST=/tmp/wm-dev WM_RUNS=3 WM_LIMIT_MB=128 WM_TIMELINE=<file: RSS growth every 10 ms>
//   WM_NO_GC=1: no forced GC before each step (what is left of the last request stays until V8 collects)
// Under a limit each row also gives the group's memory.stat: its peak anonymous memory (`rss`) and
// page cache (`cache`, the R2 simulator's files among it), and both once the step is done.
// The last table is the peak memory per request (each step's first run): process growth, the
// group's anonymous and cache peaks, the isolate's heap used / external at its sampled peak, and
// whether it is within the 96 MB budget (by the anonymous peak under a limit, else the growth).
// The dev server restarts the Worker's runtime when source files change (wrangler watches them):
// a step whose runtime pid changed is marked "restarted"; measure from a quiet tree.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureLarge, ensureProbe, LARGE, PROBES } from './large-templates.mjs';
import { API_KEY, upload } from './lib.mjs';

const PORT = process.env.WM_PORT ?? '8779';
const INSPECTOR_PORT = process.env.WM_INSPECTOR_PORT ?? String(Number(PORT) + 1000);
const PERSIST = process.env.WM_PERSIST ?? path.join(os.tmpdir(), 'wm-dev');
const RUNS = Number(process.env.WM_RUNS ?? 3);
const LIMIT_MB = process.env.WM_LIMIT_MB ? Number(process.env.WM_LIMIT_MB) : undefined;
const BUDGET_MB = 96;
const mb = (bytes) => bytes / 1048576;

const safeRead = (file) => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
};
const statusKb = (pid, field) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(safeRead(`/proc/${pid}/status`))?.[1] ?? NaN);

/** The workerd processes under `serverPid`: `runtime` (runs the Worker; has the inspector) and `proxy` (listens on the port). */
function workerdOf(serverPid) {
  const parent = new Map();
  for (const p of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) parent.set(p, /PPid:\s+(\d+)/.exec(safeRead(`/proc/${p}/status`))?.[1]);
  const under = (p) => {
    for (let q = parent.get(p); q; q = parent.get(q)) if (q === String(serverPid)) return true;
    return false;
  };
  const found = {};
  for (const p of parent.keys()) {
    const args = safeRead(`/proc/${p}/cmdline`).split('\0');
    if (!/workerd$/.test(args[0]) || !under(p)) continue;
    const inspector = args.some((a) => a.startsWith('--inspector-addr='));
    if (args.some((a) => a === `--socket-addr=entry=127.0.0.1:${PORT}`)) found.proxy = { pid: p };
    else found.runtime = { pid: p, inspector };
  }
  return found;
}

/**
 * A CDP session on the Worker's isolate, through wrangler's inspector proxy (on INSPECTOR_PORT:
 * it follows the runtime when wrangler restarts it). Calls answer {} after 5 s without a reply.
 *
 * The proxy (wrangler 4's InspectorProxyWorker) refuses an upgrade that has a User-Agent and no
 * Origin: "400 Expected `Origin` header". Node 22's own WebSocket (undici) sends a User-Agent
 * and no Origin, so under `npm exec -- node` every connection failed as "non-101" (session 24);
 * the `ws` package, which Node 20 fell back to, sends neither and passed. Both now send an Origin
 * the proxy allows (127.0.0.1). A refused upgrade throws with the proxy's status and reason.
 */
async function inspectorOf() {
  const targets = await (await fetch(`http://127.0.0.1:${INSPECTOR_PORT}/json`, { signal: AbortSignal.timeout(5000) })).json();
  const target = targets[0];
  if (!target) throw new Error('no inspector target');
  const origin = 'http://127.0.0.1';
  const ws = await import('ws').then(
    ({ WebSocket }) => new WebSocket(target.webSocketDebuggerUrl, { origin }),
    () => new globalThis.WebSocket(target.webSocketDebuggerUrl, { headers: { origin } }),
  );
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = (e) => reject(new Error(e.message ?? 'websocket error'));
    // `ws` only: the refusal's status and body (undici's WebSocket says "non-101" alone).
    ws.on?.('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c) => (body += c)).on('end', () => reject(new Error(`HTTP ${res.statusCode} ${body.slice(0, 100)}`)));
    });
    setTimeout(() => reject(new Error('inspector did not open within 5 s')), 5000);
  });
  let id = 0;
  const pending = new Map();
  ws.onmessage = (e) => {
    const m = JSON.parse(typeof e.data === 'string' ? e.data : e.data.toString());
    pending.get(m.id)?.(m.result ?? {});
    pending.delete(m.id);
  };
  const call = (method, params = {}) =>
    new Promise((resolve) => {
      const n = ++id;
      pending.set(n, resolve);
      ws.send(JSON.stringify({ id: n, method, params }));
      setTimeout(() => pending.delete(n) && resolve({}), 5000);
    });
  // Closed once the proxy has seen it go: it takes one client at a time, and closes a second
  // one (1013) while the first is still there (a runtime restarted within a step reconnects).
  const close = () =>
    new Promise((resolve) => {
      if (ws.readyState === 3) return resolve();
      ws.onclose = () => resolve();
      ws.close();
      setTimeout(resolve, 2000);
    });
  return { call, close };
}

/** Runs `work` while watching the runtime and proxy processes and the isolate's heap. */
async function measure(server, work) {
  // A runtime the kernel killed in the last run is being started again by wrangler: wait for it.
  let procs = workerdOf(server.pid);
  for (let i = 0; !procs.runtime && i < 120; i++) {
    await new Promise((r) => setTimeout(r, 500));
    procs = workerdOf(server.pid);
  }
  const { runtime, proxy } = procs;
  if (!runtime) throw new Error('no workerd runtime process found under the dev server');
  if (runtime.pid !== server.inspectedPid) {
    await server.inspector?.close();
    server.inspectorError = runtime.inspector ? undefined : 'the runtime was started without --inspector-addr';
    server.inspector = runtime.inspector ? await inspectorOf().catch((e) => ((server.inspectorError = e.message), null)) : null;
    if (server.inspectorError) process.stderr.write(`no inspector: ${server.inspectorError}\n`);
    server.inspectedPid = runtime.pid;
  }
  const inspector = server.inspector;
  // A runtime wrangler restarted (after the kernel killed it) is no longer in the group: its rows
  // then measure an unlimited process, and say so.
  const outsideGroup = server.cgroup && !safeRead(path.join(server.cgroup, 'cgroup.procs')).split('\n').includes(String(runtime.pid));
  // WM_NO_GC=1: no forced collection first (as between two requests in production).
  if (!process.env.WM_NO_GC) await inspector?.call('HeapProfiler.collectGarbage');
  const heapBefore = (await inspector?.call('Runtime.getHeapUsage')) ?? {};
  for (const p of [runtime, proxy]) if (p) writeFileSync(`/proc/${p.pid}/clear_refs`, '5'); // VmHWM := VmRSS
  // The group's peak and failures for this step alone (writing 0 resets max_usage_in_bytes).
  const failsBefore = server.cgroup ? Number(safeRead(path.join(server.cgroup, 'memory.failcnt'))) : 0;
  if (server.cgroup) writeFileSync(path.join(server.cgroup, 'memory.max_usage_in_bytes'), '0');
  const before = statusKb(runtime.pid, 'VmRSS');
  const proxyBefore = proxy ? statusKb(proxy.pid, 'VmRSS') : NaN;
  const t0 = performance.now();
  let sampledPeak = before;
  // WM_TIMELINE=<file>: every sample (ms since the start, MB of growth), to see when a step grows.
  const timeline = [];
  const group = { anon: 0, cache: 0 };
  const rss = setInterval(() => {
    const now = statusKb(runtime.pid, 'VmRSS') || 0;
    sampledPeak = Math.max(sampledPeak, now);
    if (server.cgroup) {
      const stat = groupStat(server.cgroup);
      group.anon = Math.max(group.anon, stat.anon);
      group.cache = Math.max(group.cache, stat.cache);
    }
    if (process.env.WM_TIMELINE) timeline.push(`${(performance.now() - t0).toFixed(0)} ${((now - before) / 1024).toFixed(1)}`);
  }, 10);
  // The isolate's figures over heapBefore: each one's own maximum, and both at the sample where
  // their sum peaked (the request's sampled peak).
  const heap = { used: 0, external: 0, sum: 0, peakUsed: 0, peakExternal: 0, samples: 0 };
  let polling = !!inspector && heapBefore.usedSize !== undefined;
  const poll = (async () => {
    while (polling) {
      const u = await inspector.call('Runtime.getHeapUsage');
      if (u.usedSize !== undefined) {
        heap.samples++;
        heap.used = Math.max(heap.used, u.usedSize - heapBefore.usedSize);
        heap.external = Math.max(heap.external, u.backingStorageSize - heapBefore.backingStorageSize);
        const sum = u.usedSize + u.backingStorageSize - heapBefore.usedSize - heapBefore.backingStorageSize;
        if (heap.samples === 1 || sum > heap.sum) Object.assign(heap, { sum, peakUsed: u.usedSize - heapBefore.usedSize, peakExternal: u.backingStorageSize - heapBefore.backingStorageSize });
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  let result;
  let error;
  try {
    result = await work();
  } catch (e) {
    error = e instanceof Error ? e.message : String(e);
  }
  const ms = performance.now() - t0;
  clearInterval(rss);
  if (process.env.WM_TIMELINE) writeFileSync(process.env.WM_TIMELINE, `${timeline.join('\n')}\n`, { flag: 'a' });
  polling = false;
  await poll;
  const after = workerdOf(server.pid).runtime;
  const restarted = after?.pid !== runtime.pid;
  const hwm = restarted ? NaN : statusKb(runtime.pid, 'VmHWM');
  const row = {
    ms,
    before: before / 1024,
    peak: Math.max(hwm, sampledPeak) / 1024,
    after: restarted ? NaN : statusKb(runtime.pid, 'VmRSS') / 1024,
    proxyPeakDelta: proxy ? (statusKb(proxy.pid, 'VmHWM') - proxyBefore) / 1024 : NaN,
    heapUsed: mb(heap.used),
    heapExternal: mb(heap.external),
    heapSum: mb(heap.sum),
    heapSamples: heap.samples,
    heapPeakUsed: mb(heap.peakUsed),
    heapPeakExternal: mb(heap.peakExternal),
    // Why the isolate's figures are missing, when they are: said in the row, not left blank.
    ...(inspector ? (heap.samples ? {} : { noHeap: heapBefore.usedSize === undefined ? 'the isolate did not answer before the step' : 'no heap sample answered' }) : { noHeap: `no inspector: ${server.inspectorError ?? 'unknown'}` }),
    restarted,
    ...(outsideGroup ? { outsideGroup } : {}),
    ...(server.cgroup
      ? {
          groupAnon: group.anon,
          groupCache: group.cache,
          ...afterStat(groupStat(server.cgroup)),
          groupMax: mb(Number(safeRead(path.join(server.cgroup, 'memory.max_usage_in_bytes')))),
          groupFails: Number(safeRead(path.join(server.cgroup, 'memory.failcnt'))) - failsBefore,
        }
      : {}),
    ...(error ? { error } : {}),
    ...(result ?? {}),
  };
  row.delta = row.peak - row.before;
  return row;
}

/** A cgroup v1 memory group's anonymous memory and page cache now, in MB (memory.stat `rss`, `cache`). */
function groupStat(group) {
  const stat = safeRead(path.join(group, 'memory.stat'));
  const field = (name) => mb(Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(stat)?.[1] ?? NaN));
  return { anon: field('rss'), cache: field('cache') };
}
const afterStat = ({ anon, cache }) => ({ groupAnonAfter: anon, groupCacheAfter: cache });

/** Starts scripts/dev.mjs on PORT with PERSIST; resolves once the Worker answers. */
async function startServer(root) {
  const child = spawn(process.execPath, [path.join(root, 'scripts/dev.mjs'), '--persist-to', PERSIST, '--inspector-port', INSPECTOR_PORT], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, PORT, WRANGLER_SEND_METRICS: 'false' },
    detached: true,
  });
  const baseUrl = `http://127.0.0.1:${PORT}`;
  const deadline = Date.now() + 240_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`dev server exited (${child.exitCode})`);
    const up = await fetch(`${baseUrl}/.well-known/openid-configuration`, { signal: AbortSignal.timeout(2000) }).then(
      (r) => (void r.body?.cancel(), true),
      () => false,
    );
    if (up && workerdOf(child.pid).runtime) break;
    if (Date.now() > deadline) throw new Error('dev server did not start within 240 s');
    await new Promise((r) => setTimeout(r, 500));
  }
  const stop = async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    process.kill(-child.pid, 'SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
    // wrangler's children leave with it; the port must be free for the next server.
    for (let i = 0; i < 100 && Object.keys(workerdOf(child.pid)).length; i++) await new Promise((r) => setTimeout(r, 100));
  };
  return { pid: child.pid, baseUrl, stop };
}

/**
 * Puts the runtime process in a memory cgroup (v1) limited to `limitMb` of new pages; the group's
 * path, or null with the reason when the machine does not allow it.
 */
function limitRuntime(pid, limitMb, label) {
  const own = /^\d+:memory:(.*)$/m.exec(safeRead('/proc/self/cgroup'))?.[1];
  const base = '/sys/fs/cgroup/memory';
  if (own === undefined || !existsSync(base)) return { reason: 'no cgroup v1 memory hierarchy' };
  const group = path.join(base, own, `workerd-memory-${process.pid}-${label}`);
  try {
    mkdirSync(group);
    writeFileSync(path.join(group, 'memory.limit_in_bytes'), String(limitMb * 1048576));
    writeFileSync(path.join(group, 'cgroup.procs'), String(pid));
    return { group };
  } catch (e) {
    return { reason: e.message };
  }
}

async function post(baseUrl, route, body, timeoutMs) {
  const signal = timeoutMs ? AbortSignal.timeout(timeoutMs) : undefined;
  const res = await fetch(`${baseUrl}${route}?disableCache=true`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal });
  const json = await res.json().catch(() => null);
  if (!res.ok) throw new Error(`${route}: HTTP ${res.status} ${JSON.stringify(json).slice(0, 300)}`);
  const url = typeof json === 'string' ? json : json.results[0].url;
  const file = await fetch(url);
  if (!file.ok) throw new Error(`download: HTTP ${file.status}`);
  const coded = await file.arrayBuffer();
  // A short hash to compare outputs between runs and changes (a PDF's ID and date differ every time).
  const sha = Buffer.from(await crypto.subtle.digest('SHA-256', coded)).toString('hex').slice(0, 12);
  return { bytes: coded.byteLength, sha };
}

async function deleteTemplate(baseUrl, name) {
  const res = await fetch(`${baseUrl}/api/resources/templates?file=${encodeURIComponent(name)}`, { method: 'DELETE', headers: { 'X-DynamicImageApiKey': API_KEY } });
  await res.body?.cancel();
}

const FX_STEPS = ['fx-png', 'fx-jpeg', 'fx-png-800', 'fx-jpeg-800', 'fx-pdf'];
const PATTERN_STEPS = ['pattern-jpeg', 'pattern-pdf'];
const STEPS = ['upload', 'jpeg-5000', 'png-5000', 'pdf', 'personal', 'jpeg-8000', 'png-8000', 'bigtext', 'bigtext-whole', 'bigtext-small', 'photo-12mp', 'upload-jpeg', ...FX_STEPS, 'poster-pdf', ...PATTERN_STEPS];
/**
 * Probe steps (task probe27): `probe-<name>` for each of bench/large-templates.mjs's PROBES, and
 * `probe-large-<mockup|poster|photo>` for its LARGE templates. Each is named explicitly (none runs
 * by default). Per template, under WM_LIMIT_MB, each on a fresh runtime: its upload (deleted first),
 * a JPEG and a PNG preview at its own size and at 800², and its print PDF (the template's first);
 * WM_PROBE_SHARED=1: the renders one after another on one runtime (a killed one leaves the rest
 * to a fresh one). A refused upload (4xx) ends the template;
 * a killed upload is done again without the limit so that its renders are still measured.
 * WM_PROBE_REQS=upload,jpeg,png,jpeg-800,png-800,pdf picks requests; WM_PROBE_TIMEOUT_S (default
 * 300) aborts a request that hangs.
 */
const PROBE_REQUESTS = ['upload', 'jpeg', 'png', 'jpeg-800', 'png-800', 'pdf'];
const isProbe = (s) => s.startsWith('probe-');
const probeFile = (name) => {
  if (PROBES[name]) return ensureProbe(name);
  const large = name.startsWith('large-') && LARGE.find((t) => t.file.includes(name.slice('large-'.length)));
  if (large) return ensureLarge([name.slice('large-'.length)])[0];
  throw new Error(`no probe template "${name}"`);
};

/**
 * bench/out/fx-heavy.psd: a small canvas (1,189 × 863) under effects of Photoshop's largest size,
 * each reaching 250 px past its shape (issue 25 §1: session 21's print fuzz measured such a
 * template, g21052, at a 167 MB cold PDF and a 133 MB PNG preview in workerd): a shape with a
 * size-250 drop shadow, an outer bevel softened and an outside stroke (g21052's), one with a
 * size-250 outer glow, inner glow and satin, and three with size-250 shadows.
 */
async function makeFxHeavy(file) {
  if (existsSync(file)) return;
  const { writePsdBuffer } = await import('ag-psd');
  const W = 1189;
  const H = 863;
  const data = new Uint8ClampedArray(W * H * 4);
  for (let y = 0, i = 0; y < H; y++) {
    for (let x = 0; x < W; x++, i += 4) {
      data[i] = (x * 255) / W;
      data[i + 1] = (y * 255) / H;
      data[i + 2] = 128;
      data[i + 3] = 255;
    }
  }
  const px = (value) => ({ units: 'Pixels', value });
  const box = (l, t, r, b) => ({ paths: [{ open: false, operation: 'combine', fillRule: 'even-odd', knots: [[l, t], [r, t], [r, b], [l, b]].map(([x, y]) => ({ linked: true, points: [x, y, x, y, x, y] })) }] });
  const shape = (name, rect, color, effects) => ({ name, left: 0, top: 0, right: 0, bottom: 0, vectorFill: { type: 'color', color }, vectorMask: box(...rect), effects });
  const shadow = (size, distance, angle) => ({ enabled: true, present: true, blendMode: 'multiply', opacity: 0.6, color: { r: 20, g: 0, b: 60 }, size: px(size), distance: px(distance), angle, useGlobalLight: false, choke: px(19) });
  const image = { width: W, height: H, data };
  const psd = {
    width: W,
    height: H,
    imageData: image,
    children: [
      { name: 'Background', left: 0, top: 0, imageData: image },
      shape('Bevelled', [363, 340, 758, 853], { r: 111, g: 222, b: 190 }, {
        dropShadow: [shadow(250, 27, 230), shadow(12, 6, 106)],
        bevel: { enabled: true, present: true, size: px(12), style: 'outer bevel', technique: 'smooth', direction: 'down', angle: 236, altitude: 83, highlightBlendMode: 'screen', shadowBlendMode: 'multiply', highlightColor: { r: 255, g: 255, b: 255 }, shadowColor: { r: 173, g: 107, b: 40 }, highlightOpacity: 0.78, shadowOpacity: 0.52, soften: px(11), useGlobalLight: false },
        stroke: [{ enabled: true, present: true, position: 'outside', fillType: 'color', blendMode: 'normal', opacity: 0.88, size: px(12), color: { r: 136, g: 53, b: 218 } }],
      }),
      shape('Glowing', [80, 90, 1100, 300], { r: 200, g: 60, b: 40 }, {
        outerGlow: { enabled: true, present: true, blendMode: 'screen', opacity: 0.8, color: { r: 255, g: 255, b: 0 }, size: px(250), technique: 'softer', choke: px(10), range: 0.5, noise: 0 },
        innerGlow: { enabled: true, present: true, blendMode: 'multiply', opacity: 0.6, color: { r: 0, g: 80, b: 0 }, size: px(250), technique: 'precise', choke: px(0), range: 0.5, source: 'edge' },
        satin: { enabled: true, present: true, blendMode: 'multiply', opacity: 0.5, color: { r: 20, g: 20, b: 60 }, size: px(250), distance: px(250), angle: 19, invert: false, antialiased: true },
      }),
      ...[0, 1, 2].map((k) => shape(`Card ${k}`, [80 + 360 * k, 450, 380 + 360 * k, 800], { r: 60 + 60 * k, g: 120, b: 200 - 60 * k }, { dropShadow: [shadow(250, 20 + 20 * k, 120)] })),
    ],
  };
  writeFileSync(file, writePsdBuffer(psd, { generateThumbnail: false, compress: true }));
}

/**
 * bench/out/pattern-heavy.psd (issue 25 §1, session 25): 6,000 × 4,000 under pattern effects, drawn
 * deterministically: a full-size layer of soft alpha under a Pattern Overlay at 100 %, turned 30°,
 * phase (13, 7); a vector-masked ellipse (inside the canvas) under one at 37 % in Multiply with a
 * 40 px outside pattern stroke; a 2,520 × 2,000 layer under an unturned overlay with a 24 px inside
 * pattern stroke. The pattern is a 61 × 47 tile with transparency. Before session 25 its JPEG at its
 * size left 114 MB of pattern colours to the collector (Node 22).
 */
async function makePatternHeavy(file, W = 6000, H = 4000) {
  if (existsSync(file)) return;
  const { writePsdBuffer } = await import('ag-psd');
  const TW = 61;
  const TH = 47;
  const tile = new Uint8Array(TW * TH * 4);
  for (let y = 0; y < TH; y++) {
    for (let x = 0; x < TW; x++) {
      const i = (y * TW + x) * 4;
      tile[i] = (x * 251) / TW;
      tile[i + 1] = (y * 199) / TH;
      tile[i + 2] = ((x ^ y) * 37) & 255;
      tile[i + 3] = (x + y) % 9 === 0 ? 0 : 120 + (((x * 7 + y * 3) * 11) % 136);
    }
  }
  const pattern = { name: 'fxmem3-tile', id: 'fe3e3000-0000-4000-8000-00000000f003' };
  const ref = { name: pattern.name, id: pattern.id };
  const img = (w, h, f) => {
    const data = new Uint8ClampedArray(w * h * 4);
    for (let y = 0, i = 0; y < h; y++) for (let x = 0; x < w; x++, i += 4) f(x, y, data, i);
    return { width: w, height: h, data };
  };
  const bg = img(W, H, (x, y, d, i) => d.set([(x * 255) / W, (y * 255) / H, 150, 255], i));
  const soft = img(W, H, (x, y, d, i) => d.set([200, 80, 40, 255 * (0.55 + 0.45 * Math.sin(x / 310) * Math.cos(y / 170))], i));
  const lw = Math.round(W * 0.42);
  const lh = Math.round(H * 0.5);
  const third = img(lw, lh, (x, y, d, i) => d.set([30, 140, 90, x < 20 || y < 20 ? 128 : 255], i));
  const px = (value) => ({ units: 'Pixels', value });
  const overlay = (scale, angle, phase, opacity, blendMode) => ({ enabled: true, present: true, showInDialog: true, blendMode, opacity, pattern: ref, scale, align: true, phase, ...(angle ? { angle } : {}) });
  const stroke = (position, size, phase) => ({ enabled: true, present: true, position, fillType: 'pattern', blendMode: 'normal', opacity: 0.9, size: px(size), pattern: { ...ref, phase } });
  const [cx, cy, rx, ry, k] = [W * 0.55, H * 0.45, W * 0.38, H * 0.4, 0.55];
  const knot = (x, y, hx, hy) => ({ linked: true, points: [x - hx, y - hy, x, y, x + hx, y + hy] });
  const [tx, ty] = [Math.round(W * 0.05), Math.round(H * 0.45)];
  const psd = {
    width: W,
    height: H,
    imageData: bg,
    patterns: [{ ...pattern, x: 0, y: 0, bounds: { x: 0, y: 0, w: TW, h: TH }, data: tile }],
    children: [
      { name: 'Background', left: 0, top: 0, imageData: bg },
      { name: 'Soft full', left: 0, top: 0, imageData: soft, referencePoint: { x: 0, y: 0 }, effects: { patternOverlay: overlay(1, 30, { x: 13, y: 7 }, 0.85, 'normal') } },
      {
        name: 'Ellipse',
        left: 0,
        top: 0,
        right: 0,
        bottom: 0,
        vectorFill: { type: 'color', color: { r: 240, g: 220, b: 60 } },
        vectorMask: { paths: [{ open: false, operation: 'combine', fillRule: 'non-zero', knots: [knot(cx, cy - ry, rx * k, 0), knot(cx + rx, cy, 0, ry * k), knot(cx, cy + ry, -rx * k, 0), knot(cx - rx, cy, 0, -ry * k)] }] },
        referencePoint: { x: cx - rx, y: cy - ry },
        effects: { patternOverlay: overlay(0.37, 0, { x: 5, y: 3 }, 0.7, 'multiply'), stroke: [stroke('outside', 40, { x: 2, y: 9 })] },
      },
      { name: 'Third', left: tx, top: ty, imageData: third, referencePoint: { x: tx, y: ty }, effects: { patternOverlay: overlay(1, 0, { x: 3, y: 1 }, 1, 'normal'), stroke: [stroke('inside', 24, { x: 0, y: 0 })] } },
    ],
  };
  writeFileSync(file, writePsdBuffer(psd, { generateThumbnail: false, compress: true }));
}

/**
 * Runs `fn(server)` on a fresh dev server (its runtime in a limited cgroup when WM_LIMIT_MB is set
 * and `limited`: a step's setup, such as the upload the renders need, runs without the limit).
 */
async function withServer(root, label, fn, limited = true) {
  const server = await startServer(root);
  const stopOnSignal = () => (server.stop(), process.exit(130));
  process.once('SIGINT', stopOnSignal).once('SIGTERM', stopOnSignal);
  let cgroup;
  try {
    if (LIMIT_MB && limited) {
      cgroup = limitRuntime(workerdOf(server.pid).runtime.pid, LIMIT_MB, label);
      server.cgroup = cgroup.group;
      process.stderr.write(cgroup.group ? `${label}: runtime limited to ${LIMIT_MB} MB of growth\n` : `${label}: no limit (${cgroup.reason})\n`);
    }
    return await fn(server);
  } finally {
    process.off('SIGINT', stopOnSignal).off('SIGTERM', stopOnSignal);
    await server.inspector?.close();
    if (cgroup?.group) {
      const failcnt = Number(safeRead(path.join(cgroup.group, 'memory.failcnt')));
      const maxUsage = mb(Number(safeRead(path.join(cgroup.group, 'memory.max_usage_in_bytes'))));
      server.limits.push({ label, maxUsage, failcnt });
      process.stderr.write(`${label}: cgroup max usage ${maxUsage.toFixed(1)} MB of ${LIMIT_MB}, failcnt ${failcnt}\n`);
    }
    await server.stop();
    // The group can go once its process has left (the kernel refuses while one is leaving).
    for (let i = 0; cgroup?.group && i < 50; i++) {
      try {
        rmdirSync(cgroup.group);
        break;
      } catch {
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  }
}

/**
 * Every step's runs; `only` picks steps by name. The upload runs on one server (once when not
 * picked: the others need the template); each render step then gets a fresh server, so that its
 * first run starts from a runtime that has drawn nothing (the upload's pages do not hide its peak).
 */
export async function measureWorkerd(root, only = []) {
  const out = path.join(root, 'bench/out');
  if (!existsSync(path.join(out, 'big-10000.psd'))) execFileSync(process.execPath, [path.join(root, 'bench/memory.bench.mjs'), 'none'], { stdio: 'inherit' });
  if (!existsSync(path.join(out, 'bench-8000.psd')) || !existsSync(path.join(out, 'bench-photo-12mp.jpg'))) {
    execFileSync(process.execPath, [path.join(root, 'scripts/make-bench-templates.mjs')], { stdio: 'inherit' });
  }
  const steps = STEPS.filter((s) => only.length === 0 || only.includes(s));
  const probes = only.filter(isProbe).map((s) => s.slice('probe-'.length));
  const load = [os.loadavg()[0]];
  const rows = [];
  const limits = [];
  const big = path.join(out, 'big-10000.psd');
  const template = 'wm/big-10000.psd';
  const run = async (server, step, work, runs = RUNS) => {
    for (let i = 0; i < runs; i++) {
      const row = { step, run: i + 1, ...(await measure(server, () => work(server.baseUrl, i))) };
      rows.push(row);
      process.stderr.write(`${describe(row)}\n`);
    }
  };
  const fresh = (label, fn, limited = true) => withServer(root, label, (server) => ((server.limits = limits), fn(server)), limited);
  const uploadBig = async (baseUrl) => {
    // Measured: deleted first, so that each upload compiles (inside the step: a delete is cheap);
    // only the others' setup: kept, so that it compiles only when the persist dir lacks it, except
    // before a measured PDF: deleting the compiled template deletes the PDF strips an earlier run
    // stored, which the first PDF would otherwise copy instead of drawing.
    if (steps.some((s) => s === 'upload' || s === 'pdf' || s === 'upload-jpeg')) await deleteTemplate(baseUrl, template);
    await upload(baseUrl, 'templates', big, 'wm');
    return {};
  };
  // The others' template: uploaded (and the upload measured) on a server of its own.
  if (steps.some((s) => ['upload', 'jpeg-5000', 'png-5000', 'pdf'].includes(s))) await fresh('upload', (server) => run(server, 'upload', uploadBig, steps.includes('upload') ? RUNS : 1), steps.includes('upload'));
  const renders = {
    'jpeg-5000': (baseUrl) => post(baseUrl, '/api/rendering/preview', { template, format: 'jpg', size: { width: 5000, height: 5000 } }),
    'png-5000': (baseUrl) => post(baseUrl, '/api/rendering/preview', { template, format: 'png', size: { width: 5000, height: 5000 } }),
    pdf: (baseUrl) => post(baseUrl, '/api/rendering/hires', { template }),
  };
  for (const [step, work] of Object.entries(renders)) if (steps.includes(step)) await fresh(step, (server) => run(server, step, work));
  if (steps.includes('upload-jpeg')) {
    // One runtime, one group: the upload (compiled anew), then the preview, WM_RUNS times in turn.
    await fresh('upload-jpeg', async (server) => {
      for (let i = 0; i < RUNS; i++) {
        await run(server, 'upload-jpeg (its upload)', uploadBig, 1);
        const upload = rows.at(-1);
        // A killed upload's runtime is restarted outside the group: the preview would prove nothing.
        if (upload.error || upload.restarted) rows.push({ ...upload, step: 'upload-jpeg', error: `the upload before it failed: ${upload.error ?? 'runtime restarted'}` });
        else await run(server, 'upload-jpeg', renders['jpeg-5000'], 1);
      }
    });
  }
  let t8000;
  let photo;
  if (steps.some((s) => s === 'personal' || s.startsWith('bigtext') || s === 'jpeg-8000' || s === 'png-8000')) {
    await fresh('upload-8000', async (server) => {
      await upload(server.baseUrl, 'fonts', path.join(root, 'assets/fonts/LiberationSans-Regular.ttf'), '');
      photo = await upload(server.baseUrl, 'images', path.join(out, 'bench-photo.jpg'), 'wm');
      await run(server, 'upload-8000', async (baseUrl) => {
        await deleteTemplate(baseUrl, 'wm/bench-8000.psd'); // compiled anew, as the big one
        t8000 = await upload(baseUrl, 'templates', path.join(out, 'bench-8000.psd'), 'wm');
        return {};
      }, 1);
    }, false);
  }
  const tag = Date.now().toString(36);
  if (steps.includes('personal')) {
    await fresh('personal', (server) =>
      run(server, 'personal', (baseUrl, i) =>
        post(baseUrl, '/api/rendering/preview', {
          template: t8000,
          format: 'jpg',
          size: { width: 800, height: 800 },
          data: { Title: { type: 'text', text: `Jonathan Livingstone-Smith ${tag}-${i}` }, Photo: { type: 'image', image: photo, resizeMode: 'fill' } },
        }),
      ),
    );
  }
  // bench-8000 → 5,000² (scale 0.625: its layers are read at level 0 and resampled, where the
  // 10,000² template's 5,000² is read at level 1's own grid), as the API asks (disableCache).
  for (const format of ['jpg', 'png']) {
    const step = format === 'jpg' ? 'jpeg-8000' : 'png-8000';
    if (steps.includes(step)) await fresh(step, (server) => run(server, step, (baseUrl) => post(baseUrl, '/api/rendering/preview', { template: t8000, format, size: { width: 5000, height: 5000 } })));
  }
  // A text larger than one resvg render may draw (~5.6 MP): bench-8000 → 4000² JPEG (its canvas
  // 16 MP, drawn in strips: a 55.6 MB plan, which leaves a text 40.4 MB, 9.0 MP in bands) with the
  // Title at 2,300 px, two lines: 8.6 MP on the canvas, drawn in bands. bigtext-whole: the same at
  // 1,500 px (5.2 MP, one render, as before bands).
  // bigtext-small: the same preview with a new Title at its own size (320 px: 0.3 MP), for the frame alone.
  for (const [step, size] of [['bigtext', Number(process.env.WM_BIGTEXT_SIZE ?? 2300)], ['bigtext-whole', 1500], ['bigtext-small', undefined]]) {
    if (!steps.includes(step)) continue;
    await fresh(step, (server) =>
      run(server, step, (baseUrl, i) =>
        post(baseUrl, '/api/rendering/preview', {
          template: t8000,
          format: 'jpg',
          size: { width: 4000, height: 4000 },
          data: { Title: { type: 'text', text: `BIG ${i}\nTITLE`, size } },
        }),
      ),
    );
  }
  if (steps.includes('photo-12mp')) {
    // Setup without the limit: the template and the photo stored (compiled when the persist dir lacks it).
    let t4000;
    let photo12;
    await fresh('upload-4000', async (server) => {
      t4000 = await upload(server.baseUrl, 'templates', path.join(out, 'bench-4000.psd'), 'wm');
      photo12 = await upload(server.baseUrl, 'images', path.join(out, 'bench-photo-12mp.jpg'), 'wm');
    }, false);
    await fresh('photo-12mp', (server) =>
      run(server, 'photo-12mp', (baseUrl) =>
        post(baseUrl, '/api/rendering/preview', { template: t4000, format: 'jpg', size: { width: 800, height: 800 }, data: { Photo: { type: 'image', image: photo12, resizeMode: 'fill' } } }),
      ),
    );
  }
  if (steps.some((s) => FX_STEPS.includes(s))) {
    const file = process.env.WM_FX_TEMPLATE ?? path.join(out, 'fx-heavy.psd');
    await makeFxHeavy(file);
    // Setup without the limit: deleted first, so that no strips an earlier PDF stored are left
    // (the first measured PDF draws them); then each step on a fresh runtime.
    let fx;
    await fresh('upload-fx', async (server) => {
      await deleteTemplate(server.baseUrl, `wm/${path.basename(file)}`);
      fx = await upload(server.baseUrl, 'templates', file, 'wm');
    }, false);
    const { width, height } = { width: readFileSync(file).readUInt32BE(18), height: readFileSync(file).readUInt32BE(14) };
    const fxRenders = {
      'fx-png': () => ['/api/rendering/preview', { template: fx, format: 'png', size: { width, height } }],
      'fx-jpeg': () => ['/api/rendering/preview', { template: fx, format: 'jpg', size: { width, height } }],
      'fx-png-800': () => ['/api/rendering/preview', { template: fx, format: 'png', size: { width: 800, height: 800 } }],
      'fx-jpeg-800': () => ['/api/rendering/preview', { template: fx, format: 'jpg', size: { width: 800, height: 800 } }],
      'fx-pdf': () => ['/api/rendering/hires', { template: fx }],
    };
    for (const step of FX_STEPS) if (steps.includes(step)) await fresh(step, (server) => run(server, step, (baseUrl) => post(baseUrl, ...fxRenders[step]())));
  }
  if (steps.some((s) => PATTERN_STEPS.includes(s))) {
    // Setup without the limit, deleted first (no strips of an earlier PDF left); each step on a fresh runtime.
    const file = path.join(out, 'pattern-heavy.psd');
    await makePatternHeavy(file);
    let template;
    await fresh('upload-pattern', async (server) => {
      await deleteTemplate(server.baseUrl, `wm/${path.basename(file)}`);
      template = await upload(server.baseUrl, 'templates', file, 'wm');
    }, false);
    const renders = {
      'pattern-jpeg': () => ['/api/rendering/preview', { template, format: 'jpg', size: { width: 6000, height: 4000 } }],
      'pattern-pdf': () => ['/api/rendering/hires', { template }],
    };
    for (const step of PATTERN_STEPS) if (steps.includes(step)) await fresh(step, (server) => run(server, step, (baseUrl) => post(baseUrl, ...renders[step]())));
  }
  if (steps.includes('poster-pdf')) {
    // A print shop's poster (issue 25 §1: its first PDF peaked at 163.6–184.9 MB in session 22).
    // Setup without the limit, deleted first so that no strips an earlier PDF stored are left.
    const [file] = ensureLarge(['poster']);
    let poster;
    await fresh('upload-poster', async (server) => {
      await deleteTemplate(server.baseUrl, `wm/${path.basename(file)}`);
      poster = await upload(server.baseUrl, 'templates', file, 'wm');
    }, false);
    await fresh('poster-pdf', (server) => run(server, 'poster-pdf', (baseUrl) => post(baseUrl, '/api/rendering/hires', { template: poster })));
  }
  for (const name of probes) {
    const file = probeFile(name);
    const bytes = readFileSync(file);
    const own = { width: bytes.readUInt32BE(18), height: bytes.readUInt32BE(14) };
    const wanted = process.env.WM_PROBE_REQS?.split(',') ?? PROBE_REQUESTS;
    const timeoutMs = Number(process.env.WM_PROBE_TIMEOUT_S ?? 300) * 1000;
    const stored = `wm/${path.basename(file)}`;
    let template;
    const storeIt = async (baseUrl) => {
      await deleteTemplate(baseUrl, stored); // compiled anew, with no strips of an earlier PDF
      template = await upload(baseUrl, 'templates', file, 'wm');
      return {};
    };
    if (wanted.includes('upload')) {
      await fresh(`probe-${name}-upload`, (server) => run(server, `probe-${name} upload`, storeIt, 1));
      const row = rows.at(-1);
      if (/HTTP 4\d\d/.test(row.error ?? '')) continue; // refused: nothing to render
      if (row.error || row.restarted) await fresh(`probe-${name}-setup`, (server) => storeIt(server.baseUrl), false);
    } else await fresh(`probe-${name}-setup`, (server) => storeIt(server.baseUrl), false);
    const renders = {
      jpeg: ['/api/rendering/preview', { format: 'jpg', size: own }],
      png: ['/api/rendering/preview', { format: 'png', size: own }],
      'jpeg-800': ['/api/rendering/preview', { format: 'jpg', size: { width: 800, height: 800 } }],
      'png-800': ['/api/rendering/preview', { format: 'png', size: { width: 800, height: 800 } }],
      pdf: ['/api/rendering/hires', {}],
    };
    const left = wanted.filter((r) => renders[r]);
    while (left.length) {
      await fresh(`probe-${name}-${left[0]}`, async (server) => {
        while (left.length) {
          const req = left.shift();
          const [route, body] = renders[req];
          await run(server, `probe-${name} ${req}`, (baseUrl) => post(baseUrl, route, { template, ...body }, timeoutMs), 1);
          const row = rows.at(-1);
          // Each request on a fresh runtime (its first, as the other steps measure), unless
          // WM_PROBE_SHARED=1; a killed one leaves the rest to a fresh runtime either way.
          if (!process.env.WM_PROBE_SHARED || row.restarted || row.outsideGroup) break;
        }
      });
    }
  }
  load.push(os.loadavg()[0]);
  return { rows, load, limits };
}

const f = (n) => (Number.isFinite(n) ? n.toFixed(1) : '–');
/** The isolate's heap used / external at its sampled peak, or why there is none. */
const isolateCell = (r) => (r.noHeap ? r.noHeap : `${f(r.heapPeakUsed)} / ${f(r.heapPeakExternal)} MB (${r.heapSamples} samples)`);
function describe(r) {
  return (
    `${r.step} #${r.run}: RSS ${f(r.before)} → peak ${f(r.peak)} (+${f(r.delta)}) → ${f(r.after)} MB; proxy +${f(r.proxyPeakDelta)}; ` +
    (r.noHeap
      ? `isolate: ${r.noHeap}`
      : `isolate heap / external at the peak +${f(r.heapPeakUsed)} / +${f(r.heapPeakExternal)} MB (maxima +${f(r.heapUsed)} / +${f(r.heapExternal)}, sum +${f(r.heapSum)}; ${r.heapSamples} samples)`) +
    `; ${r.ms.toFixed(0)} ms` +
    (r.bytes ? `; ${r.bytes} bytes (sha-256 ${r.sha}…)` : '') +
    (r.groupAnon !== undefined
      ? `; group max ${f(r.groupMax)} MB, failcnt +${r.groupFails}, anon ${f(r.groupAnon)} (after ${f(r.groupAnonAfter)}), cache ${f(r.groupCache)} (after ${f(r.groupCacheAfter)}) MB`
      : '') +
    (r.restarted ? ' RESTARTED' : '') +
    (r.outsideGroup ? ' (a restarted runtime, outside the limited group: unlimited)' : '') +
    (r.error ? ` FAILED: ${r.error}` : '')
  );
}

export default async function workerdMemoryBench({ root }) {
  const { rows, load, limits } = await measureWorkerd(root);
  const out = [];
  for (const step of new Set(rows.map((r) => r.step))) {
    const runs = rows.filter((r) => r.step === step);
    const failed = runs.find((r) => r.error);
    const bench = `workerd ${step}`;
    if (failed) out.push({ bench, metric: 'failed', value: failed.error.slice(0, 80), unit: '' });
    const later = runs.length > 1 ? runs.slice(1) : runs;
    out.push({ bench, metric: 'RSS peak − before, first run', value: runs[0].delta, unit: 'MB', target: `≤ ${BUDGET_MB}` });
    out.push({ bench, metric: 'RSS peak − before, later runs (max)', value: Math.max(...later.map((r) => r.delta)), unit: 'MB', target: `≤ ${BUDGET_MB}` });
    if (runs[0].groupAnon !== undefined) out.push({ bench, metric: 'cgroup anonymous peak, first run', value: runs[0].groupAnon, unit: 'MB', target: `≤ ${BUDGET_MB}` });
    const sampled = runs.filter((r) => !r.noHeap);
    if (sampled.length) out.push({ bench, metric: 'isolate heap + external at its sampled peak (max)', value: Math.max(...sampled.map((r) => r.heapSum)), unit: 'MB', target: `≤ ${BUDGET_MB}` });
    else out.push({ bench, metric: 'isolate heap + external', value: runs[0].noHeap, unit: '' });
  }
  out.push({ bench: 'workerd', metric: 'load (1 min) before / after', value: load.map((l) => l.toFixed(1)).join(' / '), unit: '' });
  for (const l of limits) out.push({ bench: `workerd ${l.label}`, metric: `cgroup max usage (limit ${LIMIT_MB} MB; failcnt ${l.failcnt})`, value: l.maxUsage, unit: 'MB' });
  return out;
}

if (process.argv[1] === import.meta.filename) {
  const root = path.resolve(import.meta.dirname, '..');
  const { rows, load, limits } = await measureWorkerd(root, process.argv.slice(2));
  console.log('| step | run | RSS before | peak | after | peak − before | group anon / cache peak | isolate heap / external at its sampled peak | ms |');
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    const group = r.groupAnon !== undefined ? `${f(r.groupAnon)} / ${f(r.groupCache)}` : '–';
    console.log(`| ${r.step} | ${r.run} | ${f(r.before)} | ${f(r.peak)} | ${f(r.after)} | **${f(r.delta)}** | ${group} | ${isolateCell(r)} | ${r.ms.toFixed(0)}${r.error ? ` FAILED ${r.error.slice(0, 60)}` : ''}${r.restarted ? ' restarted' : ''}${r.outsideGroup ? ' (restarted runtime, no limit)' : ''} |`);
  }
  for (const l of limits) console.log(`cgroup (${l.label}): max usage ${l.maxUsage.toFixed(1)} MB of ${LIMIT_MB} MB growth, failcnt ${l.failcnt}`);
  // Peak memory per request (the issue's rows): each measured step's first run on a fresh runtime.
  // Within the budget: the group's anonymous peak under a limit (what the kernel counts against it;
  // page cache it reclaims first), the process growth otherwise.
  console.log(
    `\n| request (first run) | process growth | group anon / cache peak | isolate heap / external at its sampled peak | ≤ ${BUDGET_MB} MB (${LIMIT_MB ? 'anon peak' : 'growth'}) | ${LIMIT_MB ? `under a ${LIMIT_MB} MB limit` : 'no limit set (WM_LIMIT_MB)'} |`,
  );
  console.log('|---|---|---|---|---|---|');
  const asked = process.argv.slice(2);
  // Setup steps (an upload the renders need, run without the limit) are left out.
  for (const step of new Set(rows.map((r) => r.step).filter((s) => (STEPS.includes(s) && (asked.length === 0 || asked.includes(s))) || isProbe(s)))) {
    const first = rows.find((r) => r.step === step);
    // A probe's runtime serves several requests under one group: each row's own figures.
    const limit = limits.find((l) => l.label === step) ?? (isProbe(step) && first.groupMax !== undefined ? { failcnt: first.groupFails, maxUsage: first.groupMax } : undefined);
    // A request answered with an error status while its runtime lived was not killed: say what it answered.
    const answered = first.error && !first.restarted && /HTTP \d{3}/.exec(first.error)?.[0];
    // failcnt counts the times the group reached its limit; the kernel then reclaims page cache
    // (the R2 simulator's files in the persist dir are charged to the group) before it kills
    // anything. Killed: the request failed or the runtime restarted.
    // The first run's own failcnt and group max (the group's totals count the later runs too).
    const verdict = answered
      ? `answered ${answered}: ${first.error.slice(0, 140)}`
      : !limit
      ? '–'
      : first.error || first.restarted
        ? `killed (failcnt ${first.groupFails ?? limit.failcnt})`
        : (first.groupFails ?? limit.failcnt) > 0
          ? `passes at the limit (failcnt ${first.groupFails ?? limit.failcnt}: page cache reclaimed)`
          : `passes (max usage ${(first.groupMax ?? limit.maxUsage).toFixed(1)} MB)`;
    const figure = first.groupAnon ?? first.delta;
    const within = first.error ? 'failed' : figure <= BUDGET_MB ? 'yes' : 'no';
    const group = first.groupAnon !== undefined ? `${f(first.groupAnon)} / ${f(first.groupCache)} MB` : '–';
    console.log(`| ${step} | ${f(first.delta)} MB | ${group} | ${isolateCell(first)} | ${within} | ${verdict} |`);
  }
  console.log(`load ${load.map((l) => l.toFixed(1)).join(' → ')}; ${os.cpus()[0]?.model} × ${os.cpus().length}; ${new Date().toISOString()}`);
}
