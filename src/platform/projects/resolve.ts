/**
 * `resolveItemProduct`: what a project item's product reference or specifier names — product,
 * version, variant, link, specification and the item's pipeline (contract: "An item's pipeline:
 * its product link's, else product's, else specification's"). The catalogue resolves; this only
 * shapes its answer for an item (a bundle names none of these) and keeps each item's 404 at one path.
 */
import { resolveProductSpecifier, resolveReferenceTarget, type ResolvedProduct, type SpecifierPaths } from '../catalogue';

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

const EMPTY: ItemProduct = {
  productId: null,
  productVersionId: null,
  productVariantId: null,
  productLinkId: null,
  productSpecificationId: null,
  sku: null,
  processingPipelineId: null,
};

/** An item's errors sit at its reference or specifier, not at the specifier's parts. */
const at = (path: string): SpecifierPaths => ({ id: path, versionId: path, variantId: path });

/**
 * Resolves an item: by `specifier` when given, else by `reference` (of the storefront). Throws
 * NotFoundError with `errors` at `path` when what is named does not exist in the tenant. The
 * item's `sku` picks the variant when no variant id is given, and is kept as given.
 */
export async function resolveItemProduct(
  db: D1Database,
  tenantId: number,
  storefrontId: number,
  input: { reference?: string | null; specifier?: ProductSpecifier | null; sku?: string | null },
  path: { reference: string; specifier: string },
): Promise<ItemProduct> {
  const sku = input.sku ?? null;
  let r: ResolvedProduct | null = null;
  if (input.specifier) r = await resolveProductSpecifier(db, tenantId, { ...input.specifier, sku }, at(path.specifier));
  else if (input.reference) r = await resolveReferenceTarget(db, tenantId, storefrontId, input.reference, { sku }, path.reference, at(path.reference));
  if (!r || r.productBundleId !== null) return { ...EMPTY, sku };
  return {
    productId: r.productId,
    productVersionId: r.productVersionId,
    productVariantId: r.productVariantId,
    productLinkId: r.productLinkId,
    productSpecificationId: r.productSpecificationId,
    sku: sku ?? r.sku,
    processingPipelineId: r.processingPipelineId,
  };
}
