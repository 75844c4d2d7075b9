/**
 * The rest of the catalogue (back-office CRUD, storefront reads): product links, product
 * specifications, product bundles, personalization workflows and processing pipelines.
 * Deleting one that something references answers 409.
 */
import { unavailableTasks } from '../pipelines/tasks/registry';
import { sql } from 'drizzle-orm';
import { ConflictError, ForbiddenError, likePattern, NotFoundError, ValidationError, type ErrorsByPath, type SortKey, type TenantContext } from '../core';
import { stmt } from '../assets/service';
import { secretNames, validatePipeline } from '../pipelines/language';
import { all, attachedRefs, existsAll, first, guardThat, isGuardFailure, iso, parseJson } from './db';
import { checkAttached } from './products';
import type { PipelineInput, ProductBundleInput, ProductLinkInput, ProductSpecificationInput, WorkflowInput } from './schemas';

export type EntityKind = 'link' | 'specification' | 'bundle' | 'workflow' | 'pipeline';

interface KindSpec {
  table: string;
  noun: string;
  columns: string;
  /** Who references a row (`?1` tenant, `?2` id): deleting it then answers 409. */
  inUse: string;
  dto: (r: Record<string, unknown>) => Record<string, unknown>;
}

const attachedColumns = `personalization_workflow_id AS personalizationWorkflowId, processing_pipeline_id AS processingPipelineId`;
const stampColumns = `created, last_modified AS lastModified`;
const stamps = (r: Record<string, unknown>) => ({ created: iso(r.created as number), lastModified: iso(r.lastModified as number) });
const attached = (r: Record<string, unknown>) => ({ personalizationWorkflowId: r.personalizationWorkflowId ?? null, processingPipelineId: r.processingPipelineId ?? null });

/** Rows that name a workflow or pipeline (products, links, specifications, bundles). */
const usesAttached = (column: string) =>
  ['products', 'product_links', 'product_specifications', 'product_bundles']
    .map((table) => `EXISTS (SELECT 1 FROM ${table} WHERE tenant_id = ?1 AND ${column} = ?2)`)
    .join(' OR ');

const KINDS: Record<EntityKind, KindSpec> = {
  link: {
    table: 'product_links',
    noun: 'product link',
    columns: `id, name, description, product_id AS productId, product_version_id AS productVersionId, ${attachedColumns}, ${stampColumns}`,
    inUse: `EXISTS (SELECT 1 FROM product_references WHERE tenant_id = ?1 AND product_link_id = ?2)
      OR EXISTS (SELECT 1 FROM project_items WHERE tenant_id = ?1 AND product_link_id = ?2)
      OR EXISTS (SELECT 1 FROM product_bundles b, json_each(b.items) i WHERE b.tenant_id = ?1 AND json_extract(i.value, '$.productLinkId') = ?2)`,
    dto: (r) => ({ id: r.id, name: r.name, description: r.description ?? null, productId: r.productId, productVersionId: r.productVersionId ?? null, ...attached(r), ...stamps(r) }),
  },
  specification: {
    table: 'product_specifications',
    noun: 'product specification',
    columns: `id, name, description, product_attributes AS productAttributes, ${attachedColumns}, ${stampColumns}`,
    inUse: `EXISTS (SELECT 1 FROM product_references WHERE tenant_id = ?1 AND product_specification_id = ?2)
      OR EXISTS (SELECT 1 FROM project_items WHERE tenant_id = ?1 AND product_specification_id = ?2)`,
    dto: (r) => ({
      id: r.id,
      name: r.name,
      description: r.description ?? null,
      productAttributes: parseJson<Array<{ name: string; type?: string | null; value: unknown }>>(r.productAttributes, []).map((a) => ({ name: a.name, type: a.type ?? null, value: a.value ?? null })),
      ...attached(r),
      ...stamps(r),
    }),
  },
  bundle: {
    table: 'product_bundles',
    noun: 'product bundle',
    columns: `id, name, description, items, ${attachedColumns}, ${stampColumns}`,
    inUse: `EXISTS (SELECT 1 FROM product_references WHERE tenant_id = ?1 AND product_bundle_id = ?2)`,
    dto: (r) => ({
      id: r.id,
      name: r.name,
      description: r.description ?? null,
      items: parseJson<Array<{ productId?: number | null; productLinkId?: number | null }>>(r.items, []).map((i) => ({ productId: i.productId ?? null, productLinkId: i.productLinkId ?? null })),
      ...attached(r),
      ...stamps(r),
    }),
  },
  workflow: {
    table: 'personalization_workflows',
    noun: 'personalization workflow',
    columns: `id, name, content, workflow_type AS workflowType, ${stampColumns}`,
    inUse: usesAttached('personalization_workflow_id'),
    dto: (r) => ({ id: r.id, name: r.name ?? '', content: r.content ?? '', workflowType: r.workflowType, ...stamps(r) }),
  },
  pipeline: {
    table: 'processing_pipelines',
    noun: 'processing pipeline',
    columns: `id, name, raw_content AS rawContent, ${stampColumns}`,
    inUse: `${usesAttached('processing_pipeline_id')} OR EXISTS (SELECT 1 FROM project_items WHERE tenant_id = ?1 AND processing_pipeline_id = ?2)`,
    dto: (r) => ({ id: r.id, name: r.name, rawContent: r.rawContent, ...stamps(r) }),
  },
};

