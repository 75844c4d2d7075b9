/**
 * D1 of projects, items, order data, statuses, transitions, storefront users and the tenant: the
 * only file of the area that knows table names. Every query starts from `tenant_id`.
 */
import { runGuarded } from '../core/d1';
import type { PreflightSummary } from '../jobs/preflight';

/** A project's processing status as stored (processing.ts decides it from the project's jobs). */
export type ProcessingStatus = 'Pending' | 'InProgress' | 'Completed' | 'Failed';

export const NOW_MS = `CAST(unixepoch('subsec') * 1000 AS INTEGER)`;

const iso = (ms: number | null | undefined): string => new Date(ms ?? 0).toISOString();
const parse = <T>(v: unknown, fallback: T): T => {
  if (typeof v !== 'string') return (v as T) ?? fallback;
  try {
    return JSON.parse(v) as T;
  } catch {
    return fallback;
  }
};

// --- projects -------------------------------------------------------------------------------------

export interface ProjectRow {
  id: number;
  tenant_id: number;
  storefront_id: number;
  product_reference: string | null;
  owner_id: string;
  name: string | null;
  description: string | null;
  order_id: string | null;
  order_url: string | null;
  order_number: number | null;
  order_name: string | null;
  order_line_item_id: string | null;
  order_line_item_index: number | null;
  customer_id: string | null;
  customer_name: string | null;
  status: number;
  processing_status: ProcessingStatus;
  processing_triggered_at: number | null;
  processing: string;
  /** The worst preflight verdict of the items at creation; null when no item was checked. */
  preflight: PreflightVerdict | null;
  created: number;
  last_modified: number;
}

export type PreflightVerdict = 'ok' | 'warnings' | 'errors';

export interface ItemRow {
  id: number;
  project_id: number;
  sort_index: number;
  name: string | null;
  group_id: string | null;
  quantity: number;
  order_line_item_id: string | null;
  order_line_item_index: number | null;
  product_reference: string | null;
  fields: string;
  hidden: string;
  design_ids: string;
  sku: string | null;
  resources: string;
  product_id: number | null;
  product_version_id: number | null;
  product_variant_id: number | null;
  processing_pipeline_id: number | null;
  /** PreflightSummary JSON from creation; null: no design, or not checked. */
  preflight: string | null;
}

export const PROJECT_COLUMNS = `id, tenant_id, storefront_id, product_reference, owner_id, name, description, order_id, order_url,
  order_number, order_name, order_line_item_id, order_line_item_index, customer_id, customer_name, status, processing_status,
  processing_triggered_at, processing, preflight, created, last_modified`;

export function itemDto(r: ItemRow) {
  return {
    id: r.id,
    name: r.name,
    groupId: r.group_id,
    quantity: r.quantity,
    orderLineItemId: r.order_line_item_id,
    orderLineItemIndex: r.order_line_item_index,
    productReference: r.product_reference,
    fields: parse<Record<string, unknown>>(r.fields, {}),
    hidden: parse<Record<string, unknown>>(r.hidden, {}),
    designIds: parse<string[]>(r.design_ids, []),
    sku: r.sku,
    resources: parse<Array<{ resourceId: string | null; name: string | null; type: 'General' | 'Preview' | 'Hires'; url?: string }>>(r.resources, []),
    preflight: r.preflight ? parse<PreflightSummary | null>(r.preflight, null) : null,
  };
}

export function projectDto(p: ProjectRow, items: ItemRow[]) {
  return {
    id: p.id,
    storefrontId: p.storefront_id,
    tenantId: p.tenant_id,
    productReference: p.product_reference,
    ownerId: p.owner_id,
    name: p.name,
    description: p.description,
    orderId: p.order_id,
    orderUrl: p.order_url,
    orderNumber: p.order_number,
    orderName: p.order_name,
    orderLineItemId: p.order_line_item_id,
    orderLineItemIndex: p.order_line_item_index,
    customerId: p.customer_id,
    customerName: p.customer_name,
    status: p.status,
    processingStatus: p.processing_status,
    preflight: p.preflight ?? null,
    created: iso(p.created),
    lastModified: iso(p.last_modified),
    items: items.map(itemDto),
  };
}
export type ProjectDtoValue = ReturnType<typeof projectDto>;

/** Items of the given projects, grouped by project id, in item order. */
export async function itemsOf(db: D1Database, tenantId: number, projectIds: number[]): Promise<Map<number, ItemRow[]>> {
  const byProject = new Map<number, ItemRow[]>(projectIds.map((id) => [id, []]));
  if (!projectIds.length) return byProject;
  const { results } = await db
    .prepare(`SELECT * FROM project_items WHERE tenant_id = ?1 AND project_id IN (SELECT value FROM json_each(?2)) ORDER BY project_id, sort_index`)
    .bind(tenantId, JSON.stringify(projectIds))
    .all<ItemRow>();
  for (const r of results) byProject.get(r.project_id)?.push(r);
  return byProject;
}

export async function projectRow(db: D1Database, tenantId: number, id: number): Promise<ProjectRow | null> {
  return db.prepare(`SELECT ${PROJECT_COLUMNS} FROM projects WHERE tenant_id = ?1 AND id = ?2`).bind(tenantId, id).first<ProjectRow>();
}

/** The project and its items, or null. */
export async function loadProject(db: D1Database, tenantId: number, id: number): Promise<{ project: ProjectRow; items: ItemRow[] } | null> {
  const [p, i] = await db.batch([
    db.prepare(`SELECT ${PROJECT_COLUMNS} FROM projects WHERE tenant_id = ?1 AND id = ?2`).bind(tenantId, id),
    db.prepare(`SELECT * FROM project_items WHERE tenant_id = ?1 AND project_id = ?2 ORDER BY sort_index`).bind(tenantId, id),
  ]);
  const project = (p!.results[0] as ProjectRow | undefined) ?? null;
  return project ? { project, items: i!.results as unknown as ItemRow[] } : null;
}

