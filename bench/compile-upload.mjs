// The HTTP upload of a template to a running dev server (`PORT=… npm run dev`), timed, with the CPU
// the server's workerd threads spent on it (lib.mjs ThreadCpu): docs/performance.md "Session 28:
// compile CPU". Each upload is the file with a run counter appended past its end (ignored by the
// parser, but a new content hash), so every one compiles.
//
//   BENCH_URL=http://127.0.0.1:8812 npm exec -- node bench/compile-upload.mjs [runs] file …
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ThreadCpu, upload } from './lib.mjs';

const url = process.env.BENCH_URL ?? 'http://127.0.0.1:8812';
const args = process.argv.slice(2);
const runs = /^\d+$/.test(args[0] ?? '') ? Number(args.shift()) : 2;
const cpu = new ThreadCpu(new URL(url).port);
const dir = mkdtempSync(path.join(os.tmpdir(), 'compile-upload-'));
const tag = Date.now().toString(36);
for (const name of args) {
  const file = name.includes('/') ? name : path.join(import.meta.dirname, 'out', name);
  for (let i = 0; i < runs; i++) {
    const copy = path.join(dir, path.basename(file));
    writeFileSync(copy, Buffer.concat([readFileSync(file), Buffer.from(`${tag}-${i}`)]));
    const c0 = cpu.now();
    const t0 = performance.now();
    await upload(url, 'templates', copy, 'cpu');
    console.log(JSON.stringify({ file: path.basename(file), run: i, httpS: +((performance.now() - t0) / 1000).toFixed(2), workerdCpuS: +((cpu.now() - c0) / 1000).toFixed(2) }));
  }
}
