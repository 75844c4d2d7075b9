/**
 * `resolveItemProduct`: what a project item's product reference or specifier names — product,
 * version, variant, link, specification and the item's pipeline (contract: "An item's pipeline:
 * its product link's, else product's, else specification's"). A minimal read of the catalogue
 * tables, kept behind this one function so it can move onto the catalogue's own API.
 */
import { NotFoundError } from '../core';

export interface ItemProduct {
  productId: number | null;
  productVersionId: number | null;
  productVariantId: number | null;
  productLinkId: number | null;
  productSpecificationId: number | null;
  sku: string | null;
  processingPipelineId: number | null;
}

export type ProductSpecifier = { type: 'ProductSpecification' | 'Product' | 'ProductLink'; id: number; versionId?: number | null; variantId?: number | null };

interface Target {
  type: 'ProductSpecification' | 'Product' | 'ProductLink' | 'ProductBundle';
  productId: number | null;
  productVersionId: number | null;
  productLinkId: number | null;
  productSpecificationId: number | null;
}

const EMPTY: ItemProduct = {
  productId: null,
  productVersionId: null,
  productVariantId: null,
  productLinkId: null,
  productSpecificationId: null,
  sku: null,
  processingPipelineId: null,
};

/**
 * Resolves an item: by `specifier` when given, else by `reference` (of the storefront). Throws
 * NotFoundError with `errors` at `path` when what is named does not exist in the tenant.
 */
export async function resolveItemProduct(
  db: D1Database,
  tenantId: number,
  storefrontId: number,
  input: { reference?: string | null; specifier?: ProductSpecifier | null; sku?: string | null },
  path: { reference: string; specifier: string },
): Promise<ItemProduct> {
  let target: Target | null = null;
  let where = path.reference;
  if (input.specifier) {
    where = path.specifier;
    const s = input.specifier;
    target = {
      type: s.type,
      productId: s.type === 'Product' ? s.id : null,
      productVersionId: s.versionId ?? null,
      productLinkId: s.type === 'ProductLink' ? s.id : null,
      productSpecificationId: s.type === 'ProductSpecification' ? s.id : null,
    };
  } else if (input.reference) {
    const ref = await db
      .prepare(
        `SELECT product_reference_type AS type, product_id AS productId, product_version_id AS productVersionId,
                product_link_id AS productLinkId, product_specification_id AS productSpecificationId
         FROM product_references WHERE tenant_id = ?1 AND storefront_id = ?2 AND product_reference = ?3`,
      )
      .bind(tenantId, storefrontId, input.reference)
      .first<Target>();
    if (!ref) throw new NotFoundError('No such product reference in this storefront.', { [where]: ['No such product reference in this storefront.'] });
    target = ref;
  }
  if (!target || target.type === 'ProductBundle') return { ...EMPTY, sku: input.sku ?? null };

  // One round trip: the link, the product (of the link or given), the specification, the version
  // and the variant (by id, by SKU within the version, or the version's only one).
  const row = await db
    .prepare(
      `WITH l AS (SELECT * FROM product_links WHERE tenant_id = ?1 AND id = ?3),
            p AS (SELECT * FROM products WHERE tenant_id = ?1 AND id = COALESCE(?2, (SELECT product_id FROM l))),
            s AS (SELECT * FROM product_specifications WHERE tenant_id = ?1 AND id = ?4),
            v AS (SELECT id FROM product_versions WHERE tenant_id = ?1 AND product_id = (SELECT id FROM p)
                    AND id = COALESCE(?5, (SELECT product_version_id FROM l), (SELECT current_version_id FROM p)))
       SELECT (SELECT id FROM l) AS linkId, (SELECT id FROM p) AS productId, (SELECT id FROM s) AS specificationId,
              (SELECT id FROM v) AS versionId,
              COALESCE((SELECT processing_pipeline_id FROM l), (SELECT processing_pipeline_id FROM p), (SELECT processing_pipeline_id FROM s)) AS pipelineId,
              w.id AS variantId, w.sku AS variantSku
       FROM (SELECT 1) LEFT JOIN (
         -- The variant: by id, else by SKU, else the version's only variant.
         SELECT id, sku FROM variants WHERE tenant_id = ?1 AND product_version_id = (SELECT id FROM v)
           AND ((?6 IS NOT NULL AND id = ?6)
             OR (?6 IS NULL AND ?7 IS NOT NULL AND sku = ?7)
             OR (?6 IS NULL AND ?7 IS NULL AND (SELECT count(*) FROM variants WHERE tenant_id = ?1 AND product_version_id = (SELECT id FROM v)) = 1))
           LIMIT 1) w`,
    )
    .bind(
      tenantId,
      target.type === 'Product' ? target.productId : null,
      target.productLinkId,
      target.productSpecificationId,
      target.productVersionId,
      input.specifier?.variantId ?? null,
      input.sku ?? null,
    )
    .first<{ linkId: number | null; productId: number | null; specificationId: number | null; versionId: number | null; pipelineId: number | null; variantId: number | null; variantSku: string | null }>();

  const missing = (what: string) => new NotFoundError(`No such ${what}.`, { [where]: [`No such ${what}.`] });
  if (!row) throw missing('product');
  if (target.type === 'ProductLink' && row.linkId === null) throw missing('product link');
  if (target.type === 'ProductSpecification' && row.specificationId === null) throw missing('product specification');
  if (target.type !== 'ProductSpecification' && row.productId === null) throw missing('product');
  if (target.type !== 'ProductSpecification' && row.versionId === null) throw missing('product version');
  if (input.specifier?.variantId && row.variantId === null) throw missing('product variant');
  return {
    productId: row.productId,
    productVersionId: row.versionId,
    productVariantId: row.variantId,
    productLinkId: row.linkId,
    productSpecificationId: row.specificationId,
    sku: input.sku ?? row.variantSku ?? null,
    processingPipelineId: row.pipelineId,
  };
}
