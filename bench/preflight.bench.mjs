// Preflight benchmark (issue 21, "Done when"): a 4000² template with three text layers and one
// photo, personalised the same way by POST /api/rendering/preview (800×800 JPEG, rendered anew:
// disableCache=true) and by POST /api/rendering/preflight (the same body). Goal: preflight p50
// ≤ 30 % of the preview's. New texts on every request, so neither answers from an earlier
// request's layout; the photo is a stored 12 MP JPEG, the same each time (the preview decodes it
// once per isolate and keeps it; preflight reads only its header). The template is written here
// with ag-psd (bench/out/bench-preflight-4000.psd) unless it exists.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { percentile, serverTotal, upload } from './lib.mjs';

const WARMUP = 3;
const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const S = 4000;

/** w×h of one colour. */
function solid(w, h, rgba) {
  const data = new Uint8ClampedArray(w * h * 4);
  for (let i = 0; i < data.length; i += 4) data.set(rgba, i);
  return { width: w, height: h, data };
}

/** A point-text layer (LiberationSans) whose pixels are a box where the text sits. */
function text(name, value, x, y, size, box) {
  return {
    name, left: x, top: y - size, right: x + box, bottom: y + size / 4,
    imageData: solid(box, Math.round(size * 1.25), [30, 40, 60, 255]),
    text: { text: value, transform: [1, 0, 0, 1, x, y], style: { font: { name: 'LiberationSans' }, fontSize: size, fillColor: { r: 30, g: 40, b: 60 } }, shapeType: 'point' },
  };
}

async function template(file) {
  if (existsSync(file)) return;
  const { writePsdBuffer } = await import('ag-psd');
  const u = S / 100;
  const psd = {
    width: S, height: S,
    imageResources: { resolutionInfo: { horizontalResolution: 300, horizontalResolutionUnit: 'PPI', widthUnit: 'Inches', verticalResolution: 300, verticalResolutionUnit: 'PPI', heightUnit: 'Inches' } },
    children: [
      { name: 'Background', left: 0, top: 0, right: S, bottom: S, imageData: solid(S, S, [246, 242, 232, 255]) },
      { name: 'Photo', left: 8 * u, top: 8 * u, right: 48 * u, bottom: 48 * u, imageData: solid(40 * u, 40 * u, [120, 150, 170, 255]) },
      text('Title <TOS_fitToBox>', 'Sample title', 52 * u, 20 * u, 5 * u, 40 * u),
      text('Name <REQ>', 'Alex Morgan', 52 * u, 32 * u, 3 * u, 40 * u),
      text('Tagline', 'Print that fits', 8 * u, 60 * u, 3 * u, 80 * u),
    ],
  };
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, writePsdBuffer(psd, { generateThumbnail: false }));
}

export default async function preflightBench({ baseUrl, root }) {
  const out = path.join(root, 'bench/out');
  const file = path.join(out, `bench-preflight-${S}.psd`);
  await template(file);
  // The 12 MP photo of the render bench (scripts/make-bench-templates.mjs writes it with the templates).
  if (!existsSync(path.join(out, 'bench-photo-12mp.jpg'))) execFileSync(process.execPath, [path.join(root, 'scripts/make-bench-templates.mjs'), '800'], { stdio: 'inherit' });
  await upload(baseUrl, 'fonts', path.join(root, 'assets/fonts/LiberationSans-Regular.ttf'), '');
  const name = await upload(baseUrl, 'templates', file);
  const photo = await upload(baseUrl, 'images', path.join(out, 'bench-photo-12mp.jpg'));
  const tag = Date.now().toString(36);
  // Preview i and preflight 10000 + i: different texts of the same length (comparable verdicts).
  const body = (n) => {
    const i = String(n).padStart(5, '0');
    const data = {
      Title: { type: 'text', text: `A title long enough to shrink, ${tag} ${i}` },
      Name: { type: 'text', text: `Jonathan Livingstone-Smith ${i}` },
      Tagline: { type: 'text', text: `Printed ${tag} ${i}` },
      Photo: { type: 'image', image: photo, resizeMode: 'fill' },
    };
    return { template: name, format: 'jpg', size: { width: 800, height: 800 }, data };
  };
  const timed = async (route, i) => {
    const t = performance.now();
    const res = await fetch(`${baseUrl}${route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body(i)) });
    const answer = await res.text();
    if (!res.ok) throw new Error(`${route}: HTTP ${res.status} ${answer.slice(0, 200)}`);
    const phases = {};
    for (const m of (res.headers.get('server-timing') ?? '').matchAll(/([\w-]+);dur=([\d.]+)/g)) phases[m[1]] = Number(m[2]);
    return { http: performance.now() - t, worker: serverTotal(res), phases, verdict: res.headers.get('x-preflight') ?? answer };
  };
  // Interleaved, so both see the same machine load.
  const previews = [];
  const preflights = [];
  for (let i = 0; i < WARMUP + RUNS; i++) {
    const p = await timed('/api/rendering/preview?disableCache=true', i);
    const f = await timed('/api/rendering/preflight', 10_000 + i);
    if (i >= WARMUP) (previews.push(p), preflights.push(f));
  }
  const p50 = (runs, key) => percentile(runs.map((r) => r[key]), 0.5);
  const p95 = (runs, key) => percentile(runs.map((r) => r[key]), 0.95);
  const bench = `4000² template, 3 texts + 12 MP photo`;
  const ratio = (key) => (100 * p50(preflights, key)) / p50(previews, key);
  const phases = (runs) => {
    const names = [...new Set(runs.flatMap((r) => Object.keys(r.phases)))].filter((p) => p !== 'total');
    return names.map((p) => `${p} ${percentile(runs.map((r) => r.phases[p] ?? 0), 0.5)}`).join(', ');
  };
  return [
    { bench, metric: 'preview phases p50', value: phases(previews), unit: 'ms' },
    { bench, metric: 'preflight phases p50', value: phases(preflights), unit: 'ms' },
    { bench, metric: `preview 800² p50 / p95 in-Worker (n=${RUNS})`, value: `${p50(previews, 'worker')} / ${p95(previews, 'worker')}`, unit: 'ms' },
    { bench, metric: `preflight p50 / p95 in-Worker (n=${RUNS})`, value: `${p50(preflights, 'worker')} / ${p95(preflights, 'worker')}`, unit: 'ms' },
    { bench, metric: 'preflight ÷ preview, in-Worker p50', value: ratio('worker'), unit: '%', target: '≤ 30' },
    { bench, metric: 'preview / preflight p50 HTTP', value: `${p50(previews, 'http').toFixed(1)} / ${p50(preflights, 'http').toFixed(1)}`, unit: 'ms' },
    { bench, metric: 'preflight ÷ preview, HTTP p50', value: ratio('http'), unit: '%', target: '≤ 30' },
    { bench, metric: 'verdicts (preview header, preflight answer)', value: `${previews.at(-1).verdict} · ${preflights.at(-1).verdict.slice(0, 120)}` },
  ];
}
