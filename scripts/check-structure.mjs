#!/usr/bin/env node
/**
 * Structure checks that `npm test` runs before vitest (issue 19):
 *
 *   1. No import cycles between files in src/. Every edge counts: value and type-only imports,
 *      re-exports, `import('…')` calls and `import('…').Type` type queries — a type-only cycle is
 *      still two files that cannot be understood one without the other, and a dynamic import that
 *      closes a cycle only hides it. Relative specifiers resolve like the bundler does
 *      (`.ts`, `.tsx`, `.d.ts`, `/index.ts`, `/index.tsx`; a `.js` suffix maps to `.ts`).
 *   2. The `as never` budget: at most AS_NEVER_BUDGET in src/, each with a comment on its own or
 *      the previous line saying why no typed way exists.
 *
 * Uses the TypeScript compiler's parser (already a devDependency) so comments and strings that
 * look like imports are not counted. Exit status 1 when a check fails.
 *
 *   node scripts/check-structure.mjs
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** Issue 19's goal: at most 5, each commented. */
const AS_NEVER_BUDGET = 5;
/** `as never` without a comment saying why: none. */
const UNCOMMENTED_BUDGET = 0;

/**
 * Cycles known when this check joined `npm test`, each as its files (sorted): they pass until
 * fixed; a new cycle, or a known one that grows, fails. Remove an entry when its cycle is gone.
 */
const KNOWN_CYCLES = [
];

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const srcDir = join(root, 'src');
const rel = (file) => relative(root, file).split('\\').join('/');

function sourceFiles(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...sourceFiles(full));
    else if (/\.(ts|tsx|mts)$/.test(name)) out.push(full);
  }
  return out.sort();
}

const files = sourceFiles(srcDir);
const known = new Set(files);

function resolveSpecifier(from, specifier) {
  if (!specifier.startsWith('./') && !specifier.startsWith('../')) return null;
  const base = resolve(dirname(from), specifier.replace(/\?.*$/, ''));
  const stem = base.replace(/\.(js|jsx|mjs)$/, '');
  const candidates = [base, `${stem}.ts`, `${stem}.tsx`, `${stem}.d.ts`, `${stem}.mts`, join(base, 'index.ts'), join(base, 'index.tsx')];
  return candidates.find((c) => known.has(c)) ?? null;
}

