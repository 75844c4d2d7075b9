// Rendering benchmark: uploads the 4000² and 8000² bench templates (scripts/make-bench-templates.mjs)
// through the rendering API, then times personalised 800×800 JPEG previews (text + image):
// the first render of a freshly uploaded template, then warm p50/p95. Peak memory is sampled
// from the workerd process (/proc/<pid>/status VmRSS every 10 ms; delta over the idle RSS
// before each phase). Where psd-tools and ImageMagick are installed, times them on the same
// PSD → 800×800 JPEG job. Also: JPEG encode time at q85 for 800×800, our encoder vs mozjpeg.
// Then the storefront's own case on a small (800²) template: a one-line text change per request,
// by POST and by signed GET URL (cold: rendered; warm: the Cache API hit a second viewer gets;
// 304 on If-None-Match). BENCH_RENDER_PARTS=templates,signed picks the parts (default both).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { API_KEY, serverTiming, upload } from './lib.mjs';

const WARMUP = 3;
const RUNS = Number(process.env.BENCH_RUNS ?? 30);
// Scratch output outside the project: files written under it make `wrangler dev` restart.
const scratch = mkdtempSync(path.join(tmpdir(), 'render-bench-'));

export default async function renderBench(ctx) {
  const parts = (process.env.BENCH_RENDER_PARTS ?? 'templates,signed').split(',');
  const rows = [];
  if (parts.includes('templates')) rows.push(...(await templateRows(ctx)));
  if (parts.includes('signed')) rows.push(...(await oneLineRows(ctx)));
  return rows;
}

/**
 * A one-line text change on the 800² bench template (new text on every request, no photo):
 * POST (result URL; the result is stored after the answer, served from memory until it lands)
 * and the signed GET URL (the image itself; copies kept after the answer), cold and warm, with
 * the in-Worker phases. First the floor: a trivial route (GET /api/Info) through the same server.
 */
