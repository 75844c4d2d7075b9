// Personalised previews against repeated ones (issue 25 §3), on the five largest templates (by
// pixels) of the public corpus in test/fixtures/psd (licences in its README):
//   agpsd-text-bug-1920.psd 1920×1229, psdrb-example-design.psd 900×600,
//   psdtools-layer-effects-all.psd 800×640, agpsd-shapes-smart-objects.psd 500×500,
//   webtoon-mobile-ui-example.psd 400×800; the two largest by bytes, psdtools-adjust-hue-saturation
//   and psdtools-adjust-curves (200×200, a picture replacing "orion" each time);
// and three of the size a print shop uploads, written by bench/large-templates.mjs into bench/out
// (large-mockup-4000x3000, large-poster-6000x4000, large-photo-8000x8000: 60–77 MB each).
// Each is uploaded, then asked for an 800×800 JPEG by POST /api/rendering/preview:
//  (a) repeated: the same body again and again (the result cache answers, as a storefront gets it);
//  (b) personalised: a new text in one of its text layers on every request (the smart-object
//      template has none: a picture never seen before replaces its "apple" layer each time,
//      uploaded before the timing). Nothing is disabled: each request simply has new data.
// Reported: p50/p95 in-Worker (Server-Timing total) and over HTTP, the personalised ÷ repeated
// ratio (goal ≤ 1.5), the in-Worker phases of the personalised requests, and in the same run the
// reference tools on the same PSD → 800×800 JPEG q85 job (median of 5, subprocess wall time):
// psd-tools (`PSDImage.open(f).composite()`, thumbnail to 800, JPEG q85), ImageMagick on the
// merged image (`convert f.psd[0] -resize 800x800 -quality 85`) and its own flatten of the
// layers (`convert f.psd -delete 0 -flatten …`), with the factor tool ÷ our personalised HTTP
// p50 (goals ≥ 15 × psd-tools, ≥ 10 × ImageMagick). A missing tool is skipped with a note.
// (a) and (b) alternate after the first request, one at a time, BENCH_PAUSE_MS (default 100)
// apart, as one shopper's keystrokes come. Back to back (BENCH_PAUSE_MS=0), the local runtime's
// after-answer writes of a rendered result (R2 object and index, waitUntil) compete with the next
// request for the machine's two cores, which a deployment's storage does not (it runs elsewhere).
// BENCH_RUNS (default 30) requests per case; BENCH_PERSONALISED=a,b picks templates by name part.
// On a shared machine a request's wall time (in-Worker and HTTP) is the dev server's CPU plus the time its
// threads sat runnable waiting for a core (schedstat's run-queue wait), which grows with the other work on
// the machine: the CPU rows (all the dev server's workerd threads, /proc) say what the Worker did, the wait
// rows what the load added (at a load of 6-8 on two cores, ~0.5-1 ms of wait per ms of CPU; docs/performance.md,
// "picwall").
// BENCH_DISABLE_CACHE=1 sends both cases with `?disableCache=true` (the reference product's parameter):
// the repeated request is then rendered anew too, from what the isolate keeps of the template and
// the picture, instead of answered from the result cache; it measures rendering against rendering.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { ensureLarge, LARGE } from './large-templates.mjs';
import { fetchRetry, MemorySampler, percentile, serverNotes, serverTiming, ThreadCpu, upload } from './lib.mjs';

const WARMUP = 3;
const RUNS = Number(process.env.BENCH_RUNS ?? 30);
const TOOL_RUNS = 5;
const PAUSE_MS = Number(process.env.BENCH_PAUSE_MS ?? 100);
const QUERY = process.env.BENCH_DISABLE_CACHE === '1' ? '?disableCache=true' : '';
// Scratch output outside the project: files written under it make `wrangler dev` restart.
const scratch = mkdtempSync(path.join(tmpdir(), 'personalised-bench-'));