const SORT = { id: 'id', name: 'name COLLATE NOCASE', created: 'created', lastModified: 'last_modified' } as const;

export interface EntityFilter {
  skip: number;
  take: number;
  sorting: SortKey<'id' | 'name' | 'created' | 'lastModified'>[];
  search?: string;
  ids?: number[];
}

export async function listEntities(t: TenantContext, kind: EntityKind, f: EntityFilter) {
  const k = KINDS[kind];
  const db = t.env.DB;
  const where = [sql`tenant_id = ${t.tenantId}`];
  if (f.search) where.push(sql`name LIKE ${likePattern(f.search)} ESCAPE '\\'`);
  if (f.ids) where.push(sql`id IN (SELECT value FROM json_each(${JSON.stringify(f.ids)}))`);
  const cond = sql.join(where, sql` AND `);
  const order = f.sorting.length ? f.sorting.map((s) => `${SORT[s.field]} ${s.direction}`).join(', ') + ', id' : 'id';
  const [count, page] = await db.batch<Record<string, unknown>>([
    stmt(db, sql`SELECT count(*) AS n FROM ${sql.raw(k.table)} WHERE ${cond}`),
    stmt(db, sql`SELECT ${sql.raw(k.columns)} FROM ${sql.raw(k.table)} WHERE ${cond} ORDER BY ${sql.raw(order)} LIMIT ${f.take} OFFSET ${f.skip}`),
  ]);
  return { total: Number(count!.results[0]?.n ?? 0), items: page!.results.map(k.dto) };
}

export async function findEntity(db: D1Database, tenantId: number, kind: EntityKind, id: number): Promise<Record<string, unknown> | null> {
  const k = KINDS[kind];
  const row = await first<Record<string, unknown>>(db, `SELECT ${k.columns} FROM ${k.table} WHERE tenant_id = ?1 AND id = ?2`, tenantId, id);
  return row ? k.dto(row) : null;
}

export async function getEntity(t: TenantContext, kind: EntityKind, id: number): Promise<Record<string, unknown>> {
  const dto = await findEntity(t.env.DB, t.tenantId, kind, id);
  if (!dto) throw new NotFoundError(`No ${KINDS[kind].noun} ${id}.`);
  return dto;
}

