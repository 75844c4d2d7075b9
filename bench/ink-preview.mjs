// Cost of a CMYK template's preview composited in ink (docs/colour.md, "CMYK previews composited
// in ink"), first and repeated, against the same document in RGB, in one Node process: the engine
// bundled with bundleForNode (as bench/personalised-cpu.mjs does) with a directory store
// (bench/memory-entry.ts).
//
//   node --expose-gc bench/ink-preview.mjs [tree] [other tree]
//
// The template: 2000 × 1500, 8 bits, four full-canvas RLE layers (ground; Multiply at 60 %; Screen
// through a mask; Overlay with a soft alpha) and a Curves and a Levels layer at 60 % above them,
// written byte by byte (bench/out/ink-2000-cmyk.psd), and the same layers as an RGB document
// (bench/out/ink-2000-rgb.psd). Each sample is a fresh engine (the bundle imported anew: empty
// caches, as a new isolate), the template compiled (the upload, not timed), then one 800 × 600
// JPEG preview (q 85, sharpened as the API's default: "first") and BENCH_REPEAT (25) more
// ("repeated", no data; their median: a warm engine, the first few run before V8 compiles them),
// then BENCH_PERSONALISED (3) with the Overlay layer hidden (every output pixel changes).
// Peak = the first preview's peak resident memory above the process's before it (VmHWM, reset
// per sample). With two trees the samples alternate (A, B, A, B, …) so both meet the same load,
// and every output's bytes are compared between them, and on the made CMYK fixtures
// (made-cmyk8, made-v-cmyk-modes, made-z-cmyk-adjust-stack: full size, ½ and ⅓, JPEG and PNG)
// too. BENCH_RUNS samples (default 5).
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { bundleForNode } from './lib.mjs';

const here = path.resolve(import.meta.dirname, '..');
const trees = [path.resolve(process.argv[2] ?? here), ...(process.argv[3] ? [path.resolve(process.argv[3])] : [])];
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 25);
const PERSONALISED = Number(process.env.BENCH_PERSONALISED ?? 3);
const W = 2000;
const H = 1500;
const SHARPEN = { amount: 1.2, radius: 0.5, threshold: 0.05 };

const u16 = (v) => [(v >>> 8) & 255, v & 255];
const u32 = (v) => [(v >>> 24) & 255, (v >>> 16) & 255, (v >>> 8) & 255, v & 255];
const ascii = (s) => [...s].map((c) => c.charCodeAt(0));
const block = (key, data) => [...ascii(`8BIM${key}`), ...u32(data.length), ...data];

/** An RLE channel: rows of runs of 128 px, value f(run, y). */
function rle(f) {
  const counts = [];
  const rows = [];
  for (let y = 0; y < H; y++) {
    const row = [];
    for (let x = 0, r = 0; x < W; x += 128, r++) row.push((257 - Math.min(128, W - x)) & 255, f(r, y) & 255);
    counts.push(...u16(row.length));
    rows.push(...row);
  }
  return [...u16(1), ...counts, ...rows];
}

