/**
 * Products: CRUD, options (new version), variants and their set-* edits, design and mockup
 * connections (new version), the image. Services take the TenantContext and plain values and
 * throw the core's errors.
 */
import { ConflictError, NotFoundError, ValidationError, type ErrorsByPath, type TenantContext } from '../core';
import { iso, parseJson } from '../core/stored-json';
import { createAsset, scopeFor } from '../assets/service';
import { assetKind, fileUrl } from '../assets/model';
import { anonymousUrlOf } from '../assets/anonymous';
import { receiveUpload } from '../assets/upload';
import { personalizationWorkflowExists, processingPipelineExists } from './store/entities';
import * as store from './store/products';
import type { ConnectionKind, ProductReferenceHead, ProductRow, ProductRowFilter } from './store/products';
import { writeNewVersion, type ConnectionRow, type VersionChange } from './store/versions';
import { prepareOptions } from './versions';
import type { CreateProduct, UpdateProduct, VariantField } from './schemas';

export type { ConnectionKind, ProductRow };
export { connectionsOfVersion, findProduct } from './store/products';

// --- reads ------------------------------------------------------------------------------------------

export async function productOr404(db: D1Database, tenantId: number, id: number): Promise<ProductRow> {
  const row = await store.findProduct(db, tenantId, id);
  if (!row) throw new NotFoundError(`No product ${id}.`);
  return row;
}

/** The version a read asks for (a version of this product), else the current one. */
export async function versionOf(db: D1Database, tenantId: number, product: ProductRow, productVersionId?: number | string | null): Promise<number> {
  if (productVersionId === undefined || productVersionId === null || productVersionId === '') return product.currentVersionId;
  const id = Number(productVersionId);
  if (!(await store.productHasVersion(db, tenantId, product.id, id))) throw new NotFoundError(`Product ${product.id} has no version ${productVersionId}.`);
  return id;
}

type ProductDtoOut = ReturnType<typeof shapeProduct>;

function shapeProduct(r: ProductRow, versionId: number, image: { resourceId: string; url: string } | null, ref: ProductReferenceHead | undefined) {
  return {
    id: r.id,
    productVersionId: versionId,
    tenantId: r.tenantId,
    name: r.name,
    description: r.description,
    image,
    tags: parseJson<string[]>(r.tags, []),
    customFields: parseJson<Record<string, unknown>>(r.customFields, {}),
    personalizationWorkflowId: r.personalizationWorkflowId,
    processingPipelineId: r.processingPipelineId,
    storefrontId: ref?.storefrontId ?? null,
    storefrontProductId: ref?.productReference ?? null,
    storefrontProductName: ref?.productReferenceName ?? null,
    created: iso(r.created),
    lastModified: iso(r.lastModified),
  };
}

/** ProductDtos; storefront fields from each product's first reference (contract). */
export async function productDtos(t: TenantContext, rows: ProductRow[], versions?: Map<number, number>): Promise<ProductDtoOut[]> {
  if (!rows.length) return [];
  const db = t.env.DB;
  const refs = await store.productReferenceHeads(db, t.tenantId, rows.map((r) => r.id));
  const firstRef = new Map<number, ProductReferenceHead>();
  for (const r of refs) if (!firstRef.has(r.productId)) firstRef.set(r.productId, r);
  return Promise.all(
    rows.map(async (r) => {
      let image: { resourceId: string; url: string } | null = null;
      if (r.imageResourceId) {
        const anon = await anonymousUrlOf(t, 'asset', r.imageResourceId).catch(() => undefined);
        image = { resourceId: r.imageResourceId, url: anon ?? fileUrl(t.baseUrl, { type: 'resource', ownerId: '', id: r.imageResourceId }) };
      }
      return shapeProduct(r, versions?.get(r.id) ?? r.currentVersionId, image, firstRef.get(r.id));
    }),
  );
}

export async function getProduct(t: TenantContext, id: number, productVersionId?: string | number | null): Promise<ProductDtoOut> {
  const row = await productOr404(t.env.DB, t.tenantId, id);
  const version = await versionOf(t.env.DB, t.tenantId, row, productVersionId);
  return (await productDtos(t, [row], new Map([[row.id, version]])))[0]!;
}

export type ProductFilter = ProductRowFilter;