async function oneLineRows({ baseUrl, root }) {
  const out = path.join(root, 'bench/out');
  const rows = [];
  execFileSync(process.execPath, [path.join(root, 'scripts/make-bench-templates.mjs'), '800'], { stdio: 'inherit' });
  await upload(baseUrl, 'fonts', path.join(root, 'assets/fonts/LiberationSans-Regular.ttf'), '');
  const template = await upload(baseUrl, 'templates', path.join(out, 'bench-800.psd'));
  const tag = Date.now().toString(36); // new texts each run: nothing comes from an earlier run's caches
  const body = (i) => ({ template, format: 'jpg', size: { width: 800, height: 800 }, data: { Title: { type: 'text', text: `Hello ${tag} ${i}` } } });
  const timed = async (fn) => {
    const t = performance.now();
    const res = await fn();
    if (!res.ok && res.status !== 304) throw new Error(`HTTP ${res.status} ${(await res.text()).slice(0, 200)}`);
    await res.arrayBuffer();
    return { http: performance.now() - t, worker: serverTiming(res.headers.get('server-timing') ?? ''), res };
  };
  const report = (bench, runs, target) => {
    const of = (phase) => runs.map((r) => r.worker[phase] ?? 0);
    rows.push({ bench, metric: `HTTP p50 / p95 (n=${runs.length})`, value: `${percentile(runs.map((r) => r.http), 0.5).toFixed(1)} / ${percentile(runs.map((r) => r.http), 0.95).toFixed(1)}`, unit: 'ms', target: target?.http ?? '' });
    rows.push({ bench, metric: `in-Worker p50 / p95`, value: `${percentile(of('total'), 0.5)} / ${percentile(of('total'), 0.95)}`, unit: 'ms', target: target?.worker ?? '' });
    const phases = [...new Set(runs.flatMap((r) => Object.keys(r.worker)))].filter((p) => p !== 'total');
    if (phases.length) rows.push({ bench, metric: 'in-Worker phases p50', value: phases.map((p) => `${p} ${percentile(of(p), 0.5)}`).join(', '), unit: 'ms' });
  };
  const floor = [];
  for (let i = 0; i < RUNS + WARMUP; i++) {
    const r = await timed(() => fetch(`${baseUrl}/api/Info`));
    if (i >= WARMUP) floor.push(r);
  }
  rows.push({ bench: 'floor: GET /api/Info (a trivial route)', metric: `HTTP p50 / p95 (n=${RUNS})`, value: `${percentile(floor.map((r) => r.http), 0.5).toFixed(1)} / ${percentile(floor.map((r) => r.http), 0.95).toFixed(1)}`, unit: 'ms' });
  const post = (i) => timed(() => fetch(`${baseUrl}/api/rendering/preview`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body(i)) }));
  for (let i = 0; i < WARMUP; i++) await post(-1 - i);
  const posts = [];
  for (let i = 0; i < RUNS; i++) posts.push(await post(i));
  report('800² one-line change, POST', posts, { http: '≤ 15', worker: '≤ 8' });

  // Signed URLs, built by the back end (the helper endpoint; not timed).
  const urls = [];
  for (let i = 0; i < RUNS + WARMUP; i++) {
    const res = await fetch(`${baseUrl}/api/rendering/preview/url`, { method: 'POST', headers: { 'content-type': 'application/json', 'X-DynamicImageApiKey': API_KEY }, body: JSON.stringify(body(1000 + i)) });
    if (!res.ok) throw new Error(`preview/url: HTTP ${res.status} ${(await res.text()).slice(0, 200)}`);
    urls.push((await res.json()).url.replace(/^https?:\/\/[^/]+/, baseUrl));
  }
  for (const url of urls.slice(0, WARMUP)) await timed(() => fetch(url));
  const cold = [];
  for (const url of urls.slice(WARMUP)) cold.push(await timed(() => fetch(url)));
  report('800² one-line change, signed GET, cold (render)', cold, { http: '≤ 15', worker: '≤ 8' });
  await new Promise((r) => setTimeout(r, 500)); // the copies are written after the answers
  const warm = [];
  for (const url of urls.slice(WARMUP)) warm.push(await timed(() => fetch(url)));
  report('800² signed GET, warm (second viewer)', warm);
  rows.push({ bench: '800² signed GET, warm (second viewer)', metric: 'answered from', value: [...new Set(warm.map((r) => /cache;desc="([^"]+)"/.exec(r.res.headers.get('server-timing') ?? '')?.[1]))].join(', '), unit: '' });
  const revalidated = [];
  for (const [i, url] of urls.slice(WARMUP).entries()) revalidated.push(await timed(() => fetch(url, { headers: { 'if-none-match': warm[i].res.headers.get('etag') } })));
  report('800² signed GET, If-None-Match → 304', revalidated);
  const p50 = (runs) => percentile(runs.map((r) => r.http), 0.5);
  rows.push(...referenceRows('800² one-line change vs reference tools', path.join(out, 'bench-800.psd'), { 'our POST HTTP p50': p50(posts), 'our signed GET cold HTTP p50': p50(cold) }));
  return rows;
}

async function templateRows({ baseUrl, root }) {
  const out = path.join(root, 'bench/out');
  const rows = [];
  const sizes = (process.env.BENCH_TEMPLATES ?? '4000,8000').split(',').map(Number);
  execFileSync(process.execPath, [path.join(root, 'scripts/make-bench-templates.mjs'), ...sizes.map(String)], { stdio: 'inherit' });
  rows.push(...(await jpegEncodeRows(root)));
  rows.push(...(await jpegDecodeRows(root)));

  // The text layer's ArialMT is drawn with its metric-compatible substitute from the font store.
  await upload(baseUrl, 'fonts', path.join(root, 'assets/fonts/LiberationSans-Regular.ttf'), '');
  const photoName = await upload(baseUrl, 'images', path.join(out, 'bench-photo.jpg'));
  for (const S of sizes) {
    const bench = `render ${S}²`;
    const file = path.join(out, `bench-${S}.psd`);
    const memory = new MemorySampler();
    try {
      const t0 = performance.now();
      const template = await upload(baseUrl, 'templates', file);
      rows.push({ bench, metric: 'upload', value: performance.now() - t0, unit: 'ms' });
      let n = 0;
      const inWorker = [];
      const render = async () => {
        const t = performance.now();
        inWorker.push(await preview(baseUrl, template, photoName, n++));
        return performance.now() - t;
      };
      rows.push({ bench, metric: 'first render (new template)', value: await render(), unit: 'ms' });
      for (let i = 0; i < WARMUP; i++) await render();
      memory.mark();
      inWorker.length = 0;
      const times = [];
      for (let i = 0; i < RUNS; i++) times.push(await render());
      const p50 = percentile(times, 0.5);
      rows.push({ bench, metric: `HTTP p50 warm (n=${RUNS})`, value: p50, unit: 'ms' });
      rows.push({ bench, metric: `HTTP p95 warm (n=${RUNS})`, value: percentile(times, 0.95), unit: 'ms' });
      // The target is inside workerd: the Worker's own Server-Timing total, and its phases.
      const phases = [...new Set(inWorker.flatMap((t) => Object.keys(t)))];
      const of = (phase) => inWorker.map((t) => t[phase] ?? 0);
      rows.push({ bench, metric: `in-Worker p50 warm (n=${RUNS})`, value: percentile(of('total'), 0.5), unit: 'ms', target: '≤ 40' });
      rows.push({ bench, metric: `in-Worker p95 warm (n=${RUNS})`, value: percentile(of('total'), 0.95), unit: 'ms', target: '≤ 120' });
      for (const phase of phases.filter((p) => p !== 'total')) {
        rows.push({ bench, metric: `in-Worker ${phase} p50 / p95`, value: `${percentile(of(phase), 0.5)} / ${percentile(of(phase), 0.95)}`, unit: 'ms' });
      }
      const mem = memory.stop();
      if (mem) {
        rows.push({ bench, metric: 'workerd peak RSS − idle RSS (upload + renders)', value: mem.peakDeltaMb, unit: 'MB' });
        rows.push({ bench, metric: 'workerd peak RSS − idle RSS (warm renders)', value: mem.warmDeltaMb, unit: 'MB', target: S === 8000 ? '≤ 64' : '' });
        rows.push({ bench, metric: 'workerd peak RSS (absolute)', value: mem.peakMb, unit: 'MB' });
      }
      rows.push(...referenceRows(bench, file, { 'our first render': rows.find((r) => r.bench === bench && r.metric.startsWith('first'))?.value, 'our warm p50': p50 }));
    } catch (e) {
      memory.stop();
      rows.push({ bench, metric: 'error', value: String(e.message ?? e).slice(0, 120), unit: '' });
    }
  }
  // Each request with a photo never seen before (a shopper's own upload): decode and placement
  // cannot come from a cache. Same picture, distinct bytes (a few after the JPEG's end).
  try {
    const bench = `render ${sizes[0]}², new photo each time`;
    const photo = readFileSync(path.join(out, 'bench-photo.jpg'));
    const names = [];
    for (let i = 0; i < 10; i++) {
      const file = path.join(scratch, `fresh-${i}.jpg`);
      writeFileSync(file, Buffer.concat([photo, Buffer.from(`${Date.now()}-${i}`)]));
      names.push(await upload(baseUrl, 'images', file));
    }
    const http = [];
    const inWorker = [];
    for (const [i, name] of names.entries()) {
      const t = performance.now();
      inWorker.push((await preview(baseUrl, `bench/bench-${sizes[0]}.psd`, name, 1000 + i)).total);
      http.push(performance.now() - t);
    }
    rows.push({ bench, metric: `HTTP p50 (n=${names.length})`, value: percentile(http, 0.5), unit: 'ms' });
    rows.push({ bench, metric: `in-Worker p50 / p95 (n=${names.length})`, value: `${percentile(inWorker, 0.5)} / ${percentile(inWorker, 0.95)}`, unit: 'ms' });
  } catch (e) {
    rows.push({ bench: 'new photo each time', metric: 'error', value: String(e.message ?? e).slice(0, 120), unit: '' });
  }
  // A 12 MP phone photo placed in the 4000² template: decoded once, scaled down at once.
  try {
    const bench = 'image 12 MP';
    const big = await upload(baseUrl, 'images', path.join(out, 'bench-photo-12mp.jpg'));
    const memory = new MemorySampler();
    const t = performance.now();
    await preview(baseUrl, `bench/bench-${sizes[0]}.psd`, big, 0);
    rows.push({ bench, metric: 'render with a 4000×3000 JPEG', value: performance.now() - t, unit: 'ms' });
    const mem = memory.stop();
    if (mem) rows.push({ bench, metric: 'workerd peak RSS − idle RSS', value: mem.peakDeltaMb, unit: 'MB', target: '≤ 128 (isolate)' });
  } catch (e) {
    rows.push({ bench: 'image 12 MP', metric: 'error', value: String(e.message ?? e).slice(0, 120), unit: '' });
  }
  return rows;
}


async function preview(baseUrl, template, photo, i) {
  const res = await fetch(`${baseUrl}/api/rendering/preview?disableCache=true`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      template,
      format: 'jpg',
      size: { width: 800, height: 800 },
      data: { Title: { type: 'text', text: `Hello, reader ${i}` }, Photo: { type: 'image', image: photo, resizeMode: 'fill' } },
    }),
  });
  if (!res.ok) throw new Error(`preview: HTTP ${res.status} ${(await res.text()).slice(0, 200)}`);
  await res.text();
  return serverTiming(res.headers.get('server-timing') ?? '');
}