/** The project of an order line (the winner of a repeated create). */
export async function projectOfOrderLine(
  db: D1Database,
  tenantId: number,
  storefrontId: number,
  orderId: string,
  lineId: string | null,
  lineIndex: number | null,
): Promise<ProjectRow | null> {
  return db
    .prepare(
      `SELECT ${PROJECT_COLUMNS} FROM projects WHERE tenant_id = ?1 AND storefront_id = ?2 AND order_id = ?3
         AND ((?4 IS NOT NULL AND order_line_item_id = ?4) OR (?5 IS NOT NULL AND order_line_item_index = ?5)) LIMIT 1`,
    )
    .bind(tenantId, storefrontId, orderId, lineId, lineIndex)
    .first<ProjectRow>();
}

export interface NewProject {
  storefrontId: number;
  productReference: string | null;
  ownerId: string;
  name: string | null;
  description: string | null;
  orderId: string | null;
  orderUrl: string | null;
  orderNumber: number | null;
  orderName: string | null;
  orderLineItemId: string | null;
  orderLineItemIndex: number | null;
  customerId: string | null;
  customerName: string | null;
  processing: Record<string, unknown>;
  /** The worst verdict of the items' preflight (null: none checked). */
  preflight: PreflightVerdict | null;
}

/** An item as it is stored (JSON of one row of `json_each` in the insert). */
export interface NewItem {
  name: string | null;
  groupId: string | null;
  quantity: number;
  orderLineItemId: string | null;
  orderLineItemIndex: number | null;
  productReference: string | null;
  productSpecifier: Record<string, unknown> | null;
  productId: number | null;
  productVersionId: number | null;
  productVariantId: number | null;
  productLinkId: number | null;
  productSpecificationId: number | null;
  fields: Record<string, unknown>;
  hidden: Record<string, unknown>;
  designIds: string[];
  sku: string | null;
  resources: Array<{ resourceId: string | null; name: string | null; type: string; url?: string }>;
  processingPipelineId: number | null;
  /** The item's preflight at creation (null: no design, or not checked). */
  preflight: PreflightSummary | null;
}

/**
 * The create batch (contract, "One project per order line"), one round trip: a guard that the
 * storefront exists; the storefront user with INSERT OR IGNORE; the project with
 * `ON CONFLICT DO NOTHING` (a repeated order line writes nothing), its status the initial code
 * and processing triggered now unless the tenant's `startProcessingOnStatus` names another code;
 * the items and the retention change only `WHERE create_nonce = ?`, i.e. only when this call's
 * project row exists; then the project and its items read back. `processingStatus` is what a
 * triggered project starts with. `project` is null when this call inserted nothing (the order
 * line's project exists: the caller answers with the winner). A storefront deleted meanwhile
 * fails the guard: NotFoundError naming `storefrontId`.
 */
export async function insertProject(
  db: D1Database,
  tenantId: number,
  nonce: string,
  p: NewProject,
  items: NewItem[],
  processingStatus: ProcessingStatus,
  privateAssetIds: string[],
): Promise<{ project: ProjectRow | null; items: ItemRow[] }> {
  const initial = `COALESCE((SELECT code FROM project_statuses WHERE tenant_id = ?1 AND is_initial = 1), 0)`;
  const startOn = `(SELECT start_processing_on_status FROM tenant_settings WHERE tenant_id = ?1)`;
  const triggerNow = `(${startOn} IS NULL OR ${startOn} = ${initial})`;
  const statements = [
    db
      .prepare(
        `INSERT INTO platform_guard (id, ok) SELECT 1, EXISTS (SELECT 1 FROM storefronts WHERE tenant_id = ?1 AND id = ?2)
         ON CONFLICT (id) DO UPDATE SET ok = excluded.ok`,
      )
      .bind(tenantId, p.storefrontId),
    db
      .prepare(`INSERT OR IGNORE INTO storefront_users (tenant_id, storefront_id, user_id, is_anonymous) VALUES (?1, ?2, ?3, 0)`)
      .bind(tenantId, p.storefrontId, p.ownerId),
    db
      .prepare(
        `INSERT INTO projects (tenant_id, storefront_id, product_reference, owner_id, name, description, order_id, order_url, order_number,
           order_name, order_line_item_id, order_line_item_index, customer_id, customer_name, status, processing_status,
           processing_triggered_at, processing, create_nonce, preflight)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ${initial},
           CASE WHEN ${triggerNow} THEN ?15 ELSE 'Pending' END, CASE WHEN ${triggerNow} THEN ${NOW_MS} END, ?16, ?17, ?18)
         ON CONFLICT DO NOTHING`,
      )
      .bind(
        tenantId,
        p.storefrontId,
        p.productReference,
        p.ownerId,
        p.name,
        p.description,
        p.orderId,
        p.orderUrl,
        p.orderNumber,
        p.orderName,
        p.orderLineItemId,
        p.orderLineItemIndex,
        p.customerId,
        p.customerName,
        processingStatus,
        JSON.stringify(p.processing),
        nonce,
        p.preflight,
      ),
    db
      .prepare(
        `INSERT INTO project_items (tenant_id, project_id, sort_index, name, group_id, quantity, order_line_item_id, order_line_item_index,
           product_reference, product_specifier, product_id, product_version_id, product_variant_id, product_link_id,
           product_specification_id, fields, hidden, design_ids, sku, resources, processing_pipeline_id, preflight)
         SELECT p.tenant_id, p.id, CAST(i.key AS INTEGER), i.value ->> '$.name', i.value ->> '$.groupId', i.value ->> '$.quantity',
           i.value ->> '$.orderLineItemId', i.value ->> '$.orderLineItemIndex', i.value ->> '$.productReference',
           i.value -> '$.productSpecifier', i.value ->> '$.productId', i.value ->> '$.productVersionId', i.value ->> '$.productVariantId',
           i.value ->> '$.productLinkId', i.value ->> '$.productSpecificationId', i.value -> '$.fields', i.value -> '$.hidden',
           i.value -> '$.designIds', i.value ->> '$.sku', i.value -> '$.resources', i.value ->> '$.processingPipelineId',
           NULLIF(i.value -> '$.preflight', 'null')
         FROM projects p, json_each(?3) i
         WHERE p.tenant_id = ?1 AND p.create_nonce = ?2`,
      )
      .bind(tenantId, nonce, JSON.stringify(items)),
    // Named private assets stay while the project exists (retention), with the Storage sources a
    // print-product design names (the asset store's keepForeverStatement rule) — only for the
    // inserting call.
    db
      .prepare(
        `UPDATE assets SET retention_policy = 'Never'
         WHERE tenant_id = ?1 AND owner_id <> '' AND ?3 <> '[]'
           AND (id IN (SELECT value FROM json_each(?3))
             OR id IN (SELECT s.value FROM assets d, json_each(d.metadata, '$._sources') s
                       WHERE d.tenant_id = ?1 AND d.owner_id = ?2 AND d.id IN (SELECT value FROM json_each(?3))))
           AND EXISTS (SELECT 1 FROM projects WHERE tenant_id = ?1 AND create_nonce = ?4)`,
      )
      .bind(tenantId, p.ownerId, JSON.stringify(privateAssetIds), nonce),
    db.prepare(`SELECT ${PROJECT_COLUMNS} FROM projects WHERE tenant_id = ?1 AND create_nonce = ?2`).bind(tenantId, nonce),
    db
      .prepare(`SELECT * FROM project_items WHERE tenant_id = ?1 AND project_id = (SELECT id FROM projects WHERE tenant_id = ?1 AND create_nonce = ?2) ORDER BY sort_index`)
      .bind(tenantId, nonce),
  ];
  // Positions in the batch's results (the guard first).
  const CREATE_RESULT = { project: 2, readProject: 5, readItems: 6 } as const;
  const results = await runGuarded(db, statements[0]!, statements.slice(1), async () => ({ storefrontId: [`No storefront ${p.storefrontId}.`] }));
  const project = results[CREATE_RESULT.readProject]!.results[0] as ProjectRow | undefined;
  if (results[CREATE_RESULT.project]!.meta.changes !== 1 || !project) return { project: null, items: [] };
  return { project, items: results[CREATE_RESULT.readItems]!.results as unknown as ItemRow[] };
}

