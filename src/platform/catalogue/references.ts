/**
 * Product references (a storefront's name for a product, link, specification or bundle) and the
 * resolution of what a project item names: a reference or a `productSpecifier`, down to the
 * product version, variant, designs and the item's pipeline (link's, else product's, else
 * specification's).
 */
import { sql } from 'drizzle-orm';
import { ConflictError, customFieldsMatch, likePattern, NotFoundError, ValidationError, type ErrorsByPath, type SortKey, type TenantContext } from '../core';
import { stmt } from '../assets/service';
import { all, first, guardThat, isGuardFailure, isUnique, iso } from './db';
import { findEntity, type EntityKind } from './entities';
import { findProduct, versionOf } from './products';
import { variantDesigns, variantMockups } from './variant-assets';
import type { ProductReferenceInput } from './schemas';

export type ReferenceType = 'ProductSpecification' | 'Product' | 'ProductLink' | 'ProductBundle';

export interface ProductReferenceRow {
  tenantId: number;
  storefrontId: number;
  productReference: string;
  productReferenceType: ReferenceType;
  productReferenceName: string | null;
  productSpecificationId: number | null;
  productId: number | null;
  productVersionId: number | null;
  productLinkId: number | null;
  productBundleId: number | null;
  created: number;
}

const refColumns = (p = '') => `${p}tenant_id AS tenantId, ${p}storefront_id AS storefrontId, ${p}product_reference AS productReference,
  ${p}product_reference_type AS productReferenceType, ${p}product_reference_name AS productReferenceName, ${p}product_specification_id AS productSpecificationId,
  ${p}product_id AS productId, ${p}product_version_id AS productVersionId, ${p}product_link_id AS productLinkId, ${p}product_bundle_id AS productBundleId, ${p}created AS created`;
const REFERENCE_COLUMNS = refColumns();

export const referenceDto = (r: ProductReferenceRow) => ({ ...r, created: iso(r.created) });

/** The storefront of the tenant, or 404 (another tenant's storefront looks like none). */
export async function storefrontOr404(db: D1Database, tenantId: number, storefrontId: number | string): Promise<number> {
  const id = Number(storefrontId);
  if (!Number.isSafeInteger(id) || !(await first(db, `SELECT 1 FROM storefronts WHERE tenant_id = ?1 AND id = ?2`, tenantId, id))) {
    throw new NotFoundError(`No storefront ${storefrontId}.`, { storefrontId: [`No storefront ${storefrontId}.`] });
  }
  return id;
}

/** The reference, or null. */
export async function resolveProductReference(db: D1Database, tenantId: number, storefrontId: number, reference: string): Promise<ProductReferenceRow | null> {
  return first<ProductReferenceRow>(db, `SELECT ${REFERENCE_COLUMNS} FROM product_references WHERE tenant_id = ?1 AND storefront_id = ?2 AND product_reference = ?3`, tenantId, storefrontId, reference);
}

export async function getReference(t: TenantContext, storefrontId: number, reference: string): Promise<ProductReferenceRow> {
  await storefrontOr404(t.env.DB, t.tenantId, storefrontId);
  const row = await resolveProductReference(t.env.DB, t.tenantId, storefrontId, reference);
  if (!row) throw new NotFoundError(`Storefront ${storefrontId} has no product reference "${reference}".`);
  return row;
}

const TARGET_FIELD: Record<ReferenceType, 'productId' | 'productLinkId' | 'productSpecificationId' | 'productBundleId'> = {
  Product: 'productId',
  ProductLink: 'productLinkId',
  ProductSpecification: 'productSpecificationId',
  ProductBundle: 'productBundleId',
};
const TARGET_TABLE: Record<ReferenceType, string> = {
  Product: 'products',
  ProductLink: 'product_links',
  ProductSpecification: 'product_specifications',
  ProductBundle: 'product_bundles',
};
const TARGET_KIND: Record<Exclude<ReferenceType, 'Product'>, EntityKind> = { ProductLink: 'link', ProductSpecification: 'specification', ProductBundle: 'bundle' };

