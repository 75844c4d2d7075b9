// Node CPU time per personalised preview (issue 25 §3), in one process as one warm isolate
// serves a storefront: the engine bundled with bundleForNode (as bench/memory.bench.mjs does),
// templates in a directory store (bench/memory-entry.ts), each compiled first (the upload), asked
// once (its template frame is kept), then BENCH_RUNS (default 40) times 800×800 JPEG with a new
// text (or a picture never seen before) each time, sharpened as the API's default. Reported per
// template: the median process CPU (user + system) of a request, the median of its phases (timed
// to the microsecond; a picture's decode counts in `overrides`), and the frame note (which rows
// and columns were redrawn). BENCH_ONLY=a,b picks templates by a part of their name. With two
// trees it also says in how many requests both gave the same output bytes.
//
//   node bench/personalised-cpu.mjs [tree] [other tree]   (a checkout of the project; default this one)
//
// With two trees, both engines are loaded into the one process and asked in turn, request by
// request (A, B, A, B, …): an A/B whose sides meet the same load, which on a shared machine moves
// more between runs than a change does. Each engine keeps its own caches (separate bundles).
//
// BENCH_PROFILE=file.cpuprofile writes a V8 CPU profile of the timed renders alone (not the
// bundling, compiling, warm-up, nor a picture's upload: its renditions are a 4/8 and a 2/8 decode
// and three JPEG encodes, which counted in the picture rows' profile before), for chrome://inspect
// or a summary by function. BENCH_PROFILE_INTERVAL: the sampling interval in µs (default 100; at
// 100 µs the profiler itself about doubles a request's time here, so read shares, not milliseconds).
//
// Giving another tree (e.g. `git archive` of an earlier commit with node_modules linked and
// wasm/build copied) compares two versions on the same machine and load.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensureLarge, LARGE, OUT as LARGE_DIR } from './large-templates.mjs';
import { bundleForNode } from './lib.mjs';

const here = path.resolve(import.meta.dirname, '..');
const trees = [path.resolve(process.argv[2] ?? here), ...(process.argv[3] ? [path.resolve(process.argv[3])] : [])];
const RUNS = Number(process.env.BENCH_RUNS ?? 40);
const WARMUP = 3;
// BENCH_DESCENDERS=1: every other text has descenders ("Jumpy …"), so the redrawn rows move as a shopper's typing moves them.
const DESCENDERS = process.env.BENCH_DESCENDERS === '1';

