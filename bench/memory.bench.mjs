// Peak memory per request (issue 25 §1): a deployed Worker isolate has 128 MB, local workerd has
// no limit, so this measures in Node's V8 instead: the engine bundled with bundleForNode (.wasm
// as WebAssembly.Module, as the Worker gets it), an InputStore kept in a directory
// (bench/memory-entry.ts), one fresh process per request. Each template is compiled first in a
// process of its own (the upload), so a request process starts from the compiled form in the
// bucket, as a request does.
//
// Per request it reports the process's peak RSS above the baseline taken after loading the
// bundle (VmHWM, reset then: everything the request made resident), and the parts, sampled every
// millisecond between awaits: V8's JS heap, ArrayBuffers (typed arrays: frames, layer buffers,
// codec output) and every WASM instance's linear memory (which never shrinks, so its last size is
// its peak). Budget: 96 MB of the isolate's 128 MB.
//
//   node bench/memory.bench.mjs [case...]      (or through `npm run bench memory`)
//   MEMORY_BENCH_CPU=1 node bench/memory.bench.mjs pdf-10000   (CPU time without the forced GCs; no live figure)
// Cases: preview-10000 (10,000² template, one ZIP layer → 5,000² JPEG), pdf-10000 (the same →
// print PDF into a counting sink), personalised-8000 (bench-8000.psd, Title text + Photo → 800²),
// photo-12mp (bench-4000.psd with a 12 MP JPEG in Photo → 800²), upload-10000 (the upload itself:
// big-10000.psd read and compiled into an empty bucket).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { bundleForNode } from './lib.mjs';

const root = path.resolve(import.meta.dirname, '..');
const out = path.join(root, 'bench/out');
// Children inherit it: the test (test/memory/peak.test.ts) measures in a directory of its own.
const dir = process.env.MEMORY_BENCH_DIR ?? path.join(os.tmpdir(), 'memory-bench');
const bundle = path.join(dir, 'engine.mjs');
const BUDGET_MB = 96;
const fonts = ['LiberationSans-Regular.ttf', 'LiberationSans-Bold.ttf', 'DejaVuSans.ttf'].map((f) => path.join(root, 'assets/fonts', f));

/** A preview case: `template` at `size` with `data` (and the stored images it names). */
const previewCase = (template, size, data, images = [], more = {}) => ({ template, images, run: (e, store) => e.preview(store, { template, size, data, ...more }) });
const photo = (image) => ({ type: 'image', image, resizeMode: 'fill' });

const CASES = {
  'preview-10000': previewCase('big-10000.psd', { width: 5000, height: 5000 }),
  'pdf-10000': { template: 'big-10000.psd', run: (e, store) => e.printPdf(store, { template: 'big-10000.psd' }) },
  'personalised-8000': previewCase(
    'bench-8000.psd',
    { width: 800, height: 800 },
    { Title: { type: 'text', text: 'Jonathan Livingstone-Smith' }, Photo: photo('bench-photo.jpg') },
    ['bench-photo.jpg'],
  ),
  'photo-12mp': previewCase('bench-4000.psd', { width: 800, height: 800 }, { Photo: photo('bench-photo-12mp.jpg') }, ['bench-photo-12mp.jpg']),
  // The upload: the 10,000² PSD read (as the request body is) and compiled into an empty bucket.
  'upload-10000': { compile: 'big-10000.psd', run: (e, store) => compileCase(e, store, 'big-10000.psd') },
};

/** Compiles bench/out/`file` into the store's bucket; the number of keys written. */
async function compileCase(e, store, file) {
  await e.compileTemplate(store.bucket, new Uint8Array(readFileSync(path.join(out, file))));
  return (await store.bucket.list()).objects.length;
}

/**
 * Cases run only when named (the budget's model, docs/memory.md): the same template → 5,000² PNG,
 * → 2,500² JPEG (a 2,500 px wide canvas), a 10,000 × 2,500 template at full size (a canvas
 * 10,000 px wide, no resize), and 2,000² JPEG and PNG (frames held whole).
 */