export async function projectByNonce(db: D1Database, tenantId: number, nonce: string): Promise<ProjectRow | null> {
  return db.prepare(`SELECT ${PROJECT_COLUMNS} FROM projects WHERE tenant_id = ?1 AND create_nonce = ?2`).bind(tenantId, nonce).first<ProjectRow>();
}

export interface ProjectFilter {
  ownerId?: string;
  productReference?: string;
  statuses?: number[];
  since?: number;
  orderId?: string;
  processingStatuses?: string[];
  preflight?: PreflightVerdict[];
  storefrontId?: number;
  search?: string;
  skip: number;
  take: number;
  orderBy: string;
}

/** A page of projects and the total, with their items. */
export async function listProjects(db: D1Database, tenantId: number, f: ProjectFilter): Promise<{ total: number; rows: ProjectRow[]; items: Map<number, ItemRow[]> }> {
  const where = ['tenant_id = ?1'];
  const params: unknown[] = [tenantId];
  const add = (cond: (n: string) => string, value: unknown) => {
    params.push(value);
    where.push(cond(`?${params.length}`));
  };
  if (f.ownerId !== undefined) add((n) => `owner_id = ${n}`, f.ownerId);
  if (f.productReference !== undefined) add((n) => `product_reference = ${n}`, f.productReference);
  // One value as `=`: the planner then picks the index of that column (json_each hides it).
  if (f.statuses?.length === 1) add((n) => `status = ${n}`, f.statuses[0]);
  else if (f.statuses?.length) add((n) => `status IN (SELECT value FROM json_each(${n}))`, JSON.stringify(f.statuses));
  if (f.since !== undefined) add((n) => `created >= ${n}`, f.since);
  if (f.orderId !== undefined) add((n) => `order_id = ${n}`, f.orderId);
  if (f.processingStatuses?.length) {
    if (f.processingStatuses.length === 1) add((n) => `processing_status = ${n}`, f.processingStatuses[0]);
    else add((n) => `processing_status IN (SELECT value FROM json_each(${n}))`, JSON.stringify(f.processingStatuses));
  }
  if (f.preflight?.length === 1) add((n) => `preflight = ${n}`, f.preflight[0]);
  else if (f.preflight?.length) add((n) => `preflight IN (SELECT value FROM json_each(${n}))`, JSON.stringify(f.preflight));
  if (f.storefrontId !== undefined) add((n) => `storefront_id = ${n}`, f.storefrontId);
  if (f.search) add((n) => `name LIKE ${n} ESCAPE '\\'`, f.search);
  const clause = where.join(' AND ');
  const page = `SELECT ${PROJECT_COLUMNS} FROM projects WHERE ${clause} ORDER BY ${f.orderBy} LIMIT ${f.take} OFFSET ${f.skip}`;
  // One round trip: the total, the page, and the page's items.
  const [count, rows, itemRows] = await db.batch([
    db.prepare(`SELECT count(*) AS n FROM projects WHERE ${clause}`).bind(...params),
    db.prepare(page).bind(...params),
    db
      .prepare(`SELECT * FROM project_items WHERE tenant_id = ?1 AND project_id IN (SELECT id FROM (${page})) ORDER BY project_id, sort_index`)
      .bind(...params),
  ]);
  const items = new Map<number, ItemRow[]>();
  for (const r of itemRows!.results as unknown as ItemRow[]) {
    const list = items.get(r.project_id);
    if (list) list.push(r);
    else items.set(r.project_id, [r]);
  }
  return { total: (count!.results[0] as { n: number }).n, rows: rows!.results as unknown as ProjectRow[], items };
}

