/**
 * Previews on 2D mockups: render-design-preview-with-mockup (the design) and
 * render-image-preview-with-mockup / render-image-preview with `mockups` (the image) placed into
 * each mockup's artwork layer (its first smart object) by the engine's perspective placement —
 * the design atoms' `placeInMockup`, so both areas draw mockups the same way. One output member
 * per mockup (and per image). Mockups: the tenant's public ones, then the job owner's private ones
 * (the project's storefront user; none for a job without an owner); a 3D mockup fails the task. A
 * print-product design places its first surface (into the artwork layer named like the surface,
 * else the first), with its stub and, with `visualizePrintAreas`, its print-area bounds; designs
 * are personalised by the item's `fields`.
 */
import { ServerTiming } from '../../../http/server-timing';
import { placeInMockup } from '../../designs/outputs';
import { runnerTenant } from '../../jobs/d1';
import { assetKind, findAsset, scopeFor } from '../../assets';
import type { TenantContext } from '../../core';
import { TaskFailure } from './errors';
import { outputBase } from './project';
import { itemFields, printProductVariables, psdFieldData } from './personalise';
import { loadModel, surfacePicture } from './print-product';
import { designOf, isPrintProduct, renderImage } from './render';
import type { TaskModule, UnitContext } from './types';
import { unitInput } from './unit-input';
import type { TaskParams } from '../language';

/** What placing into mockups reads: the mockups (optional for render-image-preview), the picture size and format, `outputName`. */
type MockupParams = Pick<TaskParams<'render-design-preview-with-mockup'>, 'previewOutputWidth' | 'previewOutputHeight' | 'previewOutputFileFormat' | 'outputName'> & {
  mockups: string[] | undefined;
};

/** The owner of a private mockup `mockupId` the job may use; undefined for a public (or unknown) one. */
async function mockupOwnerOf(t: TenantContext, jobOwner: string | null, mockupId: string): Promise<string | undefined> {
  // A job without an owner has no private mockups (as extract-assets has no private assets).
  if (!jobOwner || (await findAsset(scopeFor(t, assetKind('mockup', false), null), mockupId))) return undefined;
  return (await findAsset(scopeFor(t, assetKind('mockup', true), jobOwner), mockupId))?.ownerId;
}

/** Writes `art` placed into each of the task's mockups. */
export async function onMockups(
  ctx: UnitContext,
  p: MockupParams,
  sourceName: string,
  art: (width: number, height: number) => Promise<Uint8Array>,
  source: string | null,
  itemId?: number | null,
  artworkName?: string,
) {
  const mockups = p.mockups ?? [];
  if (!mockups.length) throw new TaskFailure('mockups: name at least one mockup');
  const png = p.previewOutputFileFormat === 'Png';
  const t = runnerTenant(ctx.env, ctx.tenantId, ctx.baseUrl);
  for (const [i, mockupId] of mockups.entries()) {
    const file = await placeInMockup(
      t,
      { mockupId, mockupOwnerId: await mockupOwnerOf(t, ctx.ownerId, mockupId) },
      { width: p.previewOutputWidth, height: p.previewOutputHeight, fileFormat: png ? 'Png' : 'Jpeg' },
      artworkName,
      new ServerTiming(),
      art,
    );
    const name = mockups.length > 1 ? `${outputBase(p, sourceName)}_${i + 1}` : outputBase(p, sourceName);
    await ctx.output(ctx.task.outputs[0]!.name, { ext: file.ext, fileName: `${name}.${file.ext}`, format: png ? 'png' : 'jpeg', bytes: file.bytes, contentType: file.mime, source, itemId });
  }
}

export const renderDesignPreviewWithMockup: TaskModule<'render-design-preview-with-mockup'> = {
  async run(ctx, p) {
    const input = unitInput(ctx);
    const design = await designOf(ctx, input);
    const fields = itemFields(ctx, input);
    if (isPrintProduct(design)) {
      // The first surface, into the artwork layer named like it (else the mockup's first).
      const model = await loadModel(ctx, design);
      const vars = printProductVariables(model, fields);
      const visualizePrintAreas = p.visualizePrintAreas;
      const art = async (width: number, height: number) => (await surfacePicture(ctx, model, 0, { width, height, format: 'png', stub: true, visualizePrintAreas }, vars)).bytes;
      await onMockups(ctx, p, design.name, art, design.id, undefined, model.surfaces[0]?.name);
      return;
    }
    const data = await psdFieldData(ctx, design.id, fields);
    await onMockups(ctx, p, design.name, async (w, h) => (await renderImage(ctx, design.id, 'png', { box: { width: w, height: h } }, 90, data)).bytes, design.id);
  },
};
