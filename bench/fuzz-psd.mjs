// A mutation fuzzer of PSD templates (session 28, "fuzz"): damages the repository's PSD fixtures
// (test/fixtures/psd, psd-made, examples, the demo templates) where a real file's structure can
// be odd — truncation, lengths and counts in the sections, image resources, layer records,
// tagged blocks and the descriptors inside them ('lfx2', 'TySh', 'SoLd', 'Patt', 'vmsk', …),
// header fields, compression codes, bytes flipped — and runs each through what the Worker runs
// (bench/fuzz-entry.ts: upload = readHeader + compileTemplate, information, previews, a preflight,
// now and then a print PDF) in a child Node process. Records every step that ends in something
// other than an engine error (a 500 over HTTP), every case over 20 s (the child is killed) and
// every case whose child passes 1.5 GB RSS.
//
//   npm exec -- node bench/fuzz-psd.mjs <first seed> <count> [--only=<fixture substring>]
//   npm exec -- node bench/fuzz-psd.mjs replay <file.psd>
//
// Findings go to $FUZZ_DIR (default /tmp/fuzz-psd): found/<seed>.psd and findings.jsonl.
import { fork } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { bundleForNode } from './lib.mjs';

const root = path.resolve(import.meta.dirname, '..');
const dir = process.env.FUZZ_DIR ?? '/tmp/fuzz-psd';
const bundle = path.join(dir, 'fuzz-bundle.mjs');
const CASE_MS = Number(process.env.FUZZ_CASE_MS ?? 20_000);
const RSS_LIMIT_KB = Number(process.env.FUZZ_RSS_MB ?? 1536) * 1024;

// ---------------------------------------------------------------------------------------------
// Deterministic random numbers (mulberry32).
function rng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n) => Math.floor(next() * n),
    pick: (xs) => xs[Math.floor(next() * xs.length)],
    chance: (p) => next() < p,
  };
}

// ---------------------------------------------------------------------------------------------
// The structure of a PSD, walked leniently: fields (offset, size, what) and regions (start, end, what).
const DESCRIPTOR_KEYS = new Set(['lfx2', 'lfxs', 'TySh', 'SoLd', 'SoLE', 'PlLd', 'plLd', 'vmsk', 'vsms', 'vogk', 'vscg', 'SoCo', 'GdFl', 'PtFl', 'CgEd', 'shmd', 'Txt2', 'pths', 'anFX', 'FMsk', 'artb', 'artd', 'lmfx', 'vstk', 'luni', 'lnk2', 'lnkD', 'lnk3', 'Patt', 'Pat2', 'Pat3', 'lrFX', 'blwh', 'phfl', 'mixr', 'clrL', 'levl', 'curv', 'hue2', 'selc', 'expA', 'grdm', 'post', 'thrs', 'brit', 'nvrt', 'vibA', 'blnc', 'Anno', 'lsct', 'lsdk', 'lyid', 'fxrp', 'tsly', 'lclr', 'iOpa', 'knko', 'infx', 'clbl', 'brst', 'shpa', 'cinf', 'Lr16', 'Lr32', 'Layr', 'Mt16', 'Mt32', 'Mtrn', 'Alph', 'FXid', 'FEid', 'PxSD', 'sn2P', 'lspf']);
const LARGE_KEYS = new Set(['LMsk', 'Lr16', 'Lr32', 'Layr', 'Mt16', 'Mt32', 'Mtrn', 'Alph', 'FMsk', 'lnk2', 'FEid', 'FXid', 'PxSD', 'cinf']);
// Descriptor item types whose next 4 bytes are a length or count.
const COUNTED = ['TEXT', 'VlLs', 'Objc', 'GlbO', 'tdta', 'long', 'UntF', 'UnFl', 'enum', 'Enmr', 'obj ', 'type', 'GlbC', 'alis', 'Pth ', 'doub', 'bool'];

