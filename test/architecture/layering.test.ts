/// <reference types="vite/client" />
// The platform's and identity's layering (issue 19, docs/architecture.md):
//   - storage: a domain's store (a file named store.ts, or a store/ folder) is the only code that
//     names its tables; src/platform/core/d1.ts (the D1 helpers) and src/db/schema/** are the
//     other places SQL may live. No `.prepare(`, no sql`…`, no Durable Object `sql.exec(`, no
//     drizzle or db/schema import, no table name after an SQL keyword anywhere else in
//     src/platform and src/identity.
//   - imports run API → domain → store, never back up: src/platform/api/** is imported by nothing
//     under src/platform except src/platform/index.ts (and the API surfaces themselves); the engine
//     imports no service area; identity imports nothing from the platform or the back office.
// Files that break a rule today are listed in KNOWN_OFFENDERS (the work of issue 19 is moving
// them); the list only shrinks: a new file that breaks a rule fails here.
import { describe, expect, it } from 'vitest';

const platformAndIdentity = import.meta.glob(['../../src/platform/**/*.{ts,tsx}', '../../src/identity/**/*.{ts,tsx}'], { query: '?raw', import: 'default', eager: true }) as Record<string, string>;
const engine = import.meta.glob('../../src/engine/**/*.{ts,tsx}', { query: '?raw', import: 'default', eager: true }) as Record<string, string>;
const migrations = import.meta.glob('../../migrations/*.sql', { query: '?raw', import: 'default', eager: true }) as Record<string, string>;
const schema = import.meta.glob('../../src/db/schema/**/*.ts', { query: '?raw', import: 'default', eager: true }) as Record<string, string>;

/**
 * Today's violations, file by file. Each entry is a file that still holds SQL outside a store, or
 * an import that runs the wrong way; remove an entry when its file is fixed, never add one.
 */
const KNOWN_OFFENDERS = {
  // Files with SQL outside a store: none left (2026-11-29).
  sql: [] as string[],
  // Imports that run the wrong way: `importer → imported` (without extension). None left (2026-11-29).
  imports: [] as string[],
};

/** `../../src/x/y.ts` → `src/x/y.ts`. */
const repoPath = (key: string) => key.replace(/^(\.\.\/)+/, '');

/** Drops comments well enough that prose mentioning "FROM projects" is not read as SQL. */
function withoutComments(text: string): string {
  return text
    .split('\n')
    .filter((line) => !/^\s*(\/\/|\/\*|\*)/.test(line))
    .map((line) => line.replace(/(^|\s)\/\/\s.*$/, ''))
    .join('\n');
}

