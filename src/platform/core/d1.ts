/**
 * D1 helpers (contract, Reliability).
 *
 * - Id lists are ONE JSON parameter: `id IN (SELECT value FROM json_each(?1))` (D1 allows 100
 *   bound parameters; a batch takes up to 1,000 ids).
 * - A batch that touches a list of ids starts with a guard statement that fails when any id is
 *   missing: it upserts `platform_guard.ok` with "all ids found", and `CHECK (ok)` aborts the
 *   whole `DB.batch()` (one transaction) otherwise. Nothing is half-written.
 *
 * @example
 * await runGuarded(env.DB, guardIds(env.DB, { table: 'assets', tenantId, ids, where: "type = 'design'" }), [
 *   env.DB.prepare(`DELETE FROM assets WHERE tenant_id = ?1 AND id IN (SELECT value FROM json_each(?2))`).bind(tenantId, JSON.stringify(ids)),
 * ]);
 */
import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import { SQLiteSyncDialect } from 'drizzle-orm/sqlite-core';
import { NotFoundError, type ErrorsByPath } from './errors';

/** Typed rows of one statement. */
export async function all<T>(db: D1Database, text: string, ...params: unknown[]): Promise<T[]> {
  return (await db.prepare(text).bind(...params).all<T>()).results;
}

/** The first row of one statement, or null. */
export async function first<T>(db: D1Database, text: string, ...params: unknown[]): Promise<T | null> {
  return db.prepare(text).bind(...params).first<T>();
}

const dialect = new SQLiteSyncDialect();

/** A drizzle `sql` fragment as a D1 statement (to run alone or inside a batch). */
export const statementOf = (db: D1Database, q: SQL): D1PreparedStatement => {
  const { sql: text, params } = dialect.sqlToQuery(q);
  return db.prepare(text).bind(...params);
};

export const isUniqueViolation = (err: unknown): boolean => /UNIQUE constraint failed/i.test(String((err as Error)?.message ?? err));

/** `<column> IN (SELECT value FROM json_each(?))` as a drizzle fragment, one parameter. */
export function inJsonList(column: SQLWrapper, values: ReadonlyArray<string | number>): SQL {
  return sql`${column} IN (SELECT value FROM json_each(${JSON.stringify(values)}))`;
}

/** SQLite's json_type() of a scalar JSON value, or undefined for objects and arrays. */
function scalarJsonType(v: unknown): string | undefined {
  if (v === null) return 'null';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'string') return 'text';
  if (typeof v === 'number') return Number.isSafeInteger(v) ? 'integer' : 'real';
  return undefined;
}

/**
 * Custom-field filter as a drizzle fragment: every pair of `fields` is present in the JSON column
 * with an equal value (type and value; objects compare as JSON text). Scalar values become one
 * `json_type(col, path) = type AND json_extract(col, path) = value` per key, which SQLite checks
 * without listing the row's keys (a 10,000-row folder scan costs a few ms instead of tens);
 * objects, arrays and keys with `"` or `\` use the general json_each comparison.
 */
