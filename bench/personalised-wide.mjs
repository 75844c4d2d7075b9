// Personalised previews on every template we have (issue 25 §3, "no server errors"): the outside
// check personalises the largest PSDs of a hidden public corpus and we do not know which layer it
// changes. This uploads every PSD in test/fixtures/psd, test/fixtures/psd-made and
// bench/out/large-*.psd (bench/large-templates.mjs) as a template, asks the template information
// endpoint for its layers, and for every text layer (a new text), every image-able layer (pixel
// layer or smart object: a picture never seen before) and every shape (a new colour) asks for an
// 800×800 JPEG preview by POST /api/rendering/preview:
//   first: one personalised request (builds what later ones reuse: the template frame etc.);
//   then one personalised and one repeated as warm-up, then BENCH_WIDE_RUNS (default 5) pairs of
//   personalised (new value each time) and repeated (the first value again: a result-cache hit),
//   alternating, BENCH_PAUSE_MS (default 100) apart as in bench/personalised.bench.mjs.
// Recorded per (template, layer): every status code (with the body of the first failure), the
// in-Worker p50 (Server-Timing total) of both kinds, the ratio, the personalised phases p50 and
// the frame note (`redrawn rows a-b of h[, columns c-d of w]` or `template frame reused`; none:
// the frame was drawn whole without a kept template frame).
// Ranked: a 5xx or unexpected 4xx first, then whole-frame redraws, then the highest ratio; inside
// each class the five largest public files (and the bench's large-*) first.
//
//   node bench/personalised-wide.mjs [http://127.0.0.1:8792]
//   node bench/personalised-wide.mjs --rank rows.json        (the table of an earlier run's rows)
// Env: BENCH_WIDE=a,b (files whose name contains a part), BENCH_WIDE_KINDS=text,image,shape,
// BENCH_WIDE_OUT (JSON of every row; default a file in the system temp dir), BENCH_WIDE_TOP (20).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { API_KEY, fetchRetry, percentile, serverNotes, serverTiming, upload } from './lib.mjs';

const root = path.resolve(import.meta.dirname, '..');
const baseUrl = process.argv[2] ?? process.env.BENCH_URL ?? 'http://127.0.0.1:8792';
const RUNS = Number(process.env.BENCH_WIDE_RUNS ?? 5);
const PAUSE_MS = Number(process.env.BENCH_PAUSE_MS ?? 100);
const KINDS = (process.env.BENCH_WIDE_KINDS ?? 'text,image,shape').split(',');
const TOP = Number(process.env.BENCH_WIDE_TOP ?? 20);
const scratch = mkdtempSync(path.join(tmpdir(), 'personalised-wide-'));
const OUT = process.env.BENCH_WIDE_OUT ?? path.join(scratch, 'rows.json');

/** Every template file, largest (bytes) first; the five largest public ones and the large-* marked `big`. */
function templateFiles() {
  const dir = (d, re) => (existsSync(path.join(root, d)) ? readdirSync(path.join(root, d)).filter((f) => re.test(f)).map((f) => path.join(root, d, f)) : []);
  const size = (f) => statSync(f).size;
  const pub = dir('test/fixtures/psd', /\.ps[db]$/i).sort((a, b) => size(b) - size(a));
  const made = dir('test/fixtures/psd-made', /\.ps[db]$/i);
  const large = dir('bench/out', /^large-.*\.ps[db]$/i);
  const big = new Set([...pub.slice(0, 5), ...large]);
  const only = process.env.BENCH_WIDE?.split(',');
  return [...pub, ...made, ...large]
    .filter((f) => !only || only.some((o) => path.basename(f).includes(o)))
    .map((f) => ({ file: f, name: path.basename(f), bytes: size(f), big: big.has(f) }))
    .sort((a, b) => Number(b.big) - Number(a.big) || b.bytes - a.bytes);
}

/** The layers `data` can personalise: [{ name, kind, type }] (a name given by several layers once). */
function targets(layers) {
  const out = new Map();
  const walk = (list) => {
    for (const l of list ?? []) {
      const name = l.settings?.dataName ?? l.name;
      const kind = l.type === 'Text' ? 'text' : l.type === 'Image' || l.type === 'SmartObject' ? 'image' : l.type === 'Shape' ? 'shape' : null;
      if (kind && KINDS.includes(kind) && !out.has(name)) out.set(name, { name, kind, type: l.type, bounds: l.bounds, visible: l.visible });
      walk(l.layers);
    }
  };
  walk(layers);
  return [...out.values()];
}