/** Nearest-rank percentile of `values` (0 < q ≤ 1). */
function percentile(values, q) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))];
}

function median(n, fn) {
  const times = [];
  try {
    for (let i = 0; i < n; i++) times.push(fn());
  } catch (e) {
    process.stderr.write(`${e.message}\n`);
    return null;
  }
  return times.sort((a, b) => a - b)[Math.floor(n / 2)];
}

/**
 * The reference tools on the same PSD → 800×800 JPEG q85 job (median of 3; they read the file
 * each time, and cannot personalise: they only composite), with the ratio of their time to each
 * of `ours` ({ label: ms }).
 */
function referenceRows(bench, file, ours) {
  const rows = [];
  for (const tool of referenceTools(file, scratch)) {
    const ms = median(3, () => {
      const t = performance.now();
      const r = spawnSync(tool.cmd, tool.args, { encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`${tool.name}: ${r.stderr || r.error}`);
      return performance.now() - t;
    });
    if (ms === null) continue;
    rows.push({ bench, metric: `${tool.name} (PSD → 800² JPEG)`, value: ms, unit: 'ms' });
    for (const [label, value] of Object.entries(ours)) rows.push({ bench, metric: `${tool.name} ÷ ${label}`, value: ms / value, unit: '×' });
  }
  return rows;
}

function referenceTools(psd, out) {
  const tools = [];
  const python = ['/usr/bin/python3', 'python3'].find((p) => spawnSync(p, ['-c', 'import psd_tools'], { stdio: 'ignore' }).status === 0);
  if (python) {
    const script = 'import sys\nfrom psd_tools import PSDImage\nim = PSDImage.open(sys.argv[1]).composite()\nim.thumbnail((800, 800))\nim.convert("RGB").save(sys.argv[2], quality=85)';
    tools.push({ name: 'psd-tools composite()', cmd: python, args: ['-c', script, psd, path.join(out, 'psdtools.jpg')] });
  }
  if (spawnSync('convert', ['-version'], { stdio: 'ignore' }).status === 0) {
    tools.push({ name: 'ImageMagick (merged image)', cmd: 'convert', args: [`${psd}[0]`, '-resize', '800x800', '-quality', '85', path.join(out, 'magick.jpg')] });
  }
  return tools;
}

/** The engine's raster layer (src/engine/raster) bundled for Node with esbuild, the .wasm imports compiled from file. */
async function rasterForNode(root) {
  const esbuild = await import('esbuild');
  const wasmAsModule = {
    name: 'wasm-module',
    setup(build) {
      build.onLoad({ filter: /\.wasm$/ }, (args) => ({
        contents: `import { readFileSync } from 'node:fs'; export default new WebAssembly.Module(readFileSync(${JSON.stringify(args.path)}));`,
        loader: 'js',
      }));
    },
  };
  const bundle = path.join(scratch, 'raster.mjs');
  await esbuild.build({ entryPoints: [path.join(root, 'src/engine/raster/index.ts')], bundle: true, format: 'esm', platform: 'node', outfile: bundle, plugins: [wasmAsModule], logLevel: 'error' });
  return import(pathToFileURL(bundle).href);
}

/** Median of `runs` timed calls of `f` (ms), after 3 warm-ups. */
async function medianMs(f, runs = 21) {
  for (let i = 0; i < 3; i++) await f();
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await f();
    times.push(performance.now() - t);
  }
  return times.sort((a, b) => a - b)[runs >> 1];
}