/** Templates: the five of bench/personalised.bench.mjs (what a shopper changes in each), an 8,000² one, and the large ones. */
const TEMPLATES = [
  { file: path.join(here, 'test/fixtures/psd/agpsd-text-bug-1920.psd'), layer: '3月' },
  { file: path.join(here, 'test/fixtures/psd/psdrb-example-design.psd'), layer: 'Make a change and save.' },
  { file: path.join(here, 'bench/out/bench-8000.psd'), layer: 'Title' },
  // A picture never seen before each time (bench-photo.jpg, 1600×1200, with distinct bytes appended).
  { file: path.join(here, 'test/fixtures/psd/agpsd-shapes-smart-objects.psd'), layer: 'apple', picture: true },
  // A new text with a drop shadow; the frame is the canvas (no resize, no sharpening). BENCH_LAYER
  // picks another of its texts (one per effect: 'Bevel', 'Emboss', 'Inner Glow', 'Satin', …).
  { file: path.join(here, 'test/fixtures/psd/psdtools-layer-effects-all.psd'), layer: process.env.BENCH_LAYER ?? 'Drop Shadow' },
  { file: path.join(here, 'test/fixtures/psd/webtoon-mobile-ui-example.psd'), layer: 'Text layer' },
  // Print-shop sizes (bench/large-templates.mjs): 4000×3000 mockup, 6000×4000 poster (a picture), 8000² photo.
  ...LARGE.map((t) => ({ file: path.join(LARGE_DIR, t.file), layer: t.layer, picture: t.kind === 'image', large: t.file })),
  // A never-seen picture replacing a full-canvas layer (issue 25 §3, picture-decode): placed at render scale 1/4 it
  // wants 1500×1125 of the 1600×1200 photo, more than any rendition or DCT-scaled decode gives: decoded whole.
  { file: path.join(LARGE_DIR, 'large-poster-6000x4000.psd'), layer: 'Background', picture: true, large: 'large-poster-6000x4000.psd' },
  { file: path.join(here, 'test/fixtures/psd/agpsd-text-bug-1920.psd'), layer: '背景', picture: true },
  // A never-seen picture under adjustment layers (issue 25 §3, speed-huesat): the whole frame redrawn
  // through four masked Hue/Saturations, six unmasked ones (one a colorize), four masked Curves.
  { file: path.join(here, 'test/fixtures/psd/psdtools-adjust-hue-saturation.psd'), layer: 'orion', picture: true },
  { file: path.join(here, 'test/fixtures/psd-made/made-adjust-hue-saturation.psd'), layer: 'bg', picture: true },
  { file: path.join(here, 'test/fixtures/psd/psdtools-adjust-curves.psd'), layer: 'orion', picture: true },
  // A never-seen picture into a perspective smart object (the warped placement): the demo's card on a desk.
  { file: path.join(here, 'scripts/seed/demo-templates/demo-mockup-desk.psd'), layer: 'Card', picture: true },
  // Never-seen pictures replacing the full-canvas layer under texts with effects (every effect
  // blended again over the new backdrop) and under psdrb's design.
  { file: path.join(here, 'test/fixtures/psd/psdtools-layer-effects-all.psd'), layer: 'Background', picture: true },
  { file: path.join(here, 'test/fixtures/psd/psdrb-example-design.psd'), layer: 'Matte', picture: true },
];

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** One CPU profile of several (each render's), their node ids moved apart, the time between them left out. */
function mergeProfiles(list) {
  const nodes = [];
  const samples = [];
  const timeDeltas = [];
  let offset = 0;
  for (const p of list) {
    let top = 0;
    for (const n of p.nodes) {
      nodes.push({ ...n, id: n.id + offset, ...(n.children ? { children: n.children.map((c) => c + offset) } : {}) });
      top = Math.max(top, n.id);
    }
    for (const id of p.samples) samples.push(id + offset);
    // A profile's first delta runs from the previous one's last sample (the upload between them): left out.
    timeDeltas.push(0, ...p.timeDeltas.slice(1));
    offset += top + 1;
  }
  return { nodes, startTime: list[0]?.startTime ?? 0, endTime: (list[0]?.startTime ?? 0) + timeDeltas.reduce((a, b) => a + b, 0), samples, timeDeltas };
}

async function main() {
  const dir = path.join(tmpdir(), `personalised-cpu-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  if (!existsSync(TEMPLATES[2].file) || !existsSync(path.join(here, 'bench/out/bench-photo.jpg'))) execFileSync(process.execPath, [path.join(here, 'scripts/make-bench-templates.mjs')], { stdio: 'inherit' });
  const contents = [
    "export * from './bench/memory-entry';",
    "export { preparePreview } from './src/engine/preview';",
    "export { UrlImages } from './src/engine/inputs';",
    "export { makeRenditions, renditionsMeta } from './src/engine/raster/renditions';",
    "export { sniffImage, orientedSize } from './src/engine/raster/sniff';",
  ].join('\n');
  const fonts = ['LiberationSans-Regular.ttf', 'LiberationSans-Bold.ttf', 'DejaVuSans.ttf'].map((f) => path.join(here, 'assets/fonts', f));
  // One engine per tree, each bundled apart (its own module state: caches, WASM instances) with its own store.
  const engines = [];
  for (const [i, tree] of trees.entries()) {
    const bundle = path.join(dir, `engine-${i}.mjs`);
    await bundleForNode(tree, { contents }, bundle);
    const e = await import(pathToFileURL(bundle).href);
    const store = e.dirStore(path.join(dir, `store-${i}`), fonts);
    // The font index once: dirStore reads and hashes every font file per call, where the Worker's
    // store lists metadata (src/platform/assets/engine-store.ts); ~1 ms and 1.5 MB of garbage a request.
    const fontIndex = store.fonts();
    store.fonts = () => fontIndex;
    engines.push({ tree, e, store, deps: { urlImages: new e.UrlImages(async () => { throw new Error('no URL images'); }) } });
  }
  const rows = [];
  const only = process.env.BENCH_ONLY?.split(',');
  const profiler = process.env.BENCH_PROFILE ? new Session() : null;
  const profiles = [];
  // Set while the timed requests run: each render is profiled alone (started and stopped around it).
  let profiling = false;
  if (profiler) {
    profiler.connect();
    await profiler.post('Profiler.enable');
    await profiler.post('Profiler.setSamplingInterval', { interval: Number(process.env.BENCH_PROFILE_INTERVAL ?? 100) });
  }
  const photo = readFileSync(path.join(here, 'bench/out/bench-photo.jpg'));
  for (const t of TEMPLATES.filter((t) => !only || only.some((o) => t.file.includes(o)))) {
    if (t.large) ensureLarge([t.large]);
    const name = path.basename(t.file);
    const bytes = new Uint8Array(readFileSync(t.file));
    const requests = [];
    for (const { e, store, deps } of engines) {
      const compiled = await e.compileTemplate(store.bucket, bytes);
      await store.put('templates', name, bytes, { meta: { compiled: compiled.hash, engine: e.ENGINE_VERSION } });
      requests.push(async (text) => {
        if (t.picture) {
          // As an upload stores it (src/dynamic-image/kinds.ts): its displayed size and renditions.
          const bytes = new Uint8Array(Buffer.concat([photo, Buffer.from(text)]));
          const sniffed = e.sniffImage(bytes);
          const { width, height } = e.orientedSize(sniffed);
          const { scales } = await e.makeRenditions(store.bucket, createHash('sha256').update(bytes).digest('hex'), bytes, sniffed);
          await store.put('images', text, bytes, { meta: { width: String(width), height: String(height), ...(scales.length ? { renditions: e.renditionsMeta(scales) } : {}) } });
        }
        const command = t.picture ? { type: 'image', image: text, resizeMode: 'fill' } : { type: 'text', text };
        const prepared = await e.preparePreview(store, { template: name, format: 'jpg', jpegQuality: 85, unsharpMask: { amount: 1.2, radius: 0.5, threshold: 0.05 }, size: { width: 800, height: 800 }, data: { [t.layer]: command } }, deps);
        // Phases timed to the microsecond (Server-Timing rounds them to whole milliseconds).
        const phases = {};
        let note = '';
        const timing = {
          time: async (name, fn) => {
            const t0 = performance.now();
            try {
              return await fn();
            } finally {
              phases[name] = (phases[name] ?? 0) + performance.now() - t0;
            }
          },
          note: (name, desc) => void (name === 'frame' && (note = desc)),
        };
        if (profiling) await profiler.post('Profiler.start');
        const cpu0 = process.cpuUsage();
        const out = await prepared.render(timing);
        const cpu = process.cpuUsage(cpu0);
        if (profiling) renders.push((await profiler.post('Profiler.stop')).profile);
        return { cpuMs: (cpu.user + cpu.system) / 1000, phases, note, sha: createHash('sha1').update(out.bytes).digest('hex') };
      });
    }
    for (const request of requests) for (let i = 0; i <= WARMUP; i++) await request(`Warm ${i}${t.picture ? '.jpg' : ''}`);
    const runs = requests.map(() => []);
    const renders = [];
    profiling = Boolean(profiler);
    // The same texts (or pictures) for every engine, asked in turn.
    for (let i = 0; i < RUNS; i++) for (const [k, request] of requests.entries()) runs[k].push(await request(`${DESCENDERS && i % 2 ? 'Jumpy' : 'Hello'} ${i} ${'x'.repeat(i % 3)}${t.picture ? '.jpg' : ''}`));
    profiling = false;
    if (profiler) profiles.push(mergeProfiles(renders));
    // With two trees: whether they gave the same output bytes, request by request.
    if (runs.length > 1) rows.push({ name, same: runs[0].filter((r, i) => runs.slice(1).every((o) => o[i].sha === r.sha)).length });
    for (const [k, tr] of runs.entries()) {
      const phases = {};
      for (const r of tr) for (const [p, v] of Object.entries(r.phases)) (phases[p] ??= []).push(v);
      rows.push({ name, tree: engines[k].tree, cpu: median(tr.map((r) => r.cpuMs)), phases: Object.fromEntries(Object.entries(phases).map(([p, v]) => [p, median(v)])), note: tr.at(-1).note });
    }
  }
  rmSync(dir, { recursive: true, force: true });
  // One profile per template; the file holds the last (BENCH_ONLY picks which).
  if (profiler && profiles.length) writeFileSync(process.env.BENCH_PROFILE, JSON.stringify(profiles.at(-1)));
  for (const r of rows) {
    if (r.same !== undefined) {
      console.log(`${r.name}: the same output bytes from every tree in ${r.same} of ${RUNS} requests`);
      continue;
    }
    const phases = Object.entries(r.phases).map(([k, v]) => `${k} ${v.toFixed(2)}`).join(', ');
    console.log(`${r.name}${trees.length > 1 ? ` [${r.tree}]` : ''}: CPU ${r.cpu.toFixed(1)} ms per request (median of ${RUNS}); ${phases}; ${r.note}`);
  }
  console.log(`${new Date().toISOString()} · ${trees.length > 1 ? 'trees, asked in turn:' : 'tree'} ${trees.join(', ')} · load ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
}

await main();
