/**
 * Previews on 2D mockups: render-design-preview-with-mockup (the design) and
 * render-image-preview-with-mockup / render-image-preview with `mockups` (the image) placed into
 * each mockup's artwork layer (its first smart object) by the engine's perspective placement —
 * the design atoms' `placeInMockup`, so both areas draw mockups the same way. One output member
 * per mockup (and per image). Public mockups of the tenant; a 3D mockup fails the task.
 */
import { ServerTiming } from '../../../http/server-timing';
import { placeInMockup } from '../../atoms/render';
import { runnerTenant } from '../../jobs/d1';
import { TaskFailure } from './errors';
import { outputBase } from './project';
import { designOf, renderImage } from './render';
import type { TaskModule, UnitContext } from './types';

/** Writes `art` placed into each of the task's mockups. */
export async function onMockups(ctx: UnitContext, sourceName: string, art: (width: number, height: number) => Promise<Uint8Array>, source: string | null, itemId?: number | null) {
  const mockups = (ctx.params.mockups as string[] | undefined) ?? [];
  if (!mockups.length) throw new TaskFailure('mockups: name at least one mockup');
  const png = ctx.params.previewOutputFileFormat === 'Png';
  const t = runnerTenant(ctx.env, ctx.tenantId, ctx.baseUrl);
  for (const [i, mockupId] of mockups.entries()) {
    const file = await placeInMockup(
      t,
      { mockupId },
      { width: Number(ctx.params.previewOutputWidth), height: Number(ctx.params.previewOutputHeight), fileFormat: png ? 'Png' : 'Jpeg' },
      undefined,
      new ServerTiming(),
      art,
    );
    const name = mockups.length > 1 ? `${outputBase(ctx.params, sourceName)}_${i + 1}` : outputBase(ctx.params, sourceName);
    await ctx.output(ctx.task.outputs[0]!.name, { ext: file.ext, fileName: `${name}.${file.ext}`, format: png ? 'png' : 'jpeg', bytes: file.bytes, contentType: file.mime, source, itemId });
  }
}

export const renderDesignPreviewWithMockup: TaskModule = {
  async run(ctx) {
    const ref = ctx.task.inputs[0]!;
    const input = ctx.member ?? ctx.inputs(ref.name)[0];
    if (!input) throw new TaskFailure(`${ref.name} is missing`);
    const design = await designOf(ctx, input);
    await onMockups(ctx, design.name, async (w, h) => (await renderImage(ctx, design.id, 'png', { box: { width: w, height: h } })).bytes, design.id);
  },
};