let basePicture;
let pictureCount = 0;
/** A picture never seen before: the bench photo plus a few distinct bytes after its end, uploaded. */
async function freshPicture() {
  if (!basePicture) {
    const photo = path.join(root, 'bench/out/bench-photo.jpg');
    if (!existsSync(photo)) execFileSync(process.execPath, [path.join(root, 'scripts/make-bench-templates.mjs'), '800'], { stdio: 'inherit' });
    basePicture = readFileSync(photo);
  }
  const file = path.join(scratch, `picture-${Date.now()}-${pictureCount++}.jpg`);
  writeFileSync(file, Buffer.concat([basePicture, Buffer.from(`${Date.now()}-${pictureCount}`)]));
  return upload(baseUrl, 'images', file, 'bench-wide');
}

/** A colour no earlier run asked for (else the result cache answers a 'personalised' request). */
const colourOf = (seed) => `#${createHash('sha256').update(seed).digest('hex').slice(0, 6)}`;

async function values(kind, tag, n) {
  const out = [];
  for (let i = 0; i < n; i++) out.push(kind === 'text' ? `Hello ${tag} ${i}` : kind === 'shape' ? colourOf(`${tag} ${i}`) : await freshPicture());
  return out;
}

const command = (kind, v) => (kind === 'text' ? { type: 'text', text: v } : kind === 'shape' ? { type: 'shape', color: v } : { type: 'image', image: v, resizeMode: 'fill' });

async function post(template, layer, kind, v) {
  if (PAUSE_MS) await new Promise((r) => setTimeout(r, PAUSE_MS));
  const body = { template, format: 'jpg', size: { width: 800, height: 800 }, data: { [layer]: command(kind, v) } };
  const t = performance.now();
  let res;
  try {
    res = await fetchRetry(`${baseUrl}/api/rendering/preview`, { method: 'POST', headers: { 'content-type': 'application/json', 'X-DynamicImageApiKey': API_KEY }, body: JSON.stringify(body) });
  } catch (e) {
    return { status: 0, http: performance.now() - t, worker: {}, notes: {}, error: String(e.cause?.code ?? e.message) };
  }
  const text = await res.text();
  const header = res.headers.get('server-timing') ?? '';
  return { status: res.status, http: performance.now() - t, worker: serverTiming(header), notes: serverNotes(header), error: res.ok ? undefined : text.slice(0, 240) };
}

/** How much of the frame a personalised request drew: the share of its pixels, or 1 (whole) / null (no change). */
function redrawnShare(note, size = 800) {
  if (!note) return 1; // no kept template frame: drawn whole
  if (/reused/.test(note)) return 0;
  const m = /redrawn rows (\d+)-(\d+) of (\d+)(?:, columns (\d+)-(\d+) of (\d+))?/.exec(note);
  if (!m) return 1;
  const rows = (Number(m[2]) - Number(m[1])) / Number(m[3]);
  const cols = m[4] ? (Number(m[5]) - Number(m[4])) / Number(m[6]) : 1;
  return rows * cols;
}

async function infoOf(template) {
  const res = await fetchRetry(`${baseUrl}/api/information/template`, { method: 'POST', headers: { 'content-type': 'application/json', 'X-DynamicImageApiKey': API_KEY }, body: JSON.stringify({ template, fullInfo: true }) });
  const text = await res.text();
  if (!res.ok) throw new Error(`information: HTTP ${res.status} ${text.slice(0, 200)}`);
  return JSON.parse(text);
}

async function uploadRetrying(file) {
  for (let i = 0; ; i++) {
    try {
      return await upload(baseUrl, 'templates', file, 'bench-wide');
    } catch (e) {
      if (i >= 2) throw e;
      process.stderr.write(`upload of ${path.basename(file)} failed (${e.message}), tried again\n`);
      await new Promise((r) => setTimeout(r, 3000));
    }
  }
}

