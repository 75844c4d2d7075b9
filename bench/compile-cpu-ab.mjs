// Interleaved A/B, in one process, of the compile's per-pixel steps (docs/performance.md "Session 28:
// compile CPU"): a ZIP channel's rows (psd/channels.ts over psd/inflate.ts), RLE rows, the pyramid
// (compiled/pyramid.ts PyramidWriter, bands dropped) and the RGBA interleave, each bundled from two
// trees. Rounds alternate A and B so that both see the same load on a shared machine; prints the
// best and the median of each, in ns a pixel, and checks that both give the same bytes.
//
//   COMPILE_AB=A=/work/wt-x-base,B=/work/wt-x [COMPILE_AB_ONLY=inflate] npm exec -- node bench/compile-cpu-ab.mjs [rounds]
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { deflateRawSync, deflateSync } from 'node:zlib';
import { bundleForNode } from './lib.mjs';
import { packBits } from '../test/fixtures/psd-made/lib.mjs';

const rounds = Number(process.argv[2] ?? 5);
const trees = (process.env.COMPILE_AB ?? '').split(',').filter(Boolean).map((s) => s.split('='));
if (trees.length !== 2) throw new Error('COMPILE_AB=A=<tree>,B=<tree>');
const dir = path.join(os.tmpdir(), `compile-cpu-ab-${process.pid}`);
mkdirSync(dir, { recursive: true });
const contents = [
  "export { channelRows } from './src/engine/psd/channels';",
  "export { PyramidWriter, BandBuffers } from './src/engine/compiled/pyramid';",
  "export { interleaveFour } from './src/engine/psd/color-modes';",
  "export { inflateRawInto } from './src/engine/compiled/inflate';",
  "export { unpackBits } from './src/engine/psd/composite';",
].join('\n');
const engines = [];
for (const [label, tree] of trees) {
  const file = path.join(dir, `${label}.mjs`);
  await bundleForNode(path.resolve(tree), { contents }, file);
  engines.push({ label, e: await import(pathToFileURL(file).href) });
}

const W = 4000;
const H = 4000;
/** A plane as the probes write it: a value per row (full-300), 64-px blocks, or grain. */
const planes = {
  rows: (x, y, c) => (((y >> 6) * 91 + c * 50) & 255),
  blocks: (x, y, c) => (((x >> 6) * 37 + (y >> 6) * 91 + c * 50) & 255),
  grain: (x, y, c) => {
    let h = Math.imul(x >> 1, 0x27d4eb2d) ^ Math.imul(y, 0x165667b1) ^ Math.imul(c + 1, 0x9e3779b9);
    h = Math.imul(h ^ (h >>> 15), 0x85ebca6b);
    return ((h ^ (h >>> 13)) >>> 0) & 63 | 96;
  },
  // Every pixel its own: PackBits writes literal runs.
  noise: (x, y, c) => {
    let h = Math.imul(x, 0x27d4eb2d) ^ Math.imul(y, 0x165667b1) ^ Math.imul(c + 1, 0x9e3779b9);
    h = Math.imul(h ^ (h >>> 15), 0x85ebca6b);
    return ((h ^ (h >>> 13)) >>> 0) & 255;
  },
};
const plane = (f, c) => {
  const b = new Uint8Array(W * H);
  for (let y = 0, o = 0; y < H; y++) for (let x = 0; x < W; x++) b[o++] = f(x, y, c);
  return b;
};
/** Alpha: opaque, opaque with bands at 40 % (full-300), or soft (a blob's edge everywhere). */
const alphas = {
  opaque: () => 255,
  bands: (x, y) => ((y >> 9) % 3 ? 255 : 102),
  soft: (x, y) => (x * 7 + y * 3) & 255,
};

