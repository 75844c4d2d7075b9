// Print-PDF benchmark (docs/pdf.md). Headline: a personalised one-page PDF of the 4000² bench
// template (the render bench's data: Title text + Photo image from the image store), warm p50
// with disableCache=true; then the same page unpersonalised, a 10-page combined PDF (each page
// with its own text), and the workerd peak RSS while making a PDF of the 8000² template.
// Templates come from scripts/make-bench-templates.mjs. The route's Server-Timing header splits
// each fresh PDF into compositing (render), image encoding (encode) and reading reused strips
// (reuse); its desc counts the strips. Part `colour` (issue 20): a 4000² photographic page
// written RGB and CMYK by writePdf itself, bundled with esbuild and run in Node's V8 (the page is
// drawn beforehand, so the rows time conversion and encoding only), and the CMYK conversion alone.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { bundleForNode, upload, MemorySampler } from './lib.mjs';

const RUNS = Number(process.env.BENCH_PDF_RUNS ?? 5);
/**
 * Which parts to run: `one` (4000², one page), `ten` (10-page combined), `big` (8000² memory),
 * `colour` (RGB against CMYK on a photographic page, in Node).
 */
const PARTS = new Set((process.env.BENCH_PDF_PARTS ?? 'one,ten,big,colour').split(','));

export default async function pdfBench({ baseUrl, root }) {
  const out = path.join(root, 'bench/out');
  const sizes = [4000, 8000];
  if (!sizes.every((S) => existsSync(path.join(out, `bench-${S}.psd`))) || !existsSync(path.join(out, 'bench-photo.jpg'))) {
    execFileSync(process.execPath, [path.join(root, 'scripts/make-bench-templates.mjs'), ...sizes.map(String)], { stdio: 'inherit' });
  }
  const rows = [];
  // The colour part runs in Node alone; the others render on the server.
  if (!['one', 'ten', 'big'].some((p) => PARTS.has(p))) return PARTS.has('colour') ? colourRows(root) : rows;
  // The text layer's ArialMT is drawn with its metric-compatible substitute from the font store.
  await upload(baseUrl, 'fonts', path.join(root, 'assets/fonts/LiberationSans-Regular.ttf'), '');
  const photo = await upload(baseUrl, 'images', path.join(out, 'bench-photo.jpg'));
  const data = (i) => ({ Title: { type: 'text', text: `Hello, reader ${i}` }, Photo: { type: 'image', image: photo, resizeMode: 'fill' } });
  const t4000 = PARTS.has('one') || PARTS.has('ten') ? await upload(baseUrl, 'templates', path.join(out, 'bench-4000.psd')) : null;

  let bench = 'pdf 4000² (1 page)';
  if (PARTS.has('one')) {
    const first = await hires(baseUrl, '/api/rendering/hires', { template: t4000, data: data(0) });
    // Strips stored by earlier runs on this server stay (same PSD bytes, same hash): see the reused count.
    rows.push({ bench, metric: 'first personalised PDF after upload', value: first.ms, unit: 'ms', target: first.desc });
    const warm = async (body) => {
      const runs = [];
      for (let i = 0; i < RUNS; i++) runs.push(await hires(baseUrl, '/api/rendering/hires', body(i + 1)));
      return runs.sort((a, b) => a.ms - b.ms)[Math.floor(runs.length / 2)];
    };
    for (const [what, body] of [
      ['personalised', (i) => ({ template: t4000, data: data(i) })],
      ['unpersonalised', () => ({ template: t4000 })],
    ]) {
      const mid = await warm(body);
      rows.push({ bench, metric: `${what}: p50 warm (n=${RUNS})`, value: mid.ms, unit: 'ms', target: '≤ 250 + image embedding' });
      rows.push({ bench, metric: `${what}: p50 minus image embedding`, value: mid.ms - (mid.timing.encode ?? 0), unit: 'ms', target: '≤ 250' });
      rows.push({ bench, metric: `${what}: in-Worker load / render / encode / reuse / pdf`, value: ['load', 'render', 'encode', 'reuse', 'pdf'].map((k) => mid.timing[k] ?? NaN).join(' / '), unit: 'ms' });
      rows.push({ bench, metric: `${what}: PDF size`, value: mid.bytes / 1e6, unit: 'MB', target: mid.desc });
    }
  }

  bench = 'pdf 4000² × 10 (combined)';
  if (PARTS.has('ten')) {
    const ten = await hires(baseUrl, '/api/rendering/multipage/hires', { combine: true, pages: Array.from({ length: 10 }, (_, i) => ({ template: t4000, data: data(100 + i) })) });
    rows.push({ bench, metric: '10 personalised pages, combined', value: ten.ms, unit: 'ms', target: ten.desc });
    rows.push({ bench, metric: 'per page', value: ten.ms / 10, unit: 'ms' });
    rows.push({ bench, metric: 'in-Worker load / render / encode / reuse / pdf', value: ['load', 'render', 'encode', 'reuse', 'pdf'].map((k) => ten.timing[k] ?? NaN).join(' / '), unit: 'ms' });
    rows.push({ bench, metric: 'PDF size', value: ten.bytes / 1e6, unit: 'MB' });
  }

  if (PARTS.has('colour')) rows.push(...(await colourRows(root)));

  bench = 'pdf 8000² (1 page)';
  if (!PARTS.has('big')) return rows;
  const t8000 = await upload(baseUrl, 'templates', path.join(out, 'bench-8000.psd'));
  await hires(baseUrl, '/api/rendering/hires', { template: t8000, data: data(0) }); // compiled pyramid, strips and caches warm
  const memory = new MemorySampler(new URL(baseUrl).port || '80');
  const big = await hires(baseUrl, '/api/rendering/hires', { template: t8000, data: data(1) });
  const mem = memory.stop();
  rows.push({ bench, metric: 'warm personalised PDF', value: big.ms, unit: 'ms', target: big.desc });
  rows.push({ bench, metric: 'in-Worker load / render / encode / reuse / pdf', value: ['load', 'render', 'encode', 'reuse', 'pdf'].map((k) => big.timing[k] ?? NaN).join(' / '), unit: 'ms' });
  rows.push({ bench, metric: 'PDF size', value: big.bytes / 1e6, unit: 'MB' });
  if (mem) {
    rows.push({ bench, metric: 'workerd peak RSS − idle RSS', value: mem.peakDeltaMb, unit: 'MB', target: '≤ 96' });
    rows.push({ bench, metric: 'workerd peak RSS (absolute)', value: mem.peakMb, unit: 'MB' });
  }
  // The unpersonalised 8000² page, all strips cached: memory of the reuse path.
  const memory2 = new MemorySampler(new URL(baseUrl).port || '80');
  const plain = await hires(baseUrl, '/api/rendering/hires', { template: t8000 });
  const mem2 = memory2.stop();
  rows.push({ bench, metric: 'warm unpersonalised PDF', value: plain.ms, unit: 'ms', target: plain.desc });
  if (mem2) rows.push({ bench, metric: 'unpersonalised: workerd peak RSS − idle RSS', value: mem2.peakDeltaMb, unit: 'MB', target: '≤ 96' });
  return rows;
}