/** POST /product-references: 201; a reference already there → 409 with `existingReferences`. */
export async function createReference(t: TenantContext, storefrontId: number, v: ProductReferenceInput): Promise<ProductReferenceRow> {
  const db = t.env.DB;
  await storefrontOr404(db, t.tenantId, storefrontId);
  const field = TARGET_FIELD[v.productReferenceType];
  const target = v[field];
  if (target == null) throw new ValidationError({ [field]: [`A ${v.productReferenceType} reference needs ${field}.`] });
  const row = { productId: null as number | null, productVersionId: null as number | null, productLinkId: null as number | null, productSpecificationId: null as number | null, productBundleId: null as number | null };
  const missing = (path: string, what: string): never => {
    throw new NotFoundError('Some of the ids name nothing here; nothing was changed.', { [path]: [`No ${what} ${target}.`] } as ErrorsByPath);
  };
  if (v.productReferenceType === 'Product') {
    const product = await findProduct(db, t.tenantId, target);
    if (!product) missing('productId', 'product');
    row.productId = target;
    if (v.productVersionId != null) {
      try {
        row.productVersionId = await versionOf(db, t.tenantId, product!, v.productVersionId);
      } catch {
        throw new NotFoundError('Some of the ids name nothing here; nothing was changed.', { productVersionId: [`Product ${target} has no version ${v.productVersionId}.`] });
      }
    }
  } else {
    const entity = await findEntity(db, t.tenantId, TARGET_KIND[v.productReferenceType], target);
    if (!entity) missing(field, TARGET_KIND[v.productReferenceType]);
    row[field] = target;
    // A link's reference also shows the link's product (filters by tags, SKU… see it).
    if (v.productReferenceType === 'ProductLink') {
      row.productId = entity!.productId as number;
      row.productVersionId = (entity!.productVersionId as number | null) ?? null;
    }
  }
  const now = Date.now();
  let changes = 0;
  try {
    const [, res] = await db.batch([
      // The storefront and the target still exist (a delete meanwhile must not leave a dangling reference).
      guardThat(db, `SELECT EXISTS (SELECT 1 FROM storefronts WHERE tenant_id = ?1 AND id = ?2) AND EXISTS (SELECT 1 FROM ${TARGET_TABLE[v.productReferenceType]} WHERE tenant_id = ?1 AND id = ?3)`, t.tenantId, storefrontId, target),
      db
        .prepare(
          `INSERT INTO product_references (tenant_id, storefront_id, product_reference, product_reference_type, product_reference_name, product_specification_id,
             product_id, product_version_id, product_link_id, product_bundle_id, created)
           VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11) ON CONFLICT DO NOTHING`,
        )
        .bind(t.tenantId, storefrontId, v.productReference, v.productReferenceType, v.productReferenceName ?? null, row.productSpecificationId, row.productId, row.productVersionId,
          row.productLinkId, row.productBundleId, now),
    ]);
    changes = res!.meta.changes;
  } catch (e) {
    if (isGuardFailure(e)) throw new NotFoundError(`The ${v.productReferenceType} ${target} or storefront ${storefrontId} was deleted meanwhile; nothing was changed.`, { [field]: [`No ${v.productReferenceType} ${target}.`] });
    if (!isUnique(e)) throw e;
  }
  if (!changes) {
    const existing = await resolveProductReference(db, t.tenantId, storefrontId, v.productReference);
    throw new ConflictError('NameConflict', `Storefront ${storefrontId} already has the product reference "${v.productReference}".`, {
      existingReferences: existing ? [referenceDto(existing)] : [],
    });
  }
  return (await resolveProductReference(db, t.tenantId, storefrontId, v.productReference))!;
}

/** DELETE /product-references/{reference}: 200 with the deleted reference. */
export async function deleteReference(t: TenantContext, storefrontId: number, reference: string): Promise<ProductReferenceRow> {
  const row = await getReference(t, storefrontId, reference);
  await t.env.DB.prepare(`DELETE FROM product_references WHERE tenant_id = ?1 AND storefront_id = ?2 AND product_reference = ?3`).bind(t.tenantId, storefrontId, reference).run();
  return row;
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

/** References of a storefront; tags, customFields and sku filter by the referenced product. */
export async function listReferences(t: TenantContext, storefrontId: number, f: ReferenceFilter) {
  const db = t.env.DB;
  await storefrontOr404(db, t.tenantId, storefrontId);
  const where = [sql`r.tenant_id = ${t.tenantId}`, sql`r.storefront_id = ${storefrontId}`];
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
    stmt(db, sql`SELECT count(*) AS n FROM ${from} WHERE ${cond}`),
    stmt(db, sql`SELECT ${sql.raw(columns)} FROM ${from} WHERE ${cond} ORDER BY ${sql.raw(order)} LIMIT ${f.take} OFFSET ${f.skip}`),
  ]);
  return { total: Number(count!.results[0]?.n ?? 0), items: (page!.results as unknown as ProductReferenceRow[]).map(referenceDto) };
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

