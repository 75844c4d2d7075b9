/**
 * D1 of products and what a version holds: options, values, variants, design and mockup
 * connections (store/versions.ts writes new versions). Every query starts from `tenant_id`.
 */
import { sql, type SQL } from 'drizzle-orm';
import { all, batchUnlessGuardFails, customFieldsMatch, existsAll, first, guardIds, guardThat, statementOf } from '../../core/d1';
import { likePattern, type SortKey } from '../../core';
import { parseJson } from '../../core/stored-json';
import { attachedRefs } from './entities';
import { newVersionStatements, versionGuard, type ConnectionRow, type PreparedOptions, type VariantUpdate } from './versions';

// --- products -----------------------------------------------------------------------------------------

export interface ProductRow {
  id: number;
  tenantId: number;
  name: string;
  description: string | null;
  imageResourceId: string | null;
  tags: string;
  customFields: string;
  personalizationWorkflowId: number | null;
  processingPipelineId: number | null;
  currentVersionId: number;
  created: number;
  lastModified: number;
}

const PRODUCT_COLUMNS = `id, tenant_id AS tenantId, name, description, image_resource_id AS imageResourceId, tags, custom_fields AS customFields,
  personalization_workflow_id AS personalizationWorkflowId, processing_pipeline_id AS processingPipelineId, current_version_id AS currentVersionId, created,
  last_modified AS lastModified`;

export async function findProduct(db: D1Database, tenantId: number, id: number): Promise<ProductRow | null> {
  return first<ProductRow>(db, `SELECT ${PRODUCT_COLUMNS} FROM products WHERE tenant_id = ?1 AND id = ?2`, tenantId, id);
}

export async function productHasVersion(db: D1Database, tenantId: number, productId: number, versionId: number): Promise<boolean> {
  return (await first(db, `SELECT id FROM product_versions WHERE tenant_id = ?1 AND id = ?2 AND product_id = ?3`, tenantId, versionId, productId)) !== null;
}

/** A product's storefront reference, as its DTO shows the first one. */
export interface ProductReferenceHead {
  productId: number;
  storefrontId: number;
  productReference: string;
  productReferenceName: string | null;
}

/** The products' Product references, oldest first (per product, the first is the DTO's). */
export async function productReferenceHeads(db: D1Database, tenantId: number, productIds: number[]): Promise<ProductReferenceHead[]> {
  return all<ProductReferenceHead>(
    db,
    `SELECT product_id AS productId, storefront_id AS storefrontId, product_reference AS productReference, product_reference_name AS productReferenceName
     FROM product_references WHERE tenant_id = ?1 AND product_reference_type = 'Product' AND product_id IN (SELECT value FROM json_each(?2))
     ORDER BY created, storefront_id, product_reference`,
    tenantId,
    JSON.stringify(productIds),
  );
}

export interface ProductRowFilter {
  skip: number;
  take: number;
  sorting: SortKey<'id' | 'name' | 'created' | 'lastModified'>[];
  search?: string;
  customFields?: Record<string, unknown>;
  tags?: string[];
  sku?: string;
  /** Only these products (storefront: the products a storefront references). */
  ids?: number[];
}

const PRODUCT_SORT = { id: 'id', name: 'name COLLATE NOCASE', created: 'created', lastModified: 'last_modified' } as const;

/** The WHERE of product filters (tags: every one; sku: a variant of the current version). */
function productConditions(tenantId: number, f: Omit<ProductRowFilter, 'skip' | 'take' | 'sorting'>, alias = 'products'): SQL[] {
  const p = sql.raw(alias);
  const where: SQL[] = [sql`${p}.tenant_id = ${tenantId}`];
  if (f.search) where.push(sql`${p}.name LIKE ${likePattern(f.search)} ESCAPE '\\'`);
  if (f.customFields && Object.keys(f.customFields).length) where.push(customFieldsMatch(sql.raw(`${alias}.custom_fields`), f.customFields));
  if (f.tags?.length) where.push(sql`NOT EXISTS (SELECT 1 FROM json_each(${JSON.stringify(f.tags)}) w WHERE w.value NOT IN (SELECT value FROM json_each(${p}.tags)))`);
  if (f.sku) {
    where.push(
      sql`EXISTS (SELECT 1 FROM variants v WHERE v.tenant_id = ${p}.tenant_id AND v.product_version_id = ${p}.current_version_id AND v.sku = ${f.sku} COLLATE NOCASE)`,
    );
  }
  if (f.ids) where.push(sql`${p}.id IN (SELECT value FROM json_each(${JSON.stringify(f.ids)}))`);
  return where;
}