const EXTRA_CASES = {
  'png-10000': previewCase('big-10000.psd', { width: 5000, height: 5000 }, undefined, [], { format: 'png' }),
  // The 5,000² previews as the API asks for them (workerd-memory's jpeg-5000 / png-5000): with the default unsharp mask.
  'route-jpeg-10000': previewCase('big-10000.psd', { width: 5000, height: 5000 }, undefined, [], { unsharpMask: { amount: 1.2, radius: 0.5, threshold: 0.05 } }),
  'route-png-10000': previewCase('big-10000.psd', { width: 5000, height: 5000 }, undefined, [], { format: 'png', unsharpMask: { amount: 1.2, radius: 0.5, threshold: 0.05 } }),
  'preview-10000-2500': previewCase('big-10000.psd', { width: 2500, height: 2500 }),
  // bench-8000.psd → 5,000² (scale 0.625: level 0 resampled, not read at the level's grid as the
  // 10,000² one is): JPEG and PNG.
  'preview-8000': previewCase('bench-8000.psd', { width: 5000, height: 5000 }),
  'png-8000': previewCase('bench-8000.psd', { width: 5000, height: 5000 }, undefined, [], { format: 'png' }),
  'wide-10000': previewCase('wide-10000.psd', { width: 10000, height: 2500 }),
  // 10,000 × 400 at full size: a held 16 MB frame drawn from a 10,000 px wide canvas.
  'wide-held-10000': previewCase('wide-400.psd', { width: 10000, height: 400 }),
  // The 10,000² template at full size (100 MP: refused with a 400 while MAX_OUTPUT_PIXELS is 25 MP).
  'full-10000': previewCase('big-10000.psd', { width: 10000, height: 10000 }),
  // Frames of 16 MB (2,000²), held whole and coded at once.
  'held-10000-2000': previewCase('big-10000.psd', { width: 2000, height: 2000 }),
  'held-png-10000-2000': previewCase('big-10000.psd', { width: 2000, height: 2000 }, undefined, [], { format: 'png' }),
  // This session's render paths at 10,000² (fx-10000.psd, makeFx): effects (wide stroke, gradient
  // glow, satin, shadow) on large layers, one past the canvas, a feathered mask, a gradient fill
  // without pixels, Hue/Saturation, Curves, Levels and Exposure over the whole canvas.
  'fx-preview-10000': previewCase('fx-10000.psd', { width: 5000, height: 5000 }),
  // The same at 2,500² (from the 0.25 level: effects at a quarter of their size): the memory test's case.
  'fx-preview-10000-2500': previewCase('fx-10000.psd', { width: 2500, height: 2500 }),
  'fx-pdf-10000': { template: 'fx-10000.psd', run: (e, store) => e.printPdf(store, { template: 'fx-10000.psd' }) },
  // The same at full size as a preview: 5,000² (fx-5000.psd), effects drawn at scale 1.
  'fx-full-5000': previewCase('fx-5000.psd', { width: 5000, height: 5000 }),
  'fx-pdf-5000': { template: 'fx-5000.psd', run: (e, store) => e.printPdf(store, { template: 'fx-5000.psd' }) },
  // The 5,000² preview in an isolate that served other requests first (`after`, in the same
  // process and inside the measurement): the engine's caches hold what those left.
  'cached-preview-10000': { ...previewCase('big-10000.psd', { width: 5000, height: 5000 }), after: ['personalised-8000', 'photo-12mp', 'held-10000-2000'] },
};
const caseOf = (name) => CASES[name] ?? EXTRA_CASES[name];

const mb = (n) => n / 1048576;

/** bench/out/big-10000.psd (and wide-10000.psd, 10,000 × 2,500): one layer, ZIP-compressed (smooth, so the file stays small). */
async function makeBig(name = 'big-10000.psd', W = 10000, H = 10000) {
  const file = path.join(out, name);
  if (existsSync(file)) return;
  const { writePsdBuffer } = await import('ag-psd');
  const S = 10000;
  const data = new Uint8ClampedArray(W * H * 4);
  for (let y = 0, i = 0; y < H; y++) {
    for (let x = 0; x < W; x++, i += 4) {
      data[i] = (x * 255) / S;
      data[i + 1] = (y * 255) / S;
      data[i + 2] = ((x + y) * 127) / S;
      data[i + 3] = 255;
    }
  }
  const image = { width: W, height: H, data };
  const psd = { width: W, height: H, children: [{ name: 'Gradient', left: 0, top: 0, imageData: image }], imageData: image };
  writeFileSync(file, writePsdBuffer(psd, { generateThumbnail: false, compress: true }));
}