/**
 * A photo placed at a quarter of its size: full mozjpeg decode then shrink (before) against the
 * scaled DCT-domain decode decodeBounded now uses (src/engine/raster/jpeg-decode.ts).
 */
export async function jpegDecodeRows(root) {
  const { decodeBounded, decodeImage, resample } = await rasterForNode(root);
  const rows = [];
  for (const [file, w, h] of [['bench-photo.jpg', 400, 300], ['bench-photo-12mp.jpg', 1000, 750]]) {
    const jpeg = new Uint8Array(readFileSync(path.join(root, 'bench/out', file)));
    const bench = `jpeg decode ${file} → ${w}×${h}`;
    rows.push({ bench, metric: 'full decode + shrink', value: await medianMs(async () => resample(await decodeImage(jpeg), w, h, { quality: 'high' }), 7), unit: 'ms' });
    rows.push({ bench, metric: 'scaled decode (DCT domain) + shrink', value: await medianMs(() => decodeBounded(jpeg, { size: { width: w, height: h } }), 7), unit: 'ms' });
  }
  return rows;
}

/**
 * JPEG encode of an 800×800 photo at q85: our WASM baseline encoder vs mozjpeg with our
 * settings and its defaults.
 */
export async function jpegEncodeRows(root) {
  const { encodeJpeg, encodeJpegMozjpeg, decodeImage, encodeBaselineJpeg } = await rasterForNode(root);
  const photo = await decodeImage(new Uint8Array(readFileSync(path.join(root, 'bench/out/bench-photo.jpg'))));
  const data = new Uint8ClampedArray(800 * 800 * 4);
  for (let y = 0; y < 800; y++) data.set(photo.data.subarray(y * photo.width * 4, (y * photo.width + 800) * 4), y * 800 * 4);
  const img = { width: 800, height: 800, data };
  const rows = [];
  const variants = [
    ['ours (WASM baseline, 4:2:0, fitted Huffman tables: the default)', () => encodeJpeg(img, 85)],
    ['ours, Annex K Huffman tables (one pass)', () => encodeBaselineJpeg(img, { quality: 85, subsampling: 2, optimizeHuffman: false })],
    ['mozjpeg, our settings (baseline, opt. Huffman, 4:2:0)', () => encodeJpegMozjpeg(img, 85)],
    ['mozjpeg, @jsquash defaults (progressive)', () => encodeJpegMozjpeg(img, 85, { baseline: false, progressive: true, auto_subsample: true, chroma_subsample: 2 })],
  ];
  for (const [name, encode] of variants) {
    let bytes = 0;
    const value = await medianMs(async () => (bytes = (await encode()).byteLength));
    rows.push({ bench: 'jpeg encode 800² q85', metric: name, value, unit: `ms (${(bytes / 1024).toFixed(0)} KB)` });
  }
  return rows;
}