export async function deleteEntity(t: TenantContext, kind: EntityKind, id: number): Promise<void> {
  const k = KINDS[kind];
  const db = t.env.DB;
  await getEntity(t, kind, id);
  const inUse = () => new ConflictError('GeneralConflict', `The ${k.noun} ${id} is in use (products, links, references, bundles or projects name it); remove those first.`, { id });
  if (await first(db, `SELECT 1 WHERE ${k.inUse}`, t.tenantId, id)) throw inUse();
  try {
    await db.batch([guardThat(db, `SELECT NOT (${k.inUse})`, t.tenantId, id), db.prepare(`DELETE FROM ${k.table} WHERE tenant_id = ?1 AND id = ?2`).bind(t.tenantId, id)]);
  } catch (e) {
    if (isGuardFailure(e)) throw inUse();
    throw e;
  }
}

// --- writes, per kind -----------------------------------------------------------------------------------

/** Runs an INSERT (id null) or UPDATE of one row and answers its DTO. */
async function save(t: TenantContext, kind: EntityKind, id: number | null, values: Record<string, unknown>, requires: Array<[string, number | null | undefined]> = []): Promise<Record<string, unknown>> {
  const k = KINDS[kind];
  const db = t.env.DB;
  const now = Date.now();
  const cols = Object.keys(values);
  const params = Object.values(values);
  if (id !== null) await getEntity(t, kind, id);
  const write =
    id === null
      ? db
          .prepare(`INSERT INTO ${k.table} (tenant_id, ${cols.join(', ')}, created, last_modified) VALUES (?1, ${cols.map((_, i) => `?${i + 2}`).join(', ')}, ?${cols.length + 2}, ?${cols.length + 2})`)
          .bind(t.tenantId, ...params, now)
      : db
          .prepare(`UPDATE ${k.table} SET ${cols.map((c, i) => `${c} = ?${i + 3}`).join(', ')}, last_modified = ?${cols.length + 3} WHERE tenant_id = ?1 AND id = ?2`)
          .bind(t.tenantId, id, ...params, now);
  let results: D1Result[];
  try {
    // The ids the body names were checked; the guard sees them still there when the row is written.
    results = await db.batch([guardThat(db, `SELECT ${existsAll(requires)}`, t.tenantId), write]);
  } catch (e) {
    if (isGuardFailure(e)) throw new NotFoundError('Something the body names was deleted meanwhile; nothing was changed.');
    throw e;
  }
  return getEntity(t, kind, id ?? Number(results[1]!.meta.last_row_id));
}

export async function saveLink(t: TenantContext, id: number | null, v: ProductLinkInput) {
  const db = t.env.DB;
  const errors: ErrorsByPath = {};
  if (!(await first(db, `SELECT 1 FROM products WHERE tenant_id = ?1 AND id = ?2`, t.tenantId, v.productId))) errors.productId = [`No product ${v.productId}.`];
  else if (v.productVersionId != null && !(await first(db, `SELECT 1 FROM product_versions WHERE tenant_id = ?1 AND id = ?2 AND product_id = ?3`, t.tenantId, v.productVersionId, v.productId))) {
    errors.productVersionId = [`Product ${v.productId} has no version ${v.productVersionId}.`];
  }
  if (Object.keys(errors).length) throw new NotFoundError('Some of the ids name nothing here; nothing was changed.', errors);
  await checkAttached(db, t.tenantId, v);
  return save(t, 'link', id, {
    name: v.name,
    description: v.description ?? null,
    product_id: v.productId,
    product_version_id: v.productVersionId ?? null,
    personalization_workflow_id: v.personalizationWorkflowId ?? null,
    processing_pipeline_id: v.processingPipelineId ?? null,
  }, [['products', v.productId], ['product_versions', v.productVersionId], ...attachedRefs(v)]);
}