/**
 * bench/out/fx-10000.psd (or fx-5000.psd at half the size, `k` = 0.5): the render paths of
 * session 11 on large layers, deterministic, ZIP-compressed and smooth so the file stays small.
 * - Ground: a gradient fill layer stored without pixels (drawn from its settings, gradient-fill.ts);
 * - Card: a 6,000² pixel layer (a smooth ramp, a soft round hole) with a 250 px gradient stroke
 *   outside (the chamfer distance), a 250 px outer glow filled with a gradient, a 250 px inner
 *   glow, satin (250 px, 250 px away), a drop shadow 250 px wide 3,000 px away, and a pixel mask
 *   feathered by 250 px whose rectangle covers a third of it (hiding what lies beyond it);
 * - Off: a solid-colour shape without pixels whose path runs 3,000 px past the canvas's left and
 *   top, with a drop shadow and satin reaching back in (effects.ts pastCanvas);
 * - Hue/Saturation (master and reds), Curves, Levels and Exposure over the whole canvas.
 */
async function makeFx(name = 'fx-10000.psd', k = 1) {
  const file = path.join(out, name);
  if (existsSync(file)) return;
  const { writePsdBuffer } = await import('ag-psd');
  const W = 10000 * k;
  const n = (v) => Math.round(v * k);
  const px = (value) => ({ units: 'Pixels', value: n(value) });
  const stops = (a, b) => ({
    name: 'g',
    type: 'solid',
    smoothness: 1,
    colorStops: [{ color: a, location: 0, midpoint: 0.5 }, { color: b, location: 1, midpoint: 0.5 }],
    opacityStops: [{ opacity: 1, location: 0, midpoint: 0.5 }, { opacity: 1, location: 1, midpoint: 0.5 }],
  });
  const C = n(6000);
  const data = new Uint8ClampedArray(C * C * 4);
  for (let y = 0, i = 0; y < C; y++) {
    for (let x = 0; x < C; x++, i += 4) {
      data[i] = 60 + (x * 180) / C;
      data[i + 1] = 200 - (y * 150) / C;
      data[i + 2] = 90 + ((x + y) * 60) / C;
      const d = Math.hypot(x - C / 2, y - C / 2) / (C / 6);
      data[i + 3] = d < 1 ? 0 : d < 1.1 ? ((d - 1) / 0.1) * 255 : 255;
    }
  }
  const M = n(2000);
  const mask = new Uint8ClampedArray(M * M * 4).fill(255);
  const closed = (pts) => ({ open: false, operation: 'combine', fillRule: 'even-odd', knots: pts.map(([x, y]) => ({ linked: true, points: [x, y, x, y, x, y] })) });
  const psd = {
    width: W,
    height: W,
    children: [
      { name: 'Ground', left: 0, top: 0, right: 0, bottom: 0, vectorFill: { ...stops({ r: 250, g: 240, b: 220 }, { r: 40, g: 60, b: 120 }), style: 'linear', angle: 30, scale: 1, align: true } },
      {
        name: 'Card',
        left: n(2000),
        top: n(2000),
        imageData: { width: C, height: C, data },
        mask: { left: n(3000), top: n(3000), imageData: { width: M, height: M, data: mask }, defaultColor: 0, userMaskFeather: n(250) },
        effects: {
          stroke: [{ enabled: true, present: true, size: px(250), position: 'outside', fillType: 'gradient', blendMode: 'normal', opacity: 1, gradient: { ...stops({ r: 255, g: 0, b: 0 }, { r: 0, g: 0, b: 255 }), style: 'linear', angle: 90, scale: 1 } }],
          outerGlow: { enabled: true, present: true, blendMode: 'screen', opacity: 0.8, size: px(250), technique: 'softer', choke: px(0), range: 0.5, noise: 0, gradient: stops({ r: 255, g: 255, b: 0 }, { r: 255, g: 0, b: 255 }) },
          innerGlow: { enabled: true, present: true, blendMode: 'multiply', opacity: 0.6, color: { r: 0, g: 80, b: 0 }, size: px(250), technique: 'precise', choke: px(0), range: 0.5, source: 'edge' },
          satin: { enabled: true, present: true, blendMode: 'multiply', opacity: 0.5, color: { r: 20, g: 20, b: 60 }, size: px(250), distance: px(250), angle: 19, invert: false, antialiased: true },
          dropShadow: [{ enabled: true, present: true, blendMode: 'multiply', opacity: 0.7, color: { r: 0, g: 0, b: 0 }, size: px(250), distance: px(3000), angle: -45, useGlobalLight: false, choke: px(0) }],
        },
      },
      {
        name: 'Off',
        left: 0,
        top: 0,
        right: 0,
        bottom: 0,
        vectorFill: { type: 'color', color: { r: 200, g: 30, b: 30 } },
        vectorMask: { paths: [closed([[-n(3000), -n(3000)], [n(2500), -n(3000)], [n(2500), n(1500)], [-n(3000), n(1500)]])] },
        effects: {
          dropShadow: [{ enabled: true, present: true, blendMode: 'multiply', opacity: 0.8, color: { r: 0, g: 0, b: 40 }, size: px(250), distance: px(2000), angle: -60, useGlobalLight: false, choke: px(0) }],
          satin: { enabled: true, present: true, blendMode: 'multiply', opacity: 0.5, color: { r: 0, g: 0, b: 0 }, size: px(200), distance: px(900), angle: 45, invert: true, antialiased: true },
        },
      },
      { name: 'Hue', adjustment: { type: 'hue/saturation', colorize: false, master: { hue: 20, saturation: 30, lightness: -10 }, reds: { a: 315, b: 345, c: 15, d: 45, hue: -30, saturation: 20, lightness: 10 } } },
      { name: 'Curves', adjustment: { type: 'curves', rgb: [{ input: 0, output: 10 }, { input: 128, output: 150 }, { input: 255, output: 245 }] } },
      { name: 'Levels', adjustment: { type: 'levels', rgb: { shadowInput: 10, highlightInput: 240, shadowOutput: 0, highlightOutput: 255, midtoneInput: 1.2 } } },
      { name: 'Exposure', adjustment: { type: 'exposure', exposure: 0.3, offset: 0.01, gamma: 0.9 } },
    ],
  };
  writeFileSync(file, writePsdBuffer(psd, { generateThumbnail: false, compress: true }));
}