export function structure(bytes) {
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const fields = [];
  const regions = [];
  const values = [];
  const blendKeys = [];
  const large = v.getUint16(4) === 2;
  const L = large ? 8 : 4;
  const u32 = (at) => v.getUint32(at);
  const uL = (at) => (large ? v.getUint32(at) * 2 ** 32 + v.getUint32(at + 4) : v.getUint32(at));
  const sig = (at) => String.fromCharCode(bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]);
  const field = (at, size, what) => at + size <= bytes.length && fields.push({ at, size, what });
  const region = (start, end, what) => end > start && start < bytes.length && regions.push({ start, end: Math.min(end, bytes.length), what });
  for (const [at, size, what] of [[4, 2, 'version'], [12, 2, 'channels'], [14, 4, 'height'], [18, 4, 'width'], [22, 2, 'depth'], [24, 2, 'mode']]) field(at, size, `header ${what}`);
  try {
    let at = 26;
    field(at, 4, 'colour mode data length');
    const cmd = u32(at);
    region(at + 4, at + 4 + cmd, 'colour mode data');
    at += 4 + cmd;
    field(at, 4, 'image resources length');
    const resEnd = at + 4 + u32(at);
    region(at + 4, resEnd, 'image resources');
    let r = at + 4;
    while (r + 12 <= resEnd && sig(r) === '8BIM') {
      const id = v.getUint16(r + 4);
      const nameLen = bytes[r + 6];
      field(r + 6, 1, 'resource name length');
      let p = r + 6 + ((nameLen + 2) & ~1);
      field(p, 4, `resource ${id} length`);
      const len = u32(p);
      region(p + 4, p + 4 + len, `resource ${id}`);
      r = p + 4 + len + (len & 1);
    }
    at = resEnd;
    field(at, L, 'layer and mask length');
    const lmEnd = at + L + uL(at);
    at += L;
    const walkLayerInfo = (start, end, what) => {
      let p = start;
      field(p, 2, `${what} layer count`);
      const count = Math.abs(v.getInt16(p));
      p += 2;
      const channelLengths = [];
      for (let i = 0; i < count && p < end; i++) {
        field(p, 16, `layer ${i} rectangle`);
        for (let k = 0; k < 4; k++) field(p + 4 * k, 4, `layer ${i} rectangle ${k}`);
        p += 16;
        field(p, 2, `layer ${i} channel count`);
        const channels = v.getUint16(p);
        p += 2;
        const lens = [];
        for (let c = 0; c < channels; c++) {
          field(p, 2, `layer ${i} channel ${c} id`);
          field(p + 2, L, `layer ${i} channel ${c} length`);
          lens.push(uL(p + 2));
          p += 2 + L;
        }
        channelLengths.push(lens);
        field(p + 4, 4, `layer ${i} blend mode`);
        blendKeys.push(p + 4);
        field(p + 8, 1, `layer ${i} opacity`);
        field(p + 9, 1, `layer ${i} clipping`);
        field(p + 10, 1, `layer ${i} flags`);
        p += 12;
        field(p, 4, `layer ${i} extra length`);
        const extraEnd = p + 4 + u32(p);
        p += 4;
        field(p, 4, `layer ${i} mask length`);
        const maskLen = u32(p);
        region(p + 4, p + 4 + maskLen, `layer ${i} mask data`);
        p += 4 + maskLen;
        field(p, 4, `layer ${i} blending ranges length`);
        const brLen = u32(p);
        region(p + 4, p + 4 + brLen, `layer ${i} blending ranges`);
        p += 4 + brLen;
        field(p, 1, `layer ${i} name length`);
        region(p, p + ((bytes[p] + 4) & ~3), `layer ${i} name`);
        p += (bytes[p] + 4) & ~3;
        blocks(p, extraEnd, `layer ${i}`);
        p = extraEnd;
      }
      for (let i = 0; i < channelLengths.length && p < end; i++) {
        for (const [c, len] of channelLengths[i].entries()) {
          field(p, 2, `layer ${i} channel ${c} compression`);
          region(p + 2, p + len, `layer ${i} channel ${c} data`);
          p += len;
        }
      }
    };
    const blocks = (p, end, owner) => {
      while (p + 12 <= end && p + 12 <= bytes.length) {
        const s = sig(p);
        if (s !== '8BIM' && s !== '8B64') {
          p++;
          continue;
        }
        const key = sig(p + 4);
        const wide = s === '8B64' || (large && LARGE_KEYS.has(key));
        field(p + 8, wide ? 8 : 4, `${owner} block ${key} length`);
        const len = wide ? uL(p + 8) : u32(p + 8);
        const data = p + 8 + (wide ? 8 : 4);
        region(data, data + len, `${owner} block ${key}`);
        if (DESCRIPTOR_KEYS.has(key)) counted(data, Math.min(data + len, bytes.length), `${owner} block ${key}`);
        if (key === 'Lr16' || key === 'Lr32' || key === 'Layr') walkLayerInfo(data, data + len, key);
        if (key === 'luni') field(data, 4, `${owner} luni length`);
        // Blocks are padded to 4 bytes in layers (Photoshop), to 2 elsewhere: the walk skips padding.
        p = data + len;
      }
    };
    const counted = (start, end, what) => {
      for (let p = start; p + 8 <= end; p++) {
        const t = sig(p);
        if (t === 'doub' && p + 12 <= end) values.push({ at: p + 4, type: 'double', what: `${what} ${key4(p - 4)} doub` });
        else if (t === 'UntF' && p + 16 <= end) values.push({ at: p + 8, type: 'double', what: `${what} ${key4(p - 4)} UntF ${sig(p + 4)}` });
        else if (t === 'long' && p + 8 <= end) values.push({ at: p + 4, type: 'int', what: `${what} ${key4(p - 4)} long` });
        else if (t === 'bool' && p + 5 <= end) values.push({ at: p + 4, type: 'byte', what: `${what} ${key4(p - 4)} bool` });
        if (COUNTED.includes(t)) field(p + 4, 4, `${what} ${t} count`);
      }
    };
    const key4 = (p) => (p >= 0 ? sig(p).replace(/[^ -~]/g, '.') : '');
    if (lmEnd > at) {
      field(at, L, 'layer info length');
      const infoLen = uL(at);
      const infoEnd = at + L + infoLen;
      if (infoLen > 0) walkLayerInfo(at + L, infoEnd, 'section');
      at = infoEnd;
      field(at, 4, 'global mask length');
      at += 4 + u32(at);
      blocks(at, lmEnd, 'global');
    }
    at = lmEnd;
    field(at, 2, 'image data compression');
    region(at + 2, bytes.length, 'image data');
  } catch {
    // Past the end: what was found so far.
  }
  return { fields, regions, values, blendKeys };
}