export async function listProducts(t: TenantContext, f: ProductFilter): Promise<{ total: number; items: ProductDtoOut[] }> {
  const { total, rows } = await store.listProductRows(t.env.DB, t.tenantId, f);
  return { total, items: await productDtos(t, rows) };
}

// --- checks of ids a body names ----------------------------------------------------------------------

/** 404 with `errors` when a workflow or pipeline id names nothing in the tenant. */
export async function checkAttached(db: D1Database, tenantId: number, v: { personalizationWorkflowId?: number | null; processingPipelineId?: number | null }, at = ''): Promise<void> {
  const errors: ErrorsByPath = {};
  if (v.personalizationWorkflowId != null && !(await personalizationWorkflowExists(db, tenantId, v.personalizationWorkflowId))) {
    errors[`${at}personalizationWorkflowId`] = [`No personalization workflow ${v.personalizationWorkflowId}.`];
  }
  if (v.processingPipelineId != null && !(await processingPipelineExists(db, tenantId, v.processingPipelineId))) {
    errors[`${at}processingPipelineId`] = [`No processing pipeline ${v.processingPipelineId}.`];
  }
  if (Object.keys(errors).length) throw new NotFoundError('Some of the ids name nothing here; nothing was changed.', errors);
}

// --- create, update, delete ---------------------------------------------------------------------------

/** POST /products: the product, its first version, options, values and variants in one batch. */
export async function createProduct(t: TenantContext, input: CreateProduct): Promise<ProductDtoOut> {
  const db = t.env.DB;
  await checkAttached(db, t.tenantId, input);
  const options = prepareOptions(input.options);
  const id = await store.insertProduct(db, t.tenantId, input, options);
  if (id === null) throw deletedMeanwhile();
  return getProduct(t, id);
}

/** PUT /products/{id}: the fields given replace the product's; `options` given make a new version. */
export async function updateProduct(t: TenantContext, id: number, input: UpdateProduct): Promise<ProductDtoOut> {
  const db = t.env.DB;
  await productOr404(db, t.tenantId, id);
  await checkAttached(db, t.tenantId, input);
  if (input.options) {
    const options = prepareOptions(input.options);
    const withVersion = [store.attachedGuard(db, t.tenantId, input), store.updateProductStatement(db, t.tenantId, id, input)];
    // A failed guard is retried; the retry's check reports a workflow or pipeline deleted meanwhile.
    await changeVersion(t, id, async () => (await checkAttached(db, t.tenantId, input), { options }), withVersion);
  } else if (!(await store.updateProductFields(db, t.tenantId, id, input))) {
    throw deletedMeanwhile();
  }
  return getProduct(t, id);
}

const deletedMeanwhile = () => new NotFoundError('Something the body names was deleted meanwhile; nothing was changed.');

export async function deleteProduct(t: TenantContext, id: number): Promise<void> {
  const db = t.env.DB;
  await productOr404(db, t.tenantId, id);
  const inUse = () => new ConflictError('GeneralConflict', `Product ${id} is used by projects, product references, links or bundles; remove those first.`, { productId: id });
  if (await store.productInUse(db, t.tenantId, id)) throw inUse();
  if (!(await store.deleteProductRows(db, t.tenantId, id))) throw inUse();
}

/**
 * Makes a new version of the product from its current one: `change(current)` says what differs.
 * Retried when another change won the race (the guard saw another current version).
 */
async function changeVersion(t: TenantContext, id: number, change: (current: number) => VersionChange | Promise<VersionChange>, extra: D1PreparedStatement[] = []): Promise<void> {
  const db = t.env.DB;
  for (let attempt = 0; ; attempt++) {
    const product = await productOr404(db, t.tenantId, id);
    const current = product.currentVersionId;
    const c = await change(current);
    if (await writeNewVersion(db, t.tenantId, id, current, c, extra)) return;
    if (attempt >= 2) throw new ConflictError('GeneralConflict', `Product ${id} was changed by another call meanwhile; try again.`, { productId: id });
  }
}

// --- options ---------------------------------------------------------------------------------------------

