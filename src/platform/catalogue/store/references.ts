/**
 * D1 of product references (a storefront's name for a product, link, specification or bundle)
 * and the one-round-trip resolution of what a project item names.
 */
import { sql } from 'drizzle-orm';
import { all, batchUnlessGuardFails, customFieldsMatch, first, guardThat, isUniqueViolation, statementOf } from '../../core/d1';
import { likePattern, type SortKey } from '../../core';
import type { productReferences } from '../../../db/schema/platform';

/** A reference as the queries below select it (refColumns): the drizzle schema's row. */
export type ProductReferenceRow = typeof productReferences.$inferSelect;
export type ReferenceType = ProductReferenceRow['productReferenceType'];

const refColumns = (p = '') => `${p}tenant_id AS tenantId, ${p}storefront_id AS storefrontId, ${p}product_reference AS productReference,
  ${p}product_reference_type AS productReferenceType, ${p}product_reference_name AS productReferenceName, ${p}product_specification_id AS productSpecificationId,
  ${p}product_id AS productId, ${p}product_version_id AS productVersionId, ${p}product_link_id AS productLinkId, ${p}product_bundle_id AS productBundleId, ${p}created AS created`;
const REFERENCE_COLUMNS = refColumns();

/** The reference, or null. */
export async function findReference(db: D1Database, tenantId: number, storefrontId: number, reference: string): Promise<ProductReferenceRow | null> {
  return first<ProductReferenceRow>(db, `SELECT ${REFERENCE_COLUMNS} FROM product_references WHERE tenant_id = ?1 AND storefront_id = ?2 AND product_reference = ?3`, tenantId, storefrontId, reference);
}

const TARGET_TABLE: Record<ReferenceType, string> = {
  Product: 'products',
  ProductLink: 'product_links',
  ProductSpecification: 'product_specifications',
  ProductBundle: 'product_bundles',
};

/** A reference to write: the row without its tenant, storefront and time. */
export type NewReference = Omit<ProductReferenceRow, 'tenantId' | 'storefrontId' | 'created'>;

/**
 * The reference, after a guard that the storefront and `target` (of the reference's type) still
 * exist: 'inserted'; 'exists' when the storefront already has that name; 'gone' when the guard
 * failed (nothing was written).
 */
export async function insertReference(db: D1Database, tenantId: number, storefrontId: number, target: number, r: NewReference): Promise<'inserted' | 'exists' | 'gone'> {
  let results: D1Result[] | null;
  try {
    results = await batchUnlessGuardFails(db, [
      // The storefront and the target still exist (a delete meanwhile must not leave a dangling reference).
      guardThat(db, `SELECT EXISTS (SELECT 1 FROM storefronts WHERE tenant_id = ?1 AND id = ?2) AND EXISTS (SELECT 1 FROM ${TARGET_TABLE[r.productReferenceType]} WHERE tenant_id = ?1 AND id = ?3)`, tenantId, storefrontId, target),
      db
        .prepare(
          `INSERT INTO product_references (tenant_id, storefront_id, product_reference, product_reference_type, product_reference_name, product_specification_id,
             product_id, product_version_id, product_link_id, product_bundle_id, created)
           VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11) ON CONFLICT DO NOTHING`,
        )
        .bind(tenantId, storefrontId, r.productReference, r.productReferenceType, r.productReferenceName, r.productSpecificationId, r.productId, r.productVersionId,
          r.productLinkId, r.productBundleId, Date.now()),
    ]);
  } catch (e) {
    if (!isUniqueViolation(e)) throw e;
    return 'exists';
  }
  if (!results) return 'gone';
  return results[1]!.meta.changes ? 'inserted' : 'exists';
}

export async function deleteReferenceRow(db: D1Database, tenantId: number, storefrontId: number, reference: string): Promise<void> {
  await db.prepare(`DELETE FROM product_references WHERE tenant_id = ?1 AND storefront_id = ?2 AND product_reference = ?3`).bind(tenantId, storefrontId, reference).run();
}

