/**
 * D1 of the rest of the catalogue: product links, product specifications, product bundles,
 * personalization workflows and processing pipelines, and who references each (deleting one in
 * use is refused inside the batch).
 */
import { sql } from 'drizzle-orm';
import { all, batchUnlessGuardFails, existsAll, first, guardThat, statementOf } from '../../core/d1';
import { likePattern, type SortKey } from '../../core';
import type { productLinks } from '../../../db/schema/platform';

export type EntityKind = 'link' | 'specification' | 'bundle' | 'workflow' | 'pipeline';

interface Stamps {
  created: number;
  lastModified: number;
}
interface AttachedIds {
  personalizationWorkflowId: number | null;
  processingPipelineId: number | null;
}
/** A link as its columns select it: the drizzle schema's row without the tenant. */
export type LinkRow = Omit<typeof productLinks.$inferSelect, 'tenantId'>;
export interface SpecificationRow extends AttachedIds, Stamps {
  id: number;
  name: string;
  description: string | null;
  /** JSON: [{name, type, value}] */
  productAttributes: string;
}
export interface BundleRow extends AttachedIds, Stamps {
  id: number;
  name: string;
  description: string | null;
  /** JSON: [{productId, productLinkId}] */
  items: string;
}
export interface WorkflowRow extends Stamps {
  id: number;
  name: string | null;
  content: string | null;
  workflowType: string;
}
export interface PipelineRow extends Stamps {
  id: number;
  name: string;
  rawContent: string;
}
export interface EntityRows {
  link: LinkRow;
  specification: SpecificationRow;
  bundle: BundleRow;
  workflow: WorkflowRow;
  pipeline: PipelineRow;
}

interface KindTable {
  table: string;
  columns: string;
  /** Who references a row (`?1` tenant, `?2` id): deleting it then answers 409. */
  inUse: string;
}

const attachedColumns = `personalization_workflow_id AS personalizationWorkflowId, processing_pipeline_id AS processingPipelineId`;
const stampColumns = `created, last_modified AS lastModified`;

/** Rows that name a workflow or pipeline (products, links, specifications, bundles). */
const usesAttached = (column: string) =>
  ['products', 'product_links', 'product_specifications', 'product_bundles']
    .map((table) => `EXISTS (SELECT 1 FROM ${table} WHERE tenant_id = ?1 AND ${column} = ?2)`)
    .join(' OR ');

const TABLES: Record<EntityKind, KindTable> = {
  link: {
    table: 'product_links',
    columns: `id, name, description, product_id AS productId, product_version_id AS productVersionId, ${attachedColumns}, ${stampColumns}`,
    inUse: `EXISTS (SELECT 1 FROM product_references WHERE tenant_id = ?1 AND product_link_id = ?2)
      OR EXISTS (SELECT 1 FROM project_items WHERE tenant_id = ?1 AND product_link_id = ?2)
      OR EXISTS (SELECT 1 FROM product_bundles b, json_each(b.items) i WHERE b.tenant_id = ?1 AND json_extract(i.value, '$.productLinkId') = ?2)`,
  },
  specification: {
    table: 'product_specifications',
    columns: `id, name, description, product_attributes AS productAttributes, ${attachedColumns}, ${stampColumns}`,
    inUse: `EXISTS (SELECT 1 FROM product_references WHERE tenant_id = ?1 AND product_specification_id = ?2)
      OR EXISTS (SELECT 1 FROM project_items WHERE tenant_id = ?1 AND product_specification_id = ?2)`,
  },
  bundle: {
    table: 'product_bundles',
    columns: `id, name, description, items, ${attachedColumns}, ${stampColumns}`,
    inUse: `EXISTS (SELECT 1 FROM product_references WHERE tenant_id = ?1 AND product_bundle_id = ?2)`,
  },
  workflow: {
    table: 'personalization_workflows',
    columns: `id, name, content, workflow_type AS workflowType, ${stampColumns}`,
    inUse: usesAttached('personalization_workflow_id'),
  },
  pipeline: {
    table: 'processing_pipelines',
    columns: `id, name, raw_content AS rawContent, ${stampColumns}`,
    inUse: `${usesAttached('processing_pipeline_id')} OR EXISTS (SELECT 1 FROM project_items WHERE tenant_id = ?1 AND processing_pipeline_id = ?2)`,
  },
};

/** The tables a workflow or pipeline id names (for guards that they still exist). */
export const attachedRefs = (v: { personalizationWorkflowId?: number | null; processingPipelineId?: number | null }): Array<[string, number | null | undefined]> => [
  ['personalization_workflows', v.personalizationWorkflowId],
  ['processing_pipelines', v.processingPipelineId],
];

type Attachable = { personalizationWorkflowId?: number | null; processingPipelineId?: number | null };