// --- resolution ------------------------------------------------------------------------------------------

export interface ProductSpecifier {
  type: 'ProductSpecification' | 'Product' | 'ProductLink' | 'ProductBundle';
  id: number;
  versionId?: number | null;
  variantId?: number | null;
  /** Without `variantId`: the version's variant with this SKU (a project item may name one so). */
  sku?: string | null;
}

/** What a project item's product resolves to (ids null where they do not apply). */
export interface ResolvedProduct {
  productReference: string | null;
  productId: number | null;
  productVersionId: number | null;
  productVariantId: number | null;
  productLinkId: number | null;
  productSpecificationId: number | null;
  productBundleId: number | null;
  /** The variant's SKU. */
  sku: string | null;
  /** link's, else product's, else specification's (bundle: its own). */
  processingPipelineId: number | null;
  personalizationWorkflowId: number | null;
}

/** Where a specifier's ids came from, for the 404's `errors` (body paths or query names). */
export interface SpecifierPaths {
  id: string;
  versionId: string;
  variantId: string;
}
const pathsOf = (at: string | SpecifierPaths): SpecifierPaths =>
  typeof at === 'string' ? { id: `${at}.id`, versionId: `${at}.versionId`, variantId: `${at}.variantId` } : at;

const notFound = (path: string, message: string): never => {
  throw new NotFoundError(message, { [path]: [message] });
};

/**
 * `productSpecifier {type, id, versionId, variantId}` → the product version and variant. The
 * version defaults to the link's pinned one, else the product's current one; the variant to the
 * version's only variant (null when it has several), or to the one with `sku` when given. Unknown
 * ids → 404 naming `at.id`, `at.versionId` or `at.variantId`. A product or link takes one round
 * trip (project creates resolve every item this way).
 */
export async function resolveProductSpecifier(
  db: D1Database,
  tenantId: number,
  spec: ProductSpecifier,
  at: string | SpecifierPaths = 'productSpecifier',
  productReference: string | null = null,
): Promise<ResolvedProduct> {
  const paths = pathsOf(at);
  const out: ResolvedProduct = {
    productReference,
    productId: null,
    productVersionId: null,
    productVariantId: null,
    productLinkId: null,
    productSpecificationId: null,
    productBundleId: null,
    sku: null,
    processingPipelineId: null,
    personalizationWorkflowId: null,
  };
  if (spec.type === 'ProductSpecification' || spec.type === 'ProductBundle') {
    const kind = spec.type === 'ProductSpecification' ? 'specification' : 'bundle';
    const entity = await findEntity(db, tenantId, kind, spec.id);
    if (!entity) notFound(paths.id, `No product ${kind} ${spec.id}.`);
    if (kind === 'specification') out.productSpecificationId = spec.id;
    else out.productBundleId = spec.id;
    out.processingPipelineId = (entity!.processingPipelineId as number | null) ?? null;
    out.personalizationWorkflowId = (entity!.personalizationWorkflowId as number | null) ?? null;
    return out;
  }
  const isLink = spec.type === 'ProductLink';
  // One round trip: the link, the product (the link's or the given one), the version (given, else
  // the link's pinned one, else the current one, always of that product) and the variant (by id,
  // else by SKU within the version, else the version's only one).
  const row = await first<{
    linkId: number | null;
    linkProductId: number | null;
    productId: number | null;
    versionId: number | null;
    pipelineId: number | null;
    workflowId: number | null;
    variantId: number | null;
    variantSku: string | null;
  }>(
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
    isLink ? null : spec.id,
    isLink ? spec.id : null,
    spec.versionId ?? null,
    spec.variantId ?? null,
    spec.sku ?? null,
  );
  if (isLink && row?.linkId == null) notFound(paths.id, `No product link ${spec.id}.`);
  if (row?.productId == null) notFound(paths.id, `No product ${isLink ? row!.linkProductId : spec.id}.`);
  if (row!.versionId == null) notFound(paths.versionId, `Product ${row!.productId} has no version ${spec.versionId ?? '(its pinned or current one)'}.`);
  if (spec.variantId != null && row!.variantId == null) notFound(paths.variantId, `Product version ${row!.versionId} has no variant ${spec.variantId}.`);
  out.productLinkId = row!.linkId;
  out.productId = row!.productId;
  out.productVersionId = row!.versionId;
  out.productVariantId = row!.variantId;
  out.sku = row!.variantSku;
  out.processingPipelineId = row!.pipelineId;
  out.personalizationWorkflowId = row!.workflowId;
  return out;
}

