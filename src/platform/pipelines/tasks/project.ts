/** Reading the job's project snapshot (ProjectDto or ProjectInfo) the same way in every task. */
import type { UnitContext } from './types';

export interface SnapshotItem {
  id: number | string | null;
  name: string | null;
  quantity: number;
  designIds: string[];
  fields: Record<string, unknown>;
  resources: Array<{ resourceId: string; name: string; type: string }>;
  orderLineItemId: string | null;
  orderLineItemIndex: number | null;
  raw: Record<string, unknown>;
}

export function snapshotItems(ctx: Pick<UnitContext, 'project' | 'itemId'>): SnapshotItem[] {
  const items = Array.isArray(ctx.project?.items) ? (ctx.project!.items as Array<Record<string, unknown>>) : [];
  const all = items.map((raw) => ({
    id: (raw.id ?? raw.itemId ?? null) as number | string | null,
    name: (raw.name as string | null) ?? null,
    quantity: typeof raw.quantity === 'number' ? raw.quantity : 1,
    designIds: Array.isArray(raw.designIds) ? (raw.designIds as string[]) : [],
    fields: (raw.fields as Record<string, unknown>) ?? {},
    resources: Array.isArray(raw.resources) ? (raw.resources as SnapshotItem['resources']) : [],
    orderLineItemId: (raw.orderLineItemId as string | null) ?? null,
    orderLineItemIndex: (raw.orderLineItemIndex as number | null) ?? null,
    raw,
  }));
  // An item job works on its item only.
  return ctx.itemId == null ? all : all.filter((i) => String(i.id) === String(ctx.itemId));
}

/** A numeric project item id, or null (stand-alone jobs' items may have client ids). */
export const numericItemId = (id: unknown): number | null => (typeof id === 'number' ? id : typeof id === 'string' && /^\d+$/.test(id) ? Number(id) : null);

/** `outputName` or the source name without extension, `_<n>` per extra page. */
export function outputBase(params: { outputName?: string }, sourceName: string): string {
  const given = params.outputName?.trim() || null;
  return given ?? sourceName.replace(/\.[A-Za-z0-9]{1,5}$/, '');
}
