// CPU of an upload's compile (compileTemplate) in Node 22, per template, and where it goes (issue 25 §1,
// docs/performance.md "Session 28: compile CPU"). The engine is bundled from a tree (this one, or
// COMPILE_TREE=<another worktree> for an A/B) with an in-memory bucket, so what is timed is the engine.
//
//   npm exec -- node bench/compile-cpu.mjs [--profile] [--digest] [--cut N] file …
//
// `file` is a path or a name in bench/out. `--cut N` writes bench/out/probe-full-N.psd first: the
// first N layers of probe-full-300.psd (bench/large-templates.mjs --probe full-300), the same
// records and ZIP channels. `--profile` samples the compile (inspector, 1 ms) and prints its self
// time by source file and the top functions. `--digest` prints a sha-256 over every key written
// and its bytes inflated (and the tree JSON): equal digests = the same compiled meaning, whatever
// the deflate level. Prints process CPU (user + system) and wall time of each compile.
// `--source`: the PSD is read as a stored one is (r2Source over a bucket whose object reads its
// ranges from the file, nothing of it held), with its hash known (as the upload passes it); prints
// the PSD's gets and bytes read, and the process's peak RSS above its level before the compile
// (VmHWM reset; the bundle and the bucket's written objects included). `--whole` with it: the
// file read whole (compileTemplate's readWhole; at 2e8860d every source is).
import { closeSync, existsSync, openSync, readFileSync, readSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { Session } from 'node:inspector/promises';
import { inflateRawSync } from 'node:zlib';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { bundleForNode } from './lib.mjs';

const here = path.resolve(import.meta.dirname, '..');
const tree = path.resolve(process.env.COMPILE_TREE ?? here);
const args = process.argv.slice(2);
const flag = (f) => (args.includes(f) ? (args.splice(args.indexOf(f), 1), true) : false);
const profile = flag('--profile');
const digest = flag('--digest');
const viaSource = flag('--source');
const readWhole = flag('--whole');
const cutAt = args.indexOf('--cut');
const cut = cutAt >= 0 ? Number(args.splice(cutAt, 2)[1]) : 0;
const out = path.join(here, 'bench/out');
if (cut) writeFileSync(path.join(out, `probe-full-${cut}.psd`), cutLayers(readFileSync(path.join(out, 'probe-full-300.psd')), cut));

const dir = path.join(os.tmpdir(), `compile-cpu-${process.pid}`);
mkdirSync(dir, { recursive: true });
const bundle = path.join(dir, 'engine.mjs');
await bundleForNode(tree, path.join(tree, 'bench/memory-entry.ts'), bundle);
const e = await import(pathToFileURL(bundle).href);
const sections = bundleSections(readFileSync(bundle, 'utf8'));

/** The process's resident memory (Linux): now, and its peak since the last reset. */
var rss = {
  base: 0,
  field: (name) => Number(/(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8').split('\n').find((l) => l.startsWith(name)) ?? '0 kB')[1]) * 1024,
  now: () => rss.field('VmRSS:'),
  peak: () => rss.field('VmHWM:'),
  reset: () => writeFileSync('/proc/self/clear_refs', '5'),
};

for (const name of args) {
  const file = existsSync(name) ? name : path.join(out, name);
  const bytes = viaSource ? null : new Uint8Array(readFileSync(file));
  const bucket = memoryBucket();
  const stored = viaSource ? storedPsd(file) : null;
  const hash = stored ? fileHash(file, e.ENGINE_VERSION) : undefined;
  if (stored) {
    rss.reset();
    rss.base = rss.now();
  }
  const session = profile ? new Session() : null;
  if (session) {
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 1000 });
    await session.post('Profiler.start');
  }
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let compiled;
  try {
    compiled = stored ? await e.compileTemplate(bucket, stored.source(e), { hash, readWhole }) : await e.compileTemplate(bucket, bytes);
  } catch (error) {
    console.log(JSON.stringify({ file: path.basename(file), refused: String(error?.message ?? error).slice(0, 120) }));
    continue;
  }
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const size = stored ? stored.size : bytes.length;
  const line = { file: path.basename(file), mb: +(size / 1e6).toFixed(1), layers: compiled.layers.length, cpuS: +((cpu.user + cpu.system) / 1e6).toFixed(2), wallS: +(wall / 1000).toFixed(2), keys: bucket.map.size, storedMB: +([...bucket.map.values()].reduce((n, b) => n + b.length, 0) / 1e6).toFixed(2) };
  if (stored) Object.assign(line, { gets: stored.gets + bucket.gets, psdGets: stored.gets, psdReadMB: +(stored.bytesRead / 1e6).toFixed(1), peakMB: +((rss.peak() - rss.base) / 1e6).toFixed(1) });
  if (digest) line.digest = bucket.digest();
  console.log(JSON.stringify(line));
  if (session) {
    const { profile: p } = await session.post('Profiler.stop');
    session.disconnect();
    report(p, sections);
  }
}

/** Self time by bundle section (esbuild's `// src/…` comments) and by function. */
function report(p, sections) {
  const self = new Map(p.nodes.map((n) => [n.id, 0]));
  const dt = p.timeDeltas;
  for (let i = 0; i < p.samples.length; i++) self.set(p.samples[i], self.get(p.samples[i]) + (dt[i] ?? 0));
  const byFile = new Map();
  const byFn = new Map();
  let total = 0;
  for (const n of p.nodes) {
    const us = self.get(n.id);
    if (!us) continue;
    total += us;
    const f = n.callFrame;
    const where = f.url.endsWith('engine.mjs') ? sectionOf(sections, f.lineNumber + 1) : f.url ? path.basename(f.url) : `(${f.functionName || 'native'})`;
    byFile.set(where, (byFile.get(where) ?? 0) + us);
    const fn = `${f.functionName || '(anon)'} ${where}`;
    byFn.set(fn, (byFn.get(fn) ?? 0) + us);
  }
  // Phases, by where the self time is (main thread; deflate also runs on zlib's threads while it idles).
  const PHASES = [
    ['channel decode', /psd\/(inflate|channels|composite|color-modes)\.ts/],
    ['pyramid', /compiled\/pyramid\.ts/],
    ['rows: interleave, alpha box', /compiled\/(compile|alpha-box)\.ts/],
    ['deflate (main thread)', /^\((write|writeSync)\)$|compiled\/blob\.ts|node:zlib|^zlib$|streams|adapters|readablestream|writablestream|transform/],
    ['parse (ag-psd)', /ag-psd/],
    ['trial render', /engine\/(composite|raster|render|text|fonts)\//],
    ['idle (waits for zlib threads)', /^\(\(idle\)\)$/],
  ];
  const byPhase = new Map();
  for (const [file, us] of byFile) {
    const phase = PHASES.find(([, re]) => re.test(file))?.[0] ?? 'other';
    byPhase.set(phase, (byPhase.get(phase) ?? 0) + us);
  }
  console.log(`by phase:\n${[...byPhase].sort((a, b) => b[1] - a[1]).map(([k, us]) => `  ${(us / 1e6).toFixed(2).padStart(7)} s ${((100 * us) / total).toFixed(1).padStart(5)} %  ${k}`).join('\n')}`);
  const top = (m, n) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, us]) => `  ${(us / 1e6).toFixed(2).padStart(7)} s ${((100 * us) / total).toFixed(1).padStart(5)} %  ${k}`).join('\n');
  if (process.env.COMPILE_CALLERS) {
    const parent = new Map();
    for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n);
    const chains = new Map();
    for (const n of p.nodes) {
      const us = self.get(n.id);
      if (!us || !process.env.COMPILE_CALLERS.split(',').includes(n.callFrame.functionName)) continue;
      const names = [];
      for (let q = parent.get(n.id), i = 0; q && i < 5; q = parent.get(q.id), i++) names.push(q.callFrame.functionName || '(anon)');
      const k = `${n.callFrame.functionName} <- ${names.join(' <- ')}`;
      chains.set(k, (chains.get(k) ?? 0) + us);
    }
    console.log(`callers:\n${top(chains, 12)}`);
  }
  console.log(`self time, sampled: ${(total / 1e6).toFixed(2)} s\nby file:\n${top(byFile, 14)}\nby function:\n${top(byFn, 20)}`);
}