// ---------------------------------------------------------------------------------------------
// Mutations.
const SPECIAL = {
  1: [0, 1, 0x7f, 0x80, 0xff],
  2: [0, 1, 2, 3, 4, 0x7fff, 0x8000, 0xffff],
  4: [0, 1, 2, 3, 0x7fffffff, 0x80000000, 0xffffffff, 0x00ffffff, 0x10000, 0x40000000],
  8: [0, 1, 2 ** 31, 2 ** 32 - 1, 2 ** 40],
};

function readUint(bytes, at, size) {
  let x = 0;
  for (let i = 0; i < size; i++) x = x * 256 + bytes[at + i];
  return x;
}
function writeUint(bytes, at, size, value) {
  let x = Math.max(0, Math.floor(value));
  for (let i = size - 1; i >= 0; i--) {
    bytes[at + i] = x % 256;
    x = Math.floor(x / 256);
  }
}

const FOCUS = /lfx2|lfxs|TySh|SoLd|SoLE|PlLd|Patt|Pat2|Pat3|vmsk|vsms|vogk|luni|lnk|shmd|GdFl|PtFl|SoCo|lrFX|Txt2|resource|mask|blending|compression|count|length/;

/** One to three damages to a copy of `original`; what was done. */
export function mutate(original, seed) {
  const r = rng(seed);
  let bytes = original.slice();
  const steps = [];
  const n = 1 + r.int(3);
  for (let s = 0; s < n; s++) {
    const { fields, regions, values, blendKeys } = structure(bytes);
    const kind = process.env.FUZZ_KINDS
      ? r.pick(process.env.FUZZ_KINDS.split(','))
      : r.pick(['truncate', 'field', 'field', 'focus-field', 'focus-field', 'flip', 'focus-flip', 'focus-flip', 'header', 'compression', 'zero', 'repeat', 'value', 'value', 'value', 'blend']);
    if (kind === 'value' && values.length) {
      const v = r.pick(values);
      const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      let shown;
      if (v.type === 'double') {
        const old = dv.getFloat64(v.at);
        const x = r.pick([NaN, Infinity, -Infinity, 0, -0, -1, 1e308, -1e308, 1e-308, 2 ** 31, -(2 ** 31), 1e9, -1e9, old * -1, old * 1000, old + 360, 5e-324]);
        dv.setFloat64(v.at, x);
        shown = `${old} → ${x}`;
      } else if (v.type === 'int') {
        const old = dv.getInt32(v.at);
        const x = r.pick([0, -1, 1, 2 ** 31 - 1, -(2 ** 31), 1e6, -1e6, old * 1000, -old, 255, 256, 65536]);
        dv.setInt32(v.at, x);
        shown = `${old} → ${x}`;
      } else {
        const old = bytes[v.at];
        bytes[v.at] = r.pick([0, 1, 2, 255]);
        shown = `${old} → ${bytes[v.at]}`;
      }
      steps.push(`value ${v.what} @${v.at}: ${shown}`);
      continue;
    }
    if (kind === 'blend' && blendKeys.length) {
      const at = r.pick(blendKeys);
      const key = r.pick(['pass', 'norm', 'diss', 'dark', 'mul ', 'idiv', 'lbrn', 'dkCl', 'lite', 'scrn', 'div ', 'lddg', 'lgCl', 'over', 'sLit', 'hLit', 'vLit', 'lLit', 'pLit', 'hMix', 'diff', 'smud', 'fsub', 'fdiv', 'hue ', 'sat ', 'colr', 'lum ', 'xxxx']);
      steps.push(`blend @${at}: ${String.fromCharCode(...bytes.subarray(at, at + 4))} → ${key}`);
      for (let i = 0; i < 4; i++) bytes[at + i] = key.charCodeAt(i);
      continue;
    }
    if (kind === 'truncate' && bytes.length > 30) {
      const cut = r.chance(0.5) && regions.length ? r.pick(regions)[r.pick(['start', 'end'])] + r.int(9) - 4 : 26 + r.int(bytes.length - 26);
      const at = Math.max(26, Math.min(bytes.length - 1, cut));
      bytes = bytes.slice(0, at);
      steps.push(`truncate at ${at}`);
    } else if ((kind === 'field' || kind === 'focus-field') && fields.length) {
      const pool = kind === 'focus-field' ? fields.filter((f) => FOCUS.test(f.what)) : fields;
      const f = r.pick(pool.length ? pool : fields);
      const old = readUint(bytes, f.at, f.size);
      const max = 256 ** f.size - 1;
      const value = r.pick([
        () => r.pick(SPECIAL[f.size] ?? [0]),
        () => old + 1 + r.int(64),
        () => old - 1 - r.int(64),
        () => old * 2,
        () => Math.floor(old / 2),
        () => r.int(max + 1),
        () => old * (2 + r.int(1000)),
      ])();
      const clamped = value < 0 || value > max ? r.pick(SPECIAL[f.size] ?? [0]) : value;
      writeUint(bytes, f.at, f.size, clamped);
      steps.push(`${f.what} @${f.at}: ${old} → ${clamped}`);
    } else if ((kind === 'flip' || kind === 'focus-flip') && regions.length) {
      const pool = kind === 'focus-flip' ? regions.filter((g) => FOCUS.test(g.what)) : regions;
      const g = r.pick(pool.length ? pool : regions);
      const k = 1 + r.int(8);
      for (let i = 0; i < k; i++) {
        const at = g.start + r.int(g.end - g.start);
        bytes[at] = r.chance(0.5) ? bytes[at] ^ (1 << r.int(8)) : r.int(256);
      }
      steps.push(`flip ${k} in ${g.what} [${g.start}, ${g.end})`);
    } else if (kind === 'header') {
      const [at, size, values] = r.pick([
        [22, 2, [0, 1, 2, 7, 8, 16, 24, 32, 64]],
        [24, 2, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 15]],
        [12, 2, [0, 1, 2, 3, 4, 5, 6, 24, 56, 57, 99]],
        [14, 4, [0, 1, 2, 10_000, 10_001, 30_000]],
        [18, 4, [0, 1, 2, 10_000, 10_001, 30_000]],
        [4, 2, [1, 2, 3]],
      ]);
      const value = r.pick(values);
      steps.push(`header @${at}: ${readUint(bytes, at, size)} → ${value}`);
      writeUint(bytes, at, size, value);
    } else if (kind === 'compression') {
      const pool = fields.filter((f) => f.what.includes('compression'));
      if (!pool.length) continue;
      const f = r.pick(pool);
      const value = r.pick([0, 1, 2, 3, 4, 5, 0xffff]);
      steps.push(`${f.what} @${f.at}: ${readUint(bytes, f.at, 2)} → ${value}`);
      writeUint(bytes, f.at, 2, value);
    } else if (kind === 'zero' && regions.length) {
      const g = r.pick(regions);
      const from = g.start + r.int(g.end - g.start);
      const to = Math.min(g.end, from + 1 + r.int(64));
      bytes.fill(r.pick([0, 0xff]), from, to);
      steps.push(`fill [${from}, ${to}) in ${g.what}`);
    } else if (kind === 'repeat' && regions.length) {
      const g = r.pick(regions.filter((x) => x.end - x.start < 1 << 20));
      if (!g) continue;
      const out = new Uint8Array(bytes.length + g.end - g.start);
      out.set(bytes.subarray(0, g.end));
      out.set(bytes.subarray(g.start, g.end), g.end);
      out.set(bytes.subarray(g.end), 2 * g.end - g.start);
      bytes = out;
      steps.push(`repeat ${g.what} [${g.start}, ${g.end})`);
    }
  }
  return { bytes, steps };
}

