// Builds the raster kernels (wasm/assembly/*.ts, AssemblyScript) into wasm/build/*.wasm, which
// the Worker imports as compiled modules. Skips the compile when the output is newer than every
// source. Runs from `npm run dev`, `npm run build:wasm` and `pretest`.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');
const sourceDir = path.join(root, 'wasm/assembly');
const outDir = path.join(root, 'wasm/build');
const entries = ['kernels'];
const force = process.argv.includes('--force');

mkdirSync(outDir, { recursive: true });
const sources = readdirSync(sourceDir).filter((f) => f.endsWith('.ts')).map((f) => path.join(sourceDir, f));
const newestSource = Math.max(...sources.map((f) => statSync(f).mtimeMs), statSync(import.meta.filename).mtimeMs);
const asc = createRequire(import.meta.url).resolve('assemblyscript/bin/asc.js');

for (const name of entries) {
  const out = path.join(outDir, `${name}.wasm`);
  if (!force && existsSync(out) && statSync(out).mtimeMs > newestSource) continue;
  const args = [
    asc, path.join(sourceDir, `${name}.ts`),
    '--outFile', out,
    '-O3', '--noAssert',
    '--runtime', 'stub',
    '--enable', 'simd',
    '--initialMemory', '1',
  ];
  const r = spawnSync(process.execPath, args, { stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`asc ${name} failed (exit ${r.status})`);
    process.exit(r.status ?? 1);
  }
  console.log(`built wasm/build/${name}.wasm (${statSync(out).size} bytes)`);
}