/** What a link names: its product, its pinned version, its workflow and pipeline. */
const linkRefs = (v: Attachable & { productId: number; productVersionId?: number | null }): Array<[string, number | null | undefined]> => [
  ['products', v.productId],
  ['product_versions', v.productVersionId],
  ...attachedRefs(v),
];

/** What a bundle names: each item's product (else link), its workflow and pipeline. */
const bundleRefs = (items: Array<{ productId?: number | null; productLinkId?: number | null }>, v: Attachable): Array<[string, number | null | undefined]> => [
  ...items.map((i): [string, number | null | undefined] => (i.productId != null ? ['products', i.productId] : ['product_links', i.productLinkId])),
  ...attachedRefs(v),
];

const SORT = { id: 'id', name: 'name COLLATE NOCASE', created: 'created', lastModified: 'last_modified' } as const;

export interface EntityFilter {
  skip: number;
  take: number;
  sorting: SortKey<'id' | 'name' | 'created' | 'lastModified'>[];
  search?: string;
  ids?: number[];
}

export async function listEntityRows<K extends EntityKind>(db: D1Database, tenantId: number, kind: K, f: EntityFilter): Promise<{ total: number; rows: EntityRows[K][] }> {
  const k = TABLES[kind];
  const where = [sql`tenant_id = ${tenantId}`];
  if (f.search) where.push(sql`name LIKE ${likePattern(f.search)} ESCAPE '\\'`);
  if (f.ids) where.push(sql`id IN (SELECT value FROM json_each(${JSON.stringify(f.ids)}))`);
  const cond = sql.join(where, sql` AND `);
  const order = f.sorting.length ? f.sorting.map((s) => `${SORT[s.field]} ${s.direction}`).join(', ') + ', id' : 'id';
  const [count, page] = await db.batch<Record<string, unknown>>([
    statementOf(db, sql`SELECT count(*) AS n FROM ${sql.raw(k.table)} WHERE ${cond}`),
    statementOf(db, sql`SELECT ${sql.raw(k.columns)} FROM ${sql.raw(k.table)} WHERE ${cond} ORDER BY ${sql.raw(order)} LIMIT ${f.take} OFFSET ${f.skip}`),
  ]);
  return { total: Number(count!.results[0]?.n ?? 0), rows: page!.results as unknown as EntityRows[K][] };
}

export async function findEntityRow<K extends EntityKind>(db: D1Database, tenantId: number, kind: K, id: number): Promise<EntityRows[K] | null> {
  const k = TABLES[kind];
  return first<EntityRows[K]>(db, `SELECT ${k.columns} FROM ${k.table} WHERE tenant_id = ?1 AND id = ?2`, tenantId, id);
}

export async function entityInUse(db: D1Database, tenantId: number, kind: EntityKind, id: number): Promise<boolean> {
  return (await first(db, `SELECT 1 WHERE ${TABLES[kind].inUse}`, tenantId, id)) !== null;
}

/** Deletes the row unless something uses it (checked inside the batch); false when in use. */
export async function deleteEntityRow(db: D1Database, tenantId: number, kind: EntityKind, id: number): Promise<boolean> {
  const k = TABLES[kind];
  const results = await batchUnlessGuardFails(db, [
    guardThat(db, `SELECT NOT (${k.inUse})`, tenantId, id),
    db.prepare(`DELETE FROM ${k.table} WHERE tenant_id = ?1 AND id = ?2`).bind(tenantId, id),
  ]);
  return results !== null;
}

/**
 * An INSERT (id null) or UPDATE of one row with `values` (column → value; columns are this
 * file's constants), after a guard that every (table, id) of `requires` still exists. The row's
 * id, or null when the guard failed (nothing was written).
 */
async function saveEntityRow(
  db: D1Database,
  tenantId: number,
  kind: EntityKind,
  id: number | null,
  values: Record<string, unknown>,
  requires: Array<[string, number | null | undefined]>,
): Promise<number | null> {
  const k = TABLES[kind];
  const now = Date.now();
  const cols = Object.keys(values);
  const params = Object.values(values);
  const write =
    id === null
      ? db
          .prepare(`INSERT INTO ${k.table} (tenant_id, ${cols.join(', ')}, created, last_modified) VALUES (?1, ${cols.map((_, i) => `?${i + 2}`).join(', ')}, ?${cols.length + 2}, ?${cols.length + 2})`)
          .bind(tenantId, ...params, now)
      : db
          .prepare(`UPDATE ${k.table} SET ${cols.map((c, i) => `${c} = ?${i + 3}`).join(', ')}, last_modified = ?${cols.length + 3} WHERE tenant_id = ?1 AND id = ?2`)
          .bind(tenantId, id, ...params, now);
  const results = await batchUnlessGuardFails(db, [guardThat(db, `SELECT ${existsAll(requires)}`, tenantId), write]);
  if (!results) return null;
  return id ?? Number(results[1]!.meta.last_row_id);
}