/** Every table of D1 (migrations) and of the drizzle schema. */
const TABLES = new Set<string>();
for (const text of Object.values(migrations)) for (const m of text.matchAll(/CREATE TABLE\s+(?:IF NOT EXISTS\s+)?[`"]?([a-z_]+)/gi)) TABLES.add(m[1]!);
for (const text of Object.values(schema)) for (const m of text.matchAll(/sqliteTable\(\s*['"]([a-z_]+)['"]/g)) TABLES.add(m[1]!);
const tableList = [...TABLES].sort((a, b) => b.length - a.length).join('|');
const NAMES_A_TABLE = new RegExp(`\\b(?:FROM|JOIN|INTO|UPDATE|TABLE|EXISTS)\\s+[\`"]?(?:${tableList})\\b`);

const mayHoldSql = (file: string) =>
  /(^|\/)store\.tsx?$/.test(file) || /\/store\//.test(file) || file === 'src/platform/core/d1.ts' || file.startsWith('src/db/schema/');

/** What in a file's text is storage code (empty when none). */
function sqlIn(text: string): string[] {
  const code = withoutComments(text);
  const found: string[] = [];
  if (/\.prepare\(/.test(code)) found.push('.prepare(');
  // A Durable Object's own SQLite (ctx.storage.sql, or a store holding it as `sql`).
  if (/\bsql\.exec\(/.test(code)) found.push('sql.exec(');
  if (/\bsql`/.test(code)) found.push('sql`…`');
  if (/from\s+['"]drizzle-orm/.test(code)) found.push('drizzle-orm import');
  if (/['"][^'"]*\/db\/schema[^'"]*['"]/.test(code)) found.push('db/schema import');
  const table = code.match(NAMES_A_TABLE);
  if (table) found.push(`"${table[0]}"`);
  return found;
}

/** The repository paths a file imports (relative specifiers only; static, type-only and dynamic). */
function importsOf(file: string, text: string): string[] {
  const out: string[] = [];
  for (const m of withoutComments(text).matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)['"](\.{1,2}\/[^'"]+)['"]/g)) {
    const parts = file.split('/').slice(0, -1);
    for (const seg of m[1]!.split('/')) {
      if (seg === '..') parts.pop();
      else if (seg !== '.') parts.push(seg);
    }
    out.push(parts.join('/'));
  }
  return out;
}

const under = (path: string, folder: string) => path === folder || path.startsWith(`${folder}/`);

/** Import rules: [importer folder, what it may not import, except]. */
function wrongImports(file: string, target: string): boolean {
  if (under(file, 'src/platform') && !under(file, 'src/platform/api') && file !== 'src/platform/index.ts' && under(target, 'src/platform/api')) return true;
  if (under(file, 'src/engine') && ['src/platform', 'src/identity', 'src/admin', 'src/dynamic-image'].some((f) => under(target, f))) return true;
  if (under(file, 'src/identity') && ['src/platform', 'src/admin'].some((f) => under(target, f))) return true;
  return false;
}

const files = { ...platformAndIdentity, ...engine };

describe('architecture: storage stays in stores', () => {
  it('finds the modules and the tables', () => {
    expect(Object.keys(platformAndIdentity).length).toBeGreaterThan(150);
    expect(TABLES.size).toBeGreaterThan(30);
    for (const t of ['assets', 'projects', 'jobs', 'artifacts', 'users', 'apps']) expect(TABLES.has(t)).toBe(true);
  });

  it('no SQL outside a store in src/platform and src/identity', () => {
    const offenders: string[] = [];
    for (const [key, text] of Object.entries(platformAndIdentity)) {
      const file = repoPath(key);
      if (mayHoldSql(file) || KNOWN_OFFENDERS.sql.includes(file)) continue;
      const found = sqlIn(text);
      if (found.length) offenders.push(`${file}: ${found.join(', ')}`);
    }
    expect(offenders).toEqual([]);
  });

  it('recognises SQL and ignores prose', () => {
    expect(sqlIn('db.prepare(`SELECT 1`)')).toEqual(['.prepare(']);
    expect(sqlIn("const q = `DELETE FROM artifacts WHERE id = ?`;")).toEqual(['"FROM artifacts"']);
    expect(sqlIn("// the row FROM projects is read here\nconst a = 1;")).toEqual([]);
    expect(sqlIn('this.ctx.storage.sql.exec(query)')).toEqual(['sql.exec(']);
    expect(sqlIn("const url = '/api/storage/v1/artifacts/x';")).toEqual([]);
  });
});

describe('architecture: imports run API → domain → store', () => {
  it('src/platform/api is imported only by src/platform/index.ts; engine and identity import no service area', () => {
    const offenders: string[] = [];
    for (const [key, text] of Object.entries(files)) {
      const file = repoPath(key);
      for (const target of importsOf(file, text)) {
        const edge = `${file} → ${target}`;
        if (wrongImports(file, target) && !KNOWN_OFFENDERS.imports.includes(edge)) offenders.push(edge);
      }
    }
    expect(offenders).toEqual([]);
  });

  it('resolves relative imports', () => {
    expect(importsOf('src/platform/jobs/index.ts', "import { x } from '../api/storefront/routes';\nconst m = await import('../../identity/tokens');")).toEqual([
      'src/platform/api/storefront/routes',
      'src/identity/tokens',
    ]);
    expect(wrongImports('src/platform/jobs/index.ts', 'src/platform/api/storefront/routes')).toBe(true);
    expect(wrongImports('src/platform/index.ts', 'src/platform/api/storefront/routes')).toBe(false);
    expect(wrongImports('src/platform/api/storefront/routes.ts', 'src/platform/api/storage/schemas')).toBe(false);
  });
});