/** Preview resources kept for the projects of JSON list ?2 (trusted SQL). */
const PREVIEW_ROWS = (a: string) =>
  `${a}.type = 'resource' AND ${a}.owner_id = '' AND ${a}.namespace = 'project-previews'
   AND ${a}.source_id IN (SELECT 'project-' || value FROM json_each(?2))`;

/**
 * Deletes projects with their items, order data, jobs, outputs (artifacts) and kept previews,
 * blob refcounts dropping in the same batch. Returns the ids that existed.
 */
export async function deleteProjects(db: D1Database, tenantId: number, ids: number[]): Promise<number[]> {
  if (!ids.length) return [];
  const list = JSON.stringify(ids);
  const { results } = await db.prepare(`SELECT id FROM projects WHERE tenant_id = ?1 AND id IN (SELECT value FROM json_each(?2))`).bind(tenantId, list).all<{ id: number }>();
  const found = results.map((r) => r.id);
  if (!found.length) return [];
  const f = JSON.stringify(found);
  const mine = `tenant_id = ?1 AND project_id IN (SELECT value FROM json_each(?2))`;
  await db.batch([
    // Outputs' blobs lose one reference per artifact row (same rule as the asset store's refcounts).
    db
      .prepare(
        `UPDATE blobs SET refcount = refcount - (SELECT count(*) FROM artifacts a
             WHERE a.tenant_id = ?1 AND a.project_id IN (SELECT value FROM json_each(?2)) AND a.blob_sha = blobs.sha256),
           last_modified = ${NOW_MS}
         WHERE tenant_id = ?1 AND sha256 IN (SELECT blob_sha FROM artifacts WHERE ${mine})`,
      )
      .bind(tenantId, f),
    db.prepare(`DELETE FROM anonymous_tokens WHERE tenant_id = ?1 AND kind = 'artifact' AND target_id IN (SELECT id FROM artifacts WHERE ${mine})`).bind(tenantId, f),
    // The kept preview of each project (preview.ts: namespace project-previews, source project-<id>).
    db
      .prepare(
        `UPDATE blobs SET refcount = refcount - (SELECT count(*) FROM assets a WHERE a.tenant_id = ?1 AND ${PREVIEW_ROWS('a')} AND a.blob_sha = blobs.sha256),
           last_modified = ${NOW_MS}
         WHERE tenant_id = ?1 AND sha256 IN (SELECT blob_sha FROM assets a WHERE a.tenant_id = ?1 AND ${PREVIEW_ROWS('a')})`,
      )
      .bind(tenantId, f),
    db.prepare(`DELETE FROM anonymous_tokens WHERE tenant_id = ?1 AND kind = 'asset' AND target_id IN (SELECT id FROM assets a WHERE a.tenant_id = ?1 AND ${PREVIEW_ROWS('a')})`).bind(tenantId, f),
    db.prepare(`DELETE FROM assets AS a WHERE a.tenant_id = ?1 AND ${PREVIEW_ROWS('a')}`).bind(tenantId, f),
    db.prepare(`DELETE FROM artifacts WHERE ${mine}`).bind(tenantId, f),
    db.prepare(`DELETE FROM jobs WHERE ${mine}`).bind(tenantId, f),
    db.prepare(`DELETE FROM order_data WHERE ${mine}`).bind(tenantId, f),
    db.prepare(`DELETE FROM project_items WHERE ${mine}`).bind(tenantId, f),
    db.prepare(`DELETE FROM projects WHERE tenant_id = ?1 AND id IN (SELECT value FROM json_each(?2))`).bind(tenantId, f),
  ]);
  return found;
}

/** Sets the status; when `triggerOn` is the new status and processing never started, starts it. */
/**
 * Moves the project from status `from` to `code`. Conditional on `from`: of concurrent moves
 * that read the same status, one changes the row and the others get `moved: false` (the caller
 * answers 409), so ten parallel transitions apply once.
 */
export async function setProjectStatus(
  db: D1Database,
  tenantId: number,
  projectId: number,
  from: number,
  code: number,
  trigger: { status: ProcessingStatus } | null,
): Promise<{ moved: boolean; triggered: boolean }> {
  const moved = await db
    .prepare(`UPDATE projects SET status = ?3, last_modified = ${NOW_MS} WHERE tenant_id = ?1 AND id = ?2 AND status = ?4`)
    .bind(tenantId, projectId, code, from)
    .run();
  if (moved.meta.changes !== 1) return { moved: false, triggered: false };
  if (!trigger) return { moved: true, triggered: false };
  // The first time only: the condition makes a second entry (or a concurrent call) a no-op.
  const triggered = await db
    .prepare(
      `UPDATE projects SET processing_triggered_at = ${NOW_MS}, processing_status = ?3
       WHERE tenant_id = ?1 AND id = ?2 AND processing_triggered_at IS NULL`,
    )
    .bind(tenantId, projectId, trigger.status)
    .run();
  return { moved: true, triggered: triggered.meta.changes === 1 };
}

/** The product version and variant a stored project item resolved to (null when it names none). */
export async function itemProduct(db: D1Database, tenantId: number, itemId: number) {
  return db
    .prepare(`SELECT product_version_id AS versionId, product_variant_id AS variantId FROM project_items WHERE tenant_id = ?1 AND id = ?2`)
    .bind(tenantId, itemId)
    .first<{ versionId: number | null; variantId: number | null }>();
}

