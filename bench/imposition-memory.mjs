// Time and peak memory of a 1,000-card VDP imposition (issue 22: ≤ 10 s, ≤ 100 MB): 1,000
// single-page business-card PDFs (85 × 55 mm + 3 mm bleed, text and vectors, each different),
// imposed 21-up on SRA3, cut and stack, crop marks and slug line, by src/engine/imposition
// bundled with esbuild and run in Node's V8 (workerd exposes no memory figures). The inputs are
// made first, in the parent process; the child reads them one at a time, as the task reads
// artifacts, and reports its peak RSS above the baseline after loading the bundle.
//
//   node bench/imposition-memory.mjs        (CARDS=1000 by default)
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, statSync, writeFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { bundleForNode } from './lib.mjs';

const root = path.resolve(import.meta.dirname, '..');
const CARDS = Number(process.env.CARDS ?? 1000);
const dir = path.join(os.tmpdir(), 'imposition-bench');
const cards = path.join(dir, `cards-${CARDS}`);
const bundle = path.join(dir, 'imposition.mjs');

if (process.argv[2] !== 'child') {
  mkdirSync(cards, { recursive: true });
  // The task module reaches the renderer, whose .wasm and .icc imports load as the Worker's do.
  await bundleForNode(root, path.join(root, 'bench/imposition-entry.ts'), bundle);
  if (readdirSync(cards).length < CARDS) {
    const { PDFDocument, rgb, StandardFonts } = await import('pdf-lib');
    const mm = 72 / 25.4;
    for (let i = 0; i < CARDS; i++) {
      const doc = await PDFDocument.create();
      const font = await doc.embedFont(StandardFonts.Helvetica);
      const w = 91 * mm;
      const h = 61 * mm;
      const page = doc.addPage([w, h]);
      page.setBleedBox(0, 0, w, h);
      page.setTrimBox(3 * mm, 3 * mm, 85 * mm, 55 * mm);
      page.drawRectangle({ x: 0, y: 0, width: w, height: 20 * mm, color: rgb(0.1, 0.3, 0.6) });
      page.drawCircle({ x: w - 15 * mm, y: h - 15 * mm, size: 8 * mm, color: rgb(0.9, 0.5, 0.1) });
      page.drawText(`Attendee ${String(i + 1).padStart(4, '0')}`, { x: 8 * mm, y: 35 * mm, size: 14, font });
      page.drawText(`Ticket ${(i * 7919) % 100000}`, { x: 8 * mm, y: 28 * mm, size: 9, font });
      writeFileSync(path.join(cards, `${String(i).padStart(5, '0')}.pdf`), await doc.save());
    }
  }
  // A 64 MB old space, as a Worker isolate's budget makes V8 collect: the figure is then what the
  // work holds, not garbage V8 had no reason to collect yet.
  const r = spawnSync(process.execPath, ['--expose-gc', '--max-old-space-size=64', import.meta.filename, 'child'], { encoding: 'utf8' });
  process.stdout.write(r.stdout + r.stderr);
} else {
  const { imposeFiles } = await import(pathToFileURL(bundle).href);
  globalThis.gc?.();
  const base = process.memoryUsage().rss;
  const files = readdirSync(cards).sort().map((f) => path.join(cards, f));
  let heap = 0;
  const sample = setInterval(() => (heap = Math.max(heap, process.memoryUsage().heapUsed)), 5);
  const t0 = performance.now();
  const out = await imposeFiles(files.map((f) => () => new Uint8Array(readFileSync(f))));
  const ms = performance.now() - t0;
  clearInterval(sample);
  const peak = process.resourceUsage().maxRSS * 1024;
  writeFileSync(path.join(dir, 'out.pdf'), out.bytes);
  const inputBytes = files.reduce((n, f) => n + statSync(f).size, 0);
  console.log(
    `${files.length} cards (${(inputBytes / 1048576).toFixed(1)} MiB) → ${out.sheets} sheets ${out.perSheet}-up, ` +
      `${(out.bytes.length / 1048576).toFixed(1)} MiB PDF in ${(ms / 1000).toFixed(2)} s; peak RSS ${(peak / 1048576).toFixed(0)} MiB ` +
      `(${((peak - base) / 1048576).toFixed(0)} MiB above the ${(base / 1048576).toFixed(0)} MiB baseline), peak JS heap ${(heap / 1048576).toFixed(0)} MiB`,
  );
}
