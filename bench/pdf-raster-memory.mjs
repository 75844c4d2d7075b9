// Peak memory of drawing a large PDF's pages, bytes form vs stream form (docs/performance.md).
// Not a vitest file: workerd exposes no memory figures, so this bundles src/engine/pdf-raster
// with esbuild (the .wasm imports become WebAssembly.Module, as the CompiledWasm rule gives the
// Worker) and runs it in Node's V8, one fresh process per form, reading the process's peak RSS.
//
//   node --expose-gc bench/pdf-raster-memory.mjs            # both forms
//   (needs ImageMagick's `convert` for the noise JPEGs; files go to $TMPDIR/pdf-raster-bench)
import { execFileSync, spawnSync } from 'node:child_process';
import { createReadStream, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { bundleForNode } from './lib.mjs';

const root = path.resolve(import.meta.dirname, '..');
const dir = path.join(os.tmpdir(), 'pdf-raster-bench');
const PAGES = Number(process.env.PDF_PAGES ?? 12); // PDF_PAGES=5 → a 20 MiB file
const pdfPath = path.join(dir, `big-${PAGES}.pdf`);
const bundle = path.join(dir, 'pdf-raster.mjs');
const mode = process.argv[2];

if (!mode) {
  mkdirSync(dir, { recursive: true });
  await bundleForNode(root, path.join(root, 'src/engine/pdf-raster/index.ts'), bundle);
  if (!existsSync(pdfPath)) await makePdf();
  console.log(`PDF ${(statSync(pdfPath).size / 1048576).toFixed(1)} MiB, ${PAGES} pages of 2,400² noise JPEGs; load ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  for (const m of ['bytes', 'stream']) {
    const r = spawnSync(process.execPath, ['--expose-gc', import.meta.filename, m], { encoding: 'utf8' });
    process.stdout.write(r.stdout + r.stderr);
  }
} else {
  // Every WASM instance's memory (PDFium's heap, the PNG encoder's), to say where the bytes are.
  const memories = new Map();
  const instantiate = WebAssembly.instantiate;
  WebAssembly.instantiate = async (m, imports) => {
    const r = await instantiate(m, imports);
    const inst = r instanceof WebAssembly.Instance ? r : r.instance;
    const mem = Object.values(inst.exports).find((e) => e instanceof WebAssembly.Memory);
    const name = WebAssembly.Module.exports(m instanceof WebAssembly.Module ? m : r.module).some((e) => e.name.startsWith('FPDF')) ? 'pdfium' : 'other';
    if (mem) memories.set(name, mem);
    return r;
  };
  const heapPeak = {};
  const { rasterisePdfPagesPng } = await import(pathToFileURL(bundle).href);
  globalThis.gc?.();
  const mb = (n) => (n / 1048576).toFixed(0);
  const base = process.memoryUsage().rss;
  let peakLive = 0;
  let source;
  if (mode === 'bytes') source = new Uint8Array(readFileSync(pdfPath)); // the caller holds the file, as arrayBuffer() gives it
  else source = { size: statSync(pdfPath).size, body: Readable.toWeb(createReadStream(pdfPath, { highWaterMark: 64 * 1024 })) };
  const t0 = performance.now();
  const { pageCount } = await rasterisePdfPagesPng(source, {
    onPage: () => {
      globalThis.gc?.();
      peakLive = Math.max(peakLive, process.memoryUsage().rss);
      for (const [name, mem] of memories) heapPeak[name] = Math.max(heapPeak[name] ?? 0, mem.buffer.byteLength);
    },
  });
  const ms = performance.now() - t0;
  const maxRss = process.resourceUsage().maxRSS * 1024;
  console.log(`${mode.padEnd(6)}: ${pageCount} pages in ${(ms / 1000).toFixed(1)} s; RSS before ${mb(base)} MiB, live peak while drawing (after GC) ${mb(peakLive)} MiB (+${mb(peakLive - base)}), process peak ${mb(maxRss)} MiB (+${mb(maxRss - base)}); WASM heaps ${Object.entries(heapPeak).map(([k, v]) => `${k} ${mb(v)} MiB`).join(', ')}`);
  void source;
}

async function makePdf() {
  const { PDFDocument } = await import(pathToFileURL(path.join(root, 'node_modules/pdf-lib/cjs/index.js')).href);
  const doc = await PDFDocument.create();
  for (let i = 0; i < PAGES; i++) {
    const jpg = path.join(dir, `noise${i % 6}.jpg`);
    if (!existsSync(jpg)) execFileSync('convert', ['-size', '2400x2400', 'xc:gray', '-seed', String(i), '+noise', 'Random', '-quality', '92', jpg]);
    const img = await doc.embedJpg(readFileSync(jpg));
    doc.addPage([595, 842]).drawImage(img, { x: 20, y: 20, width: 555, height: 555 });
  }
  writeFileSync(pdfPath, await doc.save());
}