export async function saveSpecification(t: TenantContext, id: number | null, v: ProductSpecificationInput) {
  await checkAttached(t.env.DB, t.tenantId, v);
  return save(t, 'specification', id, {
    name: v.name,
    description: v.description ?? null,
    product_attributes: JSON.stringify((v.productAttributes ?? []).map((a) => ({ name: a.name, type: a.type ?? null, value: a.value ?? null }))),
    personalization_workflow_id: v.personalizationWorkflowId ?? null,
    processing_pipeline_id: v.processingPipelineId ?? null,
  }, attachedRefs(v));
}

export async function saveBundle(t: TenantContext, id: number | null, v: ProductBundleInput) {
  const db = t.env.DB;
  const items = v.items ?? [];
  const products = new Set((await all<{ id: number }>(db, `SELECT id FROM products WHERE tenant_id = ?1 AND id IN (SELECT value FROM json_each(?2))`, t.tenantId, JSON.stringify(items.map((i) => i.productId).filter((x) => x != null)))).map((r) => r.id));
  const links = new Set((await all<{ id: number }>(db, `SELECT id FROM product_links WHERE tenant_id = ?1 AND id IN (SELECT value FROM json_each(?2))`, t.tenantId, JSON.stringify(items.map((i) => i.productLinkId).filter((x) => x != null)))).map((r) => r.id));
  const errors: ErrorsByPath = {};
  items.forEach((i, n) => {
    if (i.productId != null && !products.has(i.productId)) errors[`items[${n}].productId`] = [`No product ${i.productId}.`];
    if (i.productLinkId != null && !links.has(i.productLinkId)) errors[`items[${n}].productLinkId`] = [`No product link ${i.productLinkId}.`];
  });
  if (Object.keys(errors).length) throw new NotFoundError('Some of the ids name nothing here; nothing was changed.', errors);
  await checkAttached(db, t.tenantId, v);
  return save(t, 'bundle', id, {
    name: v.name,
    description: v.description ?? null,
    items: JSON.stringify(items.map((i) => ({ productId: i.productId ?? null, productLinkId: i.productLinkId ?? null }))),
    personalization_workflow_id: v.personalizationWorkflowId ?? null,
    processing_pipeline_id: v.processingPipelineId ?? null,
  }, [...items.map((i): [string, number | null | undefined] => (i.productId != null ? ['products', i.productId] : ['product_links', i.productLinkId])), ...attachedRefs(v)]);
}

export const saveWorkflow = (t: TenantContext, id: number | null, v: WorkflowInput) =>
  save(t, 'workflow', id, { name: v.name ?? '', content: v.content, workflow_type: v.workflowType });

/** Pipelines are validated on save; the errors are the validator's, by path in the pipeline. */
export async function savePipeline(t: TenantContext, id: number | null, v: PipelineInput) {
  const r = validatePipeline(v.rawContent);
  if (!r.ok) throw new ValidationError(r.errors, 'The pipeline is not valid.');
  // Secrets are write-only: putting {{secrets.…}} into a pipeline (POST or PUT) needs _full, as a job does.
  if (secretNames(r.pipeline).length && !t.auth.scopes.includes('ProcessingPipelines_full')) {
    throw new ForbiddenError('Pipelines that use {{secrets.…}} need the ProcessingPipelines_full scope.');
  }
  // Task types the runner cannot run yet are refused on save, not when a project runs them.
  const unavailable = unavailableTasks(r.pipeline);
  if (Object.keys(unavailable).length) throw new ValidationError(unavailable, 'The pipeline uses tasks that are not available yet.');
  return save(t, 'pipeline', id, { name: v.name, raw_content: v.rawContent });
}

/** A processing pipeline of the tenant (the job runner's reading), or null. */
export async function getPipeline(db: D1Database, tenantId: number, id: number): Promise<{ id: number; name: string; rawContent: string } | null> {
  return first(db, `SELECT id, name, raw_content AS rawContent FROM processing_pipelines WHERE tenant_id = ?1 AND id = ?2`, tenantId, id);
}