/** The document in `mode` (4 CMYK, 3 RGB): its colour channels are the first 4 or 3 of each layer's. */
function psd(mode) {
  const colours = mode === 4 ? 4 : 3;
  const pts = (p) => [...u16(p.length), ...p.flatMap(([i, o]) => [...u16(o), ...u16(i)])];
  const levels = [[20, 235, 0, 255, 1.3], [0, 255, 30, 255, 1]];
  const layers = [
    { name: 'ground', mode: 'norm', op: 255, f: (c) => (r, y) => 40 + c * 40 + r * 5 + (y >> 4) },
    { name: 'mul', mode: 'mul ', op: 153, f: (c) => (r, y) => 200 - c * 30 + (y >> 5) },
    { name: 'scr', mode: 'scrn', op: 255, f: (c) => (r) => 90 + r * 3 + c * 10, mask: (r) => (r % 2 ? 64 : 255) },
    { name: 'ovr', mode: 'over', op: 255, f: (c) => (r) => 120 + c * 20 - r, alpha: (r, y) => ((y * 255) / H) | 0 },
    { name: 'curves', mode: 'norm', op: 255, blocks: block('curv', [0, ...u16(1), ...u32(1), ...pts([[0, 0], [90, 70], [190, 215], [255, 255]])]) },
    { name: 'levels', mode: 'norm', op: 153, blocks: block('levl', [...u16(2), ...[...levels, ...Array(27).fill([0, 255, 0, 255, 1])].flatMap(([a, b, c, d, g]) => [...u16(a), ...u16(b), ...u16(c), ...u16(d), ...u16(Math.round(g * 100))])]) },
  ];
  const recs = layers.map((l) => {
    const rect = l.f ? [0, 0, H, W] : [0, 0, 0, 0];
    const chans = l.f
      ? [Array.from({ length: colours }, (_, c) => [c, rle(l.f(c))]), [[-1, rle(l.alpha ?? (() => 255))]], l.mask ? [[-2, rle(l.mask)]] : []].flat()
      : [...Array.from({ length: colours }, (_, c) => [c, u16(0)]), [-1, u16(0)]];
    const head = [...rect.flatMap(u32), ...u16(chans.length), ...chans.flatMap(([id, d]) => [...u16(id & 0xffff), ...u32(d.length)])];
    const name = ascii(l.name);
    const mask = l.mask ? [...u32(20), ...[0, 0, H, W].flatMap(u32), 0, 0, 0, 0] : u32(0);
    const extra = [...mask, ...u32(0), name.length, ...name, ...Array((4 - ((1 + name.length) % 4)) % 4).fill(0), ...(l.blocks ?? [])];
    head.push(...ascii('8BIM'), ...ascii(l.mode), l.op, 0, 0, 0, ...u32(extra.length), ...extra);
    return { head, data: chans.flatMap(([, d]) => d) };
  });
  const info = [...u16(recs.length), ...recs.flatMap((r) => r.head), ...recs.flatMap((r) => r.data)];
  while (info.length % 4) info.push(0);
  const section = [...u32(info.length), ...info, ...u32(0)];
  const mergedRow = [];
  for (let x = 0; x < W; x += 128) mergedRow.push((257 - Math.min(128, W - x)) & 255, 128);
  const merged = [...u16(1), ...Array(colours * H).fill(u16(mergedRow.length)).flat(), ...Array(colours * H).fill(mergedRow).flat()];
  const header = [...ascii('8BPS'), ...u16(1), 0, 0, 0, 0, 0, 0, ...u16(colours), ...u32(H), ...u32(W), ...u16(8), ...u16(mode)];
  return Uint8Array.from([...header, ...u32(0), ...u32(0), ...u32(section.length), ...section, ...merged]);
}

/** A field of /proc/self/status in bytes. */
const status = (field) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync('/proc/self/status', 'utf8'))[1]) * 1024;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const sha = (b) => createHash('sha256').update(b).digest('hex').slice(0, 16);