// ---------------------------------------------------------------------------------------------
export function fixtures() {
  const dirs = ['test/fixtures/psd', 'test/fixtures/psd-made', 'examples', 'scripts/seed/demo-templates'];
  const files = [];
  for (const d of dirs) {
    const full = path.join(root, d);
    if (!existsSync(full)) continue;
    for (const f of readdirSync(full).sort()) if (/\.ps[db]$/i.test(f)) files.push(path.join(full, f));
  }
  return files;
}

// ---------------------------------------------------------------------------------------------
// The child: runs cases the parent sends.
async function child() {
  const entry = await import(bundle);
  const fonts = readdirSync(path.join(root, 'assets/fonts')).filter((f) => /\.(ttf|otf)$/.test(f)).map((f) => path.join(root, 'assets/fonts', f));
  let store;
  let n = 0;
  process.on('message', async (m) => {
    if (n++ % 20 === 0) {
      rmSync(path.join(dir, 'store'), { recursive: true, force: true });
      store = entry.dirStore(path.join(dir, 'store'), fonts);
    }
    const bytes = new Uint8Array(readFileSync(m.file));
    const outcomes = await entry.run(store, `fz-${m.id}.psd`, bytes, m.options);
    process.send({ id: m.id, outcomes });
  });
  process.send({ ready: true });
}