/** What a save writes, by kind (ids the body names were checked by the caller; the guard checks them again). */
export type EntityValues =
  | { kind: 'link'; name: string; description: string | null; productId: number; productVersionId: number | null; personalizationWorkflowId: number | null; processingPipelineId: number | null }
  | {
      kind: 'specification';
      name: string;
      description: string | null;
      productAttributes: Array<{ name: string; type: string | null; value: unknown }>;
      personalizationWorkflowId: number | null;
      processingPipelineId: number | null;
    }
  | {
      kind: 'bundle';
      name: string;
      description: string | null;
      items: Array<{ productId: number | null; productLinkId: number | null }>;
      personalizationWorkflowId: number | null;
      processingPipelineId: number | null;
    }
  | { kind: 'workflow'; name: string; content: string; workflowType: string }
  | { kind: 'pipeline'; name: string; rawContent: string };

/** Inserts (id null) or updates the row; its id, or null when something it names was deleted meanwhile. */
export async function saveEntity(db: D1Database, tenantId: number, id: number | null, v: EntityValues): Promise<number | null> {
  const attached = (x: { personalizationWorkflowId: number | null; processingPipelineId: number | null }) => ({
    personalization_workflow_id: x.personalizationWorkflowId,
    processing_pipeline_id: x.processingPipelineId,
  });
  switch (v.kind) {
    case 'link':
      return saveEntityRow(db, tenantId, 'link', id, { name: v.name, description: v.description, product_id: v.productId, product_version_id: v.productVersionId, ...attached(v) }, linkRefs(v));
    case 'specification':
      return saveEntityRow(db, tenantId, 'specification', id, { name: v.name, description: v.description, product_attributes: JSON.stringify(v.productAttributes), ...attached(v) }, attachedRefs(v));
    case 'bundle':
      return saveEntityRow(db, tenantId, 'bundle', id, { name: v.name, description: v.description, items: JSON.stringify(v.items), ...attached(v) }, bundleRefs(v.items, v));
    case 'workflow':
      return saveEntityRow(db, tenantId, 'workflow', id, { name: v.name, content: v.content, workflow_type: v.workflowType }, []);
    case 'pipeline':
      return saveEntityRow(db, tenantId, 'pipeline', id, { name: v.name, raw_content: v.rawContent }, []);
  }
}

export async function personalizationWorkflowExists(db: D1Database, tenantId: number, id: number): Promise<boolean> {
  return (await first(db, `SELECT 1 FROM personalization_workflows WHERE tenant_id = ?1 AND id = ?2`, tenantId, id)) !== null;
}

export async function processingPipelineExists(db: D1Database, tenantId: number, id: number): Promise<boolean> {
  return (await first(db, `SELECT 1 FROM processing_pipelines WHERE tenant_id = ?1 AND id = ?2`, tenantId, id)) !== null;
}

export async function productExists(db: D1Database, tenantId: number, id: number): Promise<boolean> {
  return (await first(db, `SELECT 1 FROM products WHERE tenant_id = ?1 AND id = ?2`, tenantId, id)) !== null;
}

/** Which of `ids` are products (or product links) of the tenant. */
export async function existingIds(db: D1Database, tenantId: number, kind: 'product' | 'link', ids: number[]): Promise<Set<number>> {
  const table = kind === 'product' ? 'products' : 'product_links';
  const rows = await all<{ id: number }>(db, `SELECT id FROM ${table} WHERE tenant_id = ?1 AND id IN (SELECT value FROM json_each(?2))`, tenantId, JSON.stringify(ids));
  return new Set(rows.map((r) => r.id));
}

/** A processing pipeline of the tenant (the job runner's reading), or null. */
export async function getPipeline(db: D1Database, tenantId: number, id: number): Promise<{ id: number; name: string; rawContent: string } | null> {
  return first(db, `SELECT id, name, raw_content AS rawContent FROM processing_pipelines WHERE tenant_id = ?1 AND id = ?2`, tenantId, id);
}

// --- for the job runner (src/platform/jobs): the pipeline texts it runs -------------------

/** The stored text of each pipeline of `ids` that exists. */
export async function pipelineTexts(db: D1Database, tenantId: number, ids: number[]): Promise<Map<number, string>> {
  const { results } = await db
    .prepare(`SELECT id, raw_content AS raw FROM processing_pipelines WHERE tenant_id = ?1 AND id IN (SELECT value FROM json_each(?2))`)
    .bind(tenantId, JSON.stringify(ids))
    .all<{ id: number; raw: string }>();
  return new Map(results.map((r) => [r.id, r.raw]));
}
