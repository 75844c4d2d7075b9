/**
 * extract-assets: the assets `assetIds` of `assetType` (Design, PrivateDesign, Image,
 * PrivateImage) become output members in the order given, as borrowed blobs (no copy; cleanup
 * never deletes a borrowed key). Private assets are those of the job's owner (a job without an
 * owner has none). A design's member names the asset as its source, so the render tasks render
 * it as they render extract-project-design's. Empty ids (what an optional `{{x?}}` leaves) are
 * skipped; an id that is not there fails the task naming it.
 */
import { assetOfOwner } from '../../assets';
import { assetKey } from './assets';
import { TaskFailure } from './errors';
import type { TaskModule } from './types';
import type { TaskParams } from '../language';

const TYPES: Record<TaskParams<'extract-assets'>['assetType'], { type: 'design' | 'image'; private: boolean }> = {
  Design: { type: 'design', private: false },
  PrivateDesign: { type: 'design', private: true },
  Image: { type: 'image', private: false },
  PrivateImage: { type: 'image', private: true },
};

export const extractAssets: TaskModule<'extract-assets'> = {
  async run(ctx, p) {
    const out = ctx.task.outputs[0]!;
    const kind = TYPES[p.assetType];
    const ids = p.assetIds.map((s) => s.trim()).filter(Boolean);
    if (!ids.length) throw new TaskFailure('assetIds: there is nothing to extract');
    if (!out.collection && ids.length > 1) throw new TaskFailure(`assetIds has ${ids.length} entries; ${out.name} takes one (use ${out.name}*)`);
    if (kind.private && !ctx.ownerId) throw new TaskFailure(`assetType ${p.assetType}: the job has no owner, so it has no private assets`);
    const owner = kind.private ? ctx.ownerId! : '';
    for (const id of ids) {
      const a = await assetOfOwner(ctx.env.DB, ctx.tenantId, id, kind.type, owner);
      if (!a?.blobSha) throw new TaskFailure(`assetIds: there is no ${kind.private ? 'private ' : ''}${kind.type} ${id.slice(0, 100)}`);
      const printProduct = a.designType === 'PrintProduct';
      const raw = printProduct ? 'json' : (a.format ?? /\.([A-Za-z0-9]{1,5})$/.exec(a.name)?.[1] ?? (kind.type === 'design' ? 'psd' : 'bin')).toLowerCase();
      const ext = raw === 'jpeg' ? 'jpg' : raw;
      const fileName = /\.[A-Za-z0-9]{1,5}$/.test(a.name) && [ext, raw].some((e) => a.name.toLowerCase().endsWith(`.${e}`)) ? a.name : `${a.name}.${ext}`;
      await ctx.output(out.name, {
        ext,
        fileName,
        format: ext,
        borrowedKey: assetKey(ctx.tenantId, a.blobSha),
        size: a.size,
        contentType: a.mimeType ?? undefined,
        source: kind.type === 'design' ? a.id : null,
      });
    }
  },
};