async function main() {
  const dir = path.join(tmpdir(), `ink-preview-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  mkdirSync(path.join(here, 'bench/out'), { recursive: true });
  const docs = { cmyk: path.join(here, 'bench/out/ink-2000-cmyk.psd'), rgb: path.join(here, 'bench/out/ink-2000-rgb.psd') };
  if (!existsSync(docs.cmyk)) writeFileSync(docs.cmyk, psd(4));
  if (!existsSync(docs.rgb)) writeFileSync(docs.rgb, psd(3));
  const bundles = [];
  for (const [i, tree] of trees.entries()) {
    const bundle = path.join(dir, `engine-${i}.mjs`);
    await bundleForNode(tree, { contents: ["export * from './bench/memory-entry';", "export { preparePreview } from './src/engine/preview';", "export { UrlImages } from './src/engine/inputs';"].join('\n') }, bundle);
    bundles.push(bundle);
  }
  const fonts = [path.join(here, 'assets/fonts/LiberationSans-Regular.ttf')];
  let fresh = 0;
  /** A fresh engine (new module state) with the template `file` compiled and stored as t.psd. */
  const engine = async (k, file) => {
    const e = await import(`${pathToFileURL(bundles[k]).href}?${fresh++}`);
    const store = e.dirStore(path.join(dir, `store-${fresh}`), fonts);
    const bytes = new Uint8Array(readFileSync(file));
    const compiled = await e.compileTemplate(store.bucket, bytes);
    await store.put('templates', 't.psd', bytes, { meta: { compiled: compiled.hash, engine: e.ENGINE_VERSION } });
    return { e, store };
  };
  const preview = async ({ e, store }, options) => {
    const prepared = await e.preparePreview(store, { template: 't.psd', format: 'jpg', jpegQuality: 85, unsharpMask: SHARPEN, ...options }, { urlImages: new e.UrlImages(async () => { throw new Error('no URL images'); }) });
    return (await prepared.render()).bytes;
  };

  const hashes = new Map(); // case → tree → set of output hashes
  const note = (kase, k, bytes) => {
    const byTree = hashes.get(kase) ?? hashes.set(kase, trees.map(() => new Set())).get(kase);
    byTree[k].add(sha(bytes));
  };
  const rows = [];
  for (const [doc, file] of Object.entries(docs)) {
    const samples = trees.map(() => ({ first: [], firstCpu: [], repeated: [], personalised: [], peak: [] }));
    for (let run = 0; run < RUNS; run++) {
      for (let k = 0; k < trees.length; k++) {
        const eng = await engine(k, file);
        // Peak resident memory of the process above its start (VmHWM, reset through clear_refs):
        // everything the request holds at once (JS heap, ArrayBuffers, WASM memory), garbage not yet collected too.
        globalThis.gc?.();
        const rss0 = status('VmRSS');
        writeFileSync('/proc/self/clear_refs', '5');
        const size = { width: 800, height: 600 };
        let t = performance.now();
        const cpu0 = process.cpuUsage();
        note(`${doc} first`, k, await preview(eng, { size }));
        samples[k].first.push(performance.now() - t);
        const cpu = process.cpuUsage(cpu0);
        samples[k].firstCpu.push((cpu.user + cpu.system) / 1000);
        const peak = status('VmHWM') - rss0;
        const repeated = [];
        for (let i = 0; i < REPEAT; i++) {
          t = performance.now();
          note(`${doc} repeated`, k, await preview(eng, { size }));
          repeated.push(performance.now() - t);
        }
        samples[k].repeated.push(median(repeated));
        // Personalised: the Overlay layer hidden (every output pixel changes: the whole canvas redrawn over the kept frame).
        const personalised = [];
        for (let i = 0; i < PERSONALISED; i++) {
          t = performance.now();
          note(`${doc} personalised`, k, await preview(eng, { size, data: { ovr: { visible: false } } }));
          personalised.push(performance.now() - t);
        }
        samples[k].personalised.push(median(personalised));
        samples[k].peak.push(peak / 1048576);
      }
    }
    for (const [k, s] of samples.entries()) {
      rows.push(`${doc} 2000×1500 → 800×600 JPEG [${trees[k]}]: first p50 ${median(s.first).toFixed(0)} ms wall (${s.first.map((v) => v.toFixed(0)).join(' ')}), ${median(s.firstCpu).toFixed(0)} ms CPU, repeated p50 ${median(s.repeated).toFixed(2)} ms, personalised (Overlay hidden) p50 ${median(s.personalised).toFixed(0)} ms, peak p50 ${median(s.peak).toFixed(1)} MB (${s.peak.map((v) => v.toFixed(1)).join(' ')})`);
    }
  }
  // The output's bytes on the made CMYK fixtures, each size and format.
  const made = ['made-cmyk8.psd', 'made-v-cmyk-modes.psd', 'made-z-cmyk-adjust-stack.psd'].map((f) => path.join(here, 'test/fixtures/psd-made', f));
  for (const file of [...made, docs.cmyk]) {
    for (let k = 0; k < trees.length; k++) {
      const eng = await engine(k, file);
      const { width, height } = (await eng.e.resolveTemplate(eng.store, 't.psd')).compiled;
      for (const format of ['jpg', 'png']) {
        for (const size of [{ width, height }, { width: Math.ceil(width / 2), height: Math.ceil(height / 2) }, { width: Math.ceil(width / 3), height: Math.ceil(height / 3) }]) {
          if (width * height > 1e6 && size.width === width) continue; // the 2000 × 1500 at full size: done above shrunk
          for (let i = 0; i < 2; i++) note(`${path.basename(file)} ${format} ${size.width}×${size.height}`, k, await preview(eng, { size, format }));
        }
      }
    }
  }
  rmSync(dir, { recursive: true, force: true });
  for (const r of rows) console.log(r);
  let same = 0;
  for (const [kase, byTree] of hashes) {
    const first = [...byTree[0]].join(',');
    if (byTree.some((s) => [...s].join(',') !== first) || byTree[0].size !== 1) console.log(`BYTES DIFFER or vary: ${kase}: ${byTree.map((s) => [...s].join(',')).join(' | ')}`);
    else same++;
  }
  console.log(`${same} of ${hashes.size} cases: the same bytes every time${trees.length > 1 ? ' in every tree' : ''}`);
  console.log(`${new Date().toISOString()} · ${trees.join(', ')} · load ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
}

await main();
