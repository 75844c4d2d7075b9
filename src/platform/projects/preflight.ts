/**
 * Preflight of a project item's designs (issue 21): each design the item has (item-designs.ts:
 * its designIds, else its product variant's) checked by the design atoms' preflight with the
 * item's fields, filled in as the project preview fills them (item-data.ts). The storefront's
 * project create records the result on the item; the pipeline's `preflight` task checks one
 * design artifact with the same call.
 */
import * as assets from '../assets';
import { NotFoundError, type TenantContext } from '../core';
import { preflightDesign } from '../designs/preflight';
import { loadDesign } from '../designs/store';
import { preflightSummary, problemsOfDesign, type PreflightSummary } from '../jobs/preflight';
import { itemVariableData } from './item-data';
import { itemDesignIds, type ItemDesignSource } from './item-designs';

/** Designs checked at once while a project is created (each check lays out text and reads images). */
const PARALLEL = 4;

/** One design (public or private: its owner is read) filled with `fields`, preflighted. */
export async function designPreflight(t: TenantContext, designId: string, fields: Record<string, unknown>) {
  const owner = await assets.designOwner(t.env.DB, t.tenantId, designId);
  if (owner === null) throw new NotFoundError(`No design ${designId}.`);
  const ownerId = owner || undefined;
  const variableData = await itemVariableData(t, await loadDesign(t, designId, ownerId), fields);
  return preflightDesign(t, { designId, ownerId, variableData });
}

/**
 * An item's preflight at creation: its designs' problems together, or null when it has no
 * design. A design the preflight cannot check (a broken or vanished file, an engine refusal)
 * gives null too, logged: the create goes on and the storefront sees the item as unchecked.
 */
export async function itemPreflight(t: TenantContext, item: ItemDesignSource & { fields: Record<string, unknown> }): Promise<PreflightSummary | null> {
  const ids = await itemDesignIds(t.env.DB, t.tenantId, item);
  if (!ids.length) return null;
  try {
    const reports = await Promise.all(ids.map(async (id) => problemsOfDesign(id, (await designPreflight(t, id, item.fields)).problems)));
    return preflightSummary(reports.flat());
  } catch (e) {
    console.warn(`preflight of ${ids.join(', ')} left out: ${e instanceof Error ? e.message : String(e)}`);
    return null;
  }
}

/**
 * itemPreflight of each item, a few at a time, in item order. Items alike in design and fields
 * (an order's lines of one card) are checked once.
 */
export async function itemsPreflight(t: TenantContext, items: ReadonlyArray<ItemDesignSource & { fields: Record<string, unknown> }>): Promise<Array<PreflightSummary | null>> {
  const out: Array<PreflightSummary | null> = new Array(items.length).fill(null);
  const checked = new Map<string, Promise<PreflightSummary | null>>();
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      const item = items[i]!;
      const key = JSON.stringify([item.designIds, item.productVersionId, item.productVariantId, item.fields]);
      if (!checked.has(key)) checked.set(key, itemPreflight(t, item));
      out[i] = await checked.get(key)!;
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, items.length) }, worker));
  return out;
}