/**
 * RGB and CMYK print PDFs of one 4000² photographic page (smooth colour with ±10 levels of grain
 * on every pixel: 0.6 M distinct colours per megapixel, the hard case for conversion and JPEG),
 * p50 of RUNS wall and CPU times; and the sRGB → FOGRA39 conversion of the page alone.
 */
async function colourRows(root) {
  const bundle = path.join(os.tmpdir(), 'pdf-colour-bench.mjs');
  await bundleForNode(
    root,
    { contents: ['document', 'output', 'sink'].map((m) => `export * from './src/engine/pdf/${m}';`).join('\n') + "\nexport * from './src/engine/colour';\nexport { srgbProfile } from './src/engine/raster/icc';" },
    bundle,
  );
  const m = await import(pathToFileURL(bundle).href);
  const W = 4000;
  const H = 4000;
  const rowsPerStrip = m.stripRows(W, H);
  const strips = new Map();
  const draw = (top, bottom) => {
    const data = new Uint8ClampedArray(W * (bottom - top) * 4);
    let seed = top * 7919 + 1;
    for (let y = top; y < bottom; y++)
      for (let x = 0; x < W; x++) {
        seed = (seed * 1103515245 + 12345) & 0x7fffffff;
        const n = ((seed >> 16) % 21) - 10;
        const p = ((y - top) * W + x) * 4;
        data[p] = 128 + 100 * Math.sin(x / 300 + y / 500) + n;
        data[p + 1] = 128 + 100 * Math.sin(x / 170 - y / 230) + n;
        data[p + 2] = 128 + 100 * Math.cos((x + y) / 400) + n;
        data[p + 3] = 255;
      }
    return { width: W, height: bottom - top, data };
  };
  const page = {
    width: W,
    height: H,
    resolution: 300,
    icc: m.srgbProfile(),
    renderRows: async (top, bottom) => {
      const key = `${top}:${bottom}`;
      if (!strips.has(key)) strips.set(key, draw(top, bottom));
      return strips.get(key);
    },
  };
  const timed = async (f) => {
    const wall = performance.now();
    const cpu = process.cpuUsage();
    const value = await f();
    const used = process.cpuUsage(cpu);
    return { ms: performance.now() - wall, cpuMs: (used.user + used.system) / 1000, value };
  };
  const p50 = (runs, key) => runs.map((r) => r[key]).sort((a, b) => a - b)[Math.floor(runs.length / 2)];
  const pdf = (output) => timed(async () => m.writePdf(new m.MemorySink(), [async () => page], { output }));
  const cmykOutput = m.pdfOutput(await m.resolvePrintColour({ colorSpace: 'Cmyk' }));
  const transform = await m.colourTransform({ from: m.srgbProfile(), to: m.defaultProfile('Cmyk'), fromLayout: 'RGBA', toLayout: 'CMYK' });
  const ink = new Uint8Array(W * rowsPerStrip * 4);
  const convert = () =>
    timed(async () => {
      for (let top = 0; top < H; top += rowsPerStrip) {
        const strip = await page.renderRows(top, Math.min(H, top + rowsPerStrip));
        transform.apply(new Uint8Array(strip.data.buffer), ink, strip.width * strip.height);
      }
    });
  await pdf(undefined); // draws and keeps the page's strips; warms the encoders
  await pdf(cmykOutput);
  const runs = { rgb: [], cmyk: [], convert: [] };
  for (let i = 0; i < RUNS; i++) {
    runs.rgb.push(await pdf(undefined));
    runs.cmyk.push(await pdf(cmykOutput));
    runs.convert.push(await convert());
  }
  const bench = 'pdf 4000² photographic, RGB vs CMYK (Node)';
  const [rgb, cmyk] = [runs.rgb, runs.cmyk].map((r) => ({ ms: p50(r, 'ms'), cpuMs: p50(r, 'cpuMs'), summary: r[0].value }));
  const strips_ = (s) => `jpeg ${s.strips.jpeg}, flate ${s.strips.flate}`;
  return [
    { bench, metric: `RGB PDF: p50 wall / CPU (n=${RUNS})`, value: `${rgb.ms.toFixed(0)} / ${rgb.cpuMs.toFixed(0)}`, unit: 'ms', target: strips_(rgb.summary) },
    { bench, metric: `CMYK PDF: p50 wall / CPU (n=${RUNS})`, value: `${cmyk.ms.toFixed(0)} / ${cmyk.cpuMs.toFixed(0)}`, unit: 'ms', target: strips_(cmyk.summary) },
    { bench, metric: 'CMYK / RGB (CPU)', value: cmyk.cpuMs / rgb.cpuMs, unit: '×', target: '≤ 1.5' },
    { bench, metric: 'sRGB → FOGRA39 conversion alone: p50 wall / CPU', value: `${p50(runs.convert, 'ms').toFixed(0)} / ${p50(runs.convert, 'cpuMs').toFixed(0)}`, unit: 'ms' },
    { bench, metric: 'PDF size RGB / CMYK', value: `${(rgb.summary.bytes / 1e6).toFixed(1)} / ${(cmyk.summary.bytes / 1e6).toFixed(1)}`, unit: 'MB' },
  ];
}

/** One fresh PDF: wall time of the request, Server-Timing parts, and the result's size. */
async function hires(baseUrl, route, body) {
  const t = performance.now();
  const res = await fetch(`${baseUrl}${route}?disableCache=true`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = await res.json();
  const ms = performance.now() - t;
  if (!res.ok) throw new Error(`${route}: HTTP ${res.status} ${JSON.stringify(json).slice(0, 200)}`);
  const timing = {};
  const header = res.headers.get('server-timing') ?? '';
  for (const m of header.matchAll(/(\w+);dur=([\d.]+)/g)) timing[m[1]] = Number(m[2]);
  const desc = /desc="([^"]*)"/.exec(header)?.[1] ?? '';
  const url = typeof json === 'string' ? json : json.results[0].url;
  const pdf = await fetch(url);
  const bytes = (await pdf.arrayBuffer()).byteLength;
  return { ms, timing, bytes, desc };
}