/**
 * Measures the cases named (all of CASES when none; EXTRA_CASES only by name), each request in a
 * fresh process: per case its figures (MB) or the child's output when it failed.
 */
export async function measureMemory(only = []) {
  mkdirSync(dir, { recursive: true });
  // A fresh clone has no built kernels until a build ran (wrangler's, or this).
  if (!existsSync(path.join(root, 'wasm/build/kernels.wasm'))) execFileSync(process.execPath, [path.join(root, 'scripts/build/10-wasm.mjs')], { stdio: 'inherit' });
  await bundleForNode(root, path.join(root, 'bench/memory-entry.ts'), bundle);
  if (!existsSync(path.join(out, 'bench-8000.psd')) || !existsSync(path.join(out, 'bench-photo-12mp.jpg'))) {
    execFileSync(process.execPath, [path.join(root, 'scripts/make-bench-templates.mjs')], { stdio: 'inherit' });
  }
  await makeBig();
  if (only.includes('wide-10000')) await makeBig('wide-10000.psd', 10000, 2500);
  if (only.includes('wide-held-10000')) await makeBig('wide-400.psd', 10000, 400);
  if (only.some((o) => o.startsWith('fx-') && o.includes('10000')) || only.length === 0) await makeFx();
  if (only.some((o) => o.startsWith('fx-') && o.includes('5000') && !o.includes('10000'))) await makeFx('fx-5000.psd', 0.5);
  rmSync(path.join(dir, 'store'), { recursive: true, force: true }); // uploads anew: uploaded-keys.json lists what they leave
  const names = [...Object.keys(CASES).filter((c) => only.length === 0 || only.some((o) => c.includes(o))), ...only.filter((o) => EXTRA_CASES[o])];
  const results = [];
  for (const name of names) {
    const r = spawnSync(process.execPath, ['--expose-gc', import.meta.filename, 'child', name], { encoding: 'utf8', maxBuffer: 1 << 24 });
    if (r.status !== 0) results.push({ name, failed: r.stdout + r.stderr });
    else results.push({ name, ...JSON.parse(r.stdout.trim().split('\n').pop()) });
  }
  return results;
}