export async function optionsOfVersion(db: D1Database, tenantId: number, versionId: number) {
  const { options, values: vals } = await store.optionRowsOfVersion(db, tenantId, versionId);
  return options.map((o) => ({
    id: o.id,
    productVersionId: o.productVersionId,
    productId: o.productId,
    type: o.type,
    title: o.title,
    traits: parseJson<unknown[]>(o.traits, []),
    sortIndex: o.sortIndex,
    tag: o.tag,
    uid: o.uid,
    useForDesignBinding: Boolean(o.useForDesignBinding),
    useForMockupBinding: Boolean(o.useForMockupBinding),
    productOptionValues: vals
      .filter((v) => v.optionUid === o.uid)
      .map((v) => ({ id: v.id, title: v.title, value: v.value, description: v.description, sortIndex: v.sortIndex, isDefault: Boolean(v.isDefault), tag: v.tag, uid: v.uid })),
  }));
}
export type ProductOption = Awaited<ReturnType<typeof optionsOfVersion>>[number];

export async function getOptions(t: TenantContext, productId: number, productVersionId?: string | null) {
  const product = await productOr404(t.env.DB, t.tenantId, productId);
  const version = await versionOf(t.env.DB, t.tenantId, product, productVersionId);
  const items = await optionsOfVersion(t.env.DB, t.tenantId, version);
  return { total: items.length, items };
}

/** PUT options: a new version with these options; variants kept by option-value uids. */
export async function setOptions(t: TenantContext, productId: number, options: CreateProduct['options']) {
  const prepared = prepareOptions(options);
  await changeVersion(t, productId, () => ({ options: prepared }));
  return getOptions(t, productId);
}

// --- variants --------------------------------------------------------------------------------------------

/** Every variant of a version with its options (≤ 500, so filters run here). */
export async function variantsOfVersion(db: D1Database, tenantId: number, versionId: number) {
  const [rows, options] = await Promise.all([
    store.variantRowsOfVersion(db, tenantId, versionId),
    optionsOfVersion(db, tenantId, versionId),
  ]);
  const valueOf = new Map<string, { option: ProductOption; value: ProductOption['productOptionValues'][number] }>();
  for (const o of options) for (const v of o.productOptionValues) valueOf.set(v.uid, { option: o, value: v });
  return rows.map((r) => {
    const uids = parseJson<string[]>(r.optionValueUids, []);
    const chosen = uids.map((u) => valueOf.get(u)).filter((x): x is NonNullable<typeof x> => Boolean(x));
    chosen.sort((a, b) => a.option.sortIndex - b.option.sortIndex);
    return {
      id: r.id,
      uid: r.uid,
      productVersionId: r.productVersionId,
      productId: r.productId,
      tenantId: r.tenantId,
      isAvailable: Boolean(r.isAvailable),
      price: r.price,
      weight: r.weight,
      sortIndex: r.sortIndex,
      storefrontProductVariantId: r.storefrontProductVariantId,
      sku: r.sku,
      productVariantOptions: chosen.map(({ option, value }) => ({
        productOptionId: option.id,
        productOptionValueId: value.id,
        productOptionType: option.type,
        productOptionTitle: option.title,
        productOptionValueTitle: value.title,
      })),
      /** Not in the DTO: option uid → value uid, for connection matching. */
      _values: new Map(chosen.map(({ option, value }) => [option.uid, value.uid])),
      _titles: chosen.map(({ option, value }) => ({ optionUid: option.uid, optionTitle: option.title, valueUid: value.uid, valueTitle: value.title })),
    };
  });
}
export type Variant = Awaited<ReturnType<typeof variantsOfVersion>>[number];

export const variantDto = (v: Variant) => {
  const { _values, _titles, ...dto } = v;
  void _values;
  void _titles;
  return dto;
};

export interface VariantFilter {
  sku?: string;
  options?: Record<string, unknown>;
  takeAvailableOnly?: boolean;
  productVariantId?: number;
}

export function filterVariants(list: Variant[], f: VariantFilter): Variant[] {
  return list.filter((v) => {
    if (f.productVariantId !== undefined && v.id !== f.productVariantId) return false;
    if (f.takeAvailableOnly && !v.isAvailable) return false;
    if (f.sku && !(v.sku ?? '').toLowerCase().includes(f.sku.toLowerCase())) return false;
    if (f.options) {
      for (const [option, value] of Object.entries(f.options)) {
        const hit = v._titles.find((x) => x.optionUid === option || x.optionTitle.toLowerCase() === option.toLowerCase());
        const want = String(value).toLowerCase();
        if (!hit || (hit.valueUid !== String(value) && hit.valueTitle.toLowerCase() !== want)) return false;
      }
    }
    return true;
  });
}