/** Each item's variant price, by item id (items without a variant, or a variant without a price, are left out). */
export async function itemVariantPrices(db: D1Database, tenantId: number, itemIds: number[]): Promise<Map<number, number>> {
  const { results } = await db
    .prepare(
      `SELECT i.id, v.price FROM project_items i JOIN variants v ON v.tenant_id = i.tenant_id AND v.id = i.product_variant_id
       WHERE i.tenant_id = ?1 AND i.id IN (SELECT value FROM json_each(?2))`,
    )
    .bind(tenantId, JSON.stringify(itemIds))
    .all<{ id: number; price: number | null }>();
  const prices = new Map<number, number>();
  for (const r of results) if (r.price != null) prices.set(r.id, r.price);
  return prices;
}

export async function setProcessingStatus(db: D1Database, tenantId: number, projectId: number, status: ProcessingStatus): Promise<void> {
  await db
    .prepare(`UPDATE projects SET processing_status = ?3, last_modified = ${NOW_MS} WHERE tenant_id = ?1 AND id = ?2`)
    .bind(tenantId, projectId, status)
    .run();
}

// --- order data -----------------------------------------------------------------------------------

export async function upsertOrderData(
  db: D1Database,
  tenantId: number,
  projectId: number,
  itemId: number,
  data: Array<{ key: string; value: string; type: string }>,
  maxKeys: number,
): Promise<boolean> {
  // Upsert, then a check in the same batch: more than maxKeys keys aborts the whole batch.
  const statements = [
    db
      .prepare(
        `INSERT INTO order_data (tenant_id, project_id, item_id, key, value, type)
         SELECT ?1, ?2, ?3, d.value ->> '$.key', d.value ->> '$.value', d.value ->> '$.type' FROM json_each(?4) d WHERE true
         ON CONFLICT (tenant_id, project_id, item_id, key) DO UPDATE SET value = excluded.value, type = excluded.type, last_modified = ${NOW_MS}`,
      )
      .bind(tenantId, projectId, itemId, JSON.stringify(data)),
    db
      .prepare(
        `INSERT INTO platform_guard (id, ok) SELECT 1, (SELECT count(*) FROM order_data WHERE tenant_id = ?1 AND project_id = ?2 AND item_id = ?3) <= ?4
         ON CONFLICT (id) DO UPDATE SET ok = excluded.ok`,
      )
      .bind(tenantId, projectId, itemId, maxKeys),
    db.prepare(`UPDATE projects SET last_modified = ${NOW_MS} WHERE tenant_id = ?1 AND id = ?2`).bind(tenantId, projectId),
  ];
  try {
    await db.batch(statements);
    return true;
  } catch (err) {
    if (/CHECK constraint failed/i.test(String((err as Error).message))) return false;
    throw err;
  }
}

export async function orderDataOf(db: D1Database, tenantId: number, projectId: number) {
  const { results } = await db
    .prepare(`SELECT key, value, type, item_id FROM order_data WHERE tenant_id = ?1 AND project_id = ?2 ORDER BY item_id, key`)
    .bind(tenantId, projectId)
    .all<{ key: string; value: string; type: 'PlainText' | 'CommaSeparatedList' | 'SerializedJson'; item_id: number }>();
  return results.map((r) => ({ key: r.key, value: r.value, type: r.type, itemId: r.item_id === 0 ? null : r.item_id }));
}

// --- statuses and transitions ---------------------------------------------------------------------

export interface StatusRow {
  id: number;
  code: number;
  color: string | null;
  display_name: string;
  is_initial: number;
  is_final: number;
}
export interface TransitionRow {
  id: number;
  name: string;
  display_name: string;
  start_status: number;
  result_status: number;
}

export const statusDto = (r: StatusRow) => ({ id: r.id, code: r.code, color: r.color, displayName: r.display_name });
export const backofficeStatusDto = (r: StatusRow) => ({ ...statusDto(r), isInitial: r.is_initial === 1, isFinal: r.is_final === 1 });
export const transitionDto = (r: TransitionRow) => ({
  id: r.id,
  name: r.name,
  displayName: r.display_name,
  startStatus: r.start_status,
  resultStatus: r.result_status,
});

export async function statuses(db: D1Database, tenantId: number): Promise<StatusRow[]> {
  return (await db.prepare(`SELECT * FROM project_statuses WHERE tenant_id = ?1 ORDER BY id`).bind(tenantId).all<StatusRow>()).results;
}
export async function statusById(db: D1Database, tenantId: number, id: number): Promise<StatusRow | null> {
  return db.prepare(`SELECT * FROM project_statuses WHERE tenant_id = ?1 AND id = ?2`).bind(tenantId, id).first<StatusRow>();
}
export async function statusByCode(db: D1Database, tenantId: number, code: number): Promise<StatusRow | null> {
  return db.prepare(`SELECT * FROM project_statuses WHERE tenant_id = ?1 AND code = ?2`).bind(tenantId, code).first<StatusRow>();
}
export async function transitions(db: D1Database, tenantId: number, startStatus?: number): Promise<TransitionRow[]> {
  const q =
    startStatus === undefined
      ? db.prepare(`SELECT * FROM project_transitions WHERE tenant_id = ?1 ORDER BY id`).bind(tenantId)
      : db.prepare(`SELECT * FROM project_transitions WHERE tenant_id = ?1 AND start_status = ?2 ORDER BY id`).bind(tenantId, startStatus);
  return (await q.all<TransitionRow>()).results;
}
export async function transitionById(db: D1Database, tenantId: number, id: number): Promise<TransitionRow | null> {
  return db.prepare(`SELECT * FROM project_transitions WHERE tenant_id = ?1 AND id = ?2`).bind(tenantId, id).first<TransitionRow>();
}

