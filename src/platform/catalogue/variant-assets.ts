/**
 * Variant designs and mockups (contract, "Storefront"): a row per variant × connected design (or
 * mockup) whose option binding matches the variant; an empty binding matches every variant.
 */
import { NotFoundError, type TenantContext } from '../core';
import { filterVariants, productOr404, variantDto, variantsOfVersion, versionOf, type Variant, type VariantFilter } from './products';
import { connectedAssetHeads, connectionsOfVersion, type ConnectedAssetHead, type ConnectionKind } from './store/products';
import type { ConnectionRow } from './store/versions';

/** Does a connection's binding (`[{optionUID, optionValueUIDs}]`) select this variant? */
export const bindingMatches = (c: ConnectionRow, v: Pick<Variant, '_values'>): boolean =>
  c.options.every((b) => {
    const chosen = v._values.get(b.optionUID);
    return chosen !== undefined && b.optionValueUIDs.includes(chosen);
  });

export interface VariantAssetRow {
  variant: Variant;
  connection: ConnectionRow;
  asset: ConnectedAssetHead;
}

/** Every (variant, connection) pair of a version whose binding matches; deleted assets drop out. */
export async function variantAssetRows(db: D1Database, tenantId: number, versionId: number, kind: ConnectionKind, variants?: Variant[]): Promise<VariantAssetRow[]> {
  const list = variants ?? (await variantsOfVersion(db, tenantId, versionId));
  const connections = await connectionsOfVersion(db, tenantId, versionId, kind);
  if (!connections.length) return [];
  const heads = await connectedAssetHeads(db, tenantId, kind, [...new Set(connections.map((c) => c.assetId))]);
  const out: VariantAssetRow[] = [];
  for (const variant of list) {
    for (const connection of connections) {
      const asset = heads.get(connection.assetId);
      if (asset && bindingMatches(connection, variant)) out.push({ variant, connection, asset });
    }
  }
  return out;
}

const normaliseFolder = (p: string) => `/${p.split('/').filter(Boolean).join('/')}${p.split('/').filter(Boolean).length ? '/' : ''}`.toLowerCase();

function customFieldsHave(json: string, want: Record<string, unknown>): boolean {
  let have: Record<string, unknown> = {};
  try {
    have = JSON.parse(json) as Record<string, unknown>;
  } catch {
    /* stored JSON is ours */
  }
  return Object.entries(want).every(([k, v]) => k in have && JSON.stringify(have[k]) === JSON.stringify(v));
}

export interface VariantDesignQuery extends VariantFilter {
  productVersionId?: string;
  skip: number;
  take: number;
  search?: string;
  designPath?: string;
  designCustomFields?: Record<string, unknown>;
  mockupValidationType?: string;
}

/** GET /products/{id}/variant-designs and /variant-mockups. */
export async function listVariantAssets(t: TenantContext, productId: number, kind: ConnectionKind, q: VariantDesignQuery) {
  const db = t.env.DB;
  const product = await productOr404(db, t.tenantId, productId);
  const version = await versionOf(db, t.tenantId, product, q.productVersionId);
  const variants = filterVariants(await variantsOfVersion(db, t.tenantId, version), q);
  let rows = await variantAssetRows(db, t.tenantId, version, kind, variants);
  if (q.search) rows = rows.filter((r) => r.asset.name.toLowerCase().includes(q.search!.toLowerCase()));
  if (q.designPath !== undefined && q.designPath !== '') rows = rows.filter((r) => r.asset.path.toLowerCase() === normaliseFolder(q.designPath!));
  if (q.designCustomFields) rows = rows.filter((r) => customFieldsHave(r.asset.customFields, q.designCustomFields!));
  if (q.mockupValidationType) rows = rows.filter((r) => (r.asset.mockupType ?? 'Mockup2D') === q.mockupValidationType);
  const items = rows.slice(q.skip, q.skip + q.take).map((r) => {
    const { id, uid, ...rest } = variantDto(r.variant);
    const base = { productVariantId: id, productVariantUID: uid, ...rest, personalizationWorkflowId: product.personalizationWorkflowId };
    return kind === 'design'
      ? { ...base, designId: r.asset.id, designName: r.asset.name, designGroup: r.connection.designGroup }
      : { ...base, mockupId: r.asset.id, mockupName: r.asset.name, mockupValidationType: (r.asset.mockupType ?? 'Mockup2D') as 'Mockup2D' | 'Mockup3D' | 'MockupLink' };
  });
  return { total: rows.length, items };
}

/**
 * The designs of a product version for a variant (project creation, personalization
 * parameters): `[{designId, designName, designGroup, productVariantId}]`. No variant: every
 * variant's designs (a design connected to all variants is listed once per variant).
 */
export async function variantDesigns(db: D1Database, tenantId: number, productVersionId: number, productVariantId?: number | null) {
  let variants = await variantsOfVersion(db, tenantId, productVersionId);
  if (productVariantId != null) {
    variants = variants.filter((v) => v.id === productVariantId);
    if (!variants.length) throw new NotFoundError(`Product version ${productVersionId} has no variant ${productVariantId}.`);
  }
  return (await variantAssetRows(db, tenantId, productVersionId, 'design', variants)).map((r) => ({
    designId: r.asset.id,
    designName: r.asset.name,
    designGroup: r.connection.designGroup,
    productVariantId: r.variant.id,
  }));
}

/** Like variantDesigns, for mockups. */
export async function variantMockups(db: D1Database, tenantId: number, productVersionId: number, productVariantId?: number | null) {
  let variants = await variantsOfVersion(db, tenantId, productVersionId);
  if (productVariantId != null) variants = variants.filter((v) => v.id === productVariantId);
  return (await variantAssetRows(db, tenantId, productVersionId, 'mockup', variants)).map((r) => ({
    mockupId: r.asset.id,
    mockupName: r.asset.name,
    mockupValidationType: (r.asset.mockupType ?? 'Mockup2D') as 'Mockup2D' | 'Mockup3D' | 'MockupLink',
    productVariantId: r.variant.id,
  }));
}