export async function listVariants(t: TenantContext, productId: number, q: VariantFilter & { productVersionId?: string; skip: number; take: number }) {
  const product = await productOr404(t.env.DB, t.tenantId, productId);
  const version = await versionOf(t.env.DB, t.tenantId, product, q.productVersionId);
  const list = filterVariants(await variantsOfVersion(t.env.DB, t.tenantId, version), q);
  return { total: list.length, items: list.slice(q.skip, q.skip + q.take).map(variantDto) };
}

/** A variant of the product (any of its versions: a project's variant stays readable). */
export async function getVariant(t: TenantContext, productId: number, variantId: number) {
  const product = await productOr404(t.env.DB, t.tenantId, productId);
  const version = await store.versionOfVariant(t.env.DB, t.tenantId, product.id, variantId);
  if (version === null) throw new NotFoundError(`Product ${productId} has no variant ${variantId}.`);
  const v = (await variantsOfVersion(t.env.DB, t.tenantId, version)).find((x) => x.id === variantId)!;
  return variantDto(v);
}

/**
 * set-variant-{sku|price|weight|availability}: the current version's variants, in place while no
 * project uses the version; once one does, the change makes a new version (the project's stays).
 */
export async function setVariantField(t: TenantContext, productId: number, field: VariantField, entries: Array<{ productVariantId: number; value: unknown }>): Promise<void> {
  const db = t.env.DB;
  const column = store.VARIANT_COLUMN[field];
  // One value per variant (the last given wins), so the UPDATE … FROM below joins 1:1.
  const byId = new Map(entries.map((e) => [e.productVariantId, typeof e.value === 'boolean' ? (e.value ? 1 : 0) : e.value]));
  const values = [...byId].map(([productVariantId, value]) => ({ productVariantId, value }));
  for (let attempt = 0; ; attempt++) {
    const product = await productOr404(db, t.tenantId, productId);
    const current = product.currentVersionId;
    const found = await store.variantIdsInVersion(db, t.tenantId, current, values.map((e) => e.productVariantId));
    const errors: ErrorsByPath = {};
    values.forEach((e, i) => {
      if (!found.has(e.productVariantId)) errors[`[${i}].productVariantId`] = [`The current version of product ${productId} has no variant ${e.productVariantId}.`];
    });
    if (Object.keys(errors).length) throw new NotFoundError('Some of the ids name nothing here; nothing was changed.', errors);

    const update = { column, entries: values };
    const written = (await store.versionUsedByProjects(db, t.tenantId, current))
      ? await writeNewVersion(db, t.tenantId, productId, current, { variantUpdate: update })
      : await store.updateVariantsInPlace(db, t.tenantId, productId, current, update);
    if (written) return;
    if (attempt >= 2) throw new ConflictError('GeneralConflict', `Product ${productId} was changed by another call meanwhile; try again.`, { productId });
  }
}

// --- connections ------------------------------------------------------------------------------------------

export interface ConnectionInput {
  assetId: string;
  designGroup?: string | null;
  options?: Array<{ optionUID: string; optionValueUIDs: string[] }> | null;
}

/** Public designs or mockups of the tenant: 404 naming `connections[i].<designId|mockupId>` otherwise. */
async function checkConnectionAssets(db: D1Database, tenantId: number, kind: ConnectionKind, list: ConnectionInput[]): Promise<void> {
  const ids = [...new Set(list.map((c) => c.assetId))];
  const found = await store.publicAssetIds(db, tenantId, kind, ids);
  const errors: ErrorsByPath = {};
  list.forEach((c, i) => {
    if (!found.has(c.assetId)) errors[`connections[${i}].${kind}Id`] = [`No public ${kind} ${c.assetId}.`];
  });
  if (Object.keys(errors).length) throw new NotFoundError('Some of the ids name nothing here; nothing was changed.', errors);
}

/** Option bindings must name options and values of the version (400 by path otherwise). */
function checkBindings(options: ProductOption[], list: ConnectionInput[]): void {
  const errors: ErrorsByPath = {};
  list.forEach((c, i) =>
    (c.options ?? []).forEach((b, j) => {
      const option = options.find((o) => o.uid === b.optionUID);
      if (!option) {
        errors[`connections[${i}].options[${j}].optionUID`] = [`The product has no option with uid ${b.optionUID}.`];
        return;
      }
      b.optionValueUIDs.forEach((v, k) => {
        if (!option.productOptionValues.some((x) => x.uid === v)) errors[`connections[${i}].options[${j}].optionValueUIDs[${k}]`] = [`The option "${option.title}" has no value with uid ${v}.`];
      });
    }),
  );
  if (Object.keys(errors).length) throw new ValidationError(errors);
}