/** Whether projects or transitions use a status code. */
export async function statusUse(db: D1Database, tenantId: number, code: number): Promise<{ projects: boolean; transitions: boolean }> {
  const row = await db
    .prepare(
      `SELECT EXISTS (SELECT 1 FROM projects WHERE tenant_id = ?1 AND status = ?2) AS p,
              EXISTS (SELECT 1 FROM project_transitions WHERE tenant_id = ?1 AND (start_status = ?2 OR result_status = ?2)) AS t`,
    )
    .bind(tenantId, code)
    .first<{ p: number; t: number }>();
  return { projects: row?.p === 1, transitions: row?.t === 1 };
}

export const isUniqueViolation = (err: unknown): boolean => /UNIQUE constraint failed/i.test(String((err as Error)?.message ?? err));

export async function insertStatus(
  db: D1Database,
  tenantId: number,
  s: { code: number; color: string | null; displayName: string; isInitial: boolean; isFinal: boolean },
): Promise<StatusRow> {
  // The first status of a tenant is initial whatever was asked; marking another moves the flag
  // (one batch: a duplicate code rolls the move back too).
  const statements = [
    db
      .prepare(
        `INSERT INTO project_statuses (tenant_id, code, color, display_name, is_initial, is_final)
         VALUES (?1, ?2, ?3, ?4, ?5 OR NOT EXISTS (SELECT 1 FROM project_statuses WHERE tenant_id = ?1 AND is_initial = 1), ?6) RETURNING *`,
      )
      .bind(tenantId, s.code, s.color, s.displayName, s.isInitial ? 1 : 0, s.isFinal ? 1 : 0),
  ];
  if (s.isInitial) statements.unshift(db.prepare(`UPDATE project_statuses SET is_initial = 0 WHERE tenant_id = ?1 AND is_initial = 1`).bind(tenantId));
  const results = await db.batch(statements);
  const inserted = results[results.length - 1];
  return inserted!.results[0] as unknown as StatusRow;
}

export async function updateStatus(
  db: D1Database,
  tenantId: number,
  id: number,
  oldCode: number,
  s: { code: number; color: string | null; displayName: string; isInitial: boolean; isFinal: boolean },
): Promise<StatusRow> {
  const statements = [];
  if (s.isInitial) statements.push(db.prepare(`UPDATE project_statuses SET is_initial = 0 WHERE tenant_id = ?1 AND is_initial = 1 AND id <> ?2`).bind(tenantId, id));
  statements.push(
    db
      .prepare(`UPDATE project_statuses SET code = ?3, color = ?4, display_name = ?5, is_initial = ?6, is_final = ?7 WHERE tenant_id = ?1 AND id = ?2 RETURNING *`)
      .bind(tenantId, id, s.code, s.color, s.displayName, s.isInitial ? 1 : 0, s.isFinal ? 1 : 0),
  );
  if (s.code !== oldCode) {
    // A code change carries its projects and transitions along (they store codes).
    statements.push(db.prepare(`UPDATE projects SET status = ?3 WHERE tenant_id = ?1 AND status = ?2`).bind(tenantId, oldCode, s.code));
    statements.push(db.prepare(`UPDATE project_transitions SET start_status = ?3 WHERE tenant_id = ?1 AND start_status = ?2`).bind(tenantId, oldCode, s.code));
    statements.push(db.prepare(`UPDATE project_transitions SET result_status = ?3 WHERE tenant_id = ?1 AND result_status = ?2`).bind(tenantId, oldCode, s.code));
  }
  const results = await db.batch(statements);
  return results[s.isInitial ? 1 : 0]!.results[0] as unknown as StatusRow;
}

export async function deleteStatus(db: D1Database, tenantId: number, id: number): Promise<void> {
  await db.prepare(`DELETE FROM project_statuses WHERE tenant_id = ?1 AND id = ?2`).bind(tenantId, id).run();
}

export async function insertTransition(
  db: D1Database,
  tenantId: number,
  t: { name: string; displayName: string; startStatus: number; resultStatus: number },
): Promise<TransitionRow> {
  return (await db
    .prepare(`INSERT INTO project_transitions (tenant_id, name, display_name, start_status, result_status) VALUES (?1, ?2, ?3, ?4, ?5) RETURNING *`)
    .bind(tenantId, t.name, t.displayName, t.startStatus, t.resultStatus)
    .first<TransitionRow>())!;
}

export async function updateTransition(
  db: D1Database,
  tenantId: number,
  id: number,
  t: { name: string; displayName: string; startStatus: number; resultStatus: number },
): Promise<TransitionRow> {
  return (await db
    .prepare(`UPDATE project_transitions SET name = ?3, display_name = ?4, start_status = ?5, result_status = ?6 WHERE tenant_id = ?1 AND id = ?2 RETURNING *`)
    .bind(tenantId, id, t.name, t.displayName, t.startStatus, t.resultStatus)
    .first<TransitionRow>())!;
}

export async function deleteTransition(db: D1Database, tenantId: number, id: number): Promise<void> {
  await db.prepare(`DELETE FROM project_transitions WHERE tenant_id = ?1 AND id = ?2`).bind(tenantId, id).run();
}

/** `startProcessingOnStatus` of the tenant settings (null when unset). */
export async function startProcessingOnStatus(db: D1Database, tenantId: number): Promise<number | null> {
  const row = await db.prepare(`SELECT start_processing_on_status AS s FROM tenant_settings WHERE tenant_id = ?1`).bind(tenantId).first<{ s: number | null }>();
  return row?.s ?? null;
}

// --- assets named by projects ---------------------------------------------------------------------

