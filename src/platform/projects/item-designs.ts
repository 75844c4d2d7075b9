/**
 * "The designs of a project item", one answer for every reader: the storefront's project preview
 * (`/projects/{id}/preview`, `/preview-url`) and the pipeline's `extract-project-design`. The
 * item's own `designIds` when it names any, else the designs connected to its product variant
 * (every variant of its product version when it resolved to none), each once.
 */
import { variantDesigns } from '../catalogue/variant-assets';
import * as store from './store';

export interface ItemDesignSource {
  designIds: string[];
  productVersionId: number | null;
  productVariantId: number | null;
}

/** The design ids of an item whose product is known (a stored item row). */
export async function itemDesignIds(db: D1Database, tenantId: number, item: ItemDesignSource): Promise<string[]> {
  if (item.designIds.length) return item.designIds;
  if (item.productVersionId == null) return [];
  const designs = await variantDesigns(db, tenantId, item.productVersionId, item.productVariantId);
  return [...new Set(designs.map((d) => d.designId))];
}

/** itemDesignIds for an item known by id (a job's project snapshot): its product is read from D1. */
export async function storedItemDesignIds(db: D1Database, tenantId: number, itemId: number | null, designIds: string[]): Promise<string[]> {
  if (designIds.length || itemId == null) return designIds;
  const p = await store.itemProduct(db, tenantId, itemId);
  return itemDesignIds(db, tenantId, { designIds, productVersionId: p?.versionId ?? null, productVariantId: p?.variantId ?? null });
}