const sameConnection = (kind: ConnectionKind, a: { assetId: string; designGroup?: string | null }, b: { assetId: string; designGroup?: string | null }) =>
  a.assetId === b.assetId && (kind === 'mockup' || (a.designGroup ?? null) === (b.designGroup ?? null));

/** POST connections: added (a design and group already connected gets the new options); new version. */
export async function addConnections(t: TenantContext, productId: number, kind: ConnectionKind, list: ConnectionInput[]): Promise<ConnectionRow[]> {
  const db = t.env.DB;
  await productOr404(db, t.tenantId, productId);
  let result: ConnectionRow[] = [];
  // The assets are checked (404 by path) on every attempt, and again inside the batch: one
  // deleted meanwhile fails the guard, and the retry reports it.
  const assetsGuard = store.publicAssetsGuard(db, t.tenantId, kind, [...new Set(list.map((c) => c.assetId))]);
  await changeVersion(t, productId, async (current) => {
    await checkConnectionAssets(db, t.tenantId, kind, list);
    checkBindings(await optionsOfVersion(db, t.tenantId, current), list);
    const existing = await store.connectionsOfVersion(db, t.tenantId, current, kind);
    const next = [...existing];
    for (const c of list) {
      const row: ConnectionRow = { assetId: c.assetId, designGroup: kind === 'design' ? (c.designGroup ?? null) : null, options: c.options ?? [] };
      const at = next.findIndex((x) => sameConnection(kind, x, row));
      if (at >= 0) next[at] = row;
      else next.push(row);
    }
    result = next;
    return kind === 'design' ? { designConnections: next } : { mockupConnections: next };
  }, [assetsGuard]);
  return result;
}

/** DELETE connections: each given one must be connected (404 by path); new version. */
export async function removeConnections(t: TenantContext, productId: number, kind: ConnectionKind, list: ConnectionInput[]): Promise<ConnectionRow[]> {
  const db = t.env.DB;
  await productOr404(db, t.tenantId, productId);
  let result: ConnectionRow[] = [];
  await changeVersion(t, productId, async (current) => {
    const existing = await store.connectionsOfVersion(db, t.tenantId, current, kind);
    const errors: ErrorsByPath = {};
    // A design without designGroup removes it from every group.
    const matches = (x: ConnectionRow, c: ConnectionInput) => x.assetId === c.assetId && (kind === 'mockup' || c.designGroup === undefined || (c.designGroup ?? null) === x.designGroup);
    list.forEach((c, i) => {
      if (!existing.some((x) => matches(x, c))) errors[`connections[${i}].${kind}Id`] = [`${c.assetId} is not connected to product ${productId}.`];
    });
    if (Object.keys(errors).length) throw new NotFoundError('Some of the connections do not exist; nothing was changed.', errors);
    result = existing.filter((x) => !list.some((c) => matches(x, c)));
    return kind === 'design' ? { designConnections: result } : { mockupConnections: result };
  });
  return result;
}

// --- image -------------------------------------------------------------------------------------------------

const IMAGE_LIMIT = { bytes: 50 * 1024 * 1024, what: 'A product image' };

/** set-image: the uploaded file becomes a public resource (anonymous URL) and the product's image. */
export async function setProductImage(t: TenantContext, productId: number, request: Request): Promise<ProductDtoOut> {
  const db = t.env.DB;
  await productOr404(db, t.tenantId, productId);
  const received = await receiveUpload(t, request, ['file', 'image'], IMAGE_LIMIT);
  if (!received.staged) throw new ValidationError({ file: ['Send the image as the multipart field "file".'] });
  const row = await createAsset(scopeFor(t, assetKind('resource', false), undefined), {
    staged: received.staged,
    filename: received.filename,
    declaredType: received.contentType,
    name: received.filename ? undefined : `product-${productId}-image`,
    namespace: 'product-images',
    resourceType: 'General',
    anonymousAccess: true,
  });
  await store.setProductImageId(db, t.tenantId, productId, row.id);
  return getProduct(t, productId);
}
