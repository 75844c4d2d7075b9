/**
 * The catalogue (src/platform/catalogue/): products and their copy-on-write versions, references,
 * links, specifications, bundles, personalization workflows, processing pipelines, storefronts,
 * tenant settings and secrets. The back-office and storefront routes call these services; project
 * creation and the job runner use the resolution API below.
 *
 * Storage: store/ alone names the catalogue's tables (products.ts, versions.ts, entities.ts,
 * references.ts, tenant.ts); the services beside it hold the rules and the DTOs.
 *
 * - resolveProductReference(db, tenantId, storefrontId, reference)   the reference row or null
 * - resolveReferenceTarget(db, tenantId, storefrontId, reference, {versionId, variantId}, at)
 * - resolveProductSpecifier(db, tenantId, {type, id, versionId, variantId}, at)
 *     → ResolvedProduct {productReference, productId, productVersionId, productVariantId,
 *       productLinkId, productSpecificationId, productBundleId, sku, processingPipelineId,
 *       personalizationWorkflowId}; unknown ids → NotFoundError naming `at.id|versionId|variantId`
 * - itemPipeline(db, tenantId, {productLinkId, productId, productSpecificationId})
 * - variantDesigns(db, tenantId, productVersionId, productVariantId?) / variantMockups(…)
 * - getPipeline(db, tenantId, id) → {id, name, rawContent} | null
 * - getTenantSettings(db, tenantId) → {startProcessingOnStatus, enableAssetsRetention, assetsRetentionPeriodInDays}
 * - readTenantSecret(env, tenantId, name) → string | null
 * - storefrontOr404(db, tenantId, id), getStorefront(db, tenantId, id), listStorefronts(db, tenantId, paging)
 */
export {
  resolveProductReference,
  resolveReferenceTarget,
  resolveProductSpecifier,
  itemPipeline,
  storefrontOr404,
  type ProductReferenceRow,
  type ProductSpecifier,
  type ResolvedProduct,
  type SpecifierPaths,
} from './references';
export { variantDesigns, variantMockups } from './variant-assets';
export { getPipeline } from './store/entities';
export { getTenantSettings, readTenantSecret, tenantSecretNames, getStorefront, listStorefronts, DEFAULT_TENANT_SETTINGS, type TenantSettings } from './tenant';
export { findProduct } from './products';
export { StorefrontDto, PagedOfStorefrontDto, TenantSettingsDto } from './schemas';
