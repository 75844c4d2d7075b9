/**
 * extract-project-resource: the items' resources of `resourceType` (and `resourceName`), as
 * borrowed blobs. extract-project-artifacts (ours, post-processing): finals of the project's
 * earlier jobs whose member name (alias) or base name is in `artifacts`, as borrowed keys.
 */
import { finalArtifactsOfCompletedJobs } from '../../assets';
import { assetById, assetKey } from './assets';
import { TaskFailure } from './errors';
import { numericItemId, snapshotItems } from './project';
import type { TaskModule } from './types';

export const extractProjectResource: TaskModule<'extract-project-resource'> = {
  async run(ctx, p) {
    const out = ctx.task.outputs[0]!;
    const type = p.resourceType;
    const wanted = p.resourceName ? p.resourceName.toLowerCase() : null;
    const found = snapshotItems(ctx).flatMap((item) =>
      item.resources
        .filter((r) => r.type === type && (!wanted || (r.name ?? '').toLowerCase() === wanted))
        .map((r) => ({ resourceId: r.resourceId, itemId: numericItemId(item.id) })),
    );
    if (!found.length) throw new TaskFailure(`the project has no ${type} resource${wanted ? ` named ${p.resourceName}` : ''}`);
    if (!out.collection && found.length > 1) throw new TaskFailure(`the project has ${found.length} such resources; ${out.name} takes one`);
    for (const f of found) {
      const a = await assetById(ctx.env, ctx.tenantId, f.resourceId, ['resource']);
      if (!a?.blobSha) throw new TaskFailure(`there is no resource ${f.resourceId}`);
      const ext = (a.format ?? a.name.split('.').pop() ?? 'bin').toLowerCase();
      await ctx.output(out.name, { ext, fileName: a.name, format: a.format, borrowedKey: assetKey(ctx.tenantId, a.blobSha), itemId: f.itemId, source: a.id });
    }
  },
};

export const extractProjectArtifacts: TaskModule<'extract-project-artifacts'> = {
  async run(ctx, p) {
    if (ctx.projectId == null) throw new TaskFailure('the job has no project');
    const names = p.artifacts.map((n) => n.replace(/[*?]$/, ''));
    const results = await finalArtifactsOfCompletedJobs(ctx.env.DB, ctx.tenantId, ctx.projectId, ctx.jobId);
    const outputs = ctx.task.outputs;
    let any = false;
    for (const [i, n] of names.entries()) {
      const out = outputs[Math.min(i, outputs.length - 1)]!;
      const matches = results.filter((r) => r.key && (r.alias === n || (r.alias ?? '').replace(/\d+$/, '') === n));
      for (const m of matches) {
        any = true;
        await ctx.output(out.name, {
          ext: (m.format ?? 'bin').toLowerCase(), fileName: m.name, format: m.format, borrowedKey: m.key!, size: m.size, itemId: m.itemId,
        });
      }
    }
    if (!any) throw new TaskFailure(`no earlier job of the project has the final artifacts ${names.join(', ')}`);
  },
};