export interface ReferenceFilter {
  skip: number;
  take: number;
  sorting: SortKey<'productReference' | 'productReferenceName' | 'created'>[];
  search?: string;
  customFields?: Record<string, unknown>;
  productReferenceType?: ReferenceType;
  tags?: string[];
  sku?: string;
  productIds?: number[];
}

const REFERENCE_SORT = { productReference: 'r.product_reference', productReferenceName: 'r.product_reference_name COLLATE NOCASE', created: 'r.created' } as const;

/** One page of a storefront's references; tags, customFields and sku filter by the referenced product. */
export async function listReferenceRows(db: D1Database, tenantId: number, storefrontId: number, f: ReferenceFilter): Promise<{ total: number; rows: ProductReferenceRow[] }> {
  const where = [sql`r.tenant_id = ${tenantId}`, sql`r.storefront_id = ${storefrontId}`];
  if (f.productReferenceType) where.push(sql`r.product_reference_type = ${f.productReferenceType}`);
  if (f.search) where.push(sql`(r.product_reference LIKE ${likePattern(f.search)} ESCAPE '\\' OR r.product_reference_name LIKE ${likePattern(f.search)} ESCAPE '\\')`);
  if (f.productIds?.length) where.push(sql`r.product_id IN (SELECT value FROM json_each(${JSON.stringify(f.productIds)}))`);
  const byProduct = Boolean(f.tags?.length || f.sku || (f.customFields && Object.keys(f.customFields).length));
  if (byProduct) {
    where.push(sql`p.id IS NOT NULL`);
    if (f.tags?.length) where.push(sql`NOT EXISTS (SELECT 1 FROM json_each(${JSON.stringify(f.tags)}) w WHERE w.value NOT IN (SELECT value FROM json_each(p.tags)))`);
    if (f.customFields && Object.keys(f.customFields).length) where.push(customFieldsMatch(sql.raw('p.custom_fields'), f.customFields));
    if (f.sku) {
      where.push(sql`EXISTS (SELECT 1 FROM variants v WHERE v.tenant_id = p.tenant_id AND v.product_version_id = COALESCE(r.product_version_id, p.current_version_id) AND v.sku = ${f.sku} COLLATE NOCASE)`);
    }
  }
  const from = sql`product_references r LEFT JOIN products p ON p.tenant_id = r.tenant_id AND p.id = r.product_id`;
  const cond = sql.join(where, sql` AND `);
  const order = f.sorting.length ? f.sorting.map((k) => `${REFERENCE_SORT[k.field]} ${k.direction}`).join(', ') + ', r.product_reference' : 'r.created, r.product_reference';
  const columns = refColumns('r.');
  const [count, page] = await db.batch<Record<string, unknown>>([
    statementOf(db, sql`SELECT count(*) AS n FROM ${from} WHERE ${cond}`),
    statementOf(db, sql`SELECT ${sql.raw(columns)} FROM ${from} WHERE ${cond} ORDER BY ${sql.raw(order)} LIMIT ${f.take} OFFSET ${f.skip}`),
  ]);
  return { total: Number(count!.results[0]?.n ?? 0), rows: page!.results as unknown as ProductReferenceRow[] };
}

/** Ids of one target kind that a storefront references (storefront target lists). */
export async function referencedIds(db: D1Database, tenantId: number, storefrontId: number, type: ReferenceType): Promise<number[]> {
  const column = { Product: 'product_id', ProductLink: 'product_link_id', ProductSpecification: 'product_specification_id', ProductBundle: 'product_bundle_id' }[type];
  const rows = await all<{ id: number }>(
    db,
    `SELECT DISTINCT ${column} AS id FROM product_references WHERE tenant_id = ?1 AND storefront_id = ?2 AND product_reference_type = ?3 AND ${column} IS NOT NULL`,
    tenantId,
    storefrontId,
    type,
  );
  return rows.map((r) => r.id);
}