/** Every import edge of a file: { to, kind: 'static' | 'type' | 'dynamic' }. */
function importsOf(file, source) {
  const edges = [];
  const add = (specifier, kind) => {
    const to = resolveSpecifier(file, specifier);
    if (to) edges.push({ to, kind });
  };
  const visit = (node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const typeOnly = ts.isImportDeclaration(node) ? !!node.importClause?.isTypeOnly : node.isTypeOnly;
      add(node.moduleSpecifier.text, typeOnly ? 'type' : 'static');
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteralLike(node.arguments[0])) {
      add(node.arguments[0].text, 'dynamic');
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      add(node.argument.literal.text, 'type');
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return edges;
}

const graph = new Map();
const asNever = [];
for (const file of files) {
  const text = readFileSync(file, 'utf8');
  const kind = file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
  graph.set(file, importsOf(file, source));

  // `as never` as an expression (not in comments or strings), with the line it sits on.
  const lines = text.split('\n');
  const visit = (node) => {
    if (ts.isAsExpression(node) && node.type.kind === ts.SyntaxKind.NeverKeyword) {
      const line = source.getLineAndCharacterOfPosition(node.type.getStart(source)).line;
      const commented = /\/\/|\/\*/.test(lines[line]) || /^\s*(\/\/|\/?\*)/.test(lines[line - 1] ?? '');
      asNever.push({ file: rel(file), line: line + 1, commented });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}

// --- cycles: strongly connected components (Tarjan), one shortest cycle printed per component ---

function stronglyConnected() {
  let index = 0;
  const stack = [];
  const state = new Map();
  const components = [];
  const strong = (v) => {
    state.set(v, { index, low: index, onStack: true });
    index++;
    stack.push(v);
    for (const { to } of graph.get(v)) {
      if (!state.has(to)) {
        strong(to);
        state.get(v).low = Math.min(state.get(v).low, state.get(to).low);
      } else if (state.get(to).onStack) {
        state.get(v).low = Math.min(state.get(v).low, state.get(to).index);
      }
    }
    if (state.get(v).low === state.get(v).index) {
      const component = [];
      let w;
      do {
        w = stack.pop();
        state.get(w).onStack = false;
        component.push(w);
      } while (w !== v);
      const selfLoop = graph.get(v).some((e) => e.to === v);
      if (component.length > 1 || selfLoop) components.push(component);
    }
  };
  for (const v of files) if (!state.has(v)) strong(v);
  return components;
}

/** The shortest cycle through `start` inside its component (breadth-first), with edge kinds. */
function shortestCycle(start, members) {
  const inside = new Set(members);
  const previous = new Map([[start, null]]);
  const queue = [start];
  while (queue.length) {
    const v = queue.shift();
    for (const e of graph.get(v)) {
      if (!inside.has(e.to)) continue;
      if (e.to === start) {
        const path = [{ file: v, kind: e.kind }];
        for (let p = previous.get(v); p; p = previous.get(p.from)) path.unshift({ file: p.from, kind: p.kind });
        return path;
      }
      if (!previous.has(e.to)) {
        previous.set(e.to, { from: v, kind: e.kind });
        queue.push(e.to);
      }
    }
  }
  return [];
}

const knownCycles = new Set(KNOWN_CYCLES.map((files) => [...files].sort().join(' ')));
const components = stronglyConnected();
const isKnown = (members) => knownCycles.has(members.map(rel).sort().join(' '));
const edgeCount = [...graph.values()].reduce((n, edges) => n + edges.length, 0);
console.log(`check-structure: ${files.length} files, ${edgeCount} import edges in src/`);
for (const members of components) {
  const start = [...members].sort()[0];
  const cycle = shortestCycle(start, members);
  const arrow = (kind) => (kind === 'static' ? ' → ' : ` →(${kind}) `);
  const line = cycle.map((step) => rel(step.file) + arrow(step.kind)).join('') + rel(start);
  console.log(`  ${isKnown(members) ? 'known cycle' : 'cycle'} (${members.length} files in the component): ${line}`);
  if (members.length > cycle.length) console.log(`    also in it: ${members.filter((m) => !cycle.some((c) => c.file === m)).map(rel).sort().join(', ')}`);
}
const newCycles = components.filter((m) => !isKnown(m));
console.log(`  import cycles: ${components.length} (${components.length - newCycles.length} known)`);

// --- the `as never` budget ---

const uncommented = asNever.filter((a) => !a.commented);
console.log(
  `  as never: ${asNever.length} in src/ (budget ${AS_NEVER_BUDGET}), ${uncommented.length} without a comment saying why (budget ${UNCOMMENTED_BUDGET})`,
);
if (asNever.length > AS_NEVER_BUDGET || uncommented.length > UNCOMMENTED_BUDGET) {
  const byFile = new Map();
  for (const a of asNever) byFile.set(a.file, [...(byFile.get(a.file) ?? []), a]);
  for (const [file, list] of [...byFile].sort((x, y) => y[1].length - x[1].length)) {
    console.log(`    ${file}: ${list.length} (lines ${list.map((a) => a.line + (a.commented ? '' : '*')).join(', ')})`);
  }
  if (uncommented.length) console.log('    (* = no comment on the line or the one before)');
}

const failures = [];
if (newCycles.length) failures.push(`${newCycles.length} import cycle(s)`);
if (asNever.length > AS_NEVER_BUDGET) failures.push(`${asNever.length} \`as never\` over the budget of ${AS_NEVER_BUDGET}`);
if (uncommented.length > UNCOMMENTED_BUDGET) failures.push(`${uncommented.length} \`as never\` without a comment (budget ${UNCOMMENTED_BUDGET})`);
if (failures.length) {
  console.error(`check-structure: FAILED: ${failures.join('; ')}`);
  process.exit(1);
}
console.log('check-structure: ok');
