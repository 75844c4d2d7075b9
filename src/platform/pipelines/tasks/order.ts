/**
 * export-to-ecommerce (attach-data-to-order): `orderData [{key, value, type}]` upserted into the
 * project's order data (the job's item, else the project), by key, so a redone unit writes the
 * same. sn-export-order-details-to-csv: a CSV of the order — order number, item, quantity,
 * customer (or company) name and cost (variant price × quantity).
 */
import { itemVariantPrices, upsertOrderData } from '../../projects/store';
import { TaskFailure } from './errors';
import { numericItemId, snapshotItems } from './project';
import type { TaskModule } from './types';

export const exportToEcommerce: TaskModule<'export-to-ecommerce'> = {
  async run(ctx, p) {
    if (ctx.projectId == null) throw new TaskFailure('the job has no project to attach order data to');
    const ok = await upsertOrderData(ctx.env.DB, ctx.tenantId, ctx.projectId, ctx.itemId ?? 0, p.orderData, 200);
    if (!ok) throw new TaskFailure('orderData: the project would have more than 200 order-data keys');
  },
};

const csvCell = (v: unknown) => {
  const s = v === null || v === undefined ? '' : String(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

export const exportOrderDetailsToCsv: TaskModule<'sn-export-order-details-to-csv'> = {
  async run(ctx, p) {
    const project = ctx.project ?? {};
    const customer = (project.customerName as string | null) ?? (project.companyName as string | null) ?? '';
    const items = snapshotItems(ctx);
    const ids = items.map((i) => numericItemId(i.id)).filter((id): id is number => id !== null);
    const prices = ctx.projectId != null && ids.length ? await itemVariantPrices(ctx.env.DB, ctx.tenantId, ids) : new Map<number, number>();
    const rows = [['OrderNumber', 'Item', 'Quantity', 'CustomerName', 'Cost']];
    for (const item of items) {
      const price = prices.get(numericItemId(item.id) ?? -1);
      const cost = price === undefined ? '' : Math.round(price * item.quantity * 100) / 100;
      rows.push([String(project.orderNumber ?? ''), item.name ?? String(item.id ?? ''), String(item.quantity), customer, String(cost)]);
    }
    const csv = rows.map((r) => r.map(csvCell).join(',')).join('\r\n') + '\r\n';
    const out = ctx.task.outputs[0]!.name;
    const name = p.outputName || 'order-details';
    await ctx.output(out, { ext: 'csv', fileName: `${name}.csv`, format: 'csv', bytes: new TextEncoder().encode(csv), contentType: 'text/csv' });
  },
};