/** One page of the tenant's products and the count of all that match. */
export async function listProductRows(db: D1Database, tenantId: number, f: ProductRowFilter): Promise<{ total: number; rows: ProductRow[] }> {
  const cond = sql.join(productConditions(tenantId, f), sql` AND `);
  const order = f.sorting.length ? f.sorting.map((k) => `${PRODUCT_SORT[k.field]} ${k.direction}`).join(', ') + ', id' : 'id';
  const [count, page] = await db.batch<Record<string, unknown>>([
    statementOf(db, sql`SELECT count(*) AS n FROM products WHERE ${cond}`),
    statementOf(db, sql`SELECT ${sql.raw(PRODUCT_COLUMNS)} FROM products WHERE ${cond} ORDER BY ${sql.raw(order)} LIMIT ${f.take} OFFSET ${f.skip}`),
  ]);
  return { total: Number(count!.results[0]?.n ?? 0), rows: page!.results as unknown as ProductRow[] };
}

interface Attached {
  personalizationWorkflowId?: number | null;
  processingPipelineId?: number | null;
}

export interface NewProduct extends Attached {
  name: string;
  description?: string | null;
  tags?: string[] | null;
  customFields?: Record<string, unknown> | null;
}

/**
 * The product, its first version, options, values and variants in one batch, after a guard that
 * the workflow and pipeline it names still exist. Its id, or null when the guard failed.
 */
export async function insertProduct(db: D1Database, tenantId: number, input: NewProduct, options: PreparedOptions): Promise<number | null> {
  const now = Date.now();
  const productSql = `(SELECT max(id) FROM products WHERE tenant_id = ?1)`;
  const results = await batchUnlessGuardFails(db, [
    attachedGuard(db, tenantId, input),
    db
      .prepare(
        `INSERT INTO products (tenant_id, name, description, tags, custom_fields, personalization_workflow_id, processing_pipeline_id, created, last_modified)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8)`,
      )
      .bind(tenantId, input.name, input.description ?? null, JSON.stringify(input.tags ?? []), JSON.stringify(input.customFields ?? {}),
        input.personalizationWorkflowId ?? null, input.processingPipelineId ?? null, now),
    ...newVersionStatements(db, tenantId, productSql, null, { options }),
  ]);
  return results ? Number(results[1]!.meta.last_row_id) : null;
}

/** Fails a batch unless the workflow and pipeline `v` names (if any) still exist. */
export const attachedGuard = (db: D1Database, tenantId: number, v: Attached): D1PreparedStatement => guardThat(db, `SELECT ${existsAll(attachedRefs(v))}`, tenantId);

/** The fields given (undefined: unchanged) of a product. */
export interface ProductFieldsChange extends Attached {
  name?: string;
  description?: string | null;
  tags?: string[] | null;
  customFields?: Record<string, unknown> | null;
}

/** The UPDATE of the given fields (and last_modified), to run in a batch. */
export function updateProductStatement(db: D1Database, tenantId: number, id: number, input: ProductFieldsChange): D1PreparedStatement {
  const sets: string[] = [];
  const params: unknown[] = [];
  const set = (column: string, value: unknown) => {
    params.push(value);
    sets.push(`${column} = ?${params.length + 2}`);
  };
  if (input.name !== undefined) set('name', input.name);
  if (input.description !== undefined) set('description', input.description);
  if (input.tags !== undefined) set('tags', JSON.stringify(input.tags ?? []));
  if (input.customFields !== undefined) set('custom_fields', JSON.stringify(input.customFields ?? {}));
  if (input.personalizationWorkflowId !== undefined) set('personalization_workflow_id', input.personalizationWorkflowId);
  if (input.processingPipelineId !== undefined) set('processing_pipeline_id', input.processingPipelineId);
  set('last_modified', Date.now());
  return db.prepare(`UPDATE products SET ${sets.join(', ')} WHERE tenant_id = ?1 AND id = ?2`).bind(tenantId, id, ...params);
}