export function customFieldsMatch(column: SQLWrapper, fields: Record<string, unknown>): SQL {
  const general: Record<string, unknown> = {};
  const parts: SQL[] = [];
  for (const [key, value] of Object.entries(fields)) {
    const type = scalarJsonType(value);
    if (type === undefined || /["\\]/.test(key)) {
      general[key] = value;
      continue;
    }
    const path = `$."${key}"`;
    parts.push(sql`json_type(${column}, ${path}) = ${type}`);
    if (type === 'text' || type === 'integer' || type === 'real') parts.push(sql`json_extract(${column}, ${path}) = ${value}`);
  }
  if (Object.keys(general).length) {
    parts.push(sql`NOT EXISTS (SELECT 1 FROM json_each(${JSON.stringify(general)}) AS want WHERE NOT EXISTS (
    SELECT 1 FROM json_each(${column}) AS have WHERE have.key = want.key AND have.type = want.type AND have.value IS want.value))`);
  }
  return parts.length ? sql`(${sql.join(parts, sql` AND `)})` : sql`1`;
}

export interface GuardSpec {
  /** Table holding the ids (trusted: a constant of the caller, never input). */
  table: string;
  tenantId: number;
  ids: ReadonlyArray<string | number>;
  idColumn?: string;
  /** Extra condition on the rows (trusted SQL), e.g. `type = 'design' AND owner_id = ''`. */
  where?: string;
}

/** The guard statement: fails the batch unless every distinct id exists in the tenant. */
export function guardIds(db: D1Database, g: GuardSpec): D1PreparedStatement {
  const idColumn = g.idColumn ?? 'id';
  return db
    .prepare(
      `INSERT INTO platform_guard (id, ok)
       SELECT 1, (SELECT count(*) FROM ${g.table} WHERE tenant_id = ?2 AND ${idColumn} IN (SELECT value FROM json_each(?1))${g.where ? ` AND (${g.where})` : ''})
               = (SELECT count(DISTINCT value) FROM json_each(?1))
       ON CONFLICT (id) DO UPDATE SET ok = excluded.ok`,
    )
    .bind(JSON.stringify(g.ids), g.tenantId);
}

/** The error of a batch whose guard statement found its condition false (`CHECK (ok)`). */
export const isGuardFailure = (err: unknown): boolean => /CHECK constraint failed/i.test(String((err as Error)?.message ?? err));

/** A guard statement whose `ok` is the given SQL condition (trusted SQL; its parameters bound in order). */
export function guardThat(db: D1Database, condition: string, ...params: unknown[]): D1PreparedStatement {
  return db
    .prepare(`INSERT INTO platform_guard (id, ok) SELECT 1, IFNULL((${condition}), 0) ON CONFLICT (id) DO UPDATE SET ok = excluded.ok`)
    .bind(...params);
}

/**
 * The guard condition "every (table, id) still exists in tenant ?1" (ids are integers the schema
 * validated, inlined; tables are constants). Null ids are skipped; none at all is true (still binding ?1).
 */
export function existsAll(refs: ReadonlyArray<readonly [table: string, id: number | null | undefined]>): string {
  const parts = refs
    .filter((r): r is readonly [string, number] => r[1] != null)
    .map(([table, id]) => `EXISTS (SELECT 1 FROM ${table} WHERE tenant_id = ?1 AND id = ${Math.trunc(Number(id))})`);
  return parts.length ? parts.join(' AND ') : '?1 IS NOT NULL';
}

/** Runs a batch whose first statement is a guard: its results, or null when the guard failed (nothing was written). */
export async function batchUnlessGuardFails(db: D1Database, statements: D1PreparedStatement[]): Promise<D1Result[] | null> {
  try {
    return await db.batch(statements);
  } catch (err) {
    if (isGuardFailure(err)) return null;
    throw err;
  }
}

/**
 * Runs `guard` then `statements` as one batch. A failed guard becomes NotFoundError (with
 * `errors` when `describeMissing` names the missing ids by path).
 */
export async function runGuarded(
  db: D1Database,
  guard: D1PreparedStatement,
  statements: D1PreparedStatement[],
  describeMissing?: () => Promise<ErrorsByPath | undefined>,
): Promise<D1Result[]> {
  try {
    return await db.batch([guard, ...statements]);
  } catch (err) {
    if (!isGuardFailure(err)) throw err;
    throw new NotFoundError('Some of the ids name nothing here; nothing was changed.', describeMissing ? await describeMissing() : undefined);
  }
}

/** Which of `ids` (by their index in the request) do not exist: `{ "ids[3]": ["No such …"] }`. */
export async function missingIds(db: D1Database, g: GuardSpec & { path?: string }): Promise<ErrorsByPath> {
  const idColumn = g.idColumn ?? 'id';
  const { results } = await db
    .prepare(
      `SELECT ${idColumn} AS id FROM ${g.table} WHERE tenant_id = ?2 AND ${idColumn} IN (SELECT value FROM json_each(?1))${g.where ? ` AND (${g.where})` : ''}`,
    )
    .bind(JSON.stringify(g.ids), g.tenantId)
    .all<{ id: string | number }>();
  const found = new Set(results.map((r) => String(r.id)));
  const errors: ErrorsByPath = {};
  g.ids.forEach((id, i) => {
    if (!found.has(String(id))) errors[`${g.path ?? 'ids'}[${i}]`] = [`No such item: ${id}.`];
  });
  return errors;
}