function bundleSections(text) {
  const out = [];
  text.split('\n').forEach((l, i) => {
    const m = /^\/\/ (?:\.\.\/[^/]+\/)?((?:src|bench|node_modules)\/\S+)$/.exec(l); // another tree's: ../wt-x/src/…
    if (m) out.push([i + 1, m[1].replace(/^node_modules\//, '')]);
  });
  return out;
}

function sectionOf(sections, line) {
  let lo = 0, hi = sections.length - 1, at = '(bundle)';
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (sections[mid][0] <= line) (at = sections[mid][1], (lo = mid + 1));
    else hi = mid - 1;
  }
  return at;
}

/** A stored PSD read by ranges from its file (an R2 object's ranged gets), counted. */
function storedPsd(file) {
  const size = statSync(file).size;
  const fd = openSync(file, 'r');
  const counts = { gets: 0, bytesRead: 0 };
  const object = {
    async get(_key, options) {
      const offset = options?.range?.offset ?? 0;
      const length = options?.range?.length ?? size - offset;
      const bytes = new Uint8Array(length);
      readSync(fd, bytes, 0, length, offset);
      counts.gets++;
      counts.bytesRead += length;
      return { arrayBuffer: async () => bytes.buffer };
    },
  };
  return {
    size,
    get gets() {
      return counts.gets;
    },
    get bytesRead() {
      return counts.bytesRead;
    },
    // r2Source as src/engine/psd/source.ts makes it (the tree's own, when it has one).
    source: (engine) => (engine.r2Source ? engine.r2Source(object, 'psd', size) : r2SourceOf(object, size)),
    close: () => closeSync(fd),
  };
}

function r2SourceOf(bucket, size) {
  return {
    size,
    async read(offset, length) {
      if (length <= 0 || offset >= size) return new Uint8Array(0);
      const obj = await bucket.get('psd', { range: { offset, length: Math.min(length, size - offset) } });
      return new Uint8Array(await obj.arrayBuffer());
    },
  };
}

/** templateHash of a file (SHA-256 of its bytes, then the engine version), read a piece at a time. */
function fileHash(file, version) {
  const h = createHash('sha256');
  const fd = openSync(file, 'r');
  const buffer = Buffer.alloc(8 * 1024 * 1024);
  for (let n; (n = readSync(fd, buffer, 0, buffer.length, null)) > 0; ) h.update(buffer.subarray(0, n));
  closeSync(fd);
  h.update(version);
  return h.digest('hex');
}

/** The R2 calls the compile makes, in memory. */
function memoryBucket() {
  const map = new Map();
  const object = (key, bytes) => ({
    key,
    size: bytes.byteLength,
    etag: String(bytes.byteLength),
    httpEtag: `"${bytes.byteLength}"`,
    uploaded: new Date(),
    customMetadata: {},
    httpMetadata: {},
    get body() {
      return new Blob([bytes]).stream();
    },
    arrayBuffer: async () => bytes.slice().buffer,
    text: async () => new TextDecoder().decode(bytes),
    json: async () => JSON.parse(new TextDecoder().decode(bytes)),
  });
  return {
    map,
    gets: 0,
    async get(key) {
      this.gets++;
      const b = map.get(key);
      return b ? object(key, b) : null;
    },
    async head(key) {
      const b = map.get(key);
      return b ? { ...object(key, b), body: undefined } : null;
    },
    async put(key, value) {
      let bytes;
      if (typeof value === 'string') bytes = new TextEncoder().encode(value);
      else if (value instanceof ArrayBuffer) bytes = new Uint8Array(value.slice(0));
      else if (ArrayBuffer.isView(value)) bytes = new Uint8Array(value.buffer, value.byteOffset, value.byteLength).slice();
      else bytes = new Uint8Array(await new Response(value).arrayBuffer());
      map.set(key, bytes);
      return object(key, bytes);
    },
    async list(options = {}) {
      return { objects: [...map.keys()].filter((k) => k.startsWith(options.prefix ?? '')).map((key) => ({ key })), truncated: false, delimitedPrefixes: [] };
    },
    async delete(keys) {
      for (const k of Array.isArray(keys) ? keys : [keys]) map.delete(k);
    },
    /** sha-256 over keys and inflated bytes (tree and ICC as they are), in key order. */
    digest() {
      const h = createHash('sha256');
      for (const k of [...map.keys()].sort()) {
        const b = map.get(k);
        h.update(k);
        h.update(/\/(tree\.json|icc)$/.test(k) || k.endsWith('.json') ? b : inflateRawSync(b));
      }
      return h.digest('hex');
    },
  };
}

/**
 * The first `n` layers of a PSD written by bench/large-templates.mjs rawPsd (8-bit, PSD, no
 * resources, layer records then channel data): records and data cut, the merged image kept.
 */
function cutLayers(psd, n) {
  const b = Buffer.from(psd);
  let at = 26;
  at += 4 + b.readUInt32BE(at); // colour mode data
  at += 4 + b.readUInt32BE(at); // resources
  const sectionStart = at;
  const sectionLen = b.readUInt32BE(at);
  const infoStart = at + 4;
  const infoLen = b.readUInt32BE(infoStart);
  const count = b.readInt16BE(infoStart + 4);
  let r = infoStart + 6;
  const records = [];
  for (let i = 0; i < count; i++) {
    const start = r;
    r += 16;
    const channels = b.readUInt16BE(r);
    r += 2;
    let data = 0;
    for (let c = 0; c < channels; c++) (data += b.readUInt32BE(r + 2), (r += 6));
    r += 12;
    r += 4 + b.readUInt32BE(r);
    records.push({ bytes: b.subarray(start, r), data });
  }
  const dataStart = r;
  let dataLen = 0;
  for (const rec of records.slice(0, n)) dataLen += rec.data;
  const info = Buffer.concat([Buffer.from([n >> 8, n & 255]), ...records.slice(0, n).map((x) => x.bytes), b.subarray(dataStart, dataStart + dataLen)]);
  const pad = Buffer.alloc((4 - (info.length % 4)) % 4);
  const infoBytes = Buffer.concat([info, pad]);
  const u32 = (v) => { const x = Buffer.alloc(4); x.writeUInt32BE(v); return x; };
  const rest = b.subarray(infoStart + 4 + infoLen, sectionStart + 4 + sectionLen); // global mask info etc.
  const section = Buffer.concat([u32(infoBytes.length), infoBytes, rest]);
  return Buffer.concat([b.subarray(0, sectionStart), u32(section.length), section, b.subarray(sectionStart + 4 + sectionLen)]);
}