/** Which of `ids` are designs (or resources) the owner may use: public, or the owner's private ones. */
export async function usableAssets(db: D1Database, tenantId: number, type: 'design' | 'resource', ids: string[], ownerId: string): Promise<Map<string, string>> {
  if (!ids.length) return new Map();
  const { results } = await db
    .prepare(`SELECT id, owner_id FROM assets WHERE tenant_id = ?1 AND type = ?2 AND id IN (SELECT value FROM json_each(?3)) AND owner_id IN ('', ?4)`)
    .bind(tenantId, type, JSON.stringify(ids), ownerId)
    .all<{ id: string; owner_id: string }>();
  return new Map(results.map((r) => [r.id, r.owner_id]));
}

export async function pipelinesExist(db: D1Database, tenantId: number, ids: number[]): Promise<Set<number>> {
  if (!ids.length) return new Set();
  const { results } = await db
    .prepare(`SELECT id FROM processing_pipelines WHERE tenant_id = ?1 AND id IN (SELECT value FROM json_each(?2))`)
    .bind(tenantId, JSON.stringify(ids))
    .all<{ id: number }>();
  return new Set(results.map((r) => r.id));
}

// --- storefront users, storefronts, tenant --------------------------------------------------------

export interface StorefrontUserRow {
  tenant_id: number;
  storefront_id: number;
  user_id: string;
  is_anonymous: number;
}
export const storefrontUserDto = (r: StorefrontUserRow) => ({
  userId: r.user_id,
  tenantId: r.tenant_id,
  storefrontId: r.storefront_id,
  isAnonymous: r.is_anonymous === 1,
});

export async function storefrontExists(db: D1Database, tenantId: number, storefrontId: number): Promise<boolean> {
  return (await db.prepare(`SELECT 1 AS x FROM storefronts WHERE tenant_id = ?1 AND id = ?2`).bind(tenantId, storefrontId).first()) !== null;
}

export async function storefrontUser(db: D1Database, tenantId: number, storefrontId: number, userId: string): Promise<StorefrontUserRow | null> {
  return db
    .prepare(`SELECT * FROM storefront_users WHERE tenant_id = ?1 AND storefront_id = ?2 AND user_id = ?3`)
    .bind(tenantId, storefrontId, userId)
    .first<StorefrontUserRow>();
}

export async function listStorefrontUsers(
  db: D1Database,
  tenantId: number,
  storefrontId: number,
  o: { includeAnonymous: boolean; search?: string; skip: number; take: number; orderBy: string },
): Promise<{ total: number; rows: StorefrontUserRow[] }> {
  const where = `tenant_id = ?1 AND storefront_id = ?2 AND (?3 OR is_anonymous = 0) AND (?4 IS NULL OR user_id LIKE ?4 ESCAPE '\\')`;
  const params = [tenantId, storefrontId, o.includeAnonymous ? 1 : 0, o.search ?? null];
  const [count, page] = await db.batch([
    db.prepare(`SELECT count(*) AS n FROM storefront_users WHERE ${where}`).bind(...params),
    db.prepare(`SELECT * FROM storefront_users WHERE ${where} ORDER BY ${o.orderBy} LIMIT ${o.take} OFFSET ${o.skip}`).bind(...params),
  ]);
  return { total: (count!.results[0] as { n: number }).n, rows: page!.results as unknown as StorefrontUserRow[] };
}

/** Creates the user unless it exists; returns the stored row (existing rows unchanged). */
export async function insertStorefrontUser(db: D1Database, tenantId: number, storefrontId: number, userId: string, isAnonymous: boolean): Promise<StorefrontUserRow> {
  const [, row] = await db.batch([
    db
      .prepare(`INSERT OR IGNORE INTO storefront_users (tenant_id, storefront_id, user_id, is_anonymous) VALUES (?1, ?2, ?3, ?4)`)
      .bind(tenantId, storefrontId, userId, isAnonymous ? 1 : 0),
    db.prepare(`SELECT * FROM storefront_users WHERE tenant_id = ?1 AND storefront_id = ?2 AND user_id = ?3`).bind(tenantId, storefrontId, userId),
  ]);
  return row!.results[0] as unknown as StorefrontUserRow;
}

/** Registers a user: created as regular, or an anonymous one made regular. */
export async function registerStorefrontUser(db: D1Database, tenantId: number, storefrontId: number, userId: string): Promise<StorefrontUserRow> {
  const [, row] = await db.batch([
    db
      .prepare(
        `INSERT INTO storefront_users (tenant_id, storefront_id, user_id, is_anonymous) VALUES (?1, ?2, ?3, 0)
         ON CONFLICT (tenant_id, storefront_id, user_id) DO UPDATE SET is_anonymous = 0`,
      )
      .bind(tenantId, storefrontId, userId),
    db.prepare(`SELECT * FROM storefront_users WHERE tenant_id = ?1 AND storefront_id = ?2 AND user_id = ?3`).bind(tenantId, storefrontId, userId),
  ]);
  return row!.results[0] as unknown as StorefrontUserRow;
}

/**
 * Moves the anonymous user's projects (of that storefront) and private assets and folders to the
 * regular user, then removes the anonymous user: one batch.
 */
export async function mergeStorefrontUsers(db: D1Database, tenantId: number, storefrontId: number, from: string, to: string): Promise<void> {
  await db.batch([
    db.prepare(`UPDATE projects SET owner_id = ?4, last_modified = ${NOW_MS} WHERE tenant_id = ?1 AND storefront_id = ?2 AND owner_id = ?3`).bind(tenantId, storefrontId, from, to),
    db.prepare(`UPDATE jobs SET owner_id = ?3 WHERE tenant_id = ?1 AND owner_id = ?2`).bind(tenantId, from, to),
    db.prepare(`UPDATE folders SET owner_id = ?3 WHERE tenant_id = ?1 AND owner_id = ?2`).bind(tenantId, from, to),
    db.prepare(`UPDATE assets SET owner_id = ?3, last_modified = ${NOW_MS} WHERE tenant_id = ?1 AND owner_id = ?2`).bind(tenantId, from, to),
    db.prepare(`DELETE FROM storefront_users WHERE tenant_id = ?1 AND storefront_id = ?2 AND user_id = ?3`).bind(tenantId, storefrontId, from),
  ]);
}

