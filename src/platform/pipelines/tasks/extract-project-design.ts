/**
 * extract-project-design → designs: the items' designIds, else the item variant's designs
 * (productSpecifier, sku, the only variant). More designs than a single output takes fails.
 * The design is not copied: its artifact borrows the asset's blob key (cleanup never deletes a
 * borrowed key) and names the asset as its source, which the render tasks render.
 */
import { storedItemDesignIds } from '../../projects/item-designs';
import { designOr404, assetKey } from './assets';
import { TaskFailure } from './errors';
import { numericItemId, snapshotItems } from './project';
import type { TaskModule } from './types';

export const extractProjectDesign: TaskModule<'extract-project-design'> = {
  async run(ctx) {
    const out = ctx.task.outputs[0]!;
    const found: Array<{ designId: string; itemId: number | null }> = [];
    for (const item of snapshotItems(ctx)) {
      const itemId = numericItemId(item.id);
      // The one resolver the storefront preview uses too (src/platform/projects/item-designs.ts).
      const ids = await storedItemDesignIds(ctx.env.DB, ctx.tenantId, ctx.projectId != null ? itemId : null, item.designIds);
      for (const designId of ids) found.push({ designId, itemId });
    }
    if (!found.length) throw new TaskFailure('the project has no designs');
    if (!out.collection && found.length > 1) throw new TaskFailure(`the project has ${found.length} designs; ${out.name} takes one (use ${out.name}*)`);
    for (const f of found) {
      const d = await designOr404(ctx.env, ctx.tenantId, f.designId);
      const ext = d.designType === 'PrintProduct' ? 'json' : (d.format ?? 'psd').toLowerCase();
      await ctx.output(out.name, {
        ext,
        fileName: `${d.name}.${ext}`,
        format: d.designType === 'PrintProduct' ? 'json' : ext,
        borrowedKey: assetKey(ctx.tenantId, d.blobSha),
        itemId: f.itemId,
        source: d.id,
      });
    }
  },
};
