/**
 * Product references (a storefront's name for a product, link, specification or bundle) and the
 * resolution of what a project item names: a reference or a `productSpecifier`, down to the
 * product version, variant, designs and the item's pipeline (link's, else product's, else
 * specification's).
 */
import { ConflictError, NotFoundError, ValidationError, type ErrorsByPath, type TenantContext } from '../core';
import { iso } from '../core/stored-json';
import { findEntity, type EntityKind } from './entities';
import { findProduct, versionOf } from './products';
import * as store from './store/references';
import type { ProductReferenceRow, ReferenceFilter, ReferenceType } from './store/references';
import { storefrontExists } from './store/tenant';
import { variantDesigns, variantMockups } from './variant-assets';
import type { ProductReferenceInput } from './schemas';

export type { ProductReferenceRow, ReferenceFilter, ReferenceType };
export { referencedIds, referencesOfProduct } from './store/references';

export const referenceDto = (r: ProductReferenceRow) => ({ ...r, created: iso(r.created) });

/** The storefront of the tenant, or 404 (another tenant's storefront looks like none). */
export async function storefrontOr404(db: D1Database, tenantId: number, storefrontId: number | string): Promise<number> {
  const id = Number(storefrontId);
  if (!Number.isSafeInteger(id) || !(await storefrontExists(db, tenantId, id))) {
    throw new NotFoundError(`No storefront ${storefrontId}.`, { storefrontId: [`No storefront ${storefrontId}.`] });
  }
  return id;
}

/** The reference, or null. */
export async function resolveProductReference(db: D1Database, tenantId: number, storefrontId: number, reference: string): Promise<ProductReferenceRow | null> {
  return store.findReference(db, tenantId, storefrontId, reference);
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
  const outcome = await store.insertReference(db, t.tenantId, storefrontId, target, {
    productReference: v.productReference,
    productReferenceType: v.productReferenceType,
    productReferenceName: v.productReferenceName ?? null,
    ...row,
  });
  if (outcome === 'gone') {
    throw new NotFoundError(`The ${v.productReferenceType} ${target} or storefront ${storefrontId} was deleted meanwhile; nothing was changed.`, { [field]: [`No ${v.productReferenceType} ${target}.`] });
  }
  if (outcome === 'exists') {
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
  await store.deleteReferenceRow(t.env.DB, t.tenantId, storefrontId, reference);
  return row;
}

/** References of a storefront; tags, customFields and sku filter by the referenced product. */
export async function listReferences(t: TenantContext, storefrontId: number, f: ReferenceFilter) {
  const db = t.env.DB;
  await storefrontOr404(db, t.tenantId, storefrontId);
  const { total, rows } = await store.listReferenceRows(db, t.tenantId, storefrontId, f);
  return { total, items: rows.map(referenceDto) };
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
  const row = await store.resolveSpecifierRow(db, tenantId, {
    productId: isLink ? null : spec.id,
    linkId: isLink ? spec.id : null,
    versionId: spec.versionId ?? null,
    variantId: spec.variantId ?? null,
    sku: spec.sku ?? null,
  });
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
  const pick = (kind: 'link' | 'product' | 'specification', id: number | null | undefined) => (id == null ? null : store.attachedPipelineId(db, tenantId, kind, id));
  return (await pick('link', item.productLinkId)) ?? (await pick('product', item.productId)) ?? (await pick('specification', item.productSpecificationId));
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