/**
 * A reference of the storefront → what it names (its version unless the caller names one).
 * Unknown reference → 404 naming `at`; the message does not repeat the name (a project create
 * may carry another tenant's reference names, which must not come back).
 */
export async function resolveReferenceTarget(
  db: D1Database,
  tenantId: number,
  storefrontId: number,
  reference: string,
  pick: { versionId?: number | null; variantId?: number | null; sku?: string | null } = {},
  at = 'productReference',
  pickPaths: SpecifierPaths = { id: at, versionId: `${at}.versionId`, variantId: `${at}.variantId` },
): Promise<ResolvedProduct> {
  const ref = await resolveProductReference(db, tenantId, storefrontId, reference);
  if (!ref) notFound(at, 'No such product reference in this storefront.');
  const r = ref!;
  const type = r.productReferenceType;
  const id = type === 'Product' ? r.productId : type === 'ProductLink' ? r.productLinkId : type === 'ProductSpecification' ? r.productSpecificationId : r.productBundleId;
  return resolveProductSpecifier(
    db,
    tenantId,
    { type, id: id!, versionId: pick.versionId ?? (type === 'Product' ? r.productVersionId : null), variantId: pick.variantId, sku: pick.sku },
    pickPaths,
    r.productReference,
  );
}

/** An item's pipeline: its product link's, else its product's, else its specification's. */
export async function itemPipeline(db: D1Database, tenantId: number, item: { productLinkId?: number | null; productId?: number | null; productSpecificationId?: number | null }): Promise<number | null> {
  const pick = async (sqlText: string, id: number | null | undefined) =>
    id == null ? null : ((await first<{ p: number | null }>(db, sqlText, tenantId, id))?.p ?? null);
  return (
    (await pick(`SELECT processing_pipeline_id AS p FROM product_links WHERE tenant_id = ?1 AND id = ?2`, item.productLinkId)) ??
    (await pick(`SELECT processing_pipeline_id AS p FROM products WHERE tenant_id = ?1 AND id = ?2`, item.productId)) ??
    (await pick(`SELECT processing_pipeline_id AS p FROM product_specifications WHERE tenant_id = ?1 AND id = ?2`, item.productSpecificationId))
  );
}

// --- personalization --------------------------------------------------------------------------------------

export async function workflowOf(t: TenantContext, r: ResolvedProduct) {
  if (r.personalizationWorkflowId == null) throw new NotFoundError('No personalization workflow is attached.');
  const w = await findEntity(t.env.DB, t.tenantId, 'workflow', r.personalizationWorkflowId);
  if (!w) throw new NotFoundError('No personalization workflow is attached.');
  return w;
}

/** PersonalizationParametersDto (ours): ids, workflow, pipeline, designs and mockups. */
export async function personalizationParameters(t: TenantContext, r: ResolvedProduct) {
  const db = t.env.DB;
  const workflow = r.personalizationWorkflowId == null ? null : await findEntity(db, t.tenantId, 'workflow', r.personalizationWorkflowId);
  const designs = r.productVersionId == null ? [] : await variantDesigns(db, t.tenantId, r.productVersionId, r.productVariantId);
  const mockups = r.productVersionId == null ? [] : await variantMockups(db, t.tenantId, r.productVersionId, r.productVariantId);
  return {
    productReference: r.productReference,
    productId: r.productId,
    productVersionId: r.productVersionId,
    productLinkId: r.productLinkId,
    productSpecificationId: r.productSpecificationId,
    productBundleId: r.productBundleId,
    personalizationWorkflow: workflow,
    processingPipelineId: r.processingPipelineId,
    designs,
    mockups,
  };
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