/** The templates, largest first, and what a shopper changes in each. */
export const TEMPLATES = [
  { file: 'agpsd-text-bug-1920.psd', layer: '3月', kind: 'text' },
  { file: 'psdrb-example-design.psd', layer: 'Make a change and save.', kind: 'text' },
  { file: 'psdtools-layer-effects-all.psd', layer: 'Drop Shadow', kind: 'text' },
  { file: 'agpsd-shapes-smart-objects.psd', layer: 'apple', kind: 'image' },
  { file: 'webtoon-mobile-ui-example.psd', layer: 'Text layer', kind: 'text' },
  // The two largest public files by bytes (292 KB, 200×200): a picture under ~14 adjustment layers and
  // nothing else a shopper could change, so a checker personalises them with a picture that covers the canvas.
  { file: 'psdtools-adjust-hue-saturation.psd', layer: 'orion', kind: 'image' },
  { file: 'psdtools-adjust-curves.psd', layer: 'orion', kind: 'image' },
  // Templates of the size a print shop uploads (bench/large-templates.mjs, written into bench/out on first use).
  ...LARGE.map(({ file, layer, kind }) => ({ file, layer, kind, large: true })),
  // A mockup, what a storefront shows most: a shopper's never-seen picture into a perspective smart object
  // (the general, warped placement), the card on a desk of the seeded demo (scripts/demo-products/make.mjs).
  { file: 'demo-mockup-desk.psd', dir: 'scripts/seed/demo-templates', layer: 'Card', kind: 'image' },
];

