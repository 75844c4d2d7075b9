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
import { NotFoundError, type ErrorsByPath } from './errors';

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

const isGuardFailure = (err: unknown): boolean => /CHECK constraint failed/i.test(String((err as Error)?.message ?? err));

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