/** The given fields, after a guard that the workflow and pipeline named still exist; false when it failed. */
export async function updateProductFields(db: D1Database, tenantId: number, id: number, input: ProductFieldsChange): Promise<boolean> {
  return (await batchUnlessGuardFails(db, [attachedGuard(db, tenantId, input), updateProductStatement(db, tenantId, id, input)])) !== null;
}

/** Projects, references, links or bundles that use the product (→ 409 on delete). */
const PRODUCT_IN_USE = `
  EXISTS (SELECT 1 FROM project_items WHERE tenant_id = ?1 AND product_id = ?2)
  OR EXISTS (SELECT 1 FROM product_references WHERE tenant_id = ?1 AND product_id = ?2)
  OR EXISTS (SELECT 1 FROM product_links WHERE tenant_id = ?1 AND product_id = ?2)
  OR EXISTS (SELECT 1 FROM product_bundles b, json_each(b.items) i WHERE b.tenant_id = ?1 AND json_extract(i.value, '$.productId') = ?2)`;

export async function productInUse(db: D1Database, tenantId: number, id: number): Promise<boolean> {
  return (await first(db, `SELECT 1 WHERE ${PRODUCT_IN_USE}`, tenantId, id)) !== null;
}

/** The product with every version and what they hold; false (nothing deleted) when something started using it. */
export async function deleteProductRows(db: D1Database, tenantId: number, id: number): Promise<boolean> {
  const versions = `(SELECT id FROM product_versions WHERE tenant_id = ?1 AND product_id = ?2)`;
  const results = await batchUnlessGuardFails(db, [
    // Checked again inside the batch: a reference or project made meanwhile aborts it.
    guardThat(db, `SELECT NOT (${PRODUCT_IN_USE})`, tenantId, id),
    ...['variants', 'option_values', 'product_options', 'design_connections', 'mockup_connections'].map((table) =>
      db.prepare(`DELETE FROM ${table} WHERE tenant_id = ?1 AND product_version_id IN ${versions}`).bind(tenantId, id),
    ),
    db.prepare(`DELETE FROM product_versions WHERE tenant_id = ?1 AND product_id = ?2`).bind(tenantId, id),
    db.prepare(`DELETE FROM products WHERE tenant_id = ?1 AND id = ?2`).bind(tenantId, id),
  ]);
  return results !== null;
}

export async function setProductImageId(db: D1Database, tenantId: number, productId: number, resourceId: string): Promise<void> {
  await db.prepare(`UPDATE products SET image_resource_id = ?3, last_modified = ?4 WHERE tenant_id = ?1 AND id = ?2`).bind(tenantId, productId, resourceId, Date.now()).run();
}

// --- options ---------------------------------------------------------------------------------------------

export interface OptionRow {
  id: number;
  productVersionId: number;
  productId: number;
  uid: string;
  type: 'Simple' | 'Size' | 'PageCount';
  title: string;
  traits: string;
  sortIndex: number;
  tag: string | null;
  useForDesignBinding: number;
  useForMockupBinding: number;
}
export interface OptionValueRow {
  id: number;
  optionUid: string;
  uid: string;
  title: string;
  value: string | null;
  description: string | null;
  sortIndex: number;
  isDefault: number;
  tag: string | null;
}