/** Private assets or folders of `from` whose names clash with `to`'s (merge would break uniqueness). */
export async function mergeClashes(db: D1Database, tenantId: number, from: string, to: string): Promise<number> {
  const row = await db
    .prepare(
      `SELECT (SELECT count(*) FROM assets a JOIN assets b ON b.tenant_id = a.tenant_id AND b.type = a.type AND b.owner_id = ?3
                 AND b.folder_id = a.folder_id AND b.name = a.name COLLATE NOCASE
               WHERE a.tenant_id = ?1 AND a.owner_id = ?2 AND a.type <> 'resource')
            + (SELECT count(*) FROM folders a JOIN folders b ON b.tenant_id = a.tenant_id AND b.type = a.type AND b.owner_id = ?3
                 AND b.path = a.path COLLATE NOCASE
               WHERE a.tenant_id = ?1 AND a.owner_id = ?2) AS n`,
    )
    .bind(tenantId, from, to)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

export interface StorefrontRow {
  id: number;
  tenant_id: number;
  name: string;
  type: string;
  status: 'Dev' | 'Prod';
  created: number;
}
export const storefrontDto = (r: StorefrontRow) => ({ id: r.id, tenantId: r.tenant_id, name: r.name, type: r.type, status: r.status, created: iso(r.created) });

export async function listStorefronts(db: D1Database, tenantId: number, o: { search?: string; skip: number; take: number; orderBy: string }) {
  const where = `tenant_id = ?1 AND (?2 IS NULL OR name LIKE ?2 ESCAPE '\\')`;
  const [count, page] = await db.batch([
    db.prepare(`SELECT count(*) AS n FROM storefronts WHERE ${where}`).bind(tenantId, o.search ?? null),
    db.prepare(`SELECT * FROM storefronts WHERE ${where} ORDER BY ${o.orderBy} LIMIT ${o.take} OFFSET ${o.skip}`).bind(tenantId, o.search ?? null),
  ]);
  return { total: (count!.results[0] as { n: number }).n, rows: page!.results as unknown as StorefrontRow[] };
}

export async function storefrontById(db: D1Database, tenantId: number, id: number): Promise<StorefrontRow | null> {
  return db.prepare(`SELECT * FROM storefronts WHERE tenant_id = ?1 AND id = ?2`).bind(tenantId, id).first<StorefrontRow>();
}

export async function tenantInfo(db: D1Database, tenantId: number) {
  const row = await db.prepare(`SELECT id, name, created_at FROM tenants WHERE id = ?1`).bind(tenantId).first<{ id: number; name: string; created_at: number }>();
  return row ? { tenantId: row.id, tenancyName: row.name, tenantCreationTime: iso(row.created_at * 1000), isActive: true } : null;
}

export async function tenantUsers(db: D1Database, tenantId: number) {
  const { results } = await db
    .prepare(`SELECT id, name, email, role, disabled FROM users WHERE tenant_id = ?1 ORDER BY email`)
    .bind(tenantId)
    .all<{ id: string; name: string; email: string; role: string; disabled: number }>();
  return results.map((r) => ({ userId: r.id, userName: r.name || r.email, email: r.email, role: r.role, isActive: r.disabled !== 1 }));
}

// --- for the job runner (src/platform/jobs): processing status, watchdog, item order ---------

/** The runner's processingStatus of a project (only when it changed). */
export function projectStatusStatement(db: D1Database, tenantId: number, projectId: number, status: string): D1PreparedStatement {
  return db
    .prepare(`UPDATE projects SET processing_status = ?3, last_modified = ?4 WHERE tenant_id = ?1 AND id = ?2 AND processing_status <> ?3`)
    .bind(tenantId, projectId, status, Date.now());
}

/** A project's processing trigger and status; null when it does not exist or `ownerId` is given and does not own it. */
export async function projectProcessingState(
  db: D1Database,
  tenantId: number,
  projectId: number,
  ownerId: string | null,
): Promise<{ triggered: number | null; status: string } | null> {
  return db
    .prepare(
      `SELECT processing_triggered_at AS triggered, processing_status AS status FROM projects
       WHERE tenant_id = ?1 AND id = ?2 AND (?3 IS NULL OR owner_id = ?3)`,
    )
    .bind(tenantId, projectId, ownerId)
    .first<{ triggered: number | null; status: string }>();
}

/** Projects triggered before `before`, still InProgress, with no job row: their trigger's call to the runner was lost. */
export async function projectsWithoutJobs(db: D1Database, before: number): Promise<Array<{ tenantId: number; id: number; processing: string }>> {
  const { results } = await db
    .prepare(
      `SELECT p.tenant_id AS tenantId, p.id, p.processing FROM tenants t JOIN projects p ON p.tenant_id = t.id
     WHERE p.processing_triggered_at IS NOT NULL AND p.processing_triggered_at < ?1 AND p.processing_status = 'InProgress'
       AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.tenant_id = p.tenant_id AND j.project_id = p.id)
     LIMIT 100`,
    )
    .bind(before)
    .all<{ tenantId: number; id: number; processing: string }>();
  return results;
}

export async function projectItemOrder(db: D1Database, tenantId: number, projectId: number): Promise<Array<{ id: number; sort_index: number }>> {
  const { results } = await db
    .prepare(`SELECT id, sort_index FROM project_items WHERE tenant_id = ?1 AND project_id = ?2`)
    .bind(tenantId, projectId)
    .all<{ id: number; sort_index: number }>();
  return results;
}