export default async function personalisedBench({ baseUrl, root }) {
  const only = process.env.BENCH_PERSONALISED?.split(',');
  const chosen = TEMPLATES.filter((t) => !only || only.some((o) => t.file.includes(o)));
  const rows = [];
  const summary = [];
  await upload(baseUrl, 'fonts', path.join(root, 'assets/fonts/LiberationSans-Regular.ttf'), '');
  const tag = Date.now().toString(36); // new data each run: nothing comes from an earlier run's caches
  for (const t of chosen) {
    const bench = `personalised ${t.file}`;
    try {
      const psd = t.large ? ensureLarge([t.file])[0] : path.join(root, t.dir ?? 'test/fixtures/psd', t.file);
      const template = await upload(baseUrl, 'templates', psd, 'bench');
      // Personalised values: texts, or pictures uploaded now (distinct bytes: a shopper's own upload each time).
      const values = [];
      for (let i = 0; i < RUNS + WARMUP + 1; i++) values.push(t.kind === 'text' ? `Hello ${tag} ${i}` : await freshPicture(baseUrl, root, i));
      const body = (value) => ({ template, format: 'jpg', size: { width: 800, height: 800 }, data: { [t.layer]: t.kind === 'text' ? { type: 'text', text: value } : { type: 'image', image: value, resizeMode: 'fill' } } });
      const cpu = new ThreadCpu(Number(new URL(baseUrl).port) || 80);
      const post = (value) => timed(cpu, () => fetchRetrying(`${baseUrl}/api/rendering/preview${QUERY}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body(value)) }));

      // Peak RSS of the dev server's workerd processes over this template's requests (not its upload).
      const memory = new MemorySampler(Number(new URL(baseUrl).port) || 80);
      // The template's first personalised request builds what later ones reuse (its frame, backdrops, bands).
      const first = await post(values[0]);
      // Then personalised and repeated (values[0] again: a result-cache hit unless BENCH_DISABLE_CACHE) alternate, so that both
      // meet the same load on a shared machine.
      for (let i = 1; i <= WARMUP; i++) await post(values[i]), await post(values[0]);
      const personalised = [];
      const repeated = [];
      for (let i = WARMUP + 1; i < values.length; i++) {
        personalised.push(await post(values[i]));
        repeated.push(await post(values[0]));
      }

      const mem = memory.stop();
      if (mem) rows.push({ bench, metric: 'workerd RSS peak (rise over idle) during the requests', value: `${mem.peakMb.toFixed(0)} (+${mem.peakDeltaMb.toFixed(0)})`, unit: 'MB' });
      const stat = (runs, of) => ({ p50: percentile(runs.map(of), 0.5), p95: percentile(runs.map(of), 0.95) });
      const http = (r) => r.http;
      const worker = (r) => r.worker.total ?? NaN;
      const rep = { http: stat(repeated, http), worker: stat(repeated, worker) };
      const per = { http: stat(personalised, http), worker: stat(personalised, worker) };
      const fmt = (s) => `${s.p50.toFixed(1)} / ${s.p95.toFixed(1)}`;
      rows.push({ bench, metric: `first personalised request: HTTP / in-Worker`, value: `${first.http.toFixed(1)} / ${worker(first)}`, unit: 'ms' });
      rows.push({ bench, metric: `repeated: in-Worker p50 / p95 (n=${RUNS})`, value: fmt(rep.worker), unit: 'ms' });
      rows.push({ bench, metric: `repeated: HTTP p50 / p95`, value: fmt(rep.http), unit: 'ms' });
      rows.push({ bench, metric: `personalised (${t.kind} "${t.layer}"): in-Worker p50 / p95 (n=${RUNS})`, value: fmt(per.worker), unit: 'ms' });
      rows.push({ bench, metric: `personalised: HTTP p50 / p95`, value: fmt(per.http), unit: 'ms' });
      const phases = [...new Set(personalised.flatMap((r) => Object.keys(r.worker)))].filter((p) => p !== 'total');
      rows.push({ bench, metric: 'personalised: in-Worker phases p50', value: phases.map((p) => `${p} ${percentile(personalised.map((r) => r.worker[p] ?? 0), 0.5)}`).join(', '), unit: 'ms' });
      const notes = [...new Set(personalised.map((r) => r.notes.frame).filter(Boolean))];
      if (notes.length) rows.push({ bench, metric: 'personalised: frame', value: notes.slice(0, 2).join('; '), unit: '' });
      if (cpu.threads.length) rows.push({ bench, metric: 'dev server CPU during a request, median: personalised / repeated / difference', value: `${stat(personalised, (r) => r.cpu).p50.toFixed(1)} / ${stat(repeated, (r) => r.cpu).p50.toFixed(1)} / ${(stat(personalised, (r) => r.cpu).p50 - stat(repeated, (r) => r.cpu).p50).toFixed(1)}`, unit: 'ms' });
      if (cpu.threads.length) {
        rows.push({ bench, metric: 'dev server run-queue wait during a request (the load), median: personalised / repeated / difference', value: `${stat(personalised, (r) => r.wait).p50.toFixed(1)} / ${stat(repeated, (r) => r.wait).p50.toFixed(1)} / ${(stat(personalised, (r) => r.wait).p50 - stat(repeated, (r) => r.wait).p50).toFixed(1)}`, unit: 'ms' });
        rows.push({ bench, metric: 'personalised ÷ repeated, dev server CPU median', value: stat(personalised, (r) => r.cpu).p50 / stat(repeated, (r) => r.cpu).p50, unit: '×' });
      }
      rows.push({ bench, metric: 'personalised ÷ repeated p50, in-Worker', value: per.worker.p50 / rep.worker.p50, unit: '×', target: '≤ 1.5' });
      rows.push({ bench, metric: 'personalised ÷ repeated p50, HTTP', value: per.http.p50 / rep.http.p50, unit: '×', target: '≤ 1.5' });
      const tools = {};
      for (const tool of referenceTools(psd)) {
        const ms = await medianOf(TOOL_RUNS, tool);
        if (ms === null) continue;
        tools[tool.name] = ms;
        rows.push({ bench, metric: `${tool.name}: PSD → 800² JPEG, median of ${TOOL_RUNS}`, value: ms, unit: 'ms' });
        rows.push({ bench, metric: `${tool.name} ÷ our personalised HTTP p50`, value: ms / per.http.p50, unit: '×', target: tool.goal });
      }
      summary.push({ t, rep, per, first, tools, mem, cpu: cpu.threads.length ? { per: stat(personalised, (r) => r.cpu).p50, rep: stat(repeated, (r) => r.cpu).p50, perWait: stat(personalised, (r) => r.wait).p50, repWait: stat(repeated, (r) => r.wait).p50 } : undefined, phases: Object.fromEntries(phases.map((p) => [p, percentile(personalised.map((r) => r.worker[p] ?? 0), 0.5)])) });
    } catch (e) {
      rows.push({ bench, metric: 'error', value: String(e.message ?? e).slice(0, 160), unit: '' });
    }
  }
  process.stderr.write(markdown(summary));
  return rows;
}

/** The summary as the Markdown table docs/performance.md records. */
function markdown(summary) {
  const names = [...new Set(summary.flatMap((s) => Object.keys(s.tools)))];
  const head = ['template (size; what changes)', 'repeated p50/p95 in-Worker · HTTP', 'personalised p50/p95 in-Worker · HTTP', 'ratio p50 in-Worker · HTTP', ...names.map((n) => `${n} (÷ ours)`), 'dev server CPU p50 personalised · repeated, ratio (run-queue wait)', 'workerd RSS peak (rise)', 'personalised phases p50'];
  const f = (s) => `${s.p50.toFixed(1)}/${s.p95.toFixed(1)}`;
  const lines = [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`];
  for (const { t, rep, per, tools, mem, phases, cpu } of summary) {
    lines.push(
      `| ${t.file} (${t.kind} "${t.layer}") | ${f(rep.worker)} · ${f(rep.http)} | ${f(per.worker)} · ${f(per.http)} | ${(per.worker.p50 / rep.worker.p50).toFixed(2)} · ${(per.http.p50 / rep.http.p50).toFixed(2)} | ` +
        names.map((n) => (tools[n] === undefined ? '—' : `${tools[n].toFixed(0)} (${(tools[n] / per.http.p50).toFixed(1)}×)`)).join(' | ') +
        ` | ${cpu ? `${cpu.per.toFixed(1)} · ${cpu.rep.toFixed(1)}, ${(cpu.per / cpu.rep).toFixed(2)} (${cpu.perWait.toFixed(1)} · ${cpu.repWait.toFixed(1)})` : '—'}` +
        ` | ${mem ? `${mem.peakMb.toFixed(0)} MB (+${mem.peakDeltaMb.toFixed(0)})` : '—'} | ${Object.entries(phases).map(([p, v]) => `${p} ${v}`).join(', ')} |`,
    );
  }
  return `\n${new Date().toISOString()}, requests ${PAUSE_MS} ms apart, n=${RUNS}, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}\n${lines.join('\n')}\n\n`;
}

/** A picture never seen before: the bench photo (scripts/make-bench-templates.mjs) plus a few distinct bytes after its end. */
let basePicture;
async function freshPicture(baseUrl, root, i) {
  if (!basePicture) {
    const photo = path.join(root, 'bench/out/bench-photo.jpg');
    if (!existsSync(photo)) execFileSync(process.execPath, [path.join(root, 'scripts/make-bench-templates.mjs'), '800'], { stdio: 'inherit' });
    basePicture = readFileSync(photo);
  }
  const file = path.join(scratch, `picture-${Date.now()}-${i}.jpg`);
  writeFileSync(file, Buffer.concat([basePicture, Buffer.from(`${Date.now()}-${i}`)]));
  return upload(baseUrl, 'images', file, 'bench');
}

/** fetchRetry, also retried when the connection fails (the dev server restarts when files change). */
async function fetchRetrying(url, init) {
  for (let i = 0; ; i++) {
    try {
      return await fetchRetry(url, init);
    } catch (e) {
      if (i >= 5) throw e;
      await new Promise((r) => setTimeout(r, 3000));
    }
  }
}

/** ms the dev server's threads (ThreadCpu's) have spent runnable but not running, so far: schedstat's second field. */
function runQueueWait(cpu) {
  let ns = 0;
  for (const t of cpu.threads) {
    try {
      ns += Number(readFileSync(t, 'utf8').split(' ')[1] || 0);
    } catch {
      // the thread ended
    }
  }
  return ns / 1e6;
}

async function timed(cpu, fn) {
  if (PAUSE_MS) await new Promise((r) => setTimeout(r, PAUSE_MS));
  const t = performance.now();
  const cpu0 = cpu.now();
  const wait0 = runQueueWait(cpu);
  const res = await fn();
  const text = await res.text();
  const cpuMs = cpu.now() - cpu0;
  const waitMs = runQueueWait(cpu) - wait0;
  if (!res.ok) throw new Error(`HTTP ${res.status} ${text.slice(0, 200)}`);
  const header = res.headers.get('server-timing') ?? '';
  return { http: performance.now() - t, cpu: cpuMs, wait: waitMs, worker: serverTiming(header), notes: serverNotes(header) };
}

/**
 * Median wall time (ms) of `runs` runs of the tool; null (with a note) when it fails. The tool runs
 * as a child process awaited, not spawnSync: a psd-tools run of a large template blocks for
 * seconds, and a blocked event loop keeps fetch's pooled connection past the runtime's idle close
 * (between 12 and 20 s here), so the next upload was written into a closed socket (EPIPE).
 */
async function medianOf(runs, tool) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    const r = await run(tool.cmd, tool.args);
    if (r.status !== 0) {
      process.stderr.write(`personalised bench: ${tool.name} failed, skipped: ${(r.stderr || String(r.error)).slice(0, 200)}\n`);
      return null;
    }
    times.push(performance.now() - t);
  }
  return times.sort((a, b) => a - b)[runs >> 1];
}

/** A child process's exit status and stderr, awaited without blocking the event loop. */
function run(cmd, args) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', (error) => resolve({ status: null, stderr, error }));
    child.on('close', (status) => resolve({ status, stderr }));
  });
}

