/**
 * Small D1 helpers of the catalogue: typed reads, ISO times, UNIQUE detection, and the guard of
 * a batch that must see a product still at the version it was computed from.
 */
export const iso = (ms: number | null | undefined): string => new Date(ms ?? 0).toISOString();

export async function all<T>(db: D1Database, sql: string, ...params: unknown[]): Promise<T[]> {
  return (await db.prepare(sql).bind(...params).all<T>()).results;
}

export async function first<T>(db: D1Database, sql: string, ...params: unknown[]): Promise<T | null> {
  return db.prepare(sql).bind(...params).first<T>();
}

export const isUnique = (e: unknown): boolean => /UNIQUE constraint failed/i.test(String((e as Error)?.message ?? e));
export const isGuardFailure = (e: unknown): boolean => /CHECK constraint failed/i.test(String((e as Error)?.message ?? e));

/** A guard statement (platform_guard, core/d1.ts) whose `ok` is the given SQL condition. */
export function guardThat(db: D1Database, condition: string, ...params: unknown[]): D1PreparedStatement {
  return db
    .prepare(`INSERT INTO platform_guard (id, ok) SELECT 1, IFNULL((${condition}), 0) ON CONFLICT (id) DO UPDATE SET ok = excluded.ok`)
    .bind(...params);
}

export const parseJson = <T>(text: unknown, fallback: T): T => {
  if (typeof text !== 'string') return (text as T) ?? fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
};

export const uid = (): string => {
  const bytes = crypto.getRandomValues(new Uint8Array(9));
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_');
};

/**
 * The guard condition "every (table, id) still exists in tenant ?1" (ids are integers the schema
 * validated, inlined; tables are constants). Null ids are skipped; none at all is true (still binding ?1).
 */
export function existsAll(refs: Array<[table: string, id: number | null | undefined]>): string {
  const parts = refs
    .filter((r): r is [string, number] => r[1] != null)
    .map(([table, id]) => `EXISTS (SELECT 1 FROM ${table} WHERE tenant_id = ?1 AND id = ${Math.trunc(Number(id))})`);
  return parts.length ? parts.join(' AND ') : '?1 IS NOT NULL';
}

/** The tables a workflow or pipeline id names. */
export const attachedRefs = (v: { personalizationWorkflowId?: number | null; processingPipelineId?: number | null }): Array<[string, number | null | undefined]> => [
  ['personalization_workflows', v.personalizationWorkflowId],
  ['processing_pipelines', v.processingPipelineId],
];