/** A product's references on every storefront, with the storefront's name (the back office's product page). */
export async function referencesOfProduct(db: D1Database, tenantId: number, productId: number) {
  const { results } = await db
    .prepare(
      `SELECT r.storefront_id AS storefrontId, s.name AS storefront, r.product_reference AS reference FROM product_references r
       JOIN storefronts s ON s.tenant_id = r.tenant_id AND s.id = r.storefront_id WHERE r.tenant_id = ?1 AND r.product_id = ?2 ORDER BY r.storefront_id, r.product_reference`,
    )
    .bind(tenantId, productId)
    .all<{ storefrontId: number; storefront: string; reference: string }>();
  return results;
}

// --- resolution ------------------------------------------------------------------------------------------

/** What a product or link specifier finds (nulls where nothing matched). */
export interface SpecifierRow {
  linkId: number | null;
  linkProductId: number | null;
  productId: number | null;
  versionId: number | null;
  pipelineId: number | null;
  workflowId: number | null;
  variantId: number | null;
  variantSku: string | null;
}

/**
 * One round trip: the link, the product (the link's or the given one), the version (given, else
 * the link's pinned one, else the current one, always of that product) and the variant (by id,
 * else by SKU within the version, else the version's only one).
 */
export async function resolveSpecifierRow(
  db: D1Database,
  tenantId: number,
  s: { productId: number | null; linkId: number | null; versionId: number | null; variantId: number | null; sku: string | null },
): Promise<SpecifierRow | null> {
  return first<SpecifierRow>(
    db,
    `WITH l AS (SELECT * FROM product_links WHERE tenant_id = ?1 AND id = ?3),
          p AS (SELECT * FROM products WHERE tenant_id = ?1 AND id = COALESCE(?2, (SELECT product_id FROM l))),
          v AS (SELECT id FROM product_versions WHERE tenant_id = ?1 AND product_id = (SELECT id FROM p)
                  AND id = COALESCE(?4, (SELECT product_version_id FROM l), (SELECT current_version_id FROM p)))
     SELECT (SELECT id FROM l) AS linkId, (SELECT product_id FROM l) AS linkProductId, (SELECT id FROM p) AS productId,
            (SELECT id FROM v) AS versionId,
            COALESCE((SELECT processing_pipeline_id FROM l), (SELECT processing_pipeline_id FROM p)) AS pipelineId,
            COALESCE((SELECT personalization_workflow_id FROM l), (SELECT personalization_workflow_id FROM p)) AS workflowId,
            w.id AS variantId, w.sku AS variantSku
     FROM (SELECT 1) LEFT JOIN (
       SELECT id, sku FROM variants WHERE tenant_id = ?1 AND product_version_id = (SELECT id FROM v)
         AND ((?5 IS NOT NULL AND id = ?5)
           OR (?5 IS NULL AND ?6 IS NOT NULL AND sku = ?6)
           OR (?5 IS NULL AND ?6 IS NULL AND (SELECT count(*) FROM variants WHERE tenant_id = ?1 AND product_version_id = (SELECT id FROM v)) = 1))
         ORDER BY sort_index, id LIMIT 1) w`,
    tenantId,
    s.productId,
    s.linkId,
    s.versionId,
    s.variantId,
    s.sku,
  );
}

const PIPELINE_OF = {
  link: `SELECT processing_pipeline_id AS p FROM product_links WHERE tenant_id = ?1 AND id = ?2`,
  product: `SELECT processing_pipeline_id AS p FROM products WHERE tenant_id = ?1 AND id = ?2`,
  specification: `SELECT processing_pipeline_id AS p FROM product_specifications WHERE tenant_id = ?1 AND id = ?2`,
} as const;

/** The processing pipeline a link, product or specification names (null: none, or no such row). */
export async function attachedPipelineId(db: D1Database, tenantId: number, kind: keyof typeof PIPELINE_OF, id: number): Promise<number | null> {
  return (await first<{ p: number | null }>(db, PIPELINE_OF[kind], tenantId, id))?.p ?? null;
}