const cases = [];
for (const [name, f] of Object.entries(planes)) {
  const zip = [0, 1, 2].map((c) => ({ id: c, compression: 2, data: deflateSync(plane(f, c), { level: 6 }) }));
  cases.push({
    name: `inflate ZIP ${name} (3 × ${W}²)`,
    px: W * H * 3,
    run: (e) => {
      const h = createHash('sha1');
      for (const ch of zip) {
        const r = e.channelRows(ch, W, H, false);
        for (let y = 0; y < H; y++) h.update(r.next());
        r.finish();
      }
      return h.digest('hex');
    },
  });
}
for (const [pn, a] of [['rows', 'bands'], ['grain', 'opaque'], ['blocks', 'soft']]) {
  const rgba = new Uint8Array(W * H * 4);
  const p = [0, 1, 2].map((c) => plane(planes[pn], c));
  for (let i = 0, y = 0; y < H; y++) for (let x = 0; x < W; x++, i++) (rgba.set([p[0][i], p[1][i], p[2][i], alphas[a](x, y)], i * 4));
  cases.push({
    name: `pyramid RGBA ${pn}/${a} (${W}²)`,
    px: W * H,
    run: async (e) => {
      const h = createHash('sha1');
      const writer = new e.PyramidWriter({ left: 1, top: 0, right: W + 1, bottom: H }, 5, 4, 0, async (k, b, d) => void h.update(d));
      for (let y = 0; y < H; y++) {
        const w = writer.push(y, rgba.subarray(y * W * 4, (y + 1) * W * 4));
        if (w) await w;
      }
      await writer.finish();
      return h.digest('hex');
    },
  });
}
for (const [pn, a] of [['rows', 'bands'], ['blocks', 'soft']]) {
  // A stored level-0 band as the render inflates it (compiled/inflate.ts): 256 rows of RGBA.
  const band = new Uint8Array(W * 256 * 4);
  const p = [0, 1, 2].map((c) => plane(planes[pn], c));
  for (let i = 0, y = 0; y < 256; y++) for (let x = 0; x < W; x++, i++) band.set([p[0][i], p[1][i], p[2][i], alphas[a](x, y)], i * 4);
  const packed = deflateRawSync(band, { level: 6 });
  const out = new Uint8Array(band.length);
  cases.push({
    name: `inflate band ${pn}/${a} (${W} × 256 RGBA, ×16)`,
    px: W * 256 * 16,
    run: (e) => {
      for (let i = 0; i < 16; i++) e.inflateRawInto(packed, out);
      return createHash('sha1').update(out).digest('hex');
    },
  });
}
for (const name of ['grain', 'noise', 'blocks']) {
  // RLE rows (PackBits, as Photoshop writes 8-bit channels), decoded as psd/channels.ts does.
  const p = plane(planes[name], 0);
  const rows = Array.from({ length: H }, (_, y) => packBits(p.subarray(y * W, (y + 1) * W)));
  const out = new Uint8Array(W);
  cases.push({
    name: `unpackBits ${name} (${W}², one plane)`,
    px: W * H,
    run: (e) => {
      const h = createHash('sha1');
      for (let y = 0; y < H; y++) {
        e.unpackBits(rows[y], 0, rows[y].length, out);
        if (y % 97 === 0) h.update(out);
      }
      return h.digest('hex');
    },
  });
}
{
  const p = [0, 1, 2, 3].map((c) => plane(planes.blocks, c));
  const row = new Uint8Array(W * 4);
  cases.push({
    name: `interleave 4 planes (${W}²)`,
    px: W * H,
    run: (e) => {
      const h = createHash('sha1');
      for (let y = 0; y < H; y++) {
        e.interleaveFour(p.map((q) => q.subarray(y * W, (y + 1) * W)), row, 0, W);
        if (y % 97 === 0) h.update(row);
      }
      return h.digest('hex');
    },
  });
}

const only = process.env.COMPILE_AB_ONLY;
for (const c of cases.filter((c) => !only || c.name.includes(only))) {
  const times = engines.map(() => []);
  const digests = engines.map(() => new Set());
  for (let r = 0; r < rounds; r++) {
    for (const [i, { e }] of engines.entries()) {
      const t = performance.now();
      digests[i].add(await c.run(e));
      times[i].push(performance.now() - t);
    }
  }
  const same = [...digests[0]].join() === [...digests[1]].join() && digests[0].size === 1;
  const stat = (t) => {
    const s = [...t].sort((a, b) => a - b);
    return `best ${((s[0] * 1e6) / c.px).toFixed(2)} ns/px, median ${((s[s.length >> 1] * 1e6) / c.px).toFixed(2)}`;
  };
  console.log(`${c.name}: ${engines.map((g, i) => `${g.label} ${stat(times[i])}`).join(' | ')} | same bytes: ${same}`);
}