class Runner {
  constructor() {
    this.proc = null;
  }
  async start() {
    this.proc = fork(import.meta.filename, ['child'], { execArgv: ['--max-old-space-size=4096'], stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
    this.stderr = '';
    this.proc.stderr.on('data', (d) => (this.stderr = (this.stderr + d).slice(-4000)));
    await new Promise((resolve, reject) => {
      this.proc.once('message', resolve);
      this.proc.once('exit', (code) => reject(new Error(`child exited ${code}: ${this.stderr}`)));
    });
  }
  rss() {
    try {
      return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${this.proc.pid}/status`, 'utf8'))?.[1] ?? 0);
    } catch {
      return 0;
    }
  }
  /** { outcomes } or { failure: 'hang' | 'memory' | 'crash', … }. */
  async run(id, file, options) {
    if (!this.proc) await this.start();
    const proc = this.proc;
    const t = performance.now();
    let peak = 0;
    return await new Promise((resolve) => {
      const done = (value) => {
        clearInterval(timer);
        proc.removeAllListeners('message');
        proc.removeAllListeners('exit');
        if (value.failure) {
          proc.kill('SIGKILL');
          this.proc = null;
        }
        resolve({ ...value, ms: performance.now() - t, peakMb: peak / 1024 });
      };
      const timer = setInterval(() => {
        const rss = this.rss();
        peak = Math.max(peak, rss);
        if (rss > RSS_LIMIT_KB) done({ failure: 'memory', detail: `RSS ${(rss / 1024).toFixed(0)} MB` });
        else if (performance.now() - t > CASE_MS) done({ failure: 'hang', detail: `over ${CASE_MS} ms` });
      }, 50);
      proc.on('message', (m) => m.id === id && done({ outcomes: m.outcomes }));
      proc.on('exit', (code, signal) => done({ failure: 'crash', detail: `exit ${code} ${signal} ${this.stderr.slice(-1500)}` }));
      proc.send({ id, file, options });
    });
  }
  stop() {
    this.proc?.kill('SIGKILL');
    this.proc = null;
  }
}

async function main(args) {
  mkdirSync(path.join(dir, 'found'), { recursive: true });
  if (!process.env.FUZZ_NO_BUNDLE || !existsSync(bundle)) await bundleForNode(root, path.join(root, 'bench/fuzz-entry.ts'), bundle);
  const runner = new Runner();
  const log = path.join(dir, 'findings.jsonl');
  if (args[0] === 'replay') {
    for (const file of args.slice(1)) {
      const res = await runner.run(1, path.resolve(file), { sizes: [400, 801], pdf: true, personalise: true });
      console.log(file, JSON.stringify(res, null, 1));
    }
    runner.stop();
    return;
  }
  const [first, count] = [Number(args[0] ?? 1), Number(args[1] ?? 100)];
  const only = args.find((a) => a.startsWith('--only='))?.slice(7);
  const files = fixtures().filter((f) => !only || f.includes(only));
  const originals = new Map();
  const stats = { cases: 0, uploadOk: 0, upload4xx: 0, failures: 0, ms: 0 };
  const t0 = performance.now();
  for (let seed = first; seed < first + count; seed++) {
    const r = rng(seed * 7919);
    const file = files[r.int(files.length)];
    if (!originals.has(file)) originals.set(file, new Uint8Array(readFileSync(file)));
    const { bytes, steps } = mutate(originals.get(file), seed);
    const cur = path.join(dir, 'cur.psd');
    writeFileSync(cur, bytes);
    const options = { sizes: r.chance(0.3) ? [200, 801] : [400], pdf: r.chance(0.1), personalise: r.chance(0.4) };
    const res = await runner.run(seed, cur, options);
    stats.cases++;
    const bad = res.failure ? [{ step: 'case', kind: res.failure, message: res.detail }] : res.outcomes.filter((o) => o.kind === '500');
    const upload = res.outcomes?.[0];
    if (process.env.FUZZ_ALL) appendFileSync(path.join(dir, 'all.jsonl'), JSON.stringify({ seed, fixture: path.basename(file), steps, res }) + '\n');
    if (upload?.kind === 'ok') stats.uploadOk++;
    else if (upload?.kind === '4xx') stats.upload4xx++;
    if (res.ms > 5000 && !res.failure) bad.push({ step: 'case', kind: 'slow', message: `${res.ms.toFixed(0)} ms` });
    if (res.peakMb > 700 && !res.failure) bad.push({ step: 'case', kind: 'rss', message: `peak ${res.peakMb.toFixed(0)} MB` });
    if (bad.length) {
      stats.failures++;
      const saved = path.join(dir, 'found', `${seed}-${path.basename(file)}`);
      writeFileSync(saved, bytes);
      const row = { seed, fixture: path.basename(file), steps, options, bad, ms: Math.round(res.ms), peakMb: Math.round(res.peakMb), saved };
      appendFileSync(log, JSON.stringify(row) + '\n');
      console.log(`seed ${seed} ${path.basename(file)}: ${bad.map((b) => `${b.step} ${b.kind} ${b.message}`).join(' | ')}\n  steps: ${steps.join('; ')}`);
    }
    if (stats.cases % 50 === 0) console.error(`[${new Date().toISOString().slice(11, 19)}] ${stats.cases} cases, ${stats.failures} findings, ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  }
  runner.stop();
  stats.ms = performance.now() - t0;
  console.log(JSON.stringify(stats));
}

if (process.argv[2] === 'child') await child();
else if (import.meta.filename === process.argv[1]) await main(process.argv.slice(2));