async function parent(only) {
  const rows = [];
  for (const m of await measureMemory(only)) {
    const name = m.name;
    if (m.failed) {
      process.stderr.write(m.failed);
      rows.push({ bench: `memory ${name}`, metric: 'peak per request', value: 'failed', unit: '', target: `≤ ${BUDGET_MB}` });
      continue;
    }
    process.stderr.write(
      `${name}: peak RSS +${m.rss.toFixed(1)} MB; live after GC (JS heap + ArrayBuffers) ${m.live.toFixed(1)} MB; parts (sampled peaks) heap ${m.heap.toFixed(1)}, ArrayBuffers ${m.arrayBuffers.toFixed(1)}, ` +
        `WASM ${m.wasm.toFixed(1)} (${Object.entries(m.wasmParts).map(([k, v]) => `${k} ${v.toFixed(1)}`).join(', ')}); ${m.held === undefined ? '' : `held by the caches before it ${m.held.toFixed(1)} MB; `}${m.ms.toFixed(0)} ms (CPU ${m.cpuMs.toFixed(0)} ms${process.env.MEMORY_BENCH_CPU ? '' : ', forced GCs included'}); ${m.bytes} output bytes${m.sha256 ? ` (sha-256 ${m.sha256.slice(0, 16)})` : ''}\n` +
        (m.peakArrays ? `  arrays live at the peak (MB): ${JSON.stringify(m.peakArrays)}\n` : '') +
        (m.madeArrays ? `  arrays made in all (MB): ${JSON.stringify(m.madeArrays)}\n` : ''),
    );
    rows.push({ bench: `memory ${name}`, metric: 'peak RSS per request', value: m.rss, unit: 'MB', target: `≤ ${BUDGET_MB}` });
    rows.push({ bench: `memory ${name}`, metric: 'live after GC + WASM', value: m.live + m.wasm, unit: 'MB', target: `≤ ${BUDGET_MB}` });
    rows.push({ bench: `memory ${name}`, metric: 'JS heap / ArrayBuffers / WASM', value: `${m.heap.toFixed(1)} / ${m.arrayBuffers.toFixed(1)} / ${m.wasm.toFixed(1)}`, unit: 'MB' });
  }
  return rows;
}

/** The child: compile the case's template unless the store has it (own process), or run the case. */
async function child(name) {
  const c = caseOf(name);
  const storeDir = path.join(dir, 'store');
  // WASM memories by the module's first export name (a hint which library it is).
  const memories = new Map();
  const remember = (module, instance) => {
    const mem = Object.values(instance.exports).find((e) => e instanceof WebAssembly.Memory);
    if (!mem) return;
    const names = WebAssembly.Module.exports(module).map((e) => e.name);
    const label = names.find((n) => /^(FPDF|jpeg|png|tj|webp|hb_|lcms|cms|ag_|wasm_|encode|decode)/i.test(n)) ?? names[0] ?? 'wasm';
    memories.set(mem, `${label}#${memories.size}`);
  };
  const instantiate = WebAssembly.instantiate;
  WebAssembly.instantiate = async (m, imports) => {
    const r = await instantiate(m, imports);
    if (r instanceof WebAssembly.Instance) remember(m, r);
    else remember(r.module, r.instance);
    return r;
  };
  const Instance = WebAssembly.Instance;
  WebAssembly.Instance = function (m, imports) {
    const i = new Instance(m, imports);
    remember(m, i);
    return i;
  };
  WebAssembly.Instance.prototype = Instance.prototype;

  if (process.env.MEMORY_BENCH_TRACE) traceArrays();
  const e = await import(pathToFileURL(bundle).href);
  if (c?.compile) {
    // An upload case compiles into a bucket of its own, empty (compiling is idempotent by hash).
    const compileDir = path.join(dir, 'compile-store');
    rmSync(compileDir, { recursive: true, force: true });
    return child2(name, e, e.dirStore(compileDir, fonts), memories);
  }
  const store = e.dirStore(storeDir, fonts);
  if (name === 'compile') return;
  let uploaded = false;
  for (const n of [...(c.after ?? []), name]) {
    const head = await store.head('templates', caseOf(n).template);
    if (head && head.meta.engine === e.ENGINE_VERSION) continue;
    // Upload: store the file and its compiled form (in its own process: not this request's memory).
    const r = spawnSync(process.execPath, [import.meta.filename, 'upload', n], { encoding: 'utf8', stdio: ['ignore', 'ignore', 'inherit'] });
    if (r.status !== 0) throw new Error(`upload of ${caseOf(n).template} failed`);
    uploaded = true;
  }
  return child2(name, e, uploaded ? e.dirStore(storeDir, fonts) : store, memories);
}