/** A version's options and their values, each in display order. */
export async function optionRowsOfVersion(db: D1Database, tenantId: number, versionId: number): Promise<{ options: OptionRow[]; values: OptionValueRow[] }> {
  const [options, values] = await db.batch<Record<string, unknown>>([
    db
      .prepare(
        `SELECT id, product_version_id AS productVersionId, product_id AS productId, uid, type, title, traits, sort_index AS sortIndex, tag,
           use_for_design_binding AS useForDesignBinding, use_for_mockup_binding AS useForMockupBinding
         FROM product_options WHERE tenant_id = ?1 AND product_version_id = ?2 ORDER BY sort_index, id`,
      )
      .bind(tenantId, versionId),
    db
      .prepare(
        `SELECT id, option_uid AS optionUid, uid, title, value, description, sort_index AS sortIndex, is_default AS isDefault, tag
         FROM option_values WHERE tenant_id = ?1 AND product_version_id = ?2 ORDER BY sort_index, id`,
      )
      .bind(tenantId, versionId),
  ]);
  return { options: options!.results as unknown as OptionRow[], values: values!.results as unknown as OptionValueRow[] };
}

// --- variants --------------------------------------------------------------------------------------------

export interface VariantRow {
  id: number;
  uid: string;
  productVersionId: number;
  productId: number;
  tenantId: number;
  optionValueUids: string;
  isAvailable: number;
  price: number | null;
  weight: number | null;
  sortIndex: number;
  storefrontProductVariantId: string | null;
  sku: string | null;
}

export async function variantRowsOfVersion(db: D1Database, tenantId: number, versionId: number): Promise<VariantRow[]> {
  return all<VariantRow>(
    db,
    `SELECT id, uid, product_version_id AS productVersionId, product_id AS productId, tenant_id AS tenantId, option_value_uids AS optionValueUids,
       is_available AS isAvailable, price, weight, sort_index AS sortIndex, storefront_product_variant_id AS storefrontProductVariantId, sku
     FROM variants WHERE tenant_id = ?1 AND product_version_id = ?2 ORDER BY sort_index, id`,
    tenantId,
    versionId,
  );
}

/** The version a variant of the product belongs to (any of its versions), or null. */
export async function versionOfVariant(db: D1Database, tenantId: number, productId: number, variantId: number): Promise<number | null> {
  const row = await first<{ v: number }>(db, `SELECT product_version_id AS v FROM variants WHERE tenant_id = ?1 AND id = ?2 AND product_id = ?3`, tenantId, variantId, productId);
  return row?.v ?? null;
}

/** Which of `ids` are variants of the version. */
export async function variantIdsInVersion(db: D1Database, tenantId: number, versionId: number, ids: number[]): Promise<Set<number>> {
  const rows = await all<{ id: number }>(db, `SELECT id FROM variants WHERE tenant_id = ?1 AND product_version_id = ?2 AND id IN (SELECT value FROM json_each(?3))`, tenantId, versionId, JSON.stringify(ids));
  return new Set(rows.map((r) => r.id));
}

/** Does a project item use the version (then it is kept as it is, and edits make a new one)? */
export async function versionUsedByProjects(db: D1Database, tenantId: number, versionId: number): Promise<boolean> {
  return (await first(db, `SELECT 1 FROM project_items WHERE tenant_id = ?1 AND product_version_id = ?2 LIMIT 1`, tenantId, versionId)) !== null;
}

/** The variant column each set-variant-* edit writes. */
export const VARIANT_COLUMN = { sku: 'sku', price: 'price', weight: 'weight', availability: 'is_available' } as const satisfies Record<string, VariantUpdate['column']>;

/**
 * One column of the version's variants, in place (one entry per variant); false (nothing written)
 * when the product is no longer at `version`.
 */
export async function updateVariantsInPlace(db: D1Database, tenantId: number, productId: number, version: number, update: VariantUpdate): Promise<boolean> {
  const results = await batchUnlessGuardFails(db, [
    versionGuard(db, tenantId, productId, version),
    db
      .prepare(
        // MATERIALIZED: SQLite then indexes the values, instead of re-reading the JSON per variant (300 ms → 5 ms at 500).
        `WITH j AS MATERIALIZED (SELECT json_extract(value, '$.productVariantId') AS id, json_extract(value, '$.value') AS v FROM json_each(?3))
               UPDATE variants SET ${update.column} = j.v FROM j
               WHERE variants.tenant_id = ?1 AND variants.product_version_id = ?2 AND variants.id = j.id`,
      )
      .bind(tenantId, version, JSON.stringify(update.entries)),
    db.prepare(`UPDATE products SET last_modified = ?3 WHERE tenant_id = ?1 AND id = ?2`).bind(tenantId, productId, Date.now()),
  ]);
  return results !== null;
}

