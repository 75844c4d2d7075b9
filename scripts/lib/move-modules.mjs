#!/usr/bin/env node
// Moves files or folders with `git mv` and rewrites every relative import that points into or out of
// them (src/, test/, bench/, scripts/), so a restructuring is one mechanical, reviewable commit.
//
//   node scripts/lib/move-modules.mjs from:to [from:to …]
//
// A folder moves with everything under it. Specifiers keep their style: extension or none, and a
// folder import (`./x` for `./x/index.ts`) stays a folder import when the index moved with it.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = process.cwd();
const pairs = process.argv.slice(2).map((a) => a.split(':'));
if (!pairs.length || pairs.some((p) => p.length !== 2)) {
  console.error('usage: move-modules.mjs from:to …');
  process.exit(2);
}

const listFiles = (dir) =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : listFiles(p);
    return [p];
  });

/** old absolute file → new absolute file */
const moved = new Map();
for (const [from, to] of pairs) {
  const a = path.resolve(root, from);
  const b = path.resolve(root, to);
  if (fs.statSync(a).isDirectory()) for (const f of listFiles(a)) moved.set(f, path.join(b, path.relative(a, f)));
  else moved.set(a, b);
}
const newOf = (f) => moved.get(f) ?? f;

const CODE = /\.(ts|tsx|mts|mjs|js)$/;
const scanned = ['src', 'test', 'bench', 'scripts']
  .filter((d) => fs.existsSync(path.join(root, d)))
  .flatMap((d) => listFiles(path.join(root, d)))
  .filter((f) => CODE.test(f));

const EXTS = ['', '.ts', '.tsx', '.mts', '.mjs', '.js', '/index.ts', '/index.tsx'];
function resolveOld(fromFile, spec) {
  const base = path.resolve(path.dirname(fromFile), spec.split('?')[0]);
  for (const e of EXTS) {
    const f = base + e;
    if (fs.existsSync(f) && fs.statSync(f).isFile()) return { file: f, ext: e };
  }
  return null;
}

const SPEC = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\bvi\.mock\(\s*|\bimportTs\(\s*root,\s*)(['"])(\.{1,2}\/[^'"]*|src\/[^'"]*)\2/g;
const edits = new Map();
for (const file of scanned) {
  const text = fs.readFileSync(file, 'utf8');
  const newFile = newOf(file);
  let changed = false;
  const out = text.replace(SPEC, (all, lead, q, spec) => {
    const rootRelative = spec.startsWith('src/');
    const target = rootRelative ? resolveOld(path.join(root, 'x'), './' + spec) : resolveOld(file, spec);
    if (!target) return all;
    const newTarget = newOf(target.file);
    if (newTarget === target.file && newFile === file) return all;
    const query = spec.includes('?') ? spec.slice(spec.indexOf('?')) : '';
    let shown = newTarget;
    if (target.ext.startsWith('/index')) shown = path.dirname(newTarget);
    else if (target.ext) shown = newTarget.slice(0, -target.ext.length);
    let rel = rootRelative ? path.relative(root, shown) : path.relative(path.dirname(newFile), shown);
    if (!rootRelative && !rel.startsWith('.')) rel = './' + rel;
    const next = rel.split(path.sep).join('/') + query;
    if (next === spec) return all;
    changed = true;
    return `${lead}${q}${next}${q}`;
  });
  if (changed) edits.set(file, out);
}

for (const [a, b] of moved) {
  fs.mkdirSync(path.dirname(b), { recursive: true });
  execFileSync('git', ['mv', a, b]);
}
for (const [file, text] of edits) fs.writeFileSync(newOf(file), text);
console.log(`moved ${moved.size} files, rewrote imports in ${edits.size}`);