async function main() {
  await upload(baseUrl, 'fonts', path.join(root, 'assets/fonts/LiberationSans-Regular.ttf'), '');
  const tag = Date.now().toString(36);
  const rows = [];
  const files = templateFiles();
  process.stderr.write(`${files.length} templates, ${new Date().toISOString()}, load ${loadavg().map((l) => l.toFixed(2)).join(' ')}\n`);
  for (const f of files) {
    let template;
    let info;
    try {
      template = await uploadRetrying(f.file);
      info = await infoOf(template);
    } catch (e) {
      rows.push({ file: f.name, big: f.big, bytes: f.bytes, layer: '(template)', kind: 'upload', statuses: [0], error: String(e.message).slice(0, 240) });
      process.stderr.write(`${f.name}: ${e.message}\n`);
      continue;
    }
    for (const t of targets(info.layers)) {
      const vs = await values(t.kind, `${tag} ${rows.length}`, RUNS + 2);
      const first = await post(template, t.name, t.kind, vs[0]);
      const per = [];
      const rep = [];
      await post(template, t.name, t.kind, vs[1]);
      await post(template, t.name, t.kind, vs[0]);
      for (let i = 0; i < RUNS; i++) {
        per.push(await post(template, t.name, t.kind, vs[2 + i] ?? vs[1]));
        rep.push(await post(template, t.name, t.kind, vs[0]));
      }
      const all = [first, ...per, ...rep];
      const ok = (r) => r.status === 200;
      const p50 = (rs) => (rs.filter(ok).length ? percentile(rs.filter(ok).map((r) => r.worker.total ?? NaN), 0.5) : NaN);
      const phases = [...new Set(per.flatMap((r) => Object.keys(r.worker)))].filter((p) => p !== 'total');
      // Only requests that rendered (a result-cache hit has no render phase, and no frame note).
      const drawn = per.filter((r) => ok(r) && r.worker.render !== undefined);
      const frames = [...new Set(drawn.map((r) => r.notes.frame ?? ''))];
      const share = drawn.length ? Math.max(0, ...drawn.map((r) => redrawnShare(r.notes.frame))) : null;
      const hits = per.filter(ok).length - drawn.length;
      const row = {
        file: f.name,
        big: f.big,
        bytes: f.bytes,
        size: info.size,
        layer: t.name,
        kind: t.kind,
        type: t.type,
        visible: t.visible,
        statuses: all.map((r) => r.status),
        error: all.find((r) => r.error)?.error,
        first: first.worker.total,
        repeated: p50(rep),
        personalised: p50(per),
        repeatedHttp: percentile(rep.map((r) => r.http), 0.5),
        personalisedHttp: percentile(per.map((r) => r.http), 0.5),
        phases: Object.fromEntries(phases.map((p) => [p, percentile(per.map((r) => r.worker[p] ?? 0), 0.5)])),
        frame: `${frames.join(' | ')}${hits ? ` (${hits} of ${per.length} personalised answered by the result cache)` : ''}`,
        share,
      };
      row.ratio = row.personalised / row.repeated;
      row.ratioHttp = row.personalisedHttp / row.repeatedHttp;
      rows.push(row);
      writeFileSync(OUT, JSON.stringify(rows, null, 1));
      process.stderr.write(`${f.name} ${t.kind} "${t.name}": ${[...new Set(row.statuses)].join('/')} per ${row.personalised} rep ${row.repeated} share ${share?.toFixed(2) ?? '—'} ${row.error ?? ''}\n`);
    }
  }
  writeFileSync(OUT, JSON.stringify(rows, null, 1));
  process.stdout.write(table(rank(rows), TOP));
  process.stderr.write(`all rows: ${OUT}\n`);
}

/** Failures, then whole redraws, then the highest ratios; the big files first inside each class. */
export function rank(rows) {
  const failed = (r) => r.statuses.some((s) => s === 0 || s >= 500 || (s >= 400 && s !== 422));
  const rejected = (r) => r.statuses.some((s) => s >= 400);
  const klass = (r) => (failed(r) ? 0 : rejected(r) ? 1 : r.share >= 0.999 ? 2 : 3);
  return [...rows].sort((a, b) => klass(a) - klass(b) || Number(b.big) - Number(a.big) || (b.ratio || 0) - (a.ratio || 0));
}

export function table(rows, top) {
  const lines = [
    `${new Date().toISOString()}, ${RUNS} personalised + ${RUNS} repeated per layer, ${PAUSE_MS} ms apart, load ${loadavg().map((l) => l.toFixed(2)).join(' ')}; ${rows.length} (template, layer) rows`,
    '',
    '| # | template (big?) | layer (kind) | statuses | in-Worker p50 pers · rep (ms) | ratio in-Worker · HTTP | redrawn share | personalised phases p50 | frame / error |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  rows.slice(0, top).forEach((r, i) => {
    const st = Object.entries(r.statuses.reduce((m, s) => ((m[s] = (m[s] ?? 0) + 1), m), {})).map(([s, n]) => `${s}×${n}`).join(' ');
    const phases = Object.entries(r.phases ?? {}).map(([p, v]) => `${p} ${v}`).join(', ');
    lines.push(`| ${i + 1} | ${r.file}${r.big ? ' (big)' : ''} | ${r.layer} (${r.kind}) | ${st} | ${r.personalised ?? '—'} · ${r.repeated ?? '—'} | ${r.ratio?.toFixed(2) ?? '—'} · ${r.ratioHttp?.toFixed(2) ?? '—'} | ${r.share?.toFixed(2) ?? '—'} | ${phases} | ${(r.error ?? r.frame ?? '').replace(/\|/g, '/').slice(0, 120)} |`);
  });
  return `${lines.join('\n')}\n`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  // `--rank rows.json`: the table of an earlier run's rows.
  if (process.argv[2] === '--rank') process.stdout.write(table(rank(JSON.parse(readFileSync(process.argv[3], 'utf8'))), TOP));
  else await main();
}