/**
 * MEMORY_BENCH_TRACE=1: typed arrays of 1 MB and more are made through subclasses that remember
 * their size (until a FinalizationRegistry sees the buffer go) and where they were made (three frames of the bundle's stack), so that
 * the live sampler can say, at the request's peak, which allocations held it (`peakArrays`: MB by
 * place, after the forced GC). Costs a stack trace per large array; off by default.
 */
const traced = new Map();
/** MB of traced arrays made in all, by place (garbage included: what workerd holds until it collects). */
const made = {};
const seen = new WeakSet();
const gone = new FinalizationRegistry((id) => traced.delete(id));
let tracedIds = 0;
function traceArrays() {
  Error.stackTraceLimit = 12;
  for (const T of [Float32Array, Float64Array, Uint8ClampedArray, Uint8Array, Int32Array, Uint16Array, Uint32Array]) {
    const Traced = class extends T {
      constructor(...args) {
        super(...args);
        const buffer = this.buffer;
        if (buffer.byteLength >= 1 << 20 && !(buffer instanceof SharedArrayBuffer) && !seen.has(buffer)) {
          seen.add(buffer);
          const frames = (new Error().stack ?? '').split('\n').slice(2).filter((l) => l.includes('engine.mjs'));
          const where = frames.slice(0, 3).map((l) => /at (?:new )?([\w$.<>]+)/.exec(l.trim())?.[1] ?? '?').join(' < ');
          const id = tracedIds++;
          traced.set(id, { mb: buffer.byteLength / 1048576, where: `${T.name} ${where}` });
          made[`${T.name} ${where}`] = (made[`${T.name} ${where}`] ?? 0) + buffer.byteLength / 1048576;
          gone.register(buffer, id);
        }
      }
    };
    Object.defineProperty(Traced, 'name', { value: T.name });
    globalThis[T.name] = Traced;
  }
}
/** MB held by the traced arrays not yet finalized, by place (after a GC). */
function liveArrays() {
  const by = {};
  for (const t of traced.values()) by[t.where] = (by[t.where] ?? 0) + t.mb;
  return Object.fromEntries(Object.entries(by).sort((a, b) => b[1] - a[1]).slice(0, 16).map(([k, v]) => [k, +v.toFixed(1)]));
}

/** MB of traced arrays made, by place, the largest 16 (MEMORY_BENCH_TRACE). */
const madeArrays = () => Object.fromEntries(Object.entries(made).sort((a, b) => b[1] - a[1]).slice(0, 16).map(([k, v]) => [k, +v.toFixed(1)]));