/** Samples the RSS of the workerd processes (summed) every 10 ms. */
class MemorySampler {
  constructor() {
    this.pids = workerdPids();
    this.idle = this.read();
    this.peak = this.idle;
    this.timer = this.pids.length ? setInterval(() => (this.peak = Math.max(this.peak, this.read())), 10) : null;
  }
  /** Starts a second window (warm renders) measured against the RSS now. */
  mark() {
    this.warmIdle = this.read();
    this.warmPeak = this.warmIdle;
    this.peakBeforeMark = this.peak;
    this.peak = this.warmIdle;
  }
  read() {
    let kb = 0;
    for (const pid of this.pids) {
      try {
        kb += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
      } catch {
        /* process gone */
      }
    }
    return kb;
  }
  stop() {
    if (!this.timer) return null;
    clearInterval(this.timer);
    this.peak = Math.max(this.peak, this.read());
    const overall = Math.max(this.peak, this.peakBeforeMark ?? 0);
    const warm = this.warmIdle === undefined ? null : (this.peak - this.warmIdle) / 1024;
    return { peakMb: overall / 1024, peakDeltaMb: (overall - this.idle) / 1024, warmDeltaMb: warm };
  }
}

/** workerd processes started by `wrangler dev` (not, say, a vitest run's), found via /proc. */
function workerdPids() {
  if (!existsSync('/proc')) return [];
  const cmdline = (pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    } catch {
      return [];
    }
  };
  const parent = (pid) => {
    try {
      return /PPid:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? '0';
    } catch {
      return '0';
    }
  };
  const underWranglerDev = (pid) => {
    for (let p = parent(pid); p !== '0' && p !== '1'; p = parent(p)) {
      const args = cmdline(p);
      if (args.some((a) => /wrangler/.test(a)) && args.includes('dev')) return true;
    }
    return false;
  };
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((pid) => /workerd$/.test(cmdline(pid)[0] ?? '') && underWranglerDev(pid));
}
