// A project item's designs drawn with the item's own data, for the project page: the item's
// Preview resource when the shop attached one, else each of its designs (its designIds, else its
// product variant's designs) rendered by the atoms render (the platform's render-preview) with
// the item's `fields` as variable data. Only fields named like a variable of the design (print
// products) or a text / image layer (PSD) are applied: the rest of an order's fields (a quantity
// note, a colour name) are not the design's and would make the render refuse the data.
import * as assets from '../../platform/assets';
import { renderDesign, type RenderedFile } from '../../platform/designs/outputs';
import { loadDesign, type StoredDesign } from '../../platform/designs/store';
import { variantDesigns } from '../../platform/catalogue/variant-assets';
import { NotFoundError, PlatformError, type TenantContext } from '../../platform/core';
import { itemVariableData } from '../../platform/projects/item-data';
import type { ItemRow } from '../../platform/projects/store';
import { sha256Hex } from '../../engine/hash';
import { cachedRender } from './render-cache';

const SIZE = 480;

const parse = <T>(text: string | null | undefined, fallback: T): T => {
  try {
    return text ? (JSON.parse(text) as T) : fallback;
  } catch {
    return fallback;
  }
};

/** The designs an item is made of: its own designIds, else its product variant's (each once). */
export async function itemDesignIds(t: TenantContext, item: ItemRow): Promise<string[]> {
  const own = parse<string[]>(item.design_ids, []);
  if (own.length || item.product_version_id == null) return own;
  const rows = await variantDesigns(t.env.DB, t.tenantId, item.product_version_id, item.product_variant_id).catch((e) => {
    if (e instanceof NotFoundError) return [];
    throw e;
  });
  return [...new Set(rows.map((r) => r.designId))];
}

/** The design as the project's owner sees it: the public one, else the owner's private one. */
async function designFor(t: TenantContext, designId: string, ownerId: string): Promise<StoredDesign> {
  try {
    return await loadDesign(t, designId);
  } catch (e) {
    if (!(e instanceof NotFoundError) || !ownerId) throw e;
    return loadDesign(t, designId, ownerId);
  }
}

export interface ItemPreview {
  file: RenderedFile;
  /** The fields drawn into the design ('' when none); `resource` when the shop's Preview was used. */
  applied: string;
}

/** The item's attached Preview resource (public, or the project owner's), or null. */
async function attachedPreview(t: TenantContext, item: ItemRow, ownerId: string): Promise<RenderedFile | null> {
  for (const r of parse<Array<{ resourceId: string | null; type: string }>>(item.resources, [])) {
    if (r.type !== 'Preview' || !r.resourceId) continue;
    const scopes = [assets.scopeFor(t, assets.assetKind('resource', false), undefined), ...(ownerId ? [assets.scopeFor(t, assets.assetKind('resource', true), ownerId)] : [])];
    for (const scope of scopes) {
      const row = await assets.findAsset(scope, r.resourceId);
      const bytes = row && (await assets.readAssetBytes(t.env.FILES, row));
      if (row && bytes) return { bytes, mime: row.mimeType ?? 'application/octet-stream', ext: '' };
    }
  }
  return null;
}

/**
 * The preview of `designId` (one of the item's designs) with the item's data. Data the render
 * refuses (an image the tenant does not have, a text over a variable's limit) → drawn without
 * it, so the page still shows the design; `applied` then says so.
 */
export async function itemPreview(t: TenantContext, ownerId: string, item: ItemRow, designId: string | undefined): Promise<ItemPreview> {
  const attached = designId ? null : await attachedPreview(t, item, ownerId);
  if (attached) return { file: attached, applied: 'resource' };
  const ids = await itemDesignIds(t, item);
  const id = designId ?? ids[0];
  if (!id || !ids.includes(id)) throw new NotFoundError('This item has no such design.');
  const d = await designFor(t, id, ownerId);
  // The same design file with the same fields draws the same image (render-cache.ts).
  const key = ['item-preview', t.tenantId, id, d.etag, await sha256Hex(item.fields ?? '')];
  const cached = await cachedRender(key, async () => {
    const p = await draw(t, d, item);
    return { bytes: p.file.bytes, mime: p.file.mime, note: p.applied, keep: !p.applied.startsWith('not applied') };
  });
  return { file: { bytes: cached.bytes, mime: cached.mime, ext: '' }, applied: cached.note };
}

async function draw(t: TenantContext, d: StoredDesign, item: ItemRow): Promise<ItemPreview> {
  const id = d.row.id;
  const variableData = await itemVariableData(t, d, parse<Record<string, unknown>>(item.fields, {}));
  const req = { designId: id, ownerId: d.row.ownerId || undefined, renderingConfig: { width: SIZE, height: SIZE, fileFormat: 'Jpeg' as const, mockupStrategy: 'None' as const } };
  if (variableData.length) {
    try {
      return { file: await renderDesign(t, { ...req, variableData }, false), applied: variableData.map((v) => v.name).join(', ') };
    } catch (e) {
      if (!(e instanceof PlatformError) || e.status >= 500) throw e;
      return { file: await renderDesign(t, req, false), applied: `not applied: ${e.message}` };
    }
  }
  return { file: await renderDesign(t, req, false), applied: '' };
}