/** The reference tools that are installed (a missing one is skipped with a note). */
function referenceTools(psd) {
  const tools = [];
  const python = ['/usr/bin/python3', 'python3'].find((p) => spawnSync(p, ['-c', 'import psd_tools'], { stdio: 'ignore' }).status === 0);
  if (python) {
    const script = 'import sys\nfrom psd_tools import PSDImage\nim = PSDImage.open(sys.argv[1]).composite()\nim.thumbnail((800, 800))\nim.convert("RGB").save(sys.argv[2], quality=85)';
    tools.push({ name: 'psd-tools composite()', goal: '≥ 15', cmd: python, args: ['-c', script, psd, path.join(scratch, 'psdtools.jpg')] });
  } else process.stderr.write('personalised bench: psd-tools not installed (apt-get install python3-psd-tools): skipped\n');
  const convert = imageMagick();
  if (convert) {
    tools.push({ name: 'ImageMagick merged image', goal: '≥ 10', cmd: convert, args: [`${psd}[0]`, '-resize', '800x800', '-quality', '85', path.join(scratch, 'magick.jpg')] });
    tools.push({ name: 'ImageMagick flatten', goal: '≥ 10', cmd: convert, args: [psd, '-delete', '0', '-background', 'white', '-flatten', '-resize', '800x800', '-quality', '85', path.join(scratch, 'magick-flat.jpg')] });
  } else process.stderr.write('personalised bench: ImageMagick (convert) not installed: skipped\n');
  return tools;
}

/** A `convert` that is ImageMagick (its -version says so; a stand-in on PATH does not count), or undefined. */
function imageMagick() {
  return ['/usr/local/bin/convert', '/usr/bin/convert', 'convert'].find((c) => /^Version: ImageMagick/m.test(spawnSync(c, ['-version'], { encoding: 'utf8' }).stdout ?? ''));
}