async function child2(name, e, store, memories) {
  const c = caseOf(name);
  // Derived data earlier requests left in the bucket (a print PDF's stored strips) goes: every
  // case is a template's first request after its upload.
  const uploaded = c.compile ? null : new Set(JSON.parse(readFileSync(path.join(dir, 'store/uploaded-keys.json'), 'utf8')));
  if (uploaded) for (const { key } of (await store.bucket.list()).objects) if (!uploaded.has(key)) await store.bucket.delete(key);
  const images = [...(c.after ?? []).flatMap((n) => caseOf(n).images ?? []), ...(c.images ?? [])];
  for (const image of images) if (!(await store.head('images', image))) await store.put('images', image, new Uint8Array(readFileSync(path.join(out, image))));
  globalThis.gc?.();
  // Linux: writing 5 to clear_refs resets the peak RSS (VmHWM) to the RSS now: loading the bundle does not count.
  writeFileSync('/proc/self/clear_refs', '5');
  const base = process.memoryUsage();
  const baseWasm = new Map([...memories.keys()].map((m) => [m, m.buffer.byteLength]));
  const peak = { heap: 0, arrayBuffers: 0, live: 0 };
  const sample = () => {
    const u = process.memoryUsage();
    peak.heap = Math.max(peak.heap, u.heapUsed - base.heapUsed);
    peak.arrayBuffers = Math.max(peak.arrayBuffers, u.arrayBuffers - base.arrayBuffers);
  };
  const timer = setInterval(sample, 1);
  // What the request holds live (garbage collected first, every 25 ms): the floor a tighter heap would reach.
  // MEMORY_BENCH_CPU=1: no forced GCs, so that the CPU time is the request's own (live is then not measured).
  const live = setInterval(() => {
    if (process.env.MEMORY_BENCH_CPU) return;
    globalThis.gc();
    const u = process.memoryUsage();
    const now = u.heapUsed - base.heapUsed + u.arrayBuffers - base.arrayBuffers;
    // Read now (the render goes on after this task): what this GC freed is finalized only after
    // it, so arrays dropped in the last 25 ms may still count.
    if (now > peak.live && process.env.MEMORY_BENCH_TRACE) peak.arrays = liveArrays();
    peak.live = Math.max(peak.live, now);
  }, 25);
  // Requests served before this one (cached-preview-10000): what they leave held counts.
  for (const n of c.after ?? []) await caseOf(n).run(e, store);
  let held;
  if (c.after) {
    globalThis.gc?.();
    const u = process.memoryUsage();
    held = mb(u.heapUsed - base.heapUsed + u.arrayBuffers - base.arrayBuffers);
  }
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const bytes = await c.run(e, store);
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  sample();
  clearInterval(timer);
  clearInterval(live);
  const wasmParts = {};
  for (const [m, label] of memories) {
    const grown = m.buffer.byteLength - (baseWasm.get(m) ?? 0);
    if (grown > 0 || !baseWasm.has(m)) wasmParts[label] = mb(m.buffer.byteLength);
  }
  const rss = mb(Number(/VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))[1]) * 1024 - base.rss);
  const result = { rss, ...(held === undefined ? {} : { held }), live: mb(peak.live), heap: mb(peak.heap), arrayBuffers: mb(peak.arrayBuffers), wasm: Object.values(wasmParts).reduce((a, b) => a + b, 0), wasmParts, ms, cpuMs: (cpu.user + cpu.system) / 1000, bytes, ...(e.outputDigest?.() && { sha256: e.outputDigest() }), ...(peak.arrays && { peakArrays: peak.arrays }), ...(process.env.MEMORY_BENCH_TRACE && { madeArrays: madeArrays() }) };
  console.log(JSON.stringify(result));
}

async function upload(name) {
  const c = caseOf(name);
  const e = await import(pathToFileURL(bundle).href);
  const store = e.dirStore(path.join(dir, 'store'), fonts);
  const bytes = new Uint8Array(readFileSync(path.join(out, c.template)));
  const compiled = await e.compileTemplate(store.bucket, bytes);
  await store.put('templates', c.template, bytes, { meta: { compiled: compiled.hash, engine: e.ENGINE_VERSION } });
  writeFileSync(path.join(dir, 'store/uploaded-keys.json'), JSON.stringify((await store.bucket.list()).objects.map((o) => o.key)));
}

export default async function memoryBench() {
  return parent([]);
}

if (process.argv[1] === import.meta.filename) {
  const [mode, name] = process.argv.slice(2);
  if (mode === 'child') await child(name);
  else if (mode === 'upload') await upload(name);
  else {
    const rows = await parent(process.argv.slice(2));
    for (const r of rows) console.log(`${r.bench.padEnd(28)} ${r.metric.padEnd(30)} ${typeof r.value === 'number' ? r.value.toFixed(1) : r.value} ${r.unit} ${r.target ?? ''}`);
    console.log(`${new Date().toISOString()} · ${os.cpus()[0]?.model} × ${os.cpus().length} · node ${process.version}`);
  }
}