// --- connections ------------------------------------------------------------------------------------------

export type ConnectionKind = 'design' | 'mockup';

interface StoredConnection {
  assetId: string;
  designGroup: string | null;
  options: string;
}

export async function connectionsOfVersion(db: D1Database, tenantId: number, versionId: number, kind: ConnectionKind): Promise<ConnectionRow[]> {
  const rows = await all<StoredConnection>(
    db,
    kind === 'design'
      ? `SELECT design_id AS assetId, design_group AS designGroup, options FROM design_connections WHERE tenant_id = ?1 AND product_version_id = ?2 ORDER BY id`
      : `SELECT mockup_id AS assetId, NULL AS designGroup, options FROM mockup_connections WHERE tenant_id = ?1 AND product_version_id = ?2 ORDER BY id`,
    tenantId,
    versionId,
  );
  return rows.map((r) => ({ assetId: r.assetId, designGroup: r.designGroup, options: parseJson(r.options, []) }));
}

/** Which of `ids` are public designs (or mockups) of the tenant. */
export async function publicAssetIds(db: D1Database, tenantId: number, kind: ConnectionKind, ids: string[]): Promise<Set<string>> {
  const rows = await all<{ id: string }>(db, `SELECT id FROM assets WHERE tenant_id = ?1 AND type = ?2 AND owner_id = '' AND id IN (SELECT value FROM json_each(?3))`, tenantId, kind, JSON.stringify(ids));
  return new Set(rows.map((r) => r.id));
}

/** Fails a batch unless every one of `ids` is still a public design (or mockup) of the tenant. */
export const publicAssetsGuard = (db: D1Database, tenantId: number, kind: ConnectionKind, ids: string[]): D1PreparedStatement =>
  guardIds(db, { table: 'assets', tenantId, ids, where: `type = '${kind}' AND owner_id = ''` });

export interface ConnectedAssetHead {
  id: string;
  name: string;
  path: string;
  customFields: string;
  mockupType: string | null;
}

/** Name, folder path, custom fields and mockup type of public designs (or mockups), by id. */
export async function connectedAssetHeads(db: D1Database, tenantId: number, kind: ConnectionKind, ids: string[]): Promise<Map<string, ConnectedAssetHead>> {
  const rows = await all<ConnectedAssetHead>(
    db,
    `SELECT a.id, a.name, COALESCE(f.path, '/') AS path, a.custom_fields AS customFields, a.mockup_type AS mockupType
     FROM assets a LEFT JOIN folders f ON f.tenant_id = a.tenant_id AND f.id = a.folder_id AND f.type = a.type AND f.owner_id = a.owner_id
     WHERE a.tenant_id = ?1 AND a.type = ?2 AND a.owner_id = '' AND a.id IN (SELECT value FROM json_each(?3))`,
    tenantId,
    kind,
    JSON.stringify(ids),
  );
  return new Map(rows.map((r) => [r.id, r]));
}

/**
 * Products whose current version connects one of `assetIds` (designs or mockups), at most 100
 * rows (the assets domain refuses to delete a connected asset and names them).
 */
export async function productsConnectedTo(db: D1Database, tenantId: number, kind: ConnectionKind, assetIds: string[]): Promise<Array<{ asset: string; id: number; name: string }>> {
  const [table, column] = kind === 'design' ? ['design_connections', 'design_id'] : ['mockup_connections', 'mockup_id'];
  return all(
    db,
    `SELECT DISTINCT c.${column} AS asset, p.id AS id, p.name AS name FROM ${table} c
       JOIN products p ON p.tenant_id = c.tenant_id AND p.current_version_id = c.product_version_id
     WHERE c.tenant_id = ?1 AND c.${column} IN (SELECT value FROM json_each(?2)) ORDER BY p.id LIMIT 100`,
    tenantId,
    JSON.stringify(assetIds),
  );
}
